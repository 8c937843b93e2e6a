// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw receive engine (see kiw_rx.h): the FPDU parser's upper layer, the
 * per-message checks and completions, and the error path.
 */
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <net/tcp.h>
#include <kunit/visibility.h>

#include "kiw_llp.h"
#include "kiw_qp.h"
#include "kiw_rdmap.h"
#include "kiw_rx.h"
#include "kiw_stats.h"
#include "kiw_trace.h"

#define KIW_TERM_LOCAL_CATASTROPHIC \
	KIW_TERM(KIW_TERM_LAYER_RDMAP, KIW_RDMAP_ETYPE_CATASTROPHIC, \
		 KIW_RDMAP_ECODE_CATASTROPHIC)
#define KIW_TERM_UNEXPECTED_OP \
	KIW_TERM(KIW_TERM_LAYER_RDMAP, KIW_RDMAP_ETYPE_REMOTE_OP, \
		 KIW_RDMAP_ECODE_UNEXPECTED_OPCODE)
#define KIW_TERM_NO_RTR \
	KIW_TERM(KIW_TERM_LAYER_LLP, KIW_LLP_ETYPE_MPA, \
		 KIW_LLP_ECODE_NO_MATCHING_RTR)

static struct kiw_qp *kiw_rx_qp(struct kiw_fpdu_rx *f)
{
	return container_of(f, struct kiw_qp, rx.fpdu);
}

static u8 kiw_rx_op(const struct kiw_rx *rx)
{
	return kiw_rdmap_opcode(rx->seg.rdmap_ctrl);
}

/*
 * Stop receiving for good: complete the work request the error hits,
 * and have the TX send the Terminate (RFC 5040 section 7.1, RFC 5041
 * section 7.1). @rreq: the Read Request header, for errors found in one.
 */
static void kiw_rx_fail(struct kiw_qp *qp, kiw_term_t term, const u8 *rreq)
{
	struct kiw_rx *rx = &qp->rx;
	struct kiw_term_report rep = kiw_term_report(term, false);
	u8 hdr[KIW_DDP_HDR_MAX_LEN + sizeof(struct kiw_rdmap_read_req)];
	unsigned int hdr_len = 0;
	enum ib_wc_status status;
	struct kiw_wc wc = {};
	int i;

	if (rx->stopped)
		return;
	rx->stopped = true;
	kiw_place_put(&rx->place);
	status = rx->place.status != IB_WC_SUCCESS ? rx->place.status :
						      rep.wc_status;
	if (rx->have_seg) {
		hdr_len = kiw_ddp_hdr_len(rx->hdr[0]);
		memcpy(hdr, rx->hdr, hdr_len);
		if (rreq) {
			memcpy(hdr + hdr_len, rreq,
			       sizeof(struct kiw_rdmap_read_req));
			hdr_len += sizeof(struct kiw_rdmap_read_req);
		}
	}
	/* The affected request: the Send's receive WR, or the Read's. */
	if (rx->rqe_valid && (!rx->have_seg || kiw_rdmap_is_send(kiw_rx_op(rx)))) {
		rx->rqe_valid = false;
		wc.status = status;
		if (kiw_rq_complete(qp, rx->rqe, &wc))
			kiw_qp_error(qp);	/* CQ overflow */
	} else if (rx->have_seg && kiw_rx_op(rx) == KIW_RDMAP_READ_RESP) {
		i = kiw_rdq_head(&qp->tx.orq_q);
		if (i >= 0)
			kiw_tx_read_done(qp, &qp->tx.orq[i], status);
	}
	kiw_tx_terminate(qp, term, rep.event, hdr_len ? hdr : NULL, hdr_len,
			 rx->seg_len);
}

