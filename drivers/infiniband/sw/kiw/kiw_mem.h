/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw memory regions, the STag table and memory access: the pure checks
 * and iterators are in kiw_mem.c, the objects and the table in kiw_mr.c.
 *
 * An STag is 24 bits of index and 8 bits of consumer key (RFC 5040
 * section 2.1, "STag"). The index is drawn at random when the region is
 * registered, so a peer cannot guess the STags of other regions from one
 * it was given. lkey and rkey are the same STag.
 *
 * Three kinds of region:
 *   KIW_MR_DMA   get_dma_mr: addresses are kernel virtual addresses (kiw
 *                is a virtual-DMA device, ib_uses_virt_dma()), any length.
 *   KIW_MR_USER  reg_user_mr: pinned user pages (ib_umem), kept as a flat
 *                array of PAGE_SIZE pages for O(1) offset -> page.
 *   KIW_MR_FAST  alloc_mr + map_mr_sg + IB_WR_REG_MR: a page list of
 *                kernel virtual addresses with the MR's page size. Only
 *                these can be invalidated (locally or by the peer).
 *
 * How the data path uses this (the RX and TX engines):
 *
 *	mr = kiw_mr_get(kdev, stag);            RCU lookup + reference
 *	kiw_mr_snapshot(mr, &map);              consistent copy, lockless
 *	term = kiw_stag_check(mr ? &map : NULL, stag, qp->pd, access,
 *			      to, len, KIW_STAG_SINK);
 *	if (!term)
 *		kiw_mem_iter_init(&it, &map, to, len);
 *		while (kiw_mem_iter_next(&it, max, &chunk)) ... kmap_local ...
 *	kiw_mr_put(mr);
 *
 * A reference keeps the region's memory (pinned pages, page list) alive;
 * dereg_mr waits until the last reference is gone before it releases the
 * memory, so hold one only while bytes are being moved, never while
 * waiting for the peer.
 */
#ifndef KIW_MEM_H
#define KIW_MEM_H

#include <linux/kref.h>
#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <kiw/rdmap.h>

#include "kiw.h"

#define KIW_STAG_INDEX_BITS	24
#define KIW_STAG_INDEX_MAX	((1u << KIW_STAG_INDEX_BITS) - 1)
#define KIW_STAG_KEY_MASK	0xffu

static inline u32 kiw_stag(u32 index, u8 key)
{
	return (index << 8) | key;
}

static inline u32 kiw_stag_index(u32 stag)
{
	return stag >> 8;
}

static inline u8 kiw_stag_key(u32 stag)
{
	return stag & KIW_STAG_KEY_MASK;
}

enum kiw_mr_kind {
	KIW_MR_DMA,
	KIW_MR_USER,
	KIW_MR_FAST,
};

/*
 * What an access check and a memory walk need to know of a region, copied
 * out under the region's seqcount so that a concurrent fast-register or
 * invalidate cannot tear it. The page arrays it points to live as long as
 * the region's reference is held.
 */
struct kiw_mr_map {
	enum kiw_mr_kind kind;
	bool valid;			/* registered and not invalidated */
	u32 stag;			/* index and current key */
	u32 access;			/* IB_ACCESS_* */
	const struct ib_pd *pd;
	u64 iova;			/* first valid address (TO) */
	u64 length;			/* octets from iova */
	/*
	 * KIW_MR_USER: @pages[], PAGE_SIZE each, iova maps to octet
	 * @offset of pages[0].
	 * KIW_MR_FAST: @addrs[] kernel VAs of (1 << @page_shift)-octet pages,
	 * iova maps to octet @offset of addrs[0].
	 */
	union {
		struct page **pages;
		const u64 *addrs;
	};
	u32 npages;
	u32 offset;
	u8 page_shift;
};

struct kiw_mr {
	struct ib_mr base;
	struct kiw_device *kdev;
	enum kiw_mr_kind kind;
	struct kiw_pd *pd;

	/* References: the verbs object (dropped by dereg_mr) and lookups. */
	struct kref ref;
	struct completion released;	/* last reference dropped */
	struct rcu_head rcu;		/* found under RCU: kfree_rcu */

	/*
	 * Serialises the writers of the registration state below: valid,
	 * stag (its key), access, iova, length, page_shift, offset.
	 * Written by fast-register, invalidation (TX work, RX softirq) and
	 * dereg_mr, with interrupts off, inside a write section of @seq;
	 * kiw_mr_snapshot() reads them without the lock, retrying on @seq.
	 */
	spinlock_t lock;
	seqcount_spinlock_t seq;
	bool valid;
	u32 stag;
	u32 access;
	u64 iova;
	u64 length;
	u8 page_shift;
	u32 offset;

