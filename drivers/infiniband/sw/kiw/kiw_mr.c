// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw memory regions: the STag table, region lifetime, fast registration
 * and invalidation, and the MR verbs. The checks themselves are pure
 * functions in kiw_mem.c.
 *
 * Lifetime: a region is in kdev->mr_xa under its STag index from
 * registration until dereg_mr. Lookups run under RCU and take a reference
 * with kref_get_unless_zero(). dereg_mr removes the index, drops the verbs
 * reference and waits until every lookup reference is gone, so that no
 * byte is moved into or out of the region's memory once it returns; only
 * then does it release the memory, and the object itself goes with
 * kfree_rcu() because a lookup may still be looking at it.
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <rdma/ib_umem.h>
#include <rdma/siw-abi.h>
#include <kunit/visibility.h>

#include "kiw_mem.h"
#include "kiw_obj.h"

/* Enough tries that a full table (KIW_MAX_MR of 2^24) practically never fails. */
#define KIW_STAG_TRIES 64

/* The registration state's lock and its seqcount (also for KUnit's regions). */
void kiw_mr_init_sync(struct kiw_mr *mr)
{
	spin_lock_init(&mr->lock);
	seqcount_spinlock_init(&mr->seq, &mr->lock);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mr_init_sync);

static void kiw_mr_release(struct kref *ref)
{
	complete(&container_of(ref, struct kiw_mr, ref)->released);
}

/**
 * kiw_mr_get - find the region an STag's index names, with a reference
 * @kdev: the device
 * @stag: index and key; the key is not compared here (kiw_stag_check does)
 *
 * Context: any; does not sleep.
 * Return: the region, or NULL. Drop it with kiw_mr_put().
 */
struct kiw_mr *kiw_mr_get(struct kiw_device *kdev, u32 stag)
{
	struct kiw_mr *mr;

	rcu_read_lock();
	mr = xa_load(&kdev->mr_xa, kiw_stag_index(stag));
	if (mr && !kref_get_unless_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

void kiw_mr_put(struct kiw_mr *mr)
{
	kref_put(&mr->ref, kiw_mr_release);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mr_put);

static void kiw_mr_snapshot_fields(struct kiw_mr *mr, struct kiw_mr_map *map)
{
	map->kind = mr->kind;
	map->valid = mr->valid;
	map->stag = mr->stag;
	map->access = mr->access;
	map->pd = &mr->pd->base;
	map->iova = mr->iova;
	map->length = mr->length;
	map->page_shift = mr->page_shift;
	map->offset = mr->offset;
	map->npages = mr->npages;
	if (mr->kind == KIW_MR_FAST)
		map->addrs = mr->addrs;
	else
		map->pages = mr->pages;
}

/*
 * A consistent copy of @mr's registration, taken without its lock: a
 * writer (fast-register, invalidation, dereg_mr) in between makes it read
 * again. The caller holds a reference, or the RCU read lock under which
 * it found @mr (the object is freed by kfree_rcu()).
 */
void kiw_mr_snapshot(struct kiw_mr *mr, struct kiw_mr_map *map)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&mr->seq);
		kiw_mr_snapshot_fields(mr, map);
	} while (read_seqcount_retry(&mr->seq, seq));
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mr_snapshot);

/**
 * kiw_mr_get_tagged - look up and check an STag for a tagged access
 * @kdev: the device
 * @pd: the QP's protection domain
 * @stag: the STag from the wire
 * @to: the tagged offset from the wire
 * @len: octets to access
 * @access: IB_ACCESS_REMOTE_WRITE or IB_ACCESS_REMOTE_READ
 * @use: placement sink or Read source (see kiw_stag_check())
 * @mrp: the region, with a reference, when the check passes and @len != 0
 * @map: its snapshot, for kiw_mem_iter_init()
 *
 * Context: any; does not sleep.
 * Return: KIW_TERM_NONE, or the Terminate error (then *@mrp is NULL).
 */
kiw_term_t kiw_mr_get_tagged(struct kiw_device *kdev, const struct ib_pd *pd,
			     u32 stag, u32 access, u64 to, u32 len,
			     enum kiw_stag_use use, struct kiw_mr **mrp,
			     struct kiw_mr_map *map)
{
	struct kiw_mr *mr = NULL;
	kiw_term_t term;

	*mrp = NULL;
	if (!len)
		return KIW_TERM_NONE;
	mr = kiw_mr_get(kdev, stag);
	if (mr)
		kiw_mr_snapshot(mr, map);
	term = kiw_stag_check(mr ? map : NULL, stag, pd, access, to, len, use);
	if (term && mr)
		kiw_mr_put(mr);
	else
		*mrp = mr;
	return term;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mr_get_tagged);