/* RFC 6581: the responder's first FPDU must be the RTR agreed upon. */
static kiw_term_t kiw_rx_check_rtr(const struct kiw_rx *rx)
{
	const struct kiw_ddp_info *seg = &rx->seg;
	u8 op = kiw_rx_op(rx);

	if (!kiw_ddp_info_last(seg))
		return KIW_TERM_NO_RTR;
	switch (rx->await_rtr) {
	case KIW_RTR_WRITE:
		return op == KIW_RDMAP_WRITE && !seg->len ?
		       KIW_TERM_NONE : KIW_TERM_NO_RTR;
	case KIW_RTR_READ:
		return op == KIW_RDMAP_READ_REQ ? KIW_TERM_NONE :
						  KIW_TERM_NO_RTR;
	case KIW_RTR_SEND:
		return op == KIW_RDMAP_SEND && !seg->len ?
		       KIW_TERM_NONE : KIW_TERM_NO_RTR;
	default:
		return KIW_TERM_NONE;
	}
}

static kiw_term_t kiw_rx_hdr_write(struct kiw_qp *qp)
{
	struct kiw_rx *rx = &qp->rx;
	const struct kiw_ddp_info *seg = &rx->seg;
	kiw_term_t t;

	/*
	 * The region's access rights decide, not the QP's: librdmacm never
	 * sets an active side's QP access flags on iWARP (the QP is modified
	 * only before the iw_cm id exists), and siw ignores them too.
	 */
	t = kiw_ddp_rx_check_tagged(&rx->ddp.write, seg);
	if (t)
		return t;
	return kiw_place_tagged(&rx->place, seg->stag, seg->to, seg->len,
				KIW_STAG_SINK);
}

/* A Read Response answers the oldest Read outstanding (RFC 5040 5.5). */
static kiw_term_t kiw_rx_hdr_rresp(struct kiw_qp *qp)
{
	struct kiw_rx *rx = &qp->rx;
	const struct kiw_ddp_info *seg = &rx->seg;
	int i = kiw_rdq_head(&qp->tx.orq_q);
	kiw_term_t t;

	if (i < 0)
		return KIW_TERM_UNEXPECTED_OP;
	t = kiw_ddp_rx_check_tagged(&rx->ddp.read_resp, seg);
	if (!t)
		t = kiw_rdmap_check_read_resp(&qp->tx.orq[i].rr, rx->orq_done,
					      seg);
	if (t)
		return t;
	return kiw_place_tagged(&rx->place, seg->stag, seg->to, seg->len,
				KIW_STAG_SINK);
}

/* A Read Request goes into the next IRQ entry; IRD full: no buffer. */
static kiw_term_t kiw_rx_hdr_rreq(struct kiw_qp *qp)
{
	struct kiw_rx *rx = &qp->rx;
	const struct kiw_ddp_info *seg = &rx->seg;
	struct kiw_tx *tx = &qp->tx;
	kiw_term_t t;

	t = kiw_ddp_rx_check_untagged(&rx->ddp.q[KIW_DDP_QN_READ_REQ], seg,
				      kiw_rdq_free(&tx->irq_q),
				      sizeof(struct kiw_rdmap_read_req));
	if (!t)
		kiw_place_buf(&rx->place,
			      tx->irq[kiw_rdq_tail(&tx->irq_q)].raw + seg->mo,
			      seg->len);
	return t;
}

static kiw_term_t kiw_rx_hdr_term(struct kiw_qp *qp)
{
	struct kiw_rx *rx = &qp->rx;
	const struct kiw_ddp_info *seg = &rx->seg;
	kiw_term_t t;

	t = kiw_ddp_rx_check_untagged(&rx->ddp.q[KIW_DDP_QN_TERMINATE], seg,
				      1, sizeof(rx->term_buf));
	if (!t)
		kiw_place_buf(&rx->place, rx->term_buf + seg->mo, seg->len);
	return t;
}

