// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw receive placement: a segment's payload, straight from the skbs into
 * the pages of the target region, with the CRC run over each octet as it
 * is copied (kiw_fpdu_rx_copy_page()). No intermediate buffer, no
 * allocation.
 *
 * The target is set up by the receive engine's hdr() callback, after the
 * DDP and RDMAP checks: kiw_place_tagged() checks the STag for the whole
 * segment before a single octet may be placed (RFC 5041 section 8.1);
 * kiw_place_sgl() points at a receive WR's SGEs, whose lkeys are checked
 * as the octets reach them (a consumer's own mistake, not the peer's).
 * kiw_place_data() then takes the payload as the FPDU parser hands it
 * over, in pieces split anywhere.
 *
 * References: the region being written is referenced in @mr while a run
 * of the receive engine places into it; kiw_place_put() drops it when the
 * run ends (the rest of the segment may take the peer any time to send).
 * The next piece then looks the region up and checks it again, for what is
 * left of the segment: a region invalidated or deregistered in between is
 * not written any more (RFC 5041 section 8.3.1 item 6).
 */
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "kiw_qp.h"
#include "kiw_rx.h"

#define KIW_PLACE_LOCAL_ERR \
	KIW_TERM(KIW_TERM_LAYER_RDMAP, KIW_RDMAP_ETYPE_CATASTROPHIC, \
		 KIW_RDMAP_ECODE_CATASTROPHIC)

void kiw_place_init(struct kiw_rx_place *pl, struct kiw_device *kdev,
		    const struct ib_pd *pd)
{
	memset(pl, 0, sizeof(*pl));
	pl->kdev = kdev;
	pl->pd = pd;
	pl->status = IB_WC_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_place_init);

