// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw memory: the STag check for tagged access from the wire, the local
 * check of posted SGEs, memory iterators, and invalidation rules. The
 * region objects and their verbs are in kiw_mr.c.
 *
 * Which layer reports a tagged error (kiw_stag_check()):
 *
 *   check                  SINK (Write, Read Response)   SOURCE (Read Req.)
 *   STag unknown/invalid   DDP    0x1/0x00               RDMAP 0x1/0x00
 *   other PD               DDP    0x1/0x02               RDMAP 0x1/0x03
 *   access rights          RDMAP  0x1/0x02               RDMAP 0x1/0x02
 *   TO + length wraps      DDP    0x1/0x03               RDMAP 0x1/0x04
 *   base or bounds         DDP    0x1/0x01               RDMAP 0x1/0x01
 *
 * Placement into a tagged buffer is DDP's own check (RFC 5041 section 7.1,
 * error numbers of section 7.2), as siw reports it; DDP has no code for
 * access rights, so that one is RDMAP's (CONFORMANCE 1.7). The data source
 * of an RDMA Read is named inside the RDMAP Read Request header, which DDP
 * never sees, so RDMAP checks and reports it (RFC 5040 section 7).
 *
 * The checks run in RFC 5041 section 7.1 order, except that the 64-bit
 * wrap is tested before the bounds, so that a wrapping TO is reported as
 * a wrap and not as a bounds violation (CONFORMANCE DDP-ERR-10). A
 * zero-length segment is never checked (RFC 5041 section 5.2).
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <kunit/visibility.h>

#include <kiw/ddp.h>
#include <kiw/rdmap.h>

#include "kiw_mem.h"

enum kiw_stag_error {
	KIW_STAG_ERR_INVALID,
	KIW_STAG_ERR_PD,
	KIW_STAG_ERR_ACCESS,
	KIW_STAG_ERR_WRAP,
	KIW_STAG_ERR_BOUNDS,
	KIW_STAG_ERR_COUNT
};

#define DDP_T(code) KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_TAGGED, code)
#define RDMAP_P(code) \
	KIW_TERM(KIW_TERM_LAYER_RDMAP, KIW_RDMAP_ETYPE_REMOTE_PROT, code)

static const kiw_term_t kiw_stag_terms[][KIW_STAG_ERR_COUNT] = {
	[KIW_STAG_SINK] = {
		[KIW_STAG_ERR_INVALID] = DDP_T(KIW_DDP_ECODE_T_INVALID_STAG),
		[KIW_STAG_ERR_PD] = DDP_T(KIW_DDP_ECODE_T_STAG_NOT_ASSOC),
		[KIW_STAG_ERR_ACCESS] = RDMAP_P(KIW_RDMAP_ECODE_ACCESS_RIGHTS),
		[KIW_STAG_ERR_WRAP] = DDP_T(KIW_DDP_ECODE_T_TO_WRAP),
		[KIW_STAG_ERR_BOUNDS] = DDP_T(KIW_DDP_ECODE_T_BASE_BOUNDS),
	},
	[KIW_STAG_SOURCE] = {
		[KIW_STAG_ERR_INVALID] = RDMAP_P(KIW_RDMAP_ECODE_INVALID_STAG),
		[KIW_STAG_ERR_PD] = RDMAP_P(KIW_RDMAP_ECODE_STAG_NOT_ASSOC),
		[KIW_STAG_ERR_ACCESS] = RDMAP_P(KIW_RDMAP_ECODE_ACCESS_RIGHTS),
		[KIW_STAG_ERR_WRAP] = RDMAP_P(KIW_RDMAP_ECODE_TO_WRAP),
		[KIW_STAG_ERR_BOUNDS] = RDMAP_P(KIW_RDMAP_ECODE_BASE_BOUNDS),
	},
};

/* [addr, addr + len) inside [iova, iova + length), all 64-bit safe. */
static bool kiw_mr_in_bounds(const struct kiw_mr_map *map, u64 addr, u64 len)
{
	u64 off;

	if (addr < map->iova)
		return false;
	off = addr - map->iova;
	return off <= map->length && len <= map->length - off;
}

static int kiw_stag_classify(const struct kiw_mr_map *map, u32 stag,
			     const struct ib_pd *pd, u32 access, u64 to,
			     u32 len)
{
	u64 end;

	if (!map || !map->valid || map->stag != stag)
		return KIW_STAG_ERR_INVALID;
	if (map->pd != pd)
		return KIW_STAG_ERR_PD;
	if ((map->access & access) != access)
		return KIW_STAG_ERR_ACCESS;
	if (check_add_overflow(to, (u64)len, &end))
		return KIW_STAG_ERR_WRAP;
	if (!kiw_mr_in_bounds(map, to, len))
		return KIW_STAG_ERR_BOUNDS;
	return -1;
}

/**
 * kiw_stag_check - may the peer access @len octets at @to through @stag?
 * @map: snapshot of the region @stag's index names, or NULL if none
 * @stag: the STag from the wire (index and key)
 * @pd: the protection domain of the QP the segment arrived on
 * @access: IB_ACCESS_REMOTE_WRITE (placement) or IB_ACCESS_REMOTE_READ
 * @to: tagged offset from the wire
 * @len: octets to place or read
 * @use: sink of a placement or source of a Read; selects the layer
 *
 * Return: KIW_TERM_NONE if allowed, else the Terminate error to send.
 */