/* A Send takes the next receive WR when its message starts. */
static kiw_term_t kiw_rx_hdr_send(struct kiw_qp *qp)
{
	struct kiw_rx *rx = &qp->rx;
	const struct kiw_ddp_info *seg = &rx->seg;
	kiw_term_t t;
	int ret;

	if (rx->await_rtr == KIW_RTR_SEND) {
		/* The RTR Send: an MSN, but no receive WR. */
		kiw_place_none(&rx->place);
		return kiw_ddp_rx_check_untagged(&rx->ddp.q[KIW_DDP_QN_SEND],
						 seg, 1, 0);
	}
	if (!rx->rqe_valid) {
		ret = kiw_rq_fetch(qp, rx->rqe);
		if (ret == -EINVAL) {
			/* Malformed receive WR: it fails, so does the QP. */
			rx->rqe_valid = true;
			rx->place.status = IB_WC_LOC_LEN_ERR;
			return KIW_TERM_LOCAL_CATASTROPHIC;
		}
		rx->rqe_valid = !ret;
	}
	t = kiw_ddp_rx_check_untagged(&rx->ddp.q[KIW_DDP_QN_SEND], seg,
				      rx->rqe_valid,
				      rx->rqe_valid ? rx->rqe->length : 0);
	if (t)
		return t;
	return kiw_place_sgl(&rx->place, rx->rqe, seg->mo, seg->len);
}

/*
 * hdr(): the checks of kiw_ddp.h, in their order, and the placement
 * target. Nothing of the segment is placed unless this returns no error.
 */
static kiw_term_t kiw_rx_hdr(struct kiw_fpdu_rx *f, const u8 *hdr,
			     unsigned int hdr_len, unsigned int ulpdu_len)
{
	struct kiw_qp *qp = kiw_rx_qp(f);
	struct kiw_rx *rx = &qp->rx;
	struct kiw_ddp_info *seg = &rx->seg;
	kiw_term_t t;

	if (rx->stopped)	/* an error found in an end(): ignore the rest */
		return KIW_TERM_LOCAL_CATASTROPHIC;
	memcpy(rx->hdr, hdr, min_t(unsigned int, hdr_len, sizeof(rx->hdr)));
	rx->seg_len = ulpdu_len;
	rx->have_seg = true;
	rx->place.status = IB_WC_SUCCESS;
	memset(seg, 0, sizeof(*seg));
	t = kiw_ddp_rx_parse(hdr, ulpdu_len, seg);
	if (!t)
		t = kiw_rdmap_rx_check(seg->ddp_ctrl, seg->rdmap_ctrl, seg->qn);
	if (!t && rx->await_rtr != KIW_RTR_NONE)
		t = kiw_rx_check_rtr(rx);
	if (t)
		return t;
	switch (kiw_rx_op(rx)) {
	case KIW_RDMAP_WRITE:
		return kiw_rx_hdr_write(qp);
	case KIW_RDMAP_READ_RESP:
		return kiw_rx_hdr_rresp(qp);
	case KIW_RDMAP_READ_REQ:
		return kiw_rx_hdr_rreq(qp);
	case KIW_RDMAP_TERMINATE:
		return kiw_rx_hdr_term(qp);
	default:
		return kiw_rx_hdr_send(qp);
	}
}

static kiw_term_t kiw_rx_data(struct kiw_fpdu_rx *f, const struct sk_buff *skb,
			      unsigned int off, unsigned int len)
{
	return kiw_place_data(&kiw_rx_qp(f)->rx.place, f, skb, off, len);
}

/* The last segment of a Send is good: the receive WR completes. */
static void kiw_rx_send_done(struct kiw_qp *qp)
{
	struct kiw_rx *rx = &qp->rx;
	const struct kiw_ddp_info *seg = &rx->seg;
	u8 op = kiw_rx_op(rx);
	struct kiw_wc wc = {
		.status = IB_WC_SUCCESS,
		.byte_len = kiw_ddp_msg_len(seg),
		.solicited = kiw_rdmap_is_solicited(op),
	};
	kiw_term_t t;

	if (!rx->rqe_valid)
		return;		/* the RTR Send */
	if (kiw_rdmap_has_inval_stag(op)) {
		/* The L segment's STag counts (RFC 5041 4.3). */
		t = kiw_mr_invalidate_remote(qp->kdev, &qp->pd->base,
					     seg->ulp_word);
		if (t) {
			kiw_rx_fail(qp, t, NULL);
			return;
		}
		wc.invalidated = true;
		wc.inval_stag = seg->ulp_word;
	}
	rx->rqe_valid = false;
	if (kiw_rq_complete(qp, rx->rqe, &wc))
		kiw_qp_error(qp);	/* CQ overflow */
}

