// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DDP protocol logic (RFC 5041). See kiw_ddp.h for the receive order and
 * for what kiw enforces as an in-order receiver.
 */
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/string.h>
#include <asm/byteorder.h>
#include <kunit/visibility.h>

#include "kiw_ddp.h"

#define KIW_DDP_ERR_T(code) \
	KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_TAGGED, code)
#define KIW_DDP_ERR_UT(code) \
	KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_UNTAGGED, code)

/*
 * A segment too short to hold the DDP header its control octet announces
 * fits no code of section 7.2. kiw reports it as DDP Local Catastrophic,
 * as irdma does for its "segment too small" event: the message cannot be
 * interpreted at all.
 */
#define KIW_DDP_ERR_SHORT \
	KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_CATASTROPHIC, \
		 KIW_DDP_ECODE_CATASTROPHIC)

/**
 * kiw_ddp_build_tagged - write a tagged DDP header (RFC 5041 section 4.2)
 * @h: the 14 octets to write
 * @rdmap_ctrl: RsvdULP, the RDMAP control octet (kiw_rdmap_ctrl())
 * @stag: the data sink's STag
 * @to: the TO of the segment's first payload octet
 * @last: the segment is the message's last (L)
 */
void kiw_ddp_build_tagged(struct kiw_ddp_tagged_hdr *h, u8 rdmap_ctrl,
			  u32 stag, u64 to, bool last)
{
	h->ddp_ctrl = kiw_ddp_ctrl(true, last);
	h->rdmap_ctrl = rdmap_ctrl;
	h->stag = cpu_to_be32(stag);
	h->to = cpu_to_be64(to);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_ddp_build_tagged);

/**
 * kiw_ddp_build_untagged - write an untagged DDP header (section 4.3)
 * @h: the 18 octets to write
 * @rdmap_ctrl: RsvdULP octet 0, the RDMAP control octet
 * @ulp_word: RsvdULP octets 1-4: the Invalidate STag of a Send with
 *	Invalidate, 0 for every other message
 * @qn: queue number
 * @msn: message sequence number on that queue
 * @mo: offset of the segment's first payload octet in the message
 * @last: the segment is the message's last (L)
 */
void kiw_ddp_build_untagged(struct kiw_ddp_untagged_hdr *h, u8 rdmap_ctrl,
			    u32 ulp_word, u32 qn, u32 msn, u32 mo, bool last)
{
	h->ddp_ctrl = kiw_ddp_ctrl(false, last);
	h->rdmap_ctrl = rdmap_ctrl;
	h->ulp_word = cpu_to_be32(ulp_word);
	h->qn = cpu_to_be32(qn);
	h->msn = cpu_to_be32(msn);
	h->mo = cpu_to_be32(mo);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_ddp_build_untagged);

static int kiw_ddp_seg_max(struct kiw_ddp_segmenter *s, unsigned int mulpdu)
{
	/* Every segment, even the last, must carry at least one octet. */
	if (mulpdu <= s->hdr_len)
		return -EINVAL;
	s->max_payload = mulpdu - s->hdr_len;
	return 0;
}

/**
 * kiw_ddp_seg_init - start cutting a message into segments
 * @s: the segmenter
 * @msg_len: the message length; a 32-bit length cannot reach 2^32, the
 *	limit of section 5.2
 * @mulpdu: the LLP's current MULPDU (DDP header plus payload)
 * @tagged: the message uses the tagged model (14-octet header), else the
 *	untagged one (18 octets)
 *
 * Return: 0, or -EINVAL if @mulpdu leaves no room for payload.
 */
int kiw_ddp_seg_init(struct kiw_ddp_segmenter *s, u32 msg_len,
		     unsigned int mulpdu, bool tagged)
{
	s->msg_len = msg_len;
	s->off = 0;
	s->done = false;
	s->hdr_len = tagged ? sizeof(struct kiw_ddp_tagged_hdr) :
			      sizeof(struct kiw_ddp_untagged_hdr);
	return kiw_ddp_seg_max(s, mulpdu);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_ddp_seg_init);

/**
 * kiw_ddp_seg_set_mulpdu - follow a MULPDU change from the LLP
 * @s: the segmenter
 * @mulpdu: the new MULPDU
 *
 * Applies to the segments not yet handed out; those already handed out are
 * never cut again (RFC 5041 section 3, item 2).
 *
 * Return: 0, or -EINVAL (the old size stays) if @mulpdu is too small.
 */
int kiw_ddp_seg_set_mulpdu(struct kiw_ddp_segmenter *s, unsigned int mulpdu)
{
	u32 old = s->max_payload;
	int ret = kiw_ddp_seg_max(s, mulpdu);

	if (ret)
		s->max_payload = old;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_ddp_seg_set_mulpdu);

