// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw verbs objects' common ground: counting objects against the device
 * limits, and mapping an object's ring (CQ, SQ, RQ, SRQ) to user space.
 *
 * The verbs entry points (kiw_verbs.c) and the objects themselves
 * (kiw_cq.c, kiw_qp_verbs.c, kiw_srq.c, kiw_mr.c) call down into this
 * file; it calls nothing of theirs.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "kiw.h"
#include "kiw_obj.h"

/* Take one of @max slots of @count, or fail with -ENOMEM. */
int kiw_take_slot(atomic_t *count, int max)
{
	if (atomic_inc_return(count) > max) {
		atomic_dec(count);
		return -ENOMEM;
	}
	return 0;
}

/* A ring (vmalloc_user memory) user space may map with mmap(). */
struct kiw_mmap_entry {
	struct rdma_user_mmap_entry base;
	void *addr;
};

/*
 * libsiw takes the key SIW_INVAL_UOBJ_KEY to mean "no mapping" and gives up
 * on the object, so no key may ever equal it: keys start above it.
 */
#define KIW_MMAP_MIN_PGOFF ((SIW_INVAL_UOBJ_KEY >> PAGE_SHIFT) + 1)

/*
 * The ring of @size octets of an object, zeroed: for user space (@user),
 * vmalloc_user() memory, which may be mapped to user space
 * (remap_vmalloc_range() in kiw_mmap() refuses any other); else vzalloc()
 * memory. NULL if there is no memory. Free it with kiw_mmap_ring_free().
 */
void *kiw_mmap_ring_alloc(size_t size, bool user)
{
	return user ? vmalloc_user(size) : vzalloc(size);
}

/*
 * Offer the ring of @len octets at @addr (vmalloc_user() memory) to the user
 * context of @udata: *@entry is its mapping's entry, or NULL when this
 * fails, and *@key the mmap offset to tell libsiw. Hand the entry to
 * kiw_mmap_ring_free() when the object goes; the memory itself may outlive
 * a mapping's entry, since the pages a process has mapped are reference
 * counted.
 */
int kiw_mmap_ring(struct ib_udata *udata, void *addr, size_t len,
		  struct rdma_user_mmap_entry **entry, u64 *key)
{
	struct kiw_ucontext *uctx = rdma_udata_to_drv_context(udata,
				struct kiw_ucontext, base);
	struct kiw_mmap_entry *e;
	int ret;

	*entry = NULL;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->addr = addr;
	ret = rdma_user_mmap_entry_insert_range(&uctx->base, &e->base, len,
						KIW_MMAP_MIN_PGOFF, U32_MAX);
	if (ret) {
		kfree(e);
		return ret;
	}
	*key = rdma_user_mmap_get_offset(&e->base);
	*entry = &e->base;
	return 0;
}

/*
 * kiw_mmap_ring() for a create verb whose response to libsiw, @resp_len
 * octets with *@key in it, must fit in @udata: -EINVAL, with nothing
 * mapped, if it does not. The caller copies the response.
 */
int kiw_mmap_ring_resp(struct ib_udata *udata, size_t resp_len, void *addr,
		       size_t len, struct rdma_user_mmap_entry **entry,
		       u64 *key)
{
	if (udata->outlen < resp_len)
		return -EINVAL;
	return kiw_mmap_ring(udata, addr, len, entry, key);
}

/* Withdraw a ring's mapping entry, if it was offered one; free the ring. */
void kiw_mmap_ring_free(struct rdma_user_mmap_entry *entry, void *ring)
{
	if (entry)
		rdma_user_mmap_entry_remove(entry);
	vfree(ring);
}

int kiw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	int ret;

	/* Checks the size against the entry and that the mapping is shared. */
	entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!entry)
		return -EINVAL;
	ret = remap_vmalloc_range(vma,
				  container_of(entry, struct kiw_mmap_entry,
					       base)->addr, 0);
	rdma_user_mmap_entry_put(entry);
	return ret;
}

void kiw_mmap_free(struct rdma_user_mmap_entry *entry)
{
	kfree(container_of(entry, struct kiw_mmap_entry, base));
}