/* A Read Request arrived whole: check its source, queue the response. */
static void kiw_rx_rreq_done(struct kiw_qp *qp)
{
	struct kiw_rx *rx = &qp->rx;
	struct kiw_tx *tx = &qp->tx;
	struct kiw_irqe *e = &tx->irq[kiw_rdq_tail(&tx->irq_q)];
	struct kiw_mr_map map;
	u32 len = kiw_ddp_msg_len(&rx->seg);
	struct kiw_mr *mr;
	kiw_term_t t;

	t = kiw_rdmap_read_req_parse(e->raw, len, &e->rr);
	if (!t && kiw_rdmap_read_req_src_check(&e->rr)) {
		t = kiw_mr_get_tagged(qp->kdev, &qp->pd->base, e->rr.src_stag,
				      IB_ACCESS_REMOTE_READ, e->rr.src_to,
				      e->rr.size, KIW_STAG_SOURCE, &mr, &map);
		/* Checked again when the response is sent: no reference. */
		if (!t && mr)
			kiw_mr_put(mr);
	}
	if (t) {
		/*
		 * Echo the Read Request header only if the message held one:
		 * the rest of a short one's slot is an earlier request's,
		 * possibly from an earlier connection of this QP.
		 */
		kiw_rx_fail(qp, t, len == sizeof(struct kiw_rdmap_read_req) ?
			    e->raw : NULL);
		return;
	}
	e->msn = rx->seg.msn;
	kiw_rdq_publish(&tx->irq_q);
	kiw_tx_kick(qp);
}

/* The last segment of a Read Response: the Read is complete. */
static void kiw_rx_rresp_done(struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;
	enum ib_wc_status status = IB_WC_SUCCESS;
	const struct kiw_orqe *e = &tx->orq[kiw_rdq_head(&tx->orq_q)];

	if (e->inv)	/* IB_WR_RDMA_READ_WITH_INV: the sink, now */
		status = kiw_mr_invalidate_local(qp->kdev, &qp->pd->base,
						 e->rr.sink_stag);
	kiw_tx_read_done(qp, e, status);
	qp->rx.orq_done = 0;
	kiw_rdq_pop(&tx->orq_q);
	smp_mb();	/* pairs with kiw_tx_sq_blocked() */
	if (READ_ONCE(tx->orq_wait)) {
		WRITE_ONCE(tx->orq_wait, false);
		kiw_tx_kick(qp);
	}
}

/* The peer terminated (RFC 5040 section 5.6): report it, stop. */
static void kiw_rx_term_done(struct kiw_qp *qp)
{
	struct kiw_rx *rx = &qp->rx;
	struct kiw_rdmap_term_info ti;
	struct kiw_term_report rep;

	kiw_rdmap_term_parse(rx->term_buf, kiw_ddp_msg_len(&rx->seg), &ti);
	rep = kiw_term_report(ti.err, true);
	kiw_stats_term(qp->kdev, ti.err, false);
	trace_kiw_term_rx(qp, ti.err);
	ibdev_info_ratelimited(&qp->kdev->ibdev,
			       "QP %u: peer terminated: layer %u type %u code 0x%02x\n",
			       qp->base.qp_num, kiw_term_layer(ti.err),
			       kiw_term_etype(ti.err), kiw_term_ecode(ti.err));
	rx->stopped = true;
	kiw_tx_charge(qp, rep.wc_status);
	kiw_qp_peer_terminate(qp, rep.event);
}