/**
 * kiw_mr_get_local - look up and check the lkey of an SGE
 * @kdev: the device
 * @pd: the QP's protection domain
 * @lkey: the SGE's lkey
 * @addr: the SGE's address
 * @len: the SGE's length
 * @access: IB_ACCESS_LOCAL_WRITE if kiw writes into it, else 0
 * @mrp: the region, with a reference, when the check passes and @len != 0
 * @map: its snapshot, for kiw_mem_iter_init()
 *
 * As kiw_mr_get_tagged(), for kiw_sge_check(). A zero-length SGE succeeds
 * with *@mrp NULL.
 */
enum ib_wc_status kiw_mr_get_local(struct kiw_device *kdev,
				   const struct ib_pd *pd, u32 lkey,
				   u32 access, u64 addr, u32 len,
				   struct kiw_mr **mrp, struct kiw_mr_map *map)
{
	struct kiw_mr *mr;
	enum ib_wc_status status;

	*mrp = NULL;
	if (!len)
		return IB_WC_SUCCESS;
	mr = kiw_mr_get(kdev, lkey);
	if (mr)
		kiw_mr_snapshot(mr, map);
	status = kiw_sge_check(mr ? map : NULL, lkey, pd, access, addr, len);
	if (status != IB_WC_SUCCESS && mr)
		kiw_mr_put(mr);
	else
		*mrp = mr;
	return status;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mr_get_local);

/**
 * kiw_mr_check_local - check the lkey of an SGE, keeping nothing
 * @kdev: the device
 * @pd: the QP's protection domain
 * @lkey: the SGE's lkey
 * @access: IB_ACCESS_LOCAL_WRITE if kiw writes into it, else 0
 * @addr: the SGE's address
 * @len: the SGE's length
 *
 * kiw_mr_get_local()'s verdict, for a check made before any octet moves
 * (the octets themselves are moved later under kiw_mr_get_local()'s
 * reference, which checks again). The region is only looked at under RCU,
 * so no reference is taken or dropped.
 *
 * Context: any; does not sleep.
 */
enum ib_wc_status kiw_mr_check_local(struct kiw_device *kdev,
				     const struct ib_pd *pd, u32 lkey,
				     u32 access, u64 addr, u32 len)
{
	enum ib_wc_status status;
	struct kiw_mr_map map;
	struct kiw_mr *mr;

	if (!len)
		return IB_WC_SUCCESS;
	rcu_read_lock();
	mr = xa_load(&kdev->mr_xa, kiw_stag_index(lkey));
	if (mr)
		kiw_mr_snapshot(mr, &map);
	status = kiw_sge_check(mr ? &map : NULL, lkey, pd, access, addr, len);
	rcu_read_unlock();
	return status;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mr_check_local);