void kiw_place_put(struct kiw_rx_place *pl)
{
	if (pl->mr) {
		kiw_mr_put(pl->mr);
		pl->mr = NULL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_place_put);

void kiw_place_none(struct kiw_rx_place *pl)
{
	pl->kind = KIW_PLACE_NONE;
	pl->left = 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_place_none);

/* Look the STag up again and check what is left of the segment. */
static kiw_term_t kiw_place_get_tagged(struct kiw_rx_place *pl)
{
	kiw_term_t t;

	kiw_place_put(pl);
	t = kiw_mr_get_tagged(pl->kdev, pl->pd, pl->stag,
			      IB_ACCESS_REMOTE_WRITE, pl->to, pl->left,
			      pl->use, &pl->mr, &pl->map);
	if (!t)
		kiw_mem_iter_init(&pl->it, &pl->map, pl->to, pl->left);
	return t;
}

/**
 * kiw_place_tagged - target a tagged segment's payload
 * @pl: the placement state
 * @stag: the segment's STag
 * @to: its TO
 * @len: its payload octets
 * @use: KIW_STAG_SINK (RDMA Write, Read Response: both need remote write)
 *
 * The STag is checked for the whole segment (validity, PD, remote write,
 * 64-bit wrap, bounds; kiw_stag_check()), never for an empty one (RFC
 * 5041 section 5.2). The region of the previous segment, still referenced
 * in the same run, is checked on a fresh snapshot without a new lookup;
 * if that fails, a lookup decides (its index may name a new region).
 *
 * Return: KIW_TERM_NONE, or the error; nothing is placed then.
 */
kiw_term_t kiw_place_tagged(struct kiw_rx_place *pl, u32 stag, u64 to,
			    u32 len, enum kiw_stag_use use)
{
	pl->kind = KIW_PLACE_TAGGED;
	pl->stag = stag;
	pl->to = to;
	pl->left = len;
	pl->use = use;
	if (!len) {
		kiw_place_none(pl);
		return KIW_TERM_NONE;
	}
	if (pl->mr && kiw_stag_index(pl->map.stag) == kiw_stag_index(stag)) {
		kiw_mr_snapshot(pl->mr, &pl->map);
		if (!kiw_stag_check(&pl->map, stag, pl->pd,
				    IB_ACCESS_REMOTE_WRITE, to, len, use)) {
			kiw_mem_iter_init(&pl->it, &pl->map, to, len);
			return KIW_TERM_NONE;
		}
	}
	return kiw_place_get_tagged(pl);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_place_tagged);

/**
 * kiw_place_sgl - target an untagged segment's payload at a receive WR
 * @pl: the placement state
 * @rqe: the receive WR (a kernel copy; the caller keeps it until the
 *	segment is placed)
 * @mo: the segment's MO: its first octet's offset in the message
 * @len: its payload octets; @mo + @len is within @rqe->length (DDP check)
 *
 * Return: KIW_TERM_NONE, or a local error if @mo lies beyond the SGEs.
 */
kiw_term_t kiw_place_sgl(struct kiw_rx_place *pl, const struct kiw_rqe *rqe,
			 u32 mo, u32 len)
{
	u8 i = 0;

	if (!len) {
		kiw_place_none(pl);
		return KIW_TERM_NONE;
	}
	while (i < rqe->num_sge && mo >= rqe->sge[i].length)
		mo -= rqe->sge[i++].length;
	if (i == rqe->num_sge)
		return KIW_PLACE_LOCAL_ERR;
	pl->kind = KIW_PLACE_SGL;
	pl->rqe = rqe;
	pl->sge = i;
	pl->sge_off = mo;
	pl->left = len;
	/* kiw_place_next_sge() picks the region when the first octet comes. */
	pl->it.left = 0;
	return KIW_TERM_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_place_sgl);

/* @len octets go to kernel memory at @buf (a Read Request, a Terminate). */
void kiw_place_buf(struct kiw_rx_place *pl, u8 *buf, u32 len)
{
	pl->kind = len ? KIW_PLACE_BUF : KIW_PLACE_NONE;
	pl->buf = buf;
	pl->left = len;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_place_buf);

/*
 * The region for the SGE the next octet goes to, and the iterator over
 * what the segment puts there. The lkey is checked (local write, bounds)
 * on the referenced region's snapshot when it is the same lkey, else
 * looked up.
 */
static kiw_term_t kiw_place_next_sge(struct kiw_rx_place *pl)
{
	const struct kiw_rqe *rqe = pl->rqe;
	const struct siw_sge *sge;
	u64 addr;
	u32 n;

	while (pl->sge < rqe->num_sge &&
	       pl->sge_off == rqe->sge[pl->sge].length) {
		pl->sge++;
		pl->sge_off = 0;
	}
	if (pl->sge == rqe->num_sge)
		return KIW_PLACE_LOCAL_ERR;
	sge = &rqe->sge[pl->sge];
	addr = sge->laddr + pl->sge_off;
	n = min(sge->length - pl->sge_off, pl->left);
	if (pl->mr && pl->map.stag == sge->lkey)
		kiw_mr_snapshot(pl->mr, &pl->map);
	if (!pl->mr || pl->map.stag != sge->lkey ||
	    kiw_sge_check(&pl->map, sge->lkey, pl->pd, IB_ACCESS_LOCAL_WRITE,
			  addr, n)) {
		kiw_place_put(pl);
		pl->status = kiw_mr_get_local(pl->kdev, pl->pd, sge->lkey,
					      IB_ACCESS_LOCAL_WRITE, addr, n,
					      &pl->mr, &pl->map);
		if (pl->status != IB_WC_SUCCESS)
			return KIW_PLACE_LOCAL_ERR;
	}
	kiw_mem_iter_init(&pl->it, &pl->map, addr, n);
	return KIW_TERM_NONE;
}

/* Copy @len octets into the region the iterator walks. */
static kiw_term_t kiw_place_pages(struct kiw_rx_place *pl,
				  struct kiw_fpdu_rx *rx,
				  const struct sk_buff *skb, unsigned int off,
				  unsigned int len, unsigned int *done)
{
	struct kiw_mem_chunk ch;

	*done = 0;
	while (*done < len && kiw_mem_iter_next(&pl->it, len - *done, &ch)) {
		if (kiw_fpdu_rx_copy_page(rx, skb, off + *done, ch.page,
					  ch.offset, ch.len))
			return KIW_PLACE_LOCAL_ERR;
		*done += ch.len;
	}
	return KIW_TERM_NONE;
}

/**
 * kiw_place_data - place a piece of the current segment's payload
 * @pl: the placement state, set up by kiw_place_tagged/sgl/buf()
 * @rx: the FPDU parser that called data() (it keeps the CRC)
 * @skb: as passed to data()
 * @off: offset in @skb
 * @len: octets, > 0; the pieces of a segment add up to its payload
 *
 * Every octet goes through kiw_fpdu_rx_copy_page() or kiw_fpdu_rx_copy(),
 * CRC included; on an error the rest of the piece is left to the parser
 * (it keeps the CRC going over it, kiw_fpdu.h).
 *
 * Return: KIW_TERM_NONE, or the error (the segment fails; @pl->status
 * tells a receive WR's local error).
 */
kiw_term_t kiw_place_data(struct kiw_rx_place *pl, struct kiw_fpdu_rx *rx,
			  const struct sk_buff *skb, unsigned int off,
			  unsigned int len)
{
	unsigned int n;
	kiw_term_t t;

	if (len > pl->left)
		return KIW_PLACE_LOCAL_ERR;	/* more than hdr() allowed */
	if (pl->kind == KIW_PLACE_BUF) {
		if (kiw_fpdu_rx_copy(rx, skb, off, pl->buf, len))
			return KIW_PLACE_LOCAL_ERR;
		pl->buf += len;
		pl->left -= len;
		return KIW_TERM_NONE;
	}
	while (len) {
		if (!pl->mr || !kiw_mem_iter_left(&pl->it)) {
			if (pl->kind == KIW_PLACE_TAGGED)
				t = kiw_place_get_tagged(pl);
			else if (pl->kind == KIW_PLACE_SGL)
				t = kiw_place_next_sge(pl);
			else
				t = KIW_PLACE_LOCAL_ERR;
			if (t)
				return t;
		}
		t = kiw_place_pages(pl, rx, skb, off, len, &n);
		if (t)
			return t;
		if (!n)		/* the region's memory ended early */
			return KIW_PLACE_LOCAL_ERR;
		off += n;
		len -= n;
		pl->left -= n;
		pl->to += n;
		pl->sge_off += n;
	}
	return KIW_TERM_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_place_data);
