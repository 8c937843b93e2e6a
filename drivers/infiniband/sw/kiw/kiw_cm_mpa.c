// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw MPA startup on the socket (RFC 5044 section 7.1, RFC 6581): build
 * and send the Request and Reply, read the peer's frame with exact lengths
 * (20 octets, then PD_Length) so that the first octet of Full Operation
 * stays in the socket for the data path, and turn what arrives into
 * endpoint events. kiw_mpa.c decides what the frames mean.
 *
 * What is refused, and how:
 *  - a malformed frame (bad key, a Request where a Reply belongs or the
 *    other way round, Rev 0 or above 2, PD_Length above 512 or above what
 *    iw_cm can carry, an enhanced frame without its IRD/ORD word): error
 *    code 4, the TCP connection is closed at once (RST), and an initiator's
 *    consumer gets CONNECT_REPLY -EPROTO;
 *  - a valid Request kiw cannot take (crc=required and C=0, no RTR type in
 *    common): a Reply with R set, then a FIN;
 *  - an initiator whose negotiation fails on a valid Reply: with
 *    crc=required the connection is reset; when the responder's ORD
 *    exceeds our IRD, or its RTR choice is not one we offered, RFC 6581's
 *    Terminate (LLP layer, MPA type, code 0x06 insufficient IRD or 0x07
 *    no matching RTR) goes out first, as the stream's first FPDU, and a
 *    FIN follows it; the consumer gets the kiw_mpa_err_errno() status;
 *  - a peer that stays silent or stops halfway: the device's timeout.
 * The Res bits and a Request's R bit are ignored.
 */
#include <linux/kernel.h>
#include <linux/slab.h>

#include "kiw_cep.h"
#include "kiw_ddp.h"
#include "kiw_fpdu.h"
#include "kiw_rdmap.h"
#include "kiw_stats.h"

/*
 * The startup frames, which only a startup state reaches (kiw_cep.h):
 * NULL, with a warning, if the exchange is already over.
 */
static struct kiw_cep_frames *kiw_cep_frames(struct kiw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	WARN_ON_ONCE(!cep->frames);
	return cep->frames;
}

/* The frame an endpoint reads: a Request (responder) or a Reply. */
static struct kiw_mpa_frame *kiw_cep_rx_frame(struct kiw_cep *cep)
{
	return cep->active ? &cep->rep : &cep->req;
}

static enum kiw_cep_event kiw_cep_mpa_fail(struct kiw_cep *cep,
					   enum kiw_mpa_err e)
{
	ibdev_warn_ratelimited(&cep->kdev->ibdev,
			       "%pISpc: MPA %s refused: %s\n", &cep->remote,
			       cep->active ? "Reply" : "Request",
			       kiw_mpa_err_name(e));
	cep->status = kiw_mpa_err_errno(e);
	return KIW_CEP_EV_BAD_FRAME;
}

/*
 * The header is in: check it before reading PD_Length more octets. iw_cm
 * events carry at most 255 octets of consumer private data, which is the
 * receive buffer RFC 5044 7.1.2 (9) lets us hold the frame against.
 */
static enum kiw_mpa_err kiw_cep_check_hdr(struct kiw_cep *cep)
{
	struct kiw_mpa_frame *f = kiw_cep_rx_frame(cep);
	u8 max_rev = cep->active ? cep->req.rev : KIW_MPA_REV_2;
	enum kiw_mpa_err e;
	unsigned int ulp;

	e = kiw_mpa_parse_hdr(cep->frames->rx_buf, cep->frames->rx_len,
			      !cep->active, max_rev, KIW_MPA_PD_MAX, f);
	if (e)
		return e;
	ulp = f->pd_len - (f->enhanced ? sizeof(struct kiw_mpa_v2) : 0);
	return ulp > KIW_CM_ULP_PD_MAX ? KIW_MPA_ERR_PD_BUF : KIW_MPA_OK;
}