	/* Fixed at registration. */
	struct ib_umem *umem;		/* KIW_MR_USER */
	struct page **pages;		/* KIW_MR_USER: npages entries */
	u64 *addrs;			/* KIW_MR_FAST: max_pages entries */
	u32 max_pages;			/* KIW_MR_FAST */
	u32 npages;			/* pages (USER) / map_mr_sg pages (FAST) */
};

static inline struct kiw_mr *to_kiw_mr(struct ib_mr *mr)
{
	return container_of(mr, struct kiw_mr, base);
}

/* Which side of a tagged transfer is checked, and so which layer reports. */
enum kiw_stag_use {
	/*
	 * DDP placement into a tagged buffer: RDMA Write, RDMA Read Response.
	 * Reported at the DDP layer (RFC 5041 section 7.2, CONFORMANCE 1.6),
	 * as siw does; DDP has no access-rights code, so that one is RDMAP
	 * 0x1/0x02 (CONFORMANCE 1.7 note).
	 */
	KIW_STAG_SINK,
	/*
	 * The data source named in an RDMA Read Request: RDMAP's own check,
	 * reported at the RDMAP layer (RFC 5040 section 7, CONFORMANCE 1.7).
	 */
	KIW_STAG_SOURCE,
};

/* kiw_mem.c: pure checks (KUnit) */
kiw_term_t kiw_stag_check(const struct kiw_mr_map *map, u32 stag,
			  const struct ib_pd *pd, u32 access, u64 to, u32 len,
			  enum kiw_stag_use use);
enum ib_wc_status kiw_sge_check(const struct kiw_mr_map *map, u32 lkey,
				const struct ib_pd *pd, u32 access, u64 addr,
				u32 len);
int kiw_mr_may_invalidate(const struct kiw_mr_map *map, u32 stag,
			  const struct ib_pd *pd);

/*
 * Walk (va, len) of a region as chunks that never cross a PAGE_SIZE page:
 * the caller maps @page with kmap_local_page() and uses @len octets at
 * @offset. No allocation; the iterator is a small value on the stack.
 */
struct kiw_mem_chunk {
	struct page *page;
	unsigned int offset;
	unsigned int len;
};

struct kiw_mem_iter {
	const struct kiw_mr_map *map;
	u64 pos;		/* octet position from the start of page 0 */
	u64 left;		/* octets still to walk */
	u64 va;			/* KIW_MR_DMA: next kernel virtual address */
};

void kiw_mem_iter_init(struct kiw_mem_iter *it, const struct kiw_mr_map *map,
		       u64 va, u64 len);
bool kiw_mem_iter_next(struct kiw_mem_iter *it, u32 max,
		       struct kiw_mem_chunk *chunk);
static inline u64 kiw_mem_iter_left(const struct kiw_mem_iter *it)
{
	return it->left;
}

/* kiw_mr.c: the STag table and region lifetime */
void kiw_mr_init_sync(struct kiw_mr *mr);
struct kiw_mr *kiw_mr_get(struct kiw_device *kdev, u32 stag);
void kiw_mr_put(struct kiw_mr *mr);
void kiw_mr_snapshot(struct kiw_mr *mr, struct kiw_mr_map *map);
kiw_term_t kiw_mr_get_tagged(struct kiw_device *kdev, const struct ib_pd *pd,
			     u32 stag, u32 access, u64 to, u32 len,
			     enum kiw_stag_use use, struct kiw_mr **mrp,
			     struct kiw_mr_map *map);
enum ib_wc_status kiw_mr_get_local(struct kiw_device *kdev,
				   const struct ib_pd *pd, u32 lkey,
				   u32 access, u64 addr, u32 len,
				   struct kiw_mr **mrp, struct kiw_mr_map *map);
enum ib_wc_status kiw_mr_check_local(struct kiw_device *kdev,
				     const struct ib_pd *pd, u32 lkey,
				     u32 access, u64 addr, u32 len);

/*
 * Invalidation and fast registration, run by the data path in SQ order
 * (IB_WR_LOCAL_INV, IB_WR_RDMA_READ_WITH_INV, IB_WR_REG_MR) or on receipt
 * (Send with Invalidate). Never sleep.
 */
enum ib_wc_status kiw_mr_invalidate_local(struct kiw_device *kdev,
					  const struct ib_pd *pd, u32 stag);
kiw_term_t kiw_mr_invalidate_remote(struct kiw_device *kdev,
				    const struct ib_pd *pd, u32 stag);
enum ib_wc_status kiw_mr_fast_register(struct kiw_mr *mr,
				       const struct ib_pd *pd, u32 key,
				       u32 access);

/* Verbs (kiw_mr.c) */
struct ib_mr *kiw_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *kiw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			      u64 va, int access, struct ib_dmah *dmah,
			      struct ib_udata *udata);
struct ib_mr *kiw_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_num_sg);
int kiw_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);
int kiw_dereg_mr(struct ib_mr *mr, struct ib_udata *udata);

#endif /* KIW_MEM_H */
