// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw MPA startup, pure (see kiw_mpa.h for the call sequence).
 *
 * Revisions kiw accepts, and how it falls back:
 *  - Rev 0 (RDMA Consortium MPA) is refused in both roles: kiw is not a
 *    "permissive" RNIC (RFC 5044 Appendix C.2); the frame is reported as
 *    KIW_MPA_ERR_REV and the connection closed.
 *  - Rev 3 and above are refused (KIW_MPA_ERR_REV).
 *  - Responder: a Request of Rev 1 or 2 is taken, and the Reply carries
 *    min(Request Rev, local rev): a Rev 1 Request is always answered with
 *    Rev 1 (RFC 5044 frames, no IRD/ORD word); a Rev 2 Request is answered
 *    with Rev 1 when the local setting is 1.
 *  - Initiator: a Reply whose Rev is above the Request's is malformed
 *    (KIW_MPA_ERR_REV, from kiw_mpa_parse_hdr() with max_rev = the
 *    Request's Rev). A Rev 2 initiator takes a Rev 1 Reply: the connection
 *    runs as RFC 5044 describes, with the local IRD/ORD and without
 *    peer-to-peer mode (no RTR; the responder waits for our first FPDU).
 *  - The RFC 6581 word is used only when both frames are Rev 2 with S set;
 *    a Rev 2 frame without S is treated like Rev 1.
 *
 * IRD/ORD (RFC 6581), when both frames carry the word:
 *  - The responder answers ORD = min(its ORD, initiator's IRD), so it never
 *    issues more Reads than the initiator can hold, and IRD = its IRD,
 *    raised (up to KIW_MAX_IRD) to the initiator's ORD when smaller, as
 *    Linux siw and cxgb4 do ("relaxed" negotiation).
 *  - The initiator refuses a Reply whose ORD exceeds its IRD
 *    (KIW_MPA_ERR_IRD, Terminate code 0x06), then uses IRD = the
 *    responder's ORD and ORD = min(its ORD, responder's IRD).
 *
 * Peer-to-peer (RFC 6581): the initiator offers its RTR types with A set;
 * the responder echoes A and picks exactly one (Write, then Read, then
 * Send, among those both sides take); a zero-length Read needs the
 * initiator's ORD and the responder's IRD to be at least 1.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "kiw_mpa.h"

static const u8 kiw_mpa_key_req[KIW_MPA_KEY_LEN] = KIW_MPA_KEY_REQ;
static const u8 kiw_mpa_key_rep[KIW_MPA_KEY_LEN] = KIW_MPA_KEY_REP;

static const char * const kiw_mpa_err_names[KIW_MPA_ERR_MAX] = {
	[KIW_MPA_OK] = "ok",
	[KIW_MPA_ERR_TRUNCATED] = "truncated frame",
	[KIW_MPA_ERR_KEY] = "bad key",
	[KIW_MPA_ERR_INIT_INIT] = "Request received by an initiator",
	[KIW_MPA_ERR_NOT_REQUEST] = "Reply received by a responder",
	[KIW_MPA_ERR_REV] = "unsupported revision",
	[KIW_MPA_ERR_PD_LEN] = "PD_Length above 512",
	[KIW_MPA_ERR_PD_BUF] = "PD_Length above the buffer",
	[KIW_MPA_ERR_V2_SHORT] = "enhanced frame without IRD/ORD",
	[KIW_MPA_ERR_CRC_REQUIRED] = "peer does not ask for CRC",
	[KIW_MPA_ERR_IRD] = "insufficient IRD",
	[KIW_MPA_ERR_RTR] = "no matching RTR",
};

const char *kiw_mpa_err_name(enum kiw_mpa_err e)
{
	if ((unsigned int)e >= KIW_MPA_ERR_MAX)
		return "invalid";
	return kiw_mpa_err_names[e];
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_err_name);

/* The Terminate error for @e, should one go out (LLP layer, MPA type). */
kiw_term_t kiw_mpa_err_term(enum kiw_mpa_err e)
{
	u8 ecode;

	switch (e) {
	case KIW_MPA_OK:
		return KIW_TERM_NONE;
	case KIW_MPA_ERR_IRD:
		ecode = KIW_LLP_ECODE_INSUFFICIENT_IRD;
		break;
	case KIW_MPA_ERR_RTR:
		ecode = KIW_LLP_ECODE_NO_MATCHING_RTR;
		break;
	default:
		ecode = KIW_LLP_ECODE_BAD_FRAME;
		break;
	}
	return KIW_TERM(KIW_TERM_LAYER_LLP, KIW_LLP_ETYPE_MPA, ecode);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_err_term);

/* The status iw_cm reports for @e: a refusal, or a protocol error. */
int kiw_mpa_err_errno(enum kiw_mpa_err e)
{
	switch (e) {
	case KIW_MPA_OK:
		return 0;
	case KIW_MPA_ERR_CRC_REQUIRED:
		return -ECONNREFUSED;
	case KIW_MPA_ERR_IRD:
		return -ENOMEM;
	default:
		return -EPROTO;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_err_errno);

/**
 * kiw_mpa_local_init - one connection's settings from the module's
 * @l: filled in
 * @cfg: the parameters' snapshot (kiw_cfg_snapshot())
 * @ird: inbound RDMA Reads the consumer asked for (iw_cm conn_param)
 * @ord: outbound RDMA Reads the consumer asked for
 *
 * Client-server mode; RTR types as KIW_MPA_RTR_KIW should the connection
 * manager turn peer-to-peer on. IRD and ORD are capped at kiw's limits.
 */
void kiw_mpa_local_init(struct kiw_mpa_local *l, const struct kiw_mpa_cfg *cfg,
			u32 ird, u32 ord)
{
	memset(l, 0, sizeof(*l));
	l->crc = cfg->crc;
	l->markers = cfg->markers;
	l->rev = cfg->rev;
	l->rtr = KIW_MPA_RTR_KIW;
	l->ird = min_t(u32, ird, KIW_MAX_IRD);
	l->ord = min_t(u32, ord, KIW_MAX_ORD);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_local_init);

static bool kiw_mpa_local_valid(const struct kiw_mpa_local *l)
{
	return l->crc < KIW_CRC_POLICY_MAX &&
	       (l->rev == KIW_MPA_REV_1 || l->rev == KIW_MPA_REV_2) &&
	       !(l->rtr & ~KIW_MPA_RTR_ALL) &&
	       l->ird <= KIW_MPA_V2_IRD_ORD_MASK &&
	       l->ord <= KIW_MPA_V2_IRD_ORD_MASK;
}

static int kiw_mpa_set_pd(struct kiw_mpa_frame *f, const void *pd,
			  unsigned int pd_len)
{
	if (pd_len > kiw_mpa_ulp_pd_max(f->enhanced) || (pd_len && !pd))
		return -EMSGSIZE;
	f->ulp_pd = pd_len ? pd : NULL;
	f->ulp_pd_len = pd_len;
	f->pd_len = pd_len + (f->enhanced ? sizeof(struct kiw_mpa_v2) : 0);
	return 0;
}

/**
 * kiw_mpa_request_init - the initiator's Request, from the local settings
 * @req: filled in
 * @l: local settings
 * @pd: consumer private data (may be NULL if @pd_len is 0)
 * @pd_len: at most 512, or 508 at revision 2
 *
 * Return: 0, -EINVAL for bad settings, -EMSGSIZE for too much data.
 */
int kiw_mpa_request_init(struct kiw_mpa_frame *req,
			 const struct kiw_mpa_local *l,
			 const void *pd, unsigned int pd_len)
{
	if (!kiw_mpa_local_valid(l))
		return -EINVAL;
	memset(req, 0, sizeof(*req));
	req->request = true;
	req->markers = l->markers;
	req->crc = l->crc != KIW_CRC_OFF;
	req->rev = l->rev;
	req->enhanced = l->rev == KIW_MPA_REV_2;
	if (req->enhanced) {
		req->ird = l->ird;
		req->ord = l->ord;
		if (l->p2p) {
			if (!l->rtr)
				return -EINVAL;
			req->p2p = true;
			req->rtr = l->rtr;
			/* A zero-length Read RTR takes one ORD credit. */
			if ((l->rtr & KIW_MPA_RTR_READ) && !req->ord)
				req->ord = 1;
		}
	}
	return kiw_mpa_set_pd(req, pd, pd_len);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_request_init);

/* The RTR type a responder picks from @req, or 0. */
static u8 kiw_mpa_pick_rtr(const struct kiw_mpa_local *l,
			   const struct kiw_mpa_frame *req)
{
	u8 both = req->rtr & l->rtr;

	if (both & KIW_MPA_RTR_WRITE)
		return KIW_MPA_RTR_WRITE;
	if ((both & KIW_MPA_RTR_READ) && req->ord)
		return KIW_MPA_RTR_READ;
	if (both & KIW_MPA_RTR_SEND)
		return KIW_MPA_RTR_SEND;
	return 0;
}

/**
 * kiw_mpa_check_request - may the responder accept this Request at all?
 * @l: local settings
 * @req: the parsed Request
 *
 * For refusing early, before the consumer sees the connection request:
 * the connection manager answers a failure with a reject Reply.
 *
 * Return: KIW_MPA_OK, KIW_MPA_ERR_CRC_REQUIRED or KIW_MPA_ERR_RTR.
 */
enum kiw_mpa_err kiw_mpa_check_request(const struct kiw_mpa_local *l,
				       const struct kiw_mpa_frame *req)
{
	if (l->crc == KIW_CRC_REQUIRED && !req->crc)
		return KIW_MPA_ERR_CRC_REQUIRED;
	if (req->enhanced && req->p2p && l->rev == KIW_MPA_REV_2 &&
	    !kiw_mpa_pick_rtr(l, req))
		return KIW_MPA_ERR_RTR;
	return KIW_MPA_OK;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_check_request);

/**
 * kiw_mpa_reply_init - the responder's Reply to @req
 * @rep: filled in
 * @l: local settings (IRD/ORD: what the consumer accepted with)
 * @req: the parsed, valid Request
 * @reject: send R=1 (the consumer rejected, or kiw_mpa_check_request()
 *	failed)
 * @pd: consumer private data
 * @pd_len: at most 512, or 508 at revision 2
 *
 * Rev is min(@req's, local); M and C come from the local settings. An
 * accepting Rev 2 Reply to an enhanced Request carries the negotiated
 * IRD/ORD and, for peer-to-peer, A and the one RTR type picked (none if
 * nothing matches: kiw_mpa_negotiate() then fails with KIW_MPA_ERR_RTR).
 *
 * Return: 0, -EINVAL for bad settings, -EMSGSIZE for too much data.
 */
int kiw_mpa_reply_init(struct kiw_mpa_frame *rep,
		       const struct kiw_mpa_local *l,
		       const struct kiw_mpa_frame *req, bool reject,
		       const void *pd, unsigned int pd_len)
{
	if (!kiw_mpa_local_valid(l))
		return -EINVAL;
	memset(rep, 0, sizeof(*rep));
	rep->markers = l->markers;
	rep->crc = l->crc != KIW_CRC_OFF;
	rep->reject = reject;
	rep->rev = min(req->rev, l->rev);
	rep->enhanced = rep->rev == KIW_MPA_REV_2;
	if (rep->enhanced) {
		rep->ird = l->ird;
		rep->ord = l->ord;
	}
	if (rep->enhanced && req->enhanced && !reject) {
		rep->ord = min(l->ord, req->ird);
		if (rep->ird < req->ord)
			rep->ird = min_t(u16, req->ord, KIW_MAX_IRD);
		if (req->p2p) {
			rep->p2p = true;
			rep->rtr = kiw_mpa_pick_rtr(l, req);
			if (rep->rtr == KIW_MPA_RTR_READ && !rep->ird)
				rep->ird = 1;
		}
	}
	return kiw_mpa_set_pd(rep, pd, pd_len);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_reply_init);

static u16 kiw_mpa_v2_ird_word(const struct kiw_mpa_frame *f)
{
	u16 w = f->ird & KIW_MPA_V2_IRD_ORD_MASK;

	if (f->p2p)
		w |= KIW_MPA_V2_P2P;
	if (f->rtr & KIW_MPA_RTR_SEND)
		w |= KIW_MPA_V2_RTR_SEND;
	return w;
}

static u16 kiw_mpa_v2_ord_word(const struct kiw_mpa_frame *f)
{
	u16 w = f->ord & KIW_MPA_V2_IRD_ORD_MASK;

	if (f->rtr & KIW_MPA_RTR_WRITE)
		w |= KIW_MPA_V2_RTR_WRITE;
	if (f->rtr & KIW_MPA_RTR_READ)
		w |= KIW_MPA_V2_RTR_READ;
	return w;
}

/**
 * kiw_mpa_build - write a Request or Reply frame
 * @f: the frame (from kiw_mpa_request_init() or kiw_mpa_reply_init())
 * @buf: where to write it
 * @len: room in @buf
 *
 * Res is always 0, and R is 0 in a Request. PD_Length counts the RFC 6581
 * word. Nothing is written when an error is returned.
 *
 * Return: the frame's length, -EINVAL for an inconsistent @f, or
 * -EMSGSIZE when it does not fit in @len octets.
 */
int kiw_mpa_build(const struct kiw_mpa_frame *f, void *buf, size_t len)
{
	unsigned int v2 = f->enhanced ? sizeof(struct kiw_mpa_v2) : 0;
	struct kiw_mpa_hdr *h = buf;
	u8 *pd = buf + sizeof(*h);

	if ((f->rev != KIW_MPA_REV_1 && f->rev != KIW_MPA_REV_2) ||
	    (f->enhanced && f->rev != KIW_MPA_REV_2) ||
	    f->pd_len != v2 + f->ulp_pd_len || f->pd_len > KIW_MPA_PD_MAX ||
	    f->ird > KIW_MPA_V2_IRD_ORD_MASK ||
	    f->ord > KIW_MPA_V2_IRD_ORD_MASK || (f->ulp_pd_len && !f->ulp_pd))
		return -EINVAL;
	if (len < kiw_mpa_frame_len(f))
		return -EMSGSIZE;

	if (f->request)
		memcpy(h->key, kiw_mpa_key_req, KIW_MPA_KEY_LEN);
	else
		memcpy(h->key, kiw_mpa_key_rep, KIW_MPA_KEY_LEN);
	h->flags = (f->markers ? KIW_MPA_FLAG_MARKERS : 0) |
		   (f->crc ? KIW_MPA_FLAG_CRC : 0) |
		   (f->reject && !f->request ? KIW_MPA_FLAG_REJECT : 0) |
		   (f->enhanced ? KIW_MPA_FLAG_ENHANCED : 0);
	h->rev = f->rev;
	h->pd_len = cpu_to_be16(f->pd_len);
	if (v2) {
		struct kiw_mpa_v2 *w = (struct kiw_mpa_v2 *)pd;

		w->ird = cpu_to_be16(kiw_mpa_v2_ird_word(f));
		w->ord = cpu_to_be16(kiw_mpa_v2_ord_word(f));
	}
	if (f->ulp_pd_len)
		memcpy(pd + v2, f->ulp_pd, f->ulp_pd_len);
	return kiw_mpa_frame_len(f);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_build);

/**
 * kiw_mpa_parse_hdr - validate a received frame's 20-octet header
 * @buf: the octets received so far
 * @len: how many
 * @expect_request: a responder expects a Request, an initiator a Reply
 * @max_rev: highest acceptable Rev: KIW_MPA_REV_2 for a Request, the Rev
 *	of our Request for a Reply
 * @pd_buf_len: room for the private data (the RFC 6581 word included)
 * @f: filled in (private data not yet: see kiw_mpa_parse_pd())
 *
 * Checks in this order: length, all 16 key octets (raw), Rev, PD_Length.
 * The Res bits are ignored, and so is R in a Request.
 *
 * Return: KIW_MPA_OK or the malformed-frame class.
 */
enum kiw_mpa_err kiw_mpa_parse_hdr(const void *buf, size_t len,
				   bool expect_request, u8 max_rev,
				   size_t pd_buf_len, struct kiw_mpa_frame *f)
{
	const struct kiw_mpa_hdr *h = buf;
	const u8 *want = expect_request ? kiw_mpa_key_req : kiw_mpa_key_rep;
	const u8 *other = expect_request ? kiw_mpa_key_rep : kiw_mpa_key_req;
	u16 pd_len;

	memset(f, 0, sizeof(*f));
	if (len < sizeof(*h))
		return KIW_MPA_ERR_TRUNCATED;
	if (memcmp(h->key, want, KIW_MPA_KEY_LEN)) {
		if (memcmp(h->key, other, KIW_MPA_KEY_LEN))
			return KIW_MPA_ERR_KEY;
		return expect_request ? KIW_MPA_ERR_NOT_REQUEST :
					KIW_MPA_ERR_INIT_INIT;
	}
	if (h->rev < KIW_MPA_REV_1 || h->rev > max_rev ||
	    h->rev > KIW_MPA_REV_2)
		return KIW_MPA_ERR_REV;
	pd_len = be16_to_cpu(h->pd_len);
	if (pd_len > KIW_MPA_PD_MAX)
		return KIW_MPA_ERR_PD_LEN;
	if (pd_len > pd_buf_len)
		return KIW_MPA_ERR_PD_BUF;

	f->request = expect_request;
	f->markers = h->flags & KIW_MPA_FLAG_MARKERS;
	f->crc = h->flags & KIW_MPA_FLAG_CRC;
	f->reject = !expect_request && (h->flags & KIW_MPA_FLAG_REJECT);
	f->rev = h->rev;
	f->enhanced = h->rev == KIW_MPA_REV_2 &&
		      (h->flags & KIW_MPA_FLAG_ENHANCED);
	f->pd_len = pd_len;
	if (f->enhanced && pd_len < sizeof(struct kiw_mpa_v2))
		return KIW_MPA_ERR_V2_SHORT;
	return KIW_MPA_OK;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_parse_hdr);

/**
 * kiw_mpa_parse_pd - take in the private data of a frame
 * @f: from a successful kiw_mpa_parse_hdr()
 * @pd: the PD_Length octets that followed the header; must stay valid as
 *	long as @f->ulp_pd is used
 * @len: octets available at @pd
 *
 * Decodes the RFC 6581 word when the frame is enhanced and points
 * @f->ulp_pd at the consumer's part.
 *
 * Return: KIW_MPA_OK, or KIW_MPA_ERR_TRUNCATED when @len < PD_Length.
 */
enum kiw_mpa_err kiw_mpa_parse_pd(struct kiw_mpa_frame *f, const void *pd,
				  size_t len)
{
	const u8 *p = pd;
	unsigned int v2 = 0;

	if (len < f->pd_len)
		return KIW_MPA_ERR_TRUNCATED;
	if (f->enhanced) {
		const struct kiw_mpa_v2 *w = pd;
		u16 ird = be16_to_cpu(w->ird), ord = be16_to_cpu(w->ord);

		f->ird = ird & KIW_MPA_V2_IRD_ORD_MASK;
		f->ord = ord & KIW_MPA_V2_IRD_ORD_MASK;
		f->p2p = ird & KIW_MPA_V2_P2P;
		f->rtr = (ird & KIW_MPA_V2_RTR_SEND ? KIW_MPA_RTR_SEND : 0) |
			 (ord & KIW_MPA_V2_RTR_WRITE ? KIW_MPA_RTR_WRITE : 0) |
			 (ord & KIW_MPA_V2_RTR_READ ? KIW_MPA_RTR_READ : 0);
		v2 = sizeof(*w);
	}
	f->ulp_pd_len = f->pd_len - v2;
	f->ulp_pd = f->ulp_pd_len ? p + v2 : NULL;
	return KIW_MPA_OK;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_parse_pd);

/* Header and private data in one buffer of @len octets. */
enum kiw_mpa_err kiw_mpa_parse(const void *buf, size_t len,
			       bool expect_request, u8 max_rev,
			       size_t pd_buf_len, struct kiw_mpa_frame *f)
{
	enum kiw_mpa_err e;

	e = kiw_mpa_parse_hdr(buf, len, expect_request, max_rev, pd_buf_len,
			      f);
	if (e)
		return e;
	return kiw_mpa_parse_pd(f, buf + sizeof(struct kiw_mpa_hdr),
				len - sizeof(struct kiw_mpa_hdr));
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_parse);

/* RFC 6581 IRD/ORD and peer-to-peer, both frames enhanced. */
static enum kiw_mpa_err kiw_mpa_negotiate_v2(enum kiw_mpa_role role,
					     const struct kiw_mpa_frame *req,
					     const struct kiw_mpa_frame *rep,
					     struct kiw_mpa_result *res)
{
	if (role == KIW_MPA_RESPONDER) {
		res->ird = rep->ird;
		res->ord = rep->ord;
	} else {
		if (rep->ord > req->ird)
			return KIW_MPA_ERR_IRD;
		res->ird = rep->ord;
		res->ord = min(req->ord, rep->ird);
	}
	if (!req->p2p && !rep->p2p)
		return KIW_MPA_OK;
	/* A echoed, exactly one RTR type, one that was offered. */
	if (!req->p2p || !rep->p2p || hweight8(rep->rtr) != 1 ||
	    !(rep->rtr & req->rtr))
		return KIW_MPA_ERR_RTR;
	/* A zero-length Read takes an ORD credit here, an IRD one there. */
	if (rep->rtr == KIW_MPA_RTR_READ &&
	    !(role == KIW_MPA_INITIATOR ? res->ord : res->ird))
		return KIW_MPA_ERR_RTR;
	res->rtr = rep->rtr;
	return KIW_MPA_OK;
}

/**
 * kiw_mpa_negotiate - what the Request and Reply settle
 * @role: which side we are
 * @l: local settings
 * @req: the Request (sent or received)
 * @rep: the Reply (received or sent), not a reject
 * @res: filled in
 *
 * CRC is on when either frame has C set (RFC 5044 section 7.1.1); with
 * the crc=required policy a peer frame with C=0 is refused. Markers are
 * per direction, never ORed: the M we sent asks the peer to mark the
 * FPDUs it sends us, the peer's M asks us to mark ours. The responder
 * sends no FPDU before it received one (RFC 5044 section 7.1.2 (4)); in
 * peer-to-peer mode that first FPDU is the initiator's RTR.
 *
 * Return: KIW_MPA_OK, KIW_MPA_ERR_REV, KIW_MPA_ERR_CRC_REQUIRED,
 * KIW_MPA_ERR_IRD or KIW_MPA_ERR_RTR. With the last two, @res->crc and
 * @res->tx_markers are set: the Terminate that refuses the connection is
 * framed with them.
 */
enum kiw_mpa_err kiw_mpa_negotiate(enum kiw_mpa_role role,
				   const struct kiw_mpa_local *l,
				   const struct kiw_mpa_frame *req,
				   const struct kiw_mpa_frame *rep,
				   struct kiw_mpa_result *res)
{
	bool initiator = role == KIW_MPA_INITIATOR;
	const struct kiw_mpa_frame *peer = initiator ? rep : req;
	const struct kiw_mpa_frame *mine = initiator ? req : rep;
	enum kiw_mpa_err e;

	memset(res, 0, sizeof(*res));
	if (rep->rev > req->rev || rep->rev < KIW_MPA_REV_1)
		return KIW_MPA_ERR_REV;
	if (l->crc == KIW_CRC_REQUIRED && !peer->crc)
		return KIW_MPA_ERR_CRC_REQUIRED;

	res->rev = rep->rev;
	res->crc = req->crc || rep->crc;
	res->rx_markers = mine->markers;
	res->tx_markers = peer->markers;
	res->ird = l->ird;
	res->ord = l->ord;
	if (req->enhanced && rep->enhanced) {
		e = kiw_mpa_negotiate_v2(role, req, rep, res);
		if (e)
			return e;
	} else if (!initiator && rep->enhanced) {
		/* Our Rev 2 Reply to a Request without the word. */
		res->ird = rep->ird;
		res->ord = rep->ord;
	}
	res->send_rtr = initiator && res->rtr;
	res->await_rtr = !initiator && res->rtr;
	res->hold_tx = !initiator;
	return KIW_MPA_OK;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_negotiate);

/**
 * kiw_mpa_mulpdu - largest ULPDU that fits one TCP segment
 * @emss: the connection's effective send MSS
 * @markers: whether our FPDUs carry markers
 *
 * RFC 5044 section 4.5, with the worst-case marker count:
 *   markers:    EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS mod 4)
 *   no markers: EMSS - (6 + EMSS mod 4)
 * bounded to [128, 64768] (sections 3 and 4.5: never below 128, even
 * when EMSS is smaller; FPDUs then span segments).
 */
unsigned int kiw_mpa_mulpdu(unsigned int emss, bool markers)
{
	long m = emss;

	m -= KIW_MPA_FPDU_OVERHEAD + emss % 4;
	if (markers)
		m -= (long)KIW_MPA_MARKER_SIZE *
		     DIV_ROUND_UP(emss, KIW_MPA_MARKER_INTERVAL);
	return clamp_t(long, m, KIW_MPA_MULPDU_MIN, KIW_MPA_MULPDU_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_mulpdu);

/**
 * kiw_mpa_fpduptr - the FPDUPTR of a marker
 * @marker_off: stream offset of the marker
 * @ulpdu_len_off: stream offset of the ULPDU_Length of the FPDU it is in
 *
 * A marker immediately before that ULPDU_Length sits between FPDUs and
 * belongs to the following one: its FPDUPTR is 0.
 */
u16 kiw_mpa_fpduptr(u32 marker_off, u32 ulpdu_len_off)
{
	if (marker_off + KIW_MPA_MARKER_SIZE == ulpdu_len_off)
		return 0;
	return marker_off - ulpdu_len_off;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_fpduptr);

/*
 * The first octet of the FPDU a marker points to, (marker - FPDUPTR) mod
 * 2^32 with FPDUPTR's low two bits cleared; for FPDUPTR 0 that is the
 * marker itself, which leads its FPDU.
 */
u32 kiw_mpa_fpdu_start(u32 marker_off, u16 fpduptr)
{
	return marker_off - (fpduptr & KIW_MPA_FPDUPTR_MASK);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_fpdu_start);

/* Stream offset of the ULPDU_Length of the FPDU a marker points to. */
u32 kiw_mpa_ulpdu_len_off(u32 marker_off, u16 fpduptr)
{
	if (!(fpduptr & KIW_MPA_FPDUPTR_MASK))
		return marker_off + KIW_MPA_MARKER_SIZE;
	return kiw_mpa_fpdu_start(marker_off, fpduptr);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_mpa_ulpdu_len_off);