/* A whole, well-formed Request: offer it to the consumer, or refuse it. */
static enum kiw_cep_event kiw_cep_got_request(struct kiw_cep *cep)
{
	enum kiw_mpa_err e;

	/*
	 * Nothing may follow the Request before our Reply: refuse such a
	 * frame before the consumer hears of it (octets that arrive later
	 * are caught in RECVD_REQ).
	 */
	if (kiw_sock_has_data(cep->sock))
		return kiw_cep_mpa_fail(cep, KIW_MPA_ERR_TRUNCATED);
	kiw_mpa_local_init(&cep->mpa, &cep->cfg, KIW_MAX_IRD, KIW_MAX_ORD);
	e = kiw_mpa_check_request(&cep->mpa, &cep->req);
	if (e) {
		ibdev_info_ratelimited(&cep->kdev->ibdev,
				       "%pISpc: MPA Request refused: %s\n",
				       &cep->remote, kiw_mpa_err_name(e));
		return KIW_CEP_EV_REFUSE;
	}
	return KIW_CEP_EV_REQUEST;
}

/* One Terminate FPDU, built outside the data path. */
struct kiw_cep_term_fpdu {
	struct kiw_fpdu_tx ftx;
	u8 hdr[KIW_MPA_ULPDU_LEN_SIZE + KIW_DDP_HDR_MAX_LEN +
	       sizeof(struct kiw_rdmap_term)];
	u8 wire[64];
	struct kiw_mpa_marker mk[4];	/* a 64-octet FPDU crosses at most 2 */
};

/*
 * The initiator refuses a valid Reply for a reason RFC 6581 names (@e is
 * KIW_MPA_ERR_IRD or KIW_MPA_ERR_RTR): tell the responder with a
 * Terminate carrying no offending header. It is the first FPDU of our
 * half of the stream (offset 0, MSN 1 on QN 2), framed as the two frames
 * settled: CRC if either asked, markers if the responder asked.
 * kiw_cep_release() then closes with a FIN behind it.
 */
static void kiw_cep_send_mpa_term(struct kiw_cep *cep, enum kiw_mpa_err e)
{
	kiw_term_t term = kiw_mpa_err_term(e);
	struct kiw_cep_term_fpdu *t;
	struct kiw_fpdu_tx_desc d = {
		.start = 0,
		.markers = cep->res.tx_markers,
		.crc = cep->res.crc,
	};
	unsigned int len;
	u8 *h;
	int n;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return;		/* the connection is reset without it */
	h = t->hdr + KIW_MPA_ULPDU_LEN_SIZE;
	kiw_ddp_build_untagged((struct kiw_ddp_untagged_hdr *)h,
			       kiw_rdmap_ctrl(KIW_RDMAP_TERMINATE), 0,
			       KIW_DDP_QN_TERMINATE, KIW_DDP_MSN_FIRST, 0, true);
	len = kiw_rdmap_term_build((struct kiw_rdmap_term *)
				   (h + KIW_DDP_HDR_MAX_LEN), term, NULL, 0, 0);
	d.hdr = t->hdr;
	d.hdr_len = KIW_DDP_HDR_MAX_LEN + len;
	d.mk = t->mk;
	d.mk_max = ARRAY_SIZE(t->mk);
	n = kiw_fpdu_build_linear(&t->ftx, &d, t->wire, sizeof(t->wire));
	if (!WARN_ON_ONCE(n < 0) &&
	    !kiw_sock_send(cep->sock, t->wire, n)) {
		cep->term_sent = true;
		kiw_stats_term(cep->kdev, term, true);
	}
	kfree(t);
}

/*
 * A whole, well-formed Reply: rejected, refused, or (KIW_CEP_EV_REPLY)
 * negotiated, for Full Operation.
 */
static enum kiw_cep_event kiw_cep_got_reply(struct kiw_cep *cep)
{
	enum kiw_mpa_err e;

