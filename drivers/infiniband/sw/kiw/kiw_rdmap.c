// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RDMAP protocol logic (RFC 5040): control octet, RDMA Read Request,
 * Terminate, and the consumer's view of a Terminate error.
 */
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <asm/byteorder.h>
#include <kunit/visibility.h>

#include "kiw_rdmap.h"

#define KIW_RDMAP_ERR_OP(code) \
	KIW_TERM(KIW_TERM_LAYER_RDMAP, KIW_RDMAP_ETYPE_REMOTE_OP, code)
#define KIW_DDP_ERR_T(code) \
	KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_TAGGED, code)

/* How each opcode travels: buffer model and, if untagged, queue. */
struct kiw_rdmap_op_model {
	bool valid;
	bool tagged;
	u8 qn;
};

static const struct kiw_rdmap_op_model kiw_rdmap_models[16] = {
	[KIW_RDMAP_WRITE] = { true, true, 0 },
	[KIW_RDMAP_READ_REQ] = { true, false, KIW_DDP_QN_READ_REQ },
	[KIW_RDMAP_READ_RESP] = { true, true, 0 },
	[KIW_RDMAP_SEND] = { true, false, KIW_DDP_QN_SEND },
	[KIW_RDMAP_SEND_INV] = { true, false, KIW_DDP_QN_SEND },
	[KIW_RDMAP_SEND_SE] = { true, false, KIW_DDP_QN_SEND },
	[KIW_RDMAP_SEND_SE_INV] = { true, false, KIW_DDP_QN_SEND },
	[KIW_RDMAP_TERMINATE] = { true, false, KIW_DDP_QN_TERMINATE },
	/* 0x8-0xf: not defined by RFC 5040 (kiw has no RFC 7306 atomics) */
};

/**
 * kiw_rdmap_rx_check - check a received segment's RDMAP control octet
 * @ddp_ctrl: the segment's DDP control octet (DDP version already checked)
 * @rdmap_ctrl: its RDMAP control octet (RsvdULP octet 0)
 * @qn: its queue number if untagged (ignored if tagged)
 *
 * RV must be 1 (RDMAP 0x2/0x05). The opcode must be one RFC 5040 defines,
 * in its buffer model and queue: Write and Read Response tagged; Send
 * variants on QN 0, Read Request on QN 1, Terminate on QN 2, untagged;
 * anything else is RDMAP 0x2/0x06 (unexpected opcode). The two Rsvd bits
 * are not checked. A Read Request or Terminate may span segments like any
 * untagged message: its buffer (IRD slot, Terminate buffer) is filled like
 * a receive WQE's and parsed once complete.
 *
 * Return: KIW_TERM_NONE, or the error to report.
 */
kiw_term_t kiw_rdmap_rx_check(u8 ddp_ctrl, u8 rdmap_ctrl, u32 qn)
{
	const struct kiw_rdmap_op_model *m;
	bool tagged = kiw_ddp_is_tagged(ddp_ctrl);

	if (kiw_rdmap_version(rdmap_ctrl) != KIW_RDMAP_VERSION)
		return KIW_RDMAP_ERR_OP(KIW_RDMAP_ECODE_INVALID_VERSION);
	m = &kiw_rdmap_models[kiw_rdmap_opcode(rdmap_ctrl)];
	if (!m->valid || m->tagged != tagged || (!tagged && m->qn != qn))
		return KIW_RDMAP_ERR_OP(KIW_RDMAP_ECODE_UNEXPECTED_OPCODE);
	return KIW_TERM_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rdmap_rx_check);

/**
 * kiw_rdmap_read_req_build - write an RDMA Read Request header (4.4)
 * @w: the 28 octets after the Read Request's untagged DDP header
 * @rr: the request
 */
void kiw_rdmap_read_req_build(struct kiw_rdmap_read_req *w,
			      const struct kiw_rdmap_rreq *rr)
{
	w->sink_stag = cpu_to_be32(rr->sink_stag);
	w->sink_to = cpu_to_be64(rr->sink_to);
	w->size = cpu_to_be32(rr->size);
	w->src_stag = cpu_to_be32(rr->src_stag);
	w->src_to = cpu_to_be64(rr->src_to);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rdmap_read_req_build);