/**
 * kiw_ddp_seg_next - the next segment of the message
 * @s: the segmenter
 * @seg: filled with the segment's offset, length and L flag
 *
 * A zero-length message is exactly one empty segment with L (section 5.2);
 * only the last segment has L.
 *
 * Return: true if @seg holds a segment, false once the last was handed out.
 */
bool kiw_ddp_seg_next(struct kiw_ddp_segmenter *s, struct kiw_ddp_seg *seg)
{
	u32 left;

	if (s->done)
		return false;
	left = s->msg_len - s->off;
	seg->off = s->off;
	seg->len = min(left, s->max_payload);
	seg->last = seg->len == left;
	s->off += seg->len;
	s->done = seg->last;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_ddp_seg_next);

/**
 * kiw_ddp_decode - decode a DDP header, without checking it
 * @hdr: the header; as many octets as kiw_ddp_hdr_len() of its first
 * @seg: filled with its fields; len is set to 0
 *
 * For headers already validated, or copied into a Terminate for reporting.
 */
void kiw_ddp_decode(const void *hdr, struct kiw_ddp_info *seg)
{
	const struct kiw_ddp_tagged_hdr *t = hdr;
	const struct kiw_ddp_untagged_hdr *u = hdr;

	memset(seg, 0, sizeof(*seg));
	seg->ddp_ctrl = t->ddp_ctrl;
	seg->rdmap_ctrl = t->rdmap_ctrl;
	if (kiw_ddp_is_tagged(t->ddp_ctrl)) {
		seg->stag = be32_to_cpu(t->stag);
		seg->to = be64_to_cpu(t->to);
	} else {
		seg->ulp_word = be32_to_cpu(u->ulp_word);
		seg->qn = be32_to_cpu(u->qn);
		seg->msn = be32_to_cpu(u->msn);
		seg->mo = be32_to_cpu(u->mo);
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_ddp_decode);

/**
 * kiw_ddp_rx_parse - parse a received segment's DDP header
 * @hdr: the segment's first min(@seg_len, 18) octets (at least its
 *	header's length, when the segment is that long)
 * @seg_len: the segment's length, header included (the MPA ULPDU_Length)
 * @seg: filled with the header and the payload length when the header is
 *	complete (also for a QN error, so it can be reported)
 *
 * Checks, in order: DDP version 1 (1/0x04 tagged, 2/0x06 untagged; the rest
 * of a header of another version is not interpreted), the segment holds
 * its header (DDP local catastrophic), an untagged QN is 0, 1 or 2
 * (2/0x01). The Rsvd bits of the control octet are not checked (4.1).
 *
 * Return: KIW_TERM_NONE, or the error to report in a Terminate.
 */
kiw_term_t kiw_ddp_rx_parse(const void *hdr, unsigned int seg_len,
			    struct kiw_ddp_info *seg)
{
	const u8 *p = hdr;
	u8 ctrl;

	if (!seg_len)
		return KIW_DDP_ERR_SHORT;
	ctrl = p[0];
	if (kiw_ddp_version(ctrl) != KIW_DDP_VERSION)
		return kiw_ddp_is_tagged(ctrl) ?
		       KIW_DDP_ERR_T(KIW_DDP_ECODE_T_VERSION) :
		       KIW_DDP_ERR_UT(KIW_DDP_ECODE_UT_VERSION);
	if (seg_len < kiw_ddp_hdr_len(ctrl))
		return KIW_DDP_ERR_SHORT;

	kiw_ddp_decode(hdr, seg);
	seg->len = seg_len - kiw_ddp_hdr_len(ctrl);
	if (!kiw_ddp_is_tagged(ctrl) && seg->qn >= KIW_DDP_QN_COUNT)
		return KIW_DDP_ERR_UT(KIW_DDP_ECODE_UT_INVALID_QN);
	return KIW_TERM_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_ddp_rx_parse);

void kiw_ddp_rxq_init(struct kiw_ddp_rxq *q)
{
	q->msn = KIW_DDP_MSN_FIRST;
	q->placed = 0;
	q->rdmap_ctrl = 0;
	q->active = false;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_ddp_rxq_init);

void kiw_ddp_rxt_init(struct kiw_ddp_rxt *t)
{
	t->stag = 0;
	t->next_to = 0;
	t->active = false;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_ddp_rxt_init);

/* Every queue expects MSN 1 first; no message is in progress. */
void kiw_ddp_rx_init(struct kiw_ddp_rx *rx)
{
	unsigned int i;

	for (i = 0; i < KIW_DDP_QN_COUNT; i++)
		kiw_ddp_rxq_init(&rx->q[i]);
	kiw_ddp_rxt_init(&rx->write);
	kiw_ddp_rxt_init(&rx->read_resp);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_ddp_rx_init);

/**
 * kiw_ddp_rx_check_untagged - RFC 5041 section 7.1 checks, untagged model
 * @q: the state of the segment's queue (@seg->qn, already range-checked)
 * @seg: the parsed segment
 * @nr_bufs: buffers available to the queue, counting the one of a message
 *	in progress: posted receive WQEs for QN 0, free IRD slots for QN 1,
 *	the Terminate buffer for QN 2
 * @buf_len: length of the first of them, the buffer of @q->msn
 *
 * Checks, in order: a buffer is available (2/0x02; for QN 1 this is how a
 * Read Request beyond IRD is reported), the MSN is the queue's next one
 * (2/0x03), the RDMAP control octet continues the message's (RDMAP
 * 0x2/0x06), the MO is the octets already placed (2/0x04), and MO + length
 * fits the buffer and 2^32 - 1 (2/0x05). See kiw_ddp.h for why this is
 * stricter than the MSN window of section 7.1.
 *
 * Return: KIW_TERM_NONE, or the error to report.
 */
kiw_term_t kiw_ddp_rx_check_untagged(const struct kiw_ddp_rxq *q,
				     const struct kiw_ddp_info *seg,
				     u32 nr_bufs, u64 buf_len)
{
	u64 end = (u64)seg->mo + seg->len;

	if (!nr_bufs)
		return KIW_DDP_ERR_UT(KIW_DDP_ECODE_UT_INVALID_MSN_NOBUF);
	if (seg->msn != q->msn)
		return KIW_DDP_ERR_UT(KIW_DDP_ECODE_UT_INVALID_MSN_RANGE);
	if (q->active && seg->rdmap_ctrl != q->rdmap_ctrl)
		return KIW_TERM(KIW_TERM_LAYER_RDMAP, KIW_RDMAP_ETYPE_REMOTE_OP,
				KIW_RDMAP_ECODE_UNEXPECTED_OPCODE);
	if (seg->mo != q->placed)
		return KIW_DDP_ERR_UT(KIW_DDP_ECODE_UT_INVALID_MO);
	if (end > buf_len || end > U32_MAX)
		return KIW_DDP_ERR_UT(KIW_DDP_ECODE_UT_MSG_TOOLONG);
	return KIW_TERM_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_ddp_rx_check_untagged);

/**
 * kiw_ddp_rx_check_tagged - continuity of a tagged message
 * @t: the context of the segment's kind (kiw_ddp_rx_tagged_ctx())
 * @seg: the parsed segment
 *
 * A non-empty segment continuing a message carries the message's STag
 * (1/0x00) and the TO that follows the previous segment (1/0x01). Whether
 * the STag is valid, in the QP's PD, writable, and covers TO..TO+len
 * without a 64-bit wrap is the STag access check's job (kiw_mem.c).
 *
 * Return: KIW_TERM_NONE, or the error to report.
 */
kiw_term_t kiw_ddp_rx_check_tagged(const struct kiw_ddp_rxt *t,
				   const struct kiw_ddp_info *seg)
{
	if (!t->active || !seg->len)
		return KIW_TERM_NONE;
	if (seg->stag != t->stag)
		return KIW_DDP_ERR_T(KIW_DDP_ECODE_T_INVALID_STAG);
	if (seg->to != t->next_to)
		return KIW_DDP_ERR_T(KIW_DDP_ECODE_T_BASE_BOUNDS);
	return KIW_TERM_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_ddp_rx_check_tagged);

/**
 * kiw_ddp_rxq_advance - account for an accepted, placed untagged segment
 * @q: the queue's state
 * @seg: the segment, which passed kiw_ddp_rx_check_untagged()
 *
 * Return: true if the segment completed its message (L): the message, of
 * kiw_ddp_msg_len(@seg) octets, can be delivered, and the queue now
 * expects the next MSN (0xffffffff wraps to 0).
 */
bool kiw_ddp_rxq_advance(struct kiw_ddp_rxq *q,
			 const struct kiw_ddp_info *seg)
{
	if (kiw_ddp_info_last(seg)) {
		q->msn = kiw_ddp_msn_next(q->msn);
		q->placed = 0;
		q->active = false;
		return true;
	}
	if (!q->active) {
		q->rdmap_ctrl = seg->rdmap_ctrl;
		q->active = true;
	}
	q->placed += seg->len;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_ddp_rxq_advance);

/**
 * kiw_ddp_rxt_advance - account for an accepted, placed tagged segment
 * @t: the context of the segment's kind
 * @seg: the segment, which passed the checks (the STag check guarantees
 *	TO + len does not wrap)
 *
 * A zero-length segment neither starts nor moves a message: its STag and
 * TO mean nothing (section 5.2).
 *
 * Return: true if the segment completed its message (L).
 */
bool kiw_ddp_rxt_advance(struct kiw_ddp_rxt *t,
			 const struct kiw_ddp_info *seg)
{
	if (kiw_ddp_info_last(seg)) {
		t->active = false;
		return true;
	}
	if (!seg->len)
		return false;
	if (!t->active) {
		t->stag = seg->stag;
		t->active = true;
	}
	t->next_to = seg->to + seg->len;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_ddp_rxt_advance);