/* Invalidate @stag if the rules allow; 0, -ENOENT or -EACCES. */
static int kiw_mr_invalidate(struct kiw_device *kdev, const struct ib_pd *pd,
			     u32 stag)
{
	struct kiw_mr_map map;
	unsigned long flags;
	struct kiw_mr *mr;
	int ret;

	mr = kiw_mr_get(kdev, stag);
	if (!mr)
		return -ENOENT;
	spin_lock_irqsave(&mr->lock, flags);
	kiw_mr_snapshot_fields(mr, &map);
	ret = kiw_mr_may_invalidate(&map, stag, pd);
	if (!ret) {
		write_seqcount_begin(&mr->seq);
		mr->valid = false;
		write_seqcount_end(&mr->seq);
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	kiw_mr_put(mr);
	return ret;
}

/* IB_WR_LOCAL_INV and the local half of IB_WR_RDMA_READ_WITH_INV. */
enum ib_wc_status kiw_mr_invalidate_local(struct kiw_device *kdev,
					  const struct ib_pd *pd, u32 stag)
{
	int ret = kiw_mr_invalidate(kdev, pd, stag);

	if (ret)
		kiw_dbg(kdev, "local invalidate of STag 0x%08x: %d\n", stag, ret);
	return ret ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mr_invalidate_local);

/*
 * A received Send with Invalidate. RDMAP reports a refusal as "STag cannot
 * be invalidated" (0x09): as a protection error when the region exists but
 * may not be invalidated by this stream, as an operation error when the
 * STag names nothing (the codes siw sends).
 */
kiw_term_t kiw_mr_invalidate_remote(struct kiw_device *kdev,
				    const struct ib_pd *pd, u32 stag)
{
	int ret = kiw_mr_invalidate(kdev, pd, stag);

	if (!ret)
		return KIW_TERM_NONE;
	kiw_dbg(kdev, "peer may not invalidate STag 0x%08x: %d\n", stag, ret);
	return KIW_TERM(KIW_TERM_LAYER_RDMAP,
			ret == -EACCES ? KIW_RDMAP_ETYPE_REMOTE_PROT :
					 KIW_RDMAP_ETYPE_REMOTE_OP,
			KIW_RDMAP_ECODE_CANNOT_INVALIDATE);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mr_invalidate_remote);

/**
 * kiw_mr_fast_register - IB_WR_REG_MR, run by the data path in SQ order
 * @mr: the region named by the work request (a kernel QP's own pointer)
 * @pd: the QP's protection domain
 * @key: the work request's key: the region's index and the new key
 * @access: the work request's access flags
 *
 * Takes the layout map_mr_sg() left in the ib_mr (iova, length, page size,
 * page list) and makes the region valid under the new key. The region
 * must be a fast-registration region of the QP's PD and must be invalid
 * (freshly allocated or invalidated), as verbs require.
 *
 * Context: any; does not sleep.
 */
enum ib_wc_status kiw_mr_fast_register(struct kiw_mr *mr,
				       const struct ib_pd *pd, u32 key,
				       u32 access)
{
	unsigned int psize = mr->base.page_size;
	enum ib_wc_status status = IB_WC_SUCCESS;
	u8 shift = psize ? ilog2(psize) : 0;
	u32 offset = mr->base.iova & (psize - 1);
	unsigned long flags;

	if (mr->kind != KIW_MR_FAST || &mr->pd->base != pd ||
	    kiw_stag_index(key) != kiw_stag_index(mr->stag))
		return IB_WC_LOC_PROT_ERR;
	if ((access & IB_ACCESS_REMOTE_WRITE) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return IB_WC_LOC_PROT_ERR;
	if (!is_power_of_2(psize) || mr->npages > mr->max_pages ||
	    mr->base.length + offset > ((u64)mr->npages << shift))
		return IB_WC_LOC_QP_OP_ERR;

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->valid) {
		status = IB_WC_LOC_QP_OP_ERR;
	} else {
		write_seqcount_begin(&mr->seq);
		mr->stag = key;
		mr->access = access;
		mr->iova = mr->base.iova;
		mr->length = mr->base.length;
		mr->page_shift = shift;
		mr->offset = offset;
		mr->valid = true;
		write_seqcount_end(&mr->seq);
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	return status;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mr_fast_register);

static struct kiw_mr *kiw_mr_alloc(struct ib_pd *pd, enum kiw_mr_kind kind)
{
	struct kiw_device *kdev = to_kiw_dev(pd->device);
	struct kiw_mr *mr;

	if (kiw_take_slot(&kdev->num_mr, KIW_MAX_MR))
		return ERR_PTR(-ENOMEM);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		atomic_dec(&kdev->num_mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->kdev = kdev;
	mr->kind = kind;
	mr->pd = to_kiw_pd(pd);
	kref_init(&mr->ref);
	init_completion(&mr->released);
	kiw_mr_init_sync(mr);
	return mr;
}

/*
 * Publish @mr under a random, unused STag index with @key. Index 0 is never
 * used, so STag 0 (which RFC 6581 peers send in zero-length RTR messages)
 * never names a region.
 */
static int kiw_mr_publish(struct kiw_mr *mr, u8 key)
{
	struct kiw_device *kdev = mr->kdev;
	int i, ret = -EBUSY;
	u32 index;

	for (i = 0; i < KIW_STAG_TRIES && ret == -EBUSY; i++) {
		index = get_random_u32_inclusive(1, KIW_STAG_INDEX_MAX);
		mr->stag = kiw_stag(index, key);
		mr->base.lkey = mr->stag;
		mr->base.rkey = mr->stag;
		ret = xa_insert(&kdev->mr_xa, index, mr, GFP_KERNEL);
	}
	return ret == -EBUSY ? -ENOSPC : ret;
}

static void kiw_mr_free(struct kiw_mr *mr)
{
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kvfree(mr->addrs);
	atomic_dec(&mr->kdev->num_mr);
	kfree_rcu(mr, rcu);
}

struct ib_mr *kiw_get_dma_mr(struct ib_pd *pd, int access)
{
	struct kiw_mr *mr = kiw_mr_alloc(pd, KIW_MR_DMA);
	int ret;

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->access = access;
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->valid = true;
	ret = kiw_mr_publish(mr, get_random_u8());
	if (ret) {
		kiw_mr_free(mr);
		return ERR_PTR(ret);
	}
	return &mr->base;
}

/* The umem's pinned pages as a flat array: O(1) from offset to page. */
static int kiw_mr_collect_pages(struct kiw_mr *mr)
{
	struct sg_page_iter piter;
	size_t n = ib_umem_num_pages(mr->umem);
	u32 i = 0;

	if (n > U32_MAX)
		return -EINVAL;
	mr->pages = kvmalloc_array(n, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(&mr->umem->sgt_append.sgt, &piter, 0) {
		if (i == n)
			break;
		mr->pages[i++] = sg_page_iter_page(&piter);
	}
	if (i != n)
		return -EFAULT;
	mr->npages = n;
	mr->offset = ib_umem_offset(mr->umem);
	return 0;
}

struct ib_mr *kiw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len, u64 va,
			      int access, struct ib_dmah *dmah,
			      struct ib_udata *udata)
{
	struct kiw_device *kdev = to_kiw_dev(pd->device);
	struct siw_uresp_reg_mr uresp = {};
	struct siw_ureq_reg_mr ureq = {};
	struct kiw_mr *mr;
	u64 end;
	int ret;

	/* No DMA handles (TPH steering) in software. */
	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);
	if (!len || check_add_overflow(va, len, &end) ||
	    check_add_overflow(start, len, &end))
		return ERR_PTR(-EINVAL);
	if (udata && udata->inlen) {
		ret = ib_copy_from_udata(&ureq, udata,
					 min(udata->inlen, sizeof(ureq)));
		if (ret)
			return ERR_PTR(ret);
	}
	mr = kiw_mr_alloc(pd, KIW_MR_USER);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	mr->umem = ib_umem_get_va(&kdev->ibdev, start, len, access);
	if (IS_ERR(mr->umem)) {
		ret = PTR_ERR(mr->umem);
		mr->umem = NULL;
		goto err_free;
	}
	ret = kiw_mr_collect_pages(mr);
	if (ret)
		goto err_free;
	mr->access = access;
	mr->iova = va;
	mr->length = len;
	mr->valid = true;
	ret = kiw_mr_publish(mr, ureq.stag_key);
	if (ret)
		goto err_free;

	if (udata && udata->outlen) {
		uresp.stag = mr->stag;
		ret = ib_copy_to_udata(udata, &uresp,
				       min(udata->outlen, sizeof(uresp)));
		if (ret)
			goto err_unpublish;
	}
	return &mr->base;

err_unpublish:
	xa_erase(&kdev->mr_xa, kiw_stag_index(mr->stag));
err_free:
	kiw_mr_free(mr);
	return ERR_PTR(ret);
}

struct ib_mr *kiw_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct kiw_mr *mr;
	int ret;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > KIW_MAX_FRMR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kiw_mr_alloc(pd, KIW_MR_FAST);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->addrs = kvcalloc(max_num_sg, sizeof(*mr->addrs), GFP_KERNEL);
	if (!mr->addrs) {
		ret = -ENOMEM;
		goto err_free;
	}
	mr->max_pages = max_num_sg;
	ret = kiw_mr_publish(mr, get_random_u8());
	if (ret)
		goto err_free;
	return &mr->base;

err_free:
	kiw_mr_free(mr);
	return ERR_PTR(ret);
}

static int kiw_mr_set_page(struct ib_mr *base, u64 addr)
{
	struct kiw_mr *mr = to_kiw_mr(base);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->addrs[mr->npages++] = addr;
	return 0;
}

/*
 * The page list of the next IB_WR_REG_MR. DMA addresses are kernel virtual
 * addresses here (ib_uses_virt_dma()), so the list holds those.
 */
int kiw_map_mr_sg(struct ib_mr *base, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	to_kiw_mr(base)->npages = 0;
	return ib_sg_to_pages(base, sg, sg_nents, sg_offset, kiw_mr_set_page);
}

int kiw_dereg_mr(struct ib_mr *base, struct ib_udata *udata)
{
	struct kiw_mr *mr = to_kiw_mr(base);
	unsigned long flags;

	xa_erase(&mr->kdev->mr_xa, kiw_stag_index(mr->stag));
	spin_lock_irqsave(&mr->lock, flags);
	write_seqcount_begin(&mr->seq);
	mr->valid = false;
	write_seqcount_end(&mr->seq);
	spin_unlock_irqrestore(&mr->lock, flags);
	kiw_mr_put(mr);
	wait_for_completion(&mr->released);
	kiw_mr_free(mr);
	return 0;
}