/**
 * kiw_rdmap_read_req_parse - parse a received RDMA Read Request
 * @buf: the message's payload (its IRD slot)
 * @len: the message's length as DDP delivered it (kiw_ddp_msg_len())
 * @rr: filled with the request
 *
 * The message must be exactly one Read Request header: longer cannot
 * happen if the IRD slot was offered as a 28-octet buffer (DDP 2/0x05
 * otherwise); shorter leaves the request undefined, which RFC 5040 has no
 * specific code for: RDMAP 0x2/0xff (unspecified).
 *
 * Every field is the peer's: the source STag, TO and size go through the
 * STag access check (kiw_rdmap_read_req_src_check()); the sink STag and TO
 * are the requester's own and are only echoed in the Read Response, where
 * the requester checks them when it places the data.
 *
 * Return: KIW_TERM_NONE, or the error to report.
 */
kiw_term_t kiw_rdmap_read_req_parse(const void *buf, u32 len,
				    struct kiw_rdmap_rreq *rr)
{
	const struct kiw_rdmap_read_req *w = buf;

	if (len > sizeof(*w))
		return KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_UNTAGGED,
				KIW_DDP_ECODE_UT_MSG_TOOLONG);
	if (len < sizeof(*w))
		return KIW_RDMAP_ERR_OP(KIW_RDMAP_ECODE_UNSPECIFIED);
	rr->sink_stag = be32_to_cpu(w->sink_stag);
	rr->sink_to = be64_to_cpu(w->sink_to);
	rr->size = be32_to_cpu(w->size);
	rr->src_stag = be32_to_cpu(w->src_stag);
	rr->src_to = be64_to_cpu(w->src_to);
	return KIW_TERM_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rdmap_read_req_parse);

/**
 * kiw_rdmap_check_read_resp - a Read Response segment against its request
 * @rr: the outstanding request it answers (the oldest one, RFC 5040 5.5)
 * @done: octets of this Read Response already placed
 * @seg: the segment (tagged, opcode Read Response)
 *
 * A non-empty segment must target the request's sink STag (1/0x00) at
 * sink TO + @done (1/0x01); the response may not exceed the requested size
 * and must reach it exactly with L (1/0x01, base or bounds: siw makes the
 * same choice, RFC 5040 has no closer code). Zero-length segments carry no
 * meaningful STag or TO (RFC 5041 section 5.2) and are not compared.
 *
 * Return: KIW_TERM_NONE, or the error to report.
 */
kiw_term_t kiw_rdmap_check_read_resp(const struct kiw_rdmap_rreq *rr,
				     u32 done, const struct kiw_ddp_info *seg)
{
	u64 end = (u64)done + seg->len;

	if (seg->len && seg->stag != rr->sink_stag)
		return KIW_DDP_ERR_T(KIW_DDP_ECODE_T_INVALID_STAG);
	if (seg->len && seg->to != rr->sink_to + done)
		return KIW_DDP_ERR_T(KIW_DDP_ECODE_T_BASE_BOUNDS);
	if (end > rr->size || (kiw_ddp_info_last(seg) && end != rr->size))
		return KIW_DDP_ERR_T(KIW_DDP_ECODE_T_BASE_BOUNDS);
	return KIW_TERM_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rdmap_check_read_resp);

/**
 * kiw_rdmap_term_hdrct - which optional Terminate fields an error carries
 * @err: the error
 *
 * RFC 5040 section 4.8 and 7: a Terminate reporting an error that DDP or
 * RDMAP found in a received segment carries that segment's length (M) and
 * DDP header (D), and, for an RDMAP error in an RDMA Read Request, its
 * Read Request header (R). kiw leaves them out where they would mislead:
 *   - LLP (MPA) errors: the segment failed its CRC or framing, or there is
 *     none; its header is not trustworthy;
 *   - local catastrophic errors (RDMAP 0x0, DDP 0x0): not about a segment;
 *   - DDP version errors: a header of another DDP version has no known
 *     layout or length (siw does the same);
 *   - RDMAP version and unexpected-opcode errors: the DDP header is known,
 *     but no Read Request header can be told apart.
 *
 * Return: the KIW_TERM_CTRL_M/D/R bits allowed; kiw_rdmap_term_build()
 * sets them only for the headers it actually has.
 */