	if (cep->rep.reject) {
		cep->status = -ECONNREFUSED;
		return KIW_CEP_EV_REJECTED;
	}
	e = kiw_mpa_negotiate(KIW_MPA_INITIATOR, &cep->mpa, &cep->req,
			      &cep->rep, &cep->res);
	if (e == KIW_MPA_ERR_IRD || e == KIW_MPA_ERR_RTR)
		kiw_cep_send_mpa_term(cep, e);
	if (e)
		return kiw_cep_mpa_fail(cep, e);
	return KIW_CEP_EV_REPLY;
}

/*
 * Read what the socket has of the peer's frame, never past its end, and
 * say what it amounts to once it is complete (or broken): true and the
 * event in @ev, which the CM then steps with; false while more is to
 * come. Called from the endpoint's work whenever the socket may have
 * something, in AWAIT_REQ and AWAIT_REP.
 */
bool kiw_cep_mpa_input(struct kiw_cep *cep, enum kiw_cep_event *ev)
{
	const unsigned int hdr = sizeof(struct kiw_mpa_hdr);
	struct kiw_mpa_frame *f = kiw_cep_rx_frame(cep);
	struct kiw_cep_frames *fr = kiw_cep_frames(cep);
	enum kiw_mpa_err e;
	int n;

	if (!fr) {
		cep->status = -ENOTCONN;
		*ev = KIW_CEP_EV_ABORT;
		return true;
	}
	for (;;) {
		unsigned int want = fr->rx_len < hdr ? hdr : hdr + f->pd_len;

		if (fr->rx_len == want)
			break;
		n = kiw_sock_read(cep->sock, fr->rx_buf + fr->rx_len,
				  want - fr->rx_len);
		if (n == -EAGAIN)
			return false;
		if (n <= 0) {
			/* The peer closed or reset before finishing. */
			cep->status = n ? n : -ECONNRESET;
			*ev = n ? KIW_CEP_EV_RESET : KIW_CEP_EV_PEER_FIN;
			return true;
		}
		fr->rx_len += n;
		if (fr->rx_len == hdr) {
			e = kiw_cep_check_hdr(cep);
			if (e) {
				*ev = kiw_cep_mpa_fail(cep, e);
				return true;
			}
		}
	}
	e = kiw_mpa_parse_pd(f, fr->rx_buf + hdr, fr->rx_len - hdr);
	if (e)
		*ev = kiw_cep_mpa_fail(cep, e);
	else if (cep->active)
		*ev = kiw_cep_got_reply(cep);
	else
		*ev = kiw_cep_got_request(cep);
	return true;
}

/*
 * Point a built frame's private data at our copy in tx_buf; it is cleared
 * with the frames (kiw_cep_frames_drop()).
 */
static void kiw_cep_own_pd(struct kiw_cep *cep, struct kiw_mpa_frame *f)
{
	unsigned int off = sizeof(struct kiw_mpa_hdr) +
			   (f->enhanced ? sizeof(struct kiw_mpa_v2) : 0);

	f->ulp_pd = f->ulp_pd_len ? cep->frames->tx_buf + off : NULL;
}

/* iw_connect: our settings and the Request, built now, sent on TCP_UP. */
int kiw_cep_prepare_request(struct kiw_cep *cep,
			    const struct iw_cm_conn_param *param)
{
	struct kiw_cep_frames *fr = kiw_cep_frames(cep);
	int ret;

	if (!fr)
		return -ENOTCONN;
	kiw_mpa_local_init(&cep->mpa, &cep->cfg, param->ird, param->ord);
	cep->mpa.p2p = cep->cfg.p2p && cep->mpa.rev == KIW_MPA_REV_2;
	ret = kiw_mpa_request_init(&cep->req, &cep->mpa, param->private_data,
				   param->private_data_len);
	if (ret)
		return -EINVAL;
	ret = kiw_mpa_build(&cep->req, fr->tx_buf, sizeof(fr->tx_buf));
	if (ret < 0)
		return ret;
	fr->tx_len = ret;
	kiw_cep_own_pd(cep, &cep->req);
	return 0;
}