/* The segment passed the checks and was placed: account for it. */
static void kiw_rx_account(struct kiw_qp *qp)
{
	struct kiw_rx *rx = &qp->rx;
	const struct kiw_ddp_info *seg = &rx->seg;

	if (kiw_ddp_info_tagged(seg)) {
		if (kiw_rx_op(rx) != KIW_RDMAP_READ_RESP) {
			kiw_ddp_rxt_advance(&rx->ddp.write, seg);
			return;
		}
		rx->orq_done += seg->len;
		if (kiw_ddp_rxt_advance(&rx->ddp.read_resp, seg))
			kiw_rx_rresp_done(qp);
		return;
	}
	if (!kiw_ddp_rxq_advance(&rx->ddp.q[seg->qn], seg))
		return;
	switch (seg->qn) {
	case KIW_DDP_QN_SEND:
		kiw_rx_send_done(qp);
		break;
	case KIW_DDP_QN_READ_REQ:
		kiw_rx_rreq_done(qp);
		break;
	default:
		kiw_rx_term_done(qp);
		break;
	}
}

/*
 * end(): after the FPDU's CRC field. Only now is a good segment accounted
 * for and its message completed (a parser fed without checking ahead
 * runs data() before the CRC is known: kiw_fpdu.h).
 */
static void kiw_rx_end(struct kiw_fpdu_rx *f, kiw_term_t verdict)
{
	struct kiw_qp *qp = kiw_rx_qp(f);
	struct kiw_rx *rx = &qp->rx;

	kiw_stats_rx_fpdu(qp->kdev, f, verdict);
	trace_kiw_fpdu_rx(qp, NULL, f, verdict);
	if (verdict) {
		kiw_rx_fail(qp, verdict, NULL);
		return;
	}
	if (rx->stopped)
		return;
	kiw_rx_account(qp);
	rx->have_seg = false;
	if (!rx->got_fpdu && !rx->stopped) {
		/* RFC 5044 7.1.2 (4), RFC 6581: the responder may speak. */
		rx->got_fpdu = true;
		rx->await_rtr = KIW_RTR_NONE;
		if (READ_ONCE(qp->tx.hold)) {
			WRITE_ONCE(qp->tx.hold, false);
			kiw_tx_kick(qp);
		}
	}
}

static const struct kiw_fpdu_rx_ops kiw_rx_ops = {
	.hdr = kiw_rx_hdr,
	.data = kiw_rx_data,
	.end = kiw_rx_end,
};

/* What a run's tcp_read_sock() actor works with. */
struct kiw_rx_desc {
	struct kiw_qp *qp;
	struct sock *sk;
};

/*
 * The octets queued from @off in @skb on, through the receive queue, as
 * pieces to @fn until it returns false. A queued skb may start before the
 * octets already seen (TCP queues a retransmission that overlaps them):
 * offsets come from the sequence numbers, as in tcp_recv_skb().
 */
static void kiw_rx_queued(struct sock *sk, const struct sk_buff *skb,
			  unsigned int off,
			  bool (*fn)(void *arg, const struct sk_buff *skb,
				     unsigned int off, unsigned int len),
			  void *arg)
{
	u32 seq = TCP_SKB_CB(skb)->seq + off;

	for (;;) {
		u32 o = seq - TCP_SKB_CB(skb)->seq;

		if (o < skb->len) {
			if (!fn(arg, skb, o, skb->len - o))
				return;
			seq += skb->len - o;
		}
		if (skb_queue_is_last(&sk->sk_receive_queue, skb))
			return;
		skb = skb_queue_next(&sk->sk_receive_queue, skb);
	}
}

struct kiw_rx_peek {
	u8 buf[KIW_FPDU_RX_PEEK];
	unsigned int n;
};

static bool kiw_rx_peek_actor(void *arg, const struct sk_buff *skb,
			      unsigned int off, unsigned int len)
{
	struct kiw_rx_peek *p = arg;
	unsigned int n = min_t(unsigned int, len, sizeof(p->buf) - p->n);

	if (skb_copy_bits(skb, off, p->buf + p->n, n))
		return false;
	p->n += n;
	return p->n < sizeof(p->buf);
}