u32 kiw_rdmap_term_hdrct(kiw_term_t err)
{
	const u32 md = KIW_TERM_CTRL_M | KIW_TERM_CTRL_D;
	u8 etype = kiw_term_etype(err), ecode = kiw_term_ecode(err);

	if (err == KIW_TERM_NONE)
		return 0;
	switch (kiw_term_layer(err)) {
	case KIW_TERM_LAYER_DDP:
		if (etype == KIW_DDP_ETYPE_TAGGED)
			return ecode == KIW_DDP_ECODE_T_VERSION ? 0 : md;
		if (etype == KIW_DDP_ETYPE_UNTAGGED)
			return ecode == KIW_DDP_ECODE_UT_VERSION ? 0 : md;
		return 0;
	case KIW_TERM_LAYER_RDMAP:
		if (etype == KIW_RDMAP_ETYPE_REMOTE_PROT)
			return md | KIW_TERM_CTRL_R;
		if (etype != KIW_RDMAP_ETYPE_REMOTE_OP)
			return 0;
		if (ecode == KIW_RDMAP_ECODE_INVALID_VERSION ||
		    ecode == KIW_RDMAP_ECODE_UNEXPECTED_OPCODE)
			return md;
		return md | KIW_TERM_CTRL_R;
	default:
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rdmap_term_hdrct);

/**
 * kiw_rdmap_term_build - write a Terminate header (RFC 5040 section 4.8)
 * @term: where to write (up to KIW_RDMAP_TERM_MAX_LEN octets)
 * @err: the error to report
 * @hdr: the offending segment's headers as received: its DDP header,
 *	followed for an RDMA Read Request by the Read Request header; or
 *	NULL if the error concerns no received segment. The transmit engine
 *	may pass a Read Request it rebuilt from its IRD entry when it finds
 *	the error only when it starts the Read Response.
 * @hdr_len: octets at @hdr
 * @seg_len: the offending segment's length, header included (its MPA
 *	ULPDU_Length)
 *
 * The fields kiw_rdmap_term_hdrct() allows are included when @hdr holds
 * them completely; M and D always go together. Reserved bits are zero.
 * The caller sends the result as the payload of an untagged segment on
 * QN 2 with MO 0 and L, after kiw_ddp_build_untagged().
 *
 * Return: the Terminate header's length (4, 20, 24 or 52 octets), or 0
 * for KIW_TERM_NONE (nothing to send).
 */
unsigned int kiw_rdmap_term_build(struct kiw_rdmap_term *term, kiw_term_t err,
				  const void *hdr, unsigned int hdr_len,
				  u16 seg_len)
{
	const unsigned int rr_len = sizeof(struct kiw_rdmap_read_req);
	u32 allowed = kiw_rdmap_term_hdrct(err);
	u32 ctrl = kiw_term_ctrl(err);
	unsigned int len = KIW_RDMAP_TERM_MIN_LEN;
	const u8 *h = hdr;
	unsigned int dlen;

	if (err == KIW_TERM_NONE)
		return 0;
	memset(term, 0, sizeof(*term));
	if (!(allowed & KIW_TERM_CTRL_D) || !h || !hdr_len)
		goto out;
	dlen = kiw_ddp_hdr_len(h[0]);
	if (hdr_len < dlen)
		goto out;

	ctrl |= KIW_TERM_CTRL_M | KIW_TERM_CTRL_D;
	term->ddp_seg_len = cpu_to_be16(seg_len);
	memcpy(term->hdrs, h, dlen);
	len = offsetof(struct kiw_rdmap_term, hdrs) + dlen;

	if ((allowed & KIW_TERM_CTRL_R) && !kiw_ddp_is_tagged(h[0]) &&
	    kiw_rdmap_opcode(h[1]) == KIW_RDMAP_READ_REQ &&
	    hdr_len >= dlen + rr_len) {
		ctrl |= KIW_TERM_CTRL_R;
		memcpy(term->hdrs + dlen, h + dlen, rr_len);
		len += rr_len;
	}
out:
	term->ctrl = cpu_to_be32(ctrl);
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rdmap_term_build);

/**
 * kiw_rdmap_term_parse - parse a received Terminate header
 * @buf: the Terminate message's payload
 * @len: its length as DDP delivered it; anything the peer sent
 * @ti: filled with what could be parsed
 *
 * The optional fields are located from the M, D and R bits: the DDP
 * Segment Length when any is set, then the DDP header (its own T bit gives
 * its length) with D, then the Read Request header with R. Reserved bits
 * and octets after the announced fields are ignored. The copied headers
 * are the peer's account of our segment: use them to report, and to find
 * the affected work request only after range-checking them.
 *
 * Return: 0, or -EBADMSG if @buf is shorter than the fields it announces.
 * @ti->err is set either way (RDMAP 0x2/0xff if not even the control word
 * arrived) and @ti->hdrct holds only the fields parsed completely.
 */
int kiw_rdmap_term_parse(const void *buf, unsigned int len,
			 struct kiw_rdmap_term_info *ti)
{
	const u8 *p = buf;
	unsigned int off, dlen;
	u32 ctrl, flags;

	memset(ti, 0, sizeof(*ti));
	ti->err = KIW_RDMAP_ERR_OP(KIW_RDMAP_ECODE_UNSPECIFIED);
	if (len < KIW_RDMAP_TERM_MIN_LEN)
		return -EBADMSG;
	ctrl = get_unaligned_be32(p);
	ti->err = kiw_term_from_ctrl(ctrl);
	flags = ctrl & KIW_TERM_CTRL_HDRCT;
	if (!flags)
		return 0;

	off = offsetof(struct kiw_rdmap_term, hdrs);
	if (len < off)
		return -EBADMSG;
	ti->ddp_seg_len = get_unaligned_be16(p + KIW_RDMAP_TERM_MIN_LEN);
	ti->hdrct = flags & KIW_TERM_CTRL_M;

	if (flags & KIW_TERM_CTRL_D) {
		if (len < off + 1)
			return -EBADMSG;
		dlen = kiw_ddp_hdr_len(p[off]);
		if (len < off + dlen)
			return -EBADMSG;
		kiw_ddp_decode(p + off, &ti->ddp);
		if ((flags & KIW_TERM_CTRL_M) && ti->ddp_seg_len >= dlen)
			ti->ddp.len = ti->ddp_seg_len - dlen;
		ti->hdrct |= KIW_TERM_CTRL_D;
		off += dlen;
	}
	if (flags & KIW_TERM_CTRL_R) {
		if (kiw_rdmap_read_req_parse(p + off,
					     min_t(unsigned int, len - off,
						   sizeof(struct kiw_rdmap_read_req)),
					     &ti->rreq) != KIW_TERM_NONE)
			return -EBADMSG;
		ti->hdrct |= KIW_TERM_CTRL_R;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rdmap_term_parse);

/*
 * What a Terminate error means to the local consumer. Errors fall in a few
 * classes; the class gives the QP's affiliated async event, and the
 * direction gives the status of the work request it affects:
 *
 * (errors as layer/etype/ecode; events without IB_EVENT_QP_, statuses
 * without IB_WC_ and _ERR)
 *
 *   class     errors                          event       WC: local, received
 *   ACCESS    0/1/any but 0x09; 1/1/0x00-0x03 ACCESS_ERR  LOC_PROT, REM_ACCESS
 *   INV_PROT  0/1/0x09                        ACCESS_ERR  REM_INV_REQ,
 *                                                         REM_ACCESS
 *   INV_OP    0/2/0x09                        REQ_ERR     REM_INV_REQ, REM_OP
 *   LENGTH    1/2/0x04, 1/2/0x05              REQ_ERR     LOC_LEN, REM_INV_REQ
 *   PROTOCOL  0/2/0x05, 0x06, 0xff and        REQ_ERR     LOC_QP_OP,
 *             codes not listed; 1/1/0x04;                 REM_INV_REQ
 *             1/2/any other code
 *   FATAL     0/0/any, 0/2/0x07, 0/2/0x08,    FATAL       FATAL, REM_OP
 *             1/0/any, 1/3/any, other layers
 *   LLP       2/any/any                       FATAL       FATAL, FATAL
 *
 * "local": kiw found the error in a segment the peer sent and terminates.
 * The affected request is the receive WQE a Send was filling, or the RDMA
 * Read whose response was being placed: a bad sink STag there is the
 * request's own memory (IB_WC_LOC_PROT_ERR, as siw and irdma report it);
 * an overlong Send is IB_WC_LOC_LEN_ERR (siw, irdma); an invalidation the
 * peer may not ask for fails the receive with IB_WC_REM_INV_REQ_ERR (siw).
 * Other protocol violations are IB_WC_LOC_QP_OP_ERR: the QP could not
 * carry on, and no buffer of the consumer's was at fault.
 *
 * "received": the peer terminated because of something kiw sent (or its
 * own failure), and the affected request is the one the Terminate's copied
 * header points at, or the oldest outstanding one. IB's responder-reported
 * statuses fit: access errors IB_WC_REM_ACCESS_ERR, a message the peer
 * found malformed or too long IB_WC_REM_INV_REQ_ERR (rxe uses it for
 * length and invalid-request NAKs), a peer that failed IB_WC_REM_OP_ERR.
 *
 * Events follow the IB definitions, as irdma and cxgb4 map iWARP errors:
 * access violations IB_EVENT_QP_ACCESS_ERR, a request the QP cannot accept
 * IB_EVENT_QP_REQ_ERR (cxgb4 folds DDP/RDMAP protocol errors into
 * QP_FATAL; kiw keeps them apart so a consumer can tell a misbehaving peer
 * from a broken connection), everything else IB_EVENT_QP_FATAL. siw
 * reports no status for a received Terminate beyond flushing; kiw does.
 * The other outstanding requests complete with IB_WC_WR_FLUSH_ERR.
 */
enum kiw_term_class {
	KIW_TC_FATAL,
	KIW_TC_LLP,
	KIW_TC_ACCESS,
	KIW_TC_INV_PROT,
	KIW_TC_INV_OP,
	KIW_TC_LENGTH,
	KIW_TC_PROTOCOL,
};

static const struct {
	enum ib_event_type event;
	enum ib_wc_status local;
	enum ib_wc_status received;
} kiw_term_classes[] = {
	[KIW_TC_FATAL] = { IB_EVENT_QP_FATAL, IB_WC_FATAL_ERR,
			   IB_WC_REM_OP_ERR },
	[KIW_TC_LLP] = { IB_EVENT_QP_FATAL, IB_WC_FATAL_ERR, IB_WC_FATAL_ERR },
	[KIW_TC_ACCESS] = { IB_EVENT_QP_ACCESS_ERR, IB_WC_LOC_PROT_ERR,
			    IB_WC_REM_ACCESS_ERR },
	[KIW_TC_INV_PROT] = { IB_EVENT_QP_ACCESS_ERR, IB_WC_REM_INV_REQ_ERR,
			      IB_WC_REM_ACCESS_ERR },
	[KIW_TC_INV_OP] = { IB_EVENT_QP_REQ_ERR, IB_WC_REM_INV_REQ_ERR,
			    IB_WC_REM_OP_ERR },
	[KIW_TC_LENGTH] = { IB_EVENT_QP_REQ_ERR, IB_WC_LOC_LEN_ERR,
			    IB_WC_REM_INV_REQ_ERR },
	[KIW_TC_PROTOCOL] = { IB_EVENT_QP_REQ_ERR, IB_WC_LOC_QP_OP_ERR,
			      IB_WC_REM_INV_REQ_ERR },
};

static enum kiw_term_class kiw_term_rdmap_class(u8 etype, u8 ecode)
{
	if (etype == KIW_RDMAP_ETYPE_REMOTE_PROT)
		return ecode == KIW_RDMAP_ECODE_CANNOT_INVALIDATE ?
		       KIW_TC_INV_PROT : KIW_TC_ACCESS;
	if (etype != KIW_RDMAP_ETYPE_REMOTE_OP)
		return KIW_TC_FATAL;
	switch (ecode) {
	case KIW_RDMAP_ECODE_CATASTROPHIC_STREAM:
	case KIW_RDMAP_ECODE_CATASTROPHIC_GLOBAL:
		return KIW_TC_FATAL;
	case KIW_RDMAP_ECODE_CANNOT_INVALIDATE:
		return KIW_TC_INV_OP;
	default:
		return KIW_TC_PROTOCOL;
	}
}

static enum kiw_term_class kiw_term_ddp_class(u8 etype, u8 ecode)
{
	switch (etype) {
	case KIW_DDP_ETYPE_TAGGED:
		return ecode == KIW_DDP_ECODE_T_VERSION ?
		       KIW_TC_PROTOCOL : KIW_TC_ACCESS;
	case KIW_DDP_ETYPE_UNTAGGED:
		return ecode == KIW_DDP_ECODE_UT_INVALID_MO ||
		       ecode == KIW_DDP_ECODE_UT_MSG_TOOLONG ?
		       KIW_TC_LENGTH : KIW_TC_PROTOCOL;
	default:
		return KIW_TC_FATAL;
	}
}

/**
 * kiw_term_report - what the local consumer sees for a Terminate error
 * @err: the error; KIW_TERM_NONE is reported as fatal
 * @received: the peer sent it (else kiw found it and sends it)
 *
 * The table above kiw_term_classes explains each choice.
 *
 * Return: the async event for the QP and the completion status for the
 * work request the error affects.
 */
struct kiw_term_report kiw_term_report(kiw_term_t err, bool received)
{
	u8 etype = kiw_term_etype(err), ecode = kiw_term_ecode(err);
	enum kiw_term_class c = KIW_TC_FATAL;
	struct kiw_term_report r;

	if (err != KIW_TERM_NONE) {
		switch (kiw_term_layer(err)) {
		case KIW_TERM_LAYER_RDMAP:
			c = kiw_term_rdmap_class(etype, ecode);
			break;
		case KIW_TERM_LAYER_DDP:
			c = kiw_term_ddp_class(etype, ecode);
			break;
		case KIW_TERM_LAYER_LLP:
			c = KIW_TC_LLP;
			break;
		}
	}
	r.event = kiw_term_classes[c].event;
	r.wc_status = received ? kiw_term_classes[c].received :
				 kiw_term_classes[c].local;
	return r;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_term_report);