kiw_term_t kiw_stag_check(const struct kiw_mr_map *map, u32 stag,
			  const struct ib_pd *pd, u32 access, u64 to, u32 len,
			  enum kiw_stag_use use)
{
	int err;

	if (!len)
		return KIW_TERM_NONE;
	err = kiw_stag_classify(map, stag, pd, access, to, len);
	return err < 0 ? KIW_TERM_NONE : kiw_stag_terms[use][err];
}
EXPORT_SYMBOL_IF_KUNIT(kiw_stag_check);

/**
 * kiw_sge_check - local check of one SGE of a posted work request
 * @map: snapshot of the region @lkey's index names, or NULL if none
 * @lkey: the SGE's lkey
 * @pd: the QP's protection domain
 * @access: IB_ACCESS_LOCAL_WRITE if kiw writes into the SGE, else 0
 * @addr: the SGE's address
 * @len: the SGE's length; zero-length SGEs are not checked
 *
 * Return: IB_WC_SUCCESS, or IB_WC_LOC_PROT_ERR for an unknown or invalid
 * lkey, another PD, missing access, or octets outside the region.
 */
enum ib_wc_status kiw_sge_check(const struct kiw_mr_map *map, u32 lkey,
				const struct ib_pd *pd, u32 access, u64 addr,
				u32 len)
{
	if (!len)
		return IB_WC_SUCCESS;
	if (kiw_stag_classify(map, lkey, pd, access, addr, len) >= 0)
		return IB_WC_LOC_PROT_ERR;
	return IB_WC_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_sge_check);

/**
 * kiw_mr_may_invalidate - may @stag be invalidated on a QP of @pd?
 * @map: snapshot of the region @stag's index names, or NULL if none
 * @stag: the STag to invalidate (index and key)
 * @pd: the protection domain of the QP asking (locally or by a peer)
 *
 * The rules, for IB_WR_LOCAL_INV, IB_WR_RDMA_READ_WITH_INV and a received
 * Send with Invalidate alike: the STag must name a region with this key
 * (-ENOENT), the region must belong to the QP's protection domain, and it
 * must be a fast-registration region: regions registered with
 * reg_user_mr or get_dma_mr live until deregistered and are never
 * invalidated, so a peer can never revoke a user's or a kernel
 * consumer's standing registration (-EACCES). Invalidating a region that
 * is already invalid is allowed (verbs semantics, as siw).
 *
 * Return: 0, -ENOENT or -EACCES.
 */
int kiw_mr_may_invalidate(const struct kiw_mr_map *map, u32 stag,
			  const struct ib_pd *pd)
{
	if (!map || map->stag != stag)
		return -ENOENT;
	if (map->pd != pd || map->kind != KIW_MR_FAST)
		return -EACCES;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mr_may_invalidate);

/**
 * kiw_mem_iter_init - start walking @len octets at address @va of a region
 * @it: the iterator
 * @map: the region, already checked to contain [@va, @va + @len)
 * @va: first address (TO for tagged access, SGE address for local)
 * @len: octets to walk
 */
void kiw_mem_iter_init(struct kiw_mem_iter *it, const struct kiw_mr_map *map,
		       u64 va, u64 len)
{
	it->map = map;
	it->left = len;
	it->va = va;
	it->pos = map->kind == KIW_MR_DMA ? 0 : map->offset + (va - map->iova);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mem_iter_init);

static struct page *kiw_kva_page(u64 kva)
{
	void *p = (void *)(uintptr_t)kva;

	return virt_addr_valid(p) ? virt_to_page(p) : NULL;
}

/**
 * kiw_mem_iter_next - the next chunk of at most @max octets
 * @it: the iterator
 * @max: largest chunk the caller can take now (non-zero)
 * @chunk: filled with a page, an offset in it and a length
 *
 * Chunks never cross a PAGE_SIZE page boundary, whatever the region's own
 * page size. A page index beyond the region's page array, or a kernel
 * address that is not in the direct map, ends the walk early: the caller
 * sees kiw_mem_iter_left() non-zero and treats it as a local error.
 *
 * Return: true with @chunk filled, false at the end of the walk.
 */
bool kiw_mem_iter_next(struct kiw_mem_iter *it, u32 max,
		       struct kiw_mem_chunk *chunk)
{
	const struct kiw_mr_map *map = it->map;
	u64 n = min_t(u64, it->left, max);
	u64 kva, idx, in;

	if (!n)
		return false;

	switch (map->kind) {
	case KIW_MR_USER:
		idx = it->pos >> PAGE_SHIFT;
		if (idx >= map->npages)
			return false;
		chunk->page = map->pages[idx];
		chunk->offset = it->pos & ~PAGE_MASK;
		break;
	case KIW_MR_FAST:
		idx = it->pos >> map->page_shift;
		if (idx >= map->npages)
			return false;
		in = it->pos & ((1ull << map->page_shift) - 1);
		n = min(n, (1ull << map->page_shift) - in);
		kva = map->addrs[idx] + in;
		chunk->page = kiw_kva_page(kva);
		chunk->offset = offset_in_page(kva);
		break;
	case KIW_MR_DMA:
		chunk->page = kiw_kva_page(it->va);
		chunk->offset = offset_in_page(it->va);
		break;
	default:
		return false;
	}
	if (!chunk->page)
		return false;
	n = min_t(u64, n, PAGE_SIZE - chunk->offset);
	chunk->len = n;
	it->pos += n;
	it->va += n;
	it->left -= n;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mem_iter_next);