static bool kiw_rx_ahead_actor(void *arg, const struct sk_buff *skb,
			       unsigned int off, unsigned int len)
{
	return !kiw_fpdu_rx_ahead_feed(arg, skb, off, len);
}

/*
 * The rest of an FPDU cannot come in while we hold its start: the
 * receive window has less room than that rest and than a full segment
 * (an FPDU near 64 KiB on a socket whose buffer has not grown yet). The
 * peer would wait for a window we only open by reading.
 */
static bool kiw_rx_window_stuck(struct sock *sk, u32 rest)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return tcp_receive_window(tp) < min_t(u32, rest, tp->advmss);
}

/*
 * CRC on: check the next FPDU ahead, if all of it is queued (RFC 5044
 * section 6: verified before DDP sees any of it), when it is not whole in
 * one piece of @skb (kiw_fpdu_rx_take_flat() takes those). Return: false if it
 * is not all there yet; the next sk_data_ready comes back to it. If it
 * cannot all come in (kiw_rx_window_stuck()), the parser takes it as
 * it arrives instead, CRC checked at its end (and nothing completes
 * before): a connection that goes on over one that stalls for good.
 */
static bool kiw_rx_ahead(struct kiw_rx *rx, struct sock *sk,
			 const struct sk_buff *skb, unsigned int off)
{
	u32 queued = READ_ONCE(tcp_sk(sk)->rcv_nxt) -
		     (TCP_SKB_CB(skb)->seq + off);
	struct kiw_rx_peek peek = {};
	struct kiw_fpdu_rx copy;
	int span;

	kiw_rx_queued(sk, skb, off, kiw_rx_peek_actor, &peek);
	span = kiw_fpdu_rx_span(&rx->fpdu, peek.buf, peek.n);
	if (span > 0 && queued < (u32)span) {
		if (!kiw_rx_window_stuck(sk, span - queued))
			return false;
		kiw_fpdu_rx_through(&rx->fpdu);
		return true;
	}
	if (!span)
		return false;
	kiw_fpdu_rx_ahead_begin(&copy, &rx->fpdu);
	kiw_rx_queued(sk, skb, off, kiw_rx_ahead_actor, &copy);
	if (copy.state != KIW_FPDU_RX_DEAD)
		return false;
	kiw_fpdu_rx_ahead_commit(&rx->fpdu, &copy);
	return true;
}

/* tcp_read_sock() actor: feed the parser, within the run's budget. */
static int kiw_rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
			unsigned int off, size_t len)
{
	struct kiw_rx_desc *d = desc->arg.data;
	struct kiw_rx *rx = &d->qp->rx;
	size_t n = min(len, desc->count), done = 0, m;

	if (!n)
		return 0;	/* budget spent: tcp_read_sock() stops */
	/* After an error everything is consumed and dropped (5041 7.1). */
	while (!rx->stopped && done < n) {
		m = kiw_fpdu_rx_room(&rx->fpdu);
		if (!m) {
			m = kiw_fpdu_rx_take_flat(&rx->fpdu, skb, off + done,
						  n - done);
			if (m) {
				done += m;
				continue;
			}
			if (!kiw_rx_ahead(rx, d->sk, skb, off + done))
				break;	/* the rest of the FPDU is still to come */
		}
		m = min_t(size_t, n - done, kiw_fpdu_rx_room(&rx->fpdu));
		kiw_fpdu_rx_feed_pieces(&rx->fpdu, skb, off + done, m);
		done += m;
	}
	if (rx->stopped)
		done = n;
	desc->count -= done;
	return done;
}

/**
 * kiw_rx_run - process what sits in the socket's receive queue
 * @qp: the attached QP
 * @sk: its socket, locked by the caller (bh_lock_sock in sk_data_ready,
 *	or lock_sock)
 * @budget: octets to take at most
 *
 * Return: -EAGAIN if the budget ran out (more may be queued), else 0.
 */