/*
 * The connected socket's addresses, for the endpoint: a TCP socket's are
 * AF_INET or AF_INET6 (kiw_sock_create(), or accepted from one of those).
 */
int kiw_cep_learn_addrs(struct kiw_cep *cep)
{
	struct sockaddr_storage local, remote;
	int ret;

	ret = kiw_sock_addrs(cep->sock, &local, &remote);
	if (ret)
		return ret;
	kiw_cep_addr_set(&cep->local, &local);
	kiw_cep_addr_set(&cep->remote, &remote);
	return 0;
}

/* TCP is up: learn the connection's addresses, send the Request. */
int kiw_cep_send_request(struct kiw_cep *cep)
{
	struct kiw_cep_frames *fr = kiw_cep_frames(cep);
	int ret;

	if (!fr)
		return -ENOTCONN;
	ret = kiw_cep_learn_addrs(cep);
	if (ret)
		return ret;
	return kiw_sock_send(cep->sock, fr->tx_buf, fr->tx_len);
}

/*
 * A Reply with R set (RFC 5044 7.1.2 (2)): the consumer's private data if
 * it rejected, none if kiw refused. The connection is closed afterwards.
 */
int kiw_cep_send_reject(struct kiw_cep *cep)
{
	struct kiw_cep_frames *fr = kiw_cep_frames(cep);
	struct kiw_mpa_frame rep;
	int ret;

	if (!fr)
		return -ENOTCONN;
	ret = kiw_mpa_reply_init(&rep, &cep->mpa, &cep->req, true,
				 cep->reject_pd, cep->reject_pd_len);
	if (!ret)
		ret = kiw_mpa_build(&rep, fr->tx_buf, sizeof(fr->tx_buf));
	if (ret < 0)
		return ret;
	return kiw_sock_send(cep->sock, fr->tx_buf, ret);
}

/*
 * iw_accept: the Reply for the consumer's IRD/ORD and private data, and
 * what the two frames settle. The Reply is sent by the caller once the
 * data path has the socket.
 */
int kiw_cep_accept_mpa(struct kiw_cep *cep,
		       const struct iw_cm_conn_param *param)
{
	struct kiw_cep_frames *fr = kiw_cep_frames(cep);
	enum kiw_mpa_err e;
	int ret;

	if (!fr)
		return -ENOTCONN;
	kiw_mpa_local_init(&cep->mpa, &cep->cfg, param->ird, param->ord);
	ret = kiw_mpa_reply_init(&cep->rep, &cep->mpa, &cep->req, false,
				 param->private_data, param->private_data_len);
	if (ret)
		return -EINVAL;
	e = kiw_mpa_negotiate(KIW_MPA_RESPONDER, &cep->mpa, &cep->req,
			      &cep->rep, &cep->res);
	if (e)
		return kiw_mpa_err_errno(e);
	ret = kiw_mpa_build(&cep->rep, fr->tx_buf, sizeof(fr->tx_buf));
	if (ret < 0)
		return ret;
	fr->tx_len = ret;
	kiw_cep_own_pd(cep, &cep->rep);
	return 0;
}

/* What the data path is told at kiw_llp_attach(). */
void kiw_cep_llp_params(const struct kiw_cep *cep,
			struct kiw_llp_params *params)
{
	const struct kiw_mpa_result *res = &cep->res;

	memset(params, 0, sizeof(*params));
	params->sock = cep->sock;
	params->initiator = cep->active;
	params->mpa_rev = res->rev;
	params->crc = res->crc;
	params->tx_markers = res->tx_markers;
	params->rx_markers = res->rx_markers;
	params->ird = res->ird;
	params->ord = res->ord;
	params->rtr = kiw_cm_rtr(res->rtr);
	params->hold_tx_until_rx = kiw_cm_hold_tx(&cep->req, res, cep->cfg.p2p);
}
