// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw verbs: user contexts, protection domains, the mmap of the rings
 * shared with libsiw, and the table of every verb kiw implements.
 *
 * User space reaches kiw through the siw ABI (include/uapi/rdma/siw-abi.h):
 * the device reports RDMA_DRIVER_SIW and ABI version 1, so rdma-core's
 * libsiw provider drives it unchanged.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "kiw.h"
#include "kiw_cq.h"
#include "kiw_mem.h"
#include "kiw_qp.h"
#include "kiw_srq.h"

/* Take one of @max slots of @count, or fail with -ENOMEM. */
int kiw_take_slot(atomic_t *count, int max)
{
	if (atomic_inc_return(count) > max) {
		atomic_dec(count);
		return -ENOMEM;
	}
	return 0;
}

static int kiw_alloc_ucontext(struct ib_ucontext *base, struct ib_udata *udata)
{
	struct kiw_device *kdev = to_kiw_dev(base->device);
	struct siw_uresp_alloc_ctx uresp = {
		.dev_id = KIW_VENDOR_PART_ID,
	};
	int ret;

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	ret = kiw_take_slot(&kdev->num_ucontext, KIW_MAX_UCONTEXT);
	if (ret)
		return ret;
	ret = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
	if (ret)
		atomic_dec(&kdev->num_ucontext);
	return ret;
}

static void kiw_dealloc_ucontext(struct ib_ucontext *base)
{
	atomic_dec(&to_kiw_dev(base->device)->num_ucontext);
}

static int kiw_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return kiw_take_slot(&to_kiw_dev(pd->device)->num_pd, KIW_MAX_PD);
}

static int kiw_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	atomic_dec(&to_kiw_dev(pd->device)->num_pd);
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

/* Withdraw a ring's mapping entry, if it was offered one; free the ring. */
void kiw_mmap_ring_free(struct rdma_user_mmap_entry *entry, void *ring)
{
	if (entry)
		rdma_user_mmap_entry_remove(entry);
	vfree(ring);
}

static int kiw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
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

static void kiw_mmap_free(struct rdma_user_mmap_entry *entry)
{
	kfree(container_of(entry, struct kiw_mmap_entry, base));
}

void kiw_device_init_objects(struct kiw_device *kdev)
{
	xa_init_flags(&kdev->qp_xa, XA_FLAGS_ALLOC);
	xa_init(&kdev->mr_xa);
}

/* dealloc_driver: every object is gone by now. */
void kiw_device_fini_objects(struct kiw_device *kdev)
{
	WARN_ON(!xa_empty(&kdev->qp_xa));
	WARN_ON(!xa_empty(&kdev->mr_xa));
	xa_destroy(&kdev->qp_xa);
	xa_destroy(&kdev->mr_xa);
}

const struct ib_device_ops kiw_verbs_ops = {
	.alloc_mr = kiw_alloc_mr,
	.alloc_pd = kiw_alloc_pd,
	.alloc_ucontext = kiw_alloc_ucontext,
	.create_cq = kiw_create_cq,
	.create_qp = kiw_create_qp,
	.create_srq = kiw_create_srq,
	.dealloc_pd = kiw_dealloc_pd,
	.dealloc_ucontext = kiw_dealloc_ucontext,
	.dereg_mr = kiw_dereg_mr,
	.destroy_cq = kiw_destroy_cq,
	.destroy_qp = kiw_destroy_qp,
	.destroy_srq = kiw_destroy_srq,
	.get_dma_mr = kiw_get_dma_mr,
	.iw_add_ref = kiw_iw_add_ref,
	.iw_get_qp = kiw_iw_get_qp,
	.iw_rem_ref = kiw_iw_rem_ref,
	.map_mr_sg = kiw_map_mr_sg,
	.mmap = kiw_mmap,
	.mmap_free = kiw_mmap_free,
	.modify_qp = kiw_modify_qp,
	.modify_srq = kiw_modify_srq,
	.poll_cq = kiw_poll_cq,
	.post_recv = kiw_post_recv,
	.post_send = kiw_post_send,
	.post_srq_recv = kiw_post_srq_recv,
	.query_qp = kiw_query_qp,
	.query_srq = kiw_query_srq,
	.reg_user_mr = kiw_reg_user_mr,
	.req_notify_cq = kiw_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, kiw_cq, base),
	INIT_RDMA_OBJ_SIZE(ib_pd, kiw_pd, base),
	INIT_RDMA_OBJ_SIZE(ib_qp, kiw_qp, base),
	INIT_RDMA_OBJ_SIZE(ib_srq, kiw_srq, base),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, kiw_ucontext, base),
};