int kiw_rx_run(struct kiw_qp *qp, struct sock *sk, size_t budget)
{
	struct kiw_rx *rx = &qp->rx;
	struct kiw_rx_desc d = { .qp = qp, .sk = sk };
	read_descriptor_t desc = {
		.arg.data = &d,
		.count = budget,
	};
	enum kiw_qp_state state = kiw_qp_state(qp);

	if (state == KIW_QP_TERMINATE || state == KIW_QP_ERROR)
		rx->stopped = true;
	tcp_read_sock(sk, &desc, kiw_rx_actor);
	/* Not across runs: the peer decides when the next octets come. */
	kiw_place_put(&rx->place);
	trace_kiw_rx_run(qp, budget, budget - desc.count,
			 in_serving_softirq());
	return desc.count ? 0 : -EAGAIN;
}

/**
 * kiw_rx_data_ready - the share of sk_data_ready in the receive work
 * @qp: the attached QP
 * @sk: its socket, locked by the caller (bh_lock_sock in softirq, or
 *	owned by the task that releases it)
 *
 * Takes at most rx_softirq_budget octets (kiw_cfg.c: KIW_RX_BH_BUDGET
 * unless set, never above KIW_RX_BUDGET)
 * and leaves the rest to the receive work; takes nothing while that work
 * is queued, which then takes what arrived meanwhile, in order.
 *
 * Context: bottom halves disabled.
 */
void kiw_rx_data_ready(struct kiw_qp *qp, struct sock *sk)
{
	struct kiw_rx *rx = &qp->rx;
	size_t budget = READ_ONCE(kiw_param_rx_softirq_budget);

	if (work_pending(&rx->work))
		return;
	if (kiw_rx_run(qp, sk, budget) == -EAGAIN)
		queue_work(kiw_tx_wq, &rx->work);
}

/*
 * What sk_data_ready left over (its budget ran out), in process context.
 * Queued again rather than looping, so that other work on the queue and
 * other tasks on this CPU run between two budgets.
 */
static void kiw_rx_work(struct work_struct *work)
{
	struct kiw_qp *qp = container_of(work, struct kiw_qp, rx.work);
	struct sock *sk = qp->rx.sock->sk;
	int ret;

	lock_sock(sk);
	ret = kiw_rx_run(qp, sk, KIW_RX_BUDGET);
	release_sock(sk);
	if (ret == -EAGAIN)
		queue_work(kiw_tx_wq, work);
}

void kiw_rx_qp_init(struct kiw_qp *qp)
{
	INIT_WORK(&qp->rx.work, kiw_rx_work);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rx_qp_init);

void kiw_rx_qp_release(struct kiw_qp *qp)
{
	kfree(qp->rx.rqe);
	qp->rx.rqe = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rx_qp_release);

/**
 * kiw_rx_attach - set up the receive state for a new connection
 * @qp: the QP, not attached
 * @p: the negotiated connection
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int kiw_rx_attach(struct kiw_qp *qp, const struct kiw_llp_params *p)
{
	struct kiw_rx *rx = &qp->rx;

	if (!rx->rqe) {
		rx->rqe = kzalloc(sizeof(*rx->rqe), GFP_KERNEL);
		if (!rx->rqe)
			return -ENOMEM;
	}
	kiw_fpdu_rx_init(&rx->fpdu, &kiw_rx_ops, p->rx_markers, p->crc);
	kiw_ddp_rx_init(&rx->ddp);
	kiw_place_init(&rx->place, qp->kdev, &qp->pd->base);
	rx->have_seg = false;
	rx->rqe_valid = false;
	rx->orq_done = 0;
	rx->await_rtr = p->initiator ? KIW_RTR_NONE : p->rtr;
	rx->got_fpdu = false;
	rx->stopped = false;
	rx->sock = p->sock;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rx_attach);

/* No run is under way or can start: drop what the state holds. */
void kiw_rx_detach(struct kiw_qp *qp)
{
	kiw_place_put(&qp->rx.place);
	qp->rx.sock = NULL;
}

