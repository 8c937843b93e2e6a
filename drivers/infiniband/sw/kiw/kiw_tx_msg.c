// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw transmit engine, the messages (see kiw_tx.h): which message goes
 * next, how SQ work requests, Read Responses and the RTR start, and how a
 * message is cut into FPDUs.
 */
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "kiw_llp.h"
#include "kiw_mem.h"
#include "kiw_qp.h"
#include "kiw_stats.h"
#include "kiw_trace.h"
#include "kiw_tx_batch.h"

/* Non-zero STag for zero-length RTR messages (CONFORMANCE D-18). */
#define KIW_RTR_STAG	1

/* ---- Starting messages ---- */

static void kiw_txm_reset(struct kiw_txm *m, enum kiw_txm_kind kind)
{
	memset(m, 0, sizeof(*m));
	m->kind = kind;
}

static void kiw_txm_tagged(struct kiw_txm *m, u8 op, u32 stag, u64 to)
{
	m->tagged = true;
	m->rdmap_ctrl = kiw_rdmap_ctrl(op);
	m->stag = stag;
	m->to = to;
}

static void kiw_txm_untagged(struct kiw_tx *tx, struct kiw_txm *m, u8 op,
			     u32 qn)
{
	m->tagged = false;
	m->rdmap_ctrl = kiw_rdmap_ctrl(op);
	m->qn = qn;
	m->msn = tx->msn[qn]++;		/* wraps to 0 (RFC 5041 4.3) */
}

/* Cut @len octets; MULPDU >= 128 leaves room for any header (no error). */
static void kiw_txm_seg_init(struct kiw_tx *tx, struct kiw_txm *m, u32 len)
{
	WARN_ON_ONCE(kiw_ddp_seg_init(&m->seg, len, tx->mulpdu, m->tagged));
}

/* Put a Read we send into the ORQ (before the request can be answered). */
static void kiw_tx_orq_add(struct kiw_tx *tx, const struct kiw_rdmap_rreq *rr,
			   u32 pos, bool rtr, bool inv)
{
	struct kiw_orqe *e = &tx->orq[kiw_rdq_tail(&tx->orq_q)];

	e->rr = *rr;
	e->sq_pos = pos;
	e->rtr = rtr;
	e->inv = inv;
	kiw_rdq_publish(&tx->orq_q);
}

/* RFC 6581: the initiator's first FPDU, a zero-length message. */
static bool kiw_tx_start_rtr(struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;
	struct kiw_txm *m = &tx->cur;
	struct kiw_rdmap_rreq rr = {
		.sink_stag = KIW_RTR_STAG,
		.src_stag = KIW_RTR_STAG,
	};

	kiw_txm_reset(m, KIW_TXM_RTR);
	switch (tx->rtr) {
	case KIW_RTR_WRITE:
		kiw_txm_tagged(m, KIW_RDMAP_WRITE, KIW_RTR_STAG, 0);
		kiw_txm_seg_init(tx, m, 0);
		break;
	case KIW_RTR_READ:
		kiw_tx_orq_add(tx, &rr, 0, true, false);
		kiw_txm_untagged(tx, m, KIW_RDMAP_READ_REQ, KIW_DDP_QN_READ_REQ);
		m->src = KIW_TXS_RREQ;
		m->rr = rr;
		kiw_txm_seg_init(tx, m, sizeof(struct kiw_rdmap_read_req));
		break;
	default:
		kiw_txm_untagged(tx, m, KIW_RDMAP_SEND, KIW_DDP_QN_SEND);
		kiw_txm_seg_init(tx, m, 0);
		break;
	}
	tx->rtr = KIW_RTR_NONE;
	return true;
}

/* The Read Response to the oldest Read Request the peer sent. */
static bool kiw_tx_start_rresp(struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;
	struct kiw_txm *m = &tx->cur;
	int i = kiw_rdq_peek(&tx->irq_q, tx->irq_started);

	if (i < 0)
		return false;
	/* Freed once its last FPDU is in the batch (kiw_tx_msg_end()). */
	tx->irq_started++;
	kiw_txm_reset(m, KIW_TXM_RRESP);
	m->rr = tx->irq[i].rr;
	m->msn = tx->irq[i].msn;
	kiw_txm_tagged(m, KIW_RDMAP_READ_RESP, m->rr.sink_stag, m->rr.sink_to);
	m->src = m->rr.size ? KIW_TXS_SOURCE : KIW_TXS_NONE;
	kiw_txm_seg_init(tx, m, m->rr.size);
	tx->prefer_irq = false;
	return true;
}

/* Every SGE of a Send or Write must be readable, before any octet goes. */
static enum ib_wc_status kiw_tx_check_sgl(struct kiw_qp *qp,
					  const struct kiw_sqe *sqe)
{
	enum ib_wc_status status;
	unsigned int i;

	for (i = 0; i < sqe->num_sge; i++) {
		status = kiw_mr_check_local(qp->kdev, &qp->pd->base,
					    sqe->sge[i].lkey, 0,
					    sqe->sge[i].laddr,
					    sqe->sge[i].length);
		if (status != IB_WC_SUCCESS)
			return status;
	}
	return IB_WC_SUCCESS;
}

/*
 * Must the SGEs be checked before the message starts? Not when it is one
 * SGE and goes in one FPDU: kiw_tx_gather_sgl() checks that SGE whole
 * before any of it is in the batch (and if a region's pages need more
 * vectors than an FPDU has, cuts the FPDU short after that check). This
 * saves a second lookup of the same lkey on every small message.
 */
static bool kiw_tx_check_first(const struct kiw_tx *tx,
			       const struct kiw_sqe *sqe)
{
	if (sqe->flags & SIW_WQE_INLINE)
		return false;
	return sqe->num_sge != 1 ||
	       sqe->length > tx->mulpdu - KIW_DDP_HDR_MAX_LEN;
}

static bool kiw_tx_start_send_write(struct kiw_qp *qp, u32 pos)
{
	struct kiw_tx *tx = &qp->tx;
	const struct kiw_sqe *sqe = &tx->sqe;
	struct kiw_txm *m = &tx->cur;
	enum ib_wc_status status = IB_WC_SUCCESS;
	bool inv = sqe->opcode == SIW_OP_SEND_REMOTE_INV;
	u8 op;

	if (kiw_tx_check_first(tx, sqe))
		status = kiw_tx_check_sgl(qp, sqe);
	if (status != IB_WC_SUCCESS) {
		kiw_tx_wqe_fail(qp, pos, status);
		return false;
	}
	kiw_txm_reset(m, KIW_TXM_SQ);
	m->sq_pos = pos;
	if (sqe->flags & SIW_WQE_INLINE)
		m->src = KIW_TXS_INLINE;
	else if (sqe->length)
		m->src = KIW_TXS_SGL;
	if (sqe->opcode == SIW_OP_WRITE) {
		kiw_txm_tagged(m, KIW_RDMAP_WRITE, sqe->rkey, sqe->raddr);
	} else {
		op = inv ? KIW_RDMAP_SEND_INV : KIW_RDMAP_SEND;
		if (sqe->flags & SIW_WQE_SOLICITED)
			op = inv ? KIW_RDMAP_SEND_SE_INV : KIW_RDMAP_SEND_SE;
		kiw_txm_untagged(tx, m, op, KIW_DDP_QN_SEND);
		m->ulp_word = inv ? sqe->rkey : 0;
	}
	kiw_txm_seg_init(tx, m, sqe->length);
	return true;
}

/*
 * An RDMA Read: the sink is the single SGE (its lkey is the sink STag the
 * Read Response will carry), checked now for what the response needs.
 */
static bool kiw_tx_start_read(struct kiw_qp *qp, u32 pos)
{
	struct kiw_tx *tx = &qp->tx;
	const struct kiw_sqe *sqe = &tx->sqe;
	struct kiw_txm *m = &tx->cur;
	struct kiw_rdmap_rreq rr = {
		.size = sqe->length,
		.src_stag = sqe->rkey,
		.src_to = sqe->raddr,
	};
	enum ib_wc_status status;

	if (!tx->orq_q.max) {
		/* The peer offered no IRD: no Read can be issued. */
		kiw_tx_wqe_fail(qp, pos, IB_WC_LOC_QP_OP_ERR);
		return false;
	}
	if (sqe->num_sge) {
		rr.sink_stag = sqe->sge[0].lkey;
		rr.sink_to = sqe->sge[0].laddr;
	}
	status = kiw_mr_check_local(qp->kdev, &qp->pd->base, rr.sink_stag,
				    IB_ACCESS_LOCAL_WRITE |
				    IB_ACCESS_REMOTE_WRITE,
				    rr.sink_to, rr.size);
	if (status != IB_WC_SUCCESS) {
		kiw_tx_wqe_fail(qp, pos, status);
		return false;
	}
	kiw_tx_orq_add(tx, &rr, pos, false,
		       sqe->opcode == SIW_OP_READ_LOCAL_INV);
	kiw_txm_reset(m, KIW_TXM_SQ);
	m->sq_pos = pos;
	m->src = KIW_TXS_RREQ;
	m->rr = rr;
	kiw_txm_untagged(tx, m, KIW_RDMAP_READ_REQ, KIW_DDP_QN_READ_REQ);
	kiw_txm_seg_init(tx, m, sizeof(struct kiw_rdmap_read_req));
	return true;
}

static bool kiw_tx_orq_blocked(struct kiw_tx *tx, bool read, bool fence)
{
	return (fence && kiw_rdq_used(&tx->orq_q)) ||
	       (read && !kiw_rdq_room(&tx->orq_q));
}

/*
 * A Read waits while ORD Reads are outstanding; a fenced request waits
 * until no Read is. The RX frees ORQ entries: it kicks us if @orq_wait is
 * set, which is set before the ORQ is looked at again (the RX does the
 * opposite: pop, barrier, look at @orq_wait), so no wakeup is lost.
 */
static bool kiw_tx_sq_blocked(struct kiw_tx *tx, const struct kiw_sqe *sqe)
{
	bool read = sqe->opcode == SIW_OP_READ ||
		    sqe->opcode == SIW_OP_READ_LOCAL_INV;
	bool fence = sqe->flags & SIW_WQE_READ_FENCE;

	if (read && !tx->orq_q.max)
		read = false;		/* fails when started */
	if (!kiw_tx_orq_blocked(tx, read, fence))
		return false;
	WRITE_ONCE(tx->orq_wait, true);
	smp_mb();	/* pairs with kiw_rx's barrier after kiw_rdq_pop() */
	if (kiw_tx_orq_blocked(tx, read, fence))
		return true;
	WRITE_ONCE(tx->orq_wait, false);
	return false;
}

static bool kiw_sqe_is_read(const struct kiw_sqe *sqe)
{
	return sqe->opcode == SIW_OP_READ ||
	       sqe->opcode == SIW_OP_READ_LOCAL_INV;
}

/*
 * Take the next SQ work request: run local operations at once, in SQ
 * order, and start the first one that puts a message on the wire.
 * Return: true if @cur now holds a message.
 */
static bool kiw_tx_start_sq(struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;
	struct kiw_sqe *sqe = &tx->sqe;
	enum kiw_qp_state state;
	enum ib_wc_status status;
	bool full;
	u32 pos;
	int ret;

	for (;;) {
		state = kiw_qp_state(qp);
		if (state != KIW_QP_RTS && state != KIW_QP_CLOSING)
			return false;
		pos = tx->txc.tail;	/* only this work moves it */
		ret = kiw_sq_fetch(qp, pos, sqe);
		if (ret == -ENOENT)
			return false;
		if (!ret && kiw_tx_sq_blocked(tx, sqe))
			return false;
		spin_lock_bh(&tx->lock);
		full = !kiw_txc_add(&tx->txc, sqe->id, sqe->opcode, sqe->flags,
				    sqe->length, kiw_sqe_is_read(sqe) && !ret ?
				    KIW_TXC_READ : KIW_TXC_BUSY);
		spin_unlock_bh(&tx->lock);
		if (full)
			return false;
		if (ret) {
			kiw_tx_wqe_fail(qp, pos, IB_WC_LOC_QP_OP_ERR);
			return false;
		}
		switch (sqe->opcode) {
		case SIW_OP_REG_MR:
			status = kiw_mr_fast_register(sqe->reg_mr,
						      &qp->pd->base, sqe->rkey,
						      sqe->access);
			break;
		case SIW_OP_INVAL_STAG:
			status = kiw_mr_invalidate_local(qp->kdev,
							 &qp->pd->base,
							 sqe->rkey);
			break;
		case SIW_OP_READ:
		case SIW_OP_READ_LOCAL_INV:
			return kiw_tx_start_read(qp, pos);
		default:
			return kiw_tx_start_send_write(qp, pos);
		}
		if (status != IB_WC_SUCCESS) {
			kiw_tx_wqe_fail(qp, pos, status);
			return false;
		}
		kiw_tx_done(qp, pos, IB_WC_SUCCESS);
	}
}

/* The next message: the RTR first, then Read Responses and SQ in turn. */
bool kiw_tx_next_msg(struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;
	bool irq = kiw_rdq_peek(&tx->irq_q, tx->irq_started) >= 0;

	if (tx->rtr != KIW_RTR_NONE)
		return kiw_tx_start_rtr(qp);
	if (irq && tx->prefer_irq)
		return kiw_tx_start_rresp(qp);
	if (kiw_tx_start_sq(qp)) {
		tx->prefer_irq = true;
		return true;
	}
	return irq && kiw_tx_start_rresp(qp);
}

/* ---- Segments ---- */

/**
 * kiw_tx_seg_trim - a segment carries fewer octets than offered
 * @s: the message's segmenter
 * @seg: the segment kiw_ddp_seg_next() handed out
 * @len: the octets it carries, < @seg->len
 *
 * The rest goes back to the segmenter for the next segment, which is then
 * also the last at the earliest. Used when one FPDU would need more page
 * vectors than a batch has (regions with small pages).
 */
void kiw_tx_seg_trim(struct kiw_ddp_segmenter *s, struct kiw_ddp_seg *seg,
		     u32 len)
{
	if (WARN_ON_ONCE(len >= seg->len))
		return;
	seg->len = len;
	seg->last = false;
	s->off = seg->off + len;
	s->done = false;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_tx_seg_trim);

/* Payload vectors for @len octets of @cur's SGEs; the octets covered. */
static int kiw_tx_gather_sgl(struct kiw_qp *qp, u32 len)
{
	struct kiw_tx *tx = &qp->tx;
	struct kiw_txm *m = &tx->cur;
	const struct kiw_sqe *sqe = &tx->sqe;
	enum ib_wc_status status;
	u32 done = 0, want;
	int n;

	while (done < len) {
		const struct siw_sge *sge = &sqe->sge[m->sge];

		if (WARN_ON_ONCE(m->sge >= sqe->num_sge))
			return -EFAULT;
		if (m->sge_off == sge->length) {
			m->sge++;
			m->sge_off = 0;
			continue;
		}
		want = min(sge->length - m->sge_off, len - done);
		n = kiw_txb_src_local(tx->b, qp->kdev, &qp->pd->base, sge,
				      m->sge_off, want, &status);
		if (n < 0) {
			kiw_tx_wqe_fail(qp, m->sq_pos, status);
			return n;
		}
		m->sge_off += n;
		done += n;
		if (n < want)
			break;		/* out of vectors: a shorter segment */
	}
	return done;
}

/* The Read Request a Read Response answers, rebuilt for a Terminate. */
static unsigned int kiw_tx_rreq_hdr(const struct kiw_txm *m, u8 *hdr)
{
	kiw_ddp_build_untagged((struct kiw_ddp_untagged_hdr *)hdr,
			       kiw_rdmap_ctrl(KIW_RDMAP_READ_REQ), 0,
			       KIW_DDP_QN_READ_REQ, m->msn, 0, true);
	kiw_rdmap_read_req_build((struct kiw_rdmap_read_req *)
				 (hdr + KIW_DDP_HDR_MAX_LEN), &m->rr);
	return KIW_DDP_HDR_MAX_LEN + sizeof(struct kiw_rdmap_read_req);
}

static int kiw_tx_gather_source(struct kiw_qp *qp, u32 off, u32 len)
{
	struct kiw_txm *m = &qp->tx.cur;
	u8 hdr[KIW_DDP_HDR_MAX_LEN + sizeof(struct kiw_rdmap_read_req)];
	kiw_term_t term;
	int n;

	n = kiw_txb_src_tagged(qp->tx.b, qp->kdev, &qp->pd->base,
			       m->rr.src_stag, m->rr.src_to + off, len, &term);
	if (n < 0) {
		/* The source changed since the request was accepted. */
		kiw_tx_terminate(qp, term, kiw_term_report(term, false).event,
				 hdr, kiw_tx_rreq_hdr(m, hdr),
				 KIW_DDP_HDR_MAX_LEN +
				 sizeof(struct kiw_rdmap_read_req));
	}
	return n;
}

/* Write the DDP header and what follows it; the header area's length. */
static unsigned int kiw_tx_hdr(struct kiw_tx *tx, const struct kiw_ddp_seg *seg)
{
	const struct kiw_txm *m = &tx->cur;
	u8 *h = kiw_txb_hdr(tx->b);
	unsigned int len;

	if (m->tagged) {
		kiw_ddp_build_tagged((struct kiw_ddp_tagged_hdr *)h,
				     m->rdmap_ctrl, m->stag, m->to + seg->off,
				     seg->last);
		len = sizeof(struct kiw_ddp_tagged_hdr);
	} else {
		kiw_ddp_build_untagged((struct kiw_ddp_untagged_hdr *)h,
				       m->rdmap_ctrl, m->ulp_word, m->qn,
				       m->msn, seg->off, seg->last);
		len = sizeof(struct kiw_ddp_untagged_hdr);
	}
	switch (m->src) {
	case KIW_TXS_INLINE:	/* one segment: MULPDU >= 128 */
		memcpy(h + len, tx->sqe.inline_data + seg->off, seg->len);
		len += seg->len;
		break;
	case KIW_TXS_RREQ:
		kiw_rdmap_read_req_build((struct kiw_rdmap_read_req *)(h + len),
					 &m->rr);
		len += sizeof(struct kiw_rdmap_read_req);
		break;
	default:
		break;
	}
	return len;
}

/*
 * The last FPDU of a Read Response is built: its IRD slot is free now,
 * before the batch goes to TCP. The requester frees its ORD slot when the
 * response arrives and may at once send the next Read Request, which can
 * reach our RX before sendmsg() has even returned here (veth, loopback);
 * the slot must be free by then, or that request finds IRD exhausted.
 * Nothing needs the entry any more: @cur has its own copy.
 */
static void kiw_tx_irq_done(struct kiw_tx *tx)
{
	if (WARN_ON_ONCE(!tx->irq_started))
		return;
	tx->irq_started--;
	kiw_rdq_pop(&tx->irq_q);
}

/* @cur's last FPDU is in the batch. */
static void kiw_tx_msg_end(struct kiw_tx *tx)
{
	struct kiw_txm *m = &tx->cur;

	switch (m->kind) {
	case KIW_TXM_SQ:
		/* A Read is done when its response is (kiw_tx_read_done()). */
		if (m->src != KIW_TXS_RREQ)
			kiw_txb_end_msg(tx->b, m->sq_pos);
		break;
	case KIW_TXM_RRESP:
		kiw_tx_irq_done(tx);
		break;
	default:
		break;
	}
	m->kind = KIW_TXM_NONE;
}

/* Put @cur's next segment into the batch as one FPDU. */
int kiw_tx_seg(struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;
	struct kiw_txm *m = &tx->cur;
	struct kiw_ddp_seg seg;
	int n = 0;

	/* With markers, fill the segment at this offset (see there). */
	if (tx->markers)
		kiw_ddp_seg_set_mulpdu(&m->seg,
				       kiw_fpdu_mulpdu_at(tx->mss, tx->off));
	if (WARN_ON_ONCE(!kiw_ddp_seg_next(&m->seg, &seg)))
		return -EINVAL;
	kiw_txb_src_reset(tx->b);
	if (seg.len && m->src == KIW_TXS_SGL)
		n = kiw_tx_gather_sgl(qp, seg.len);
	else if (seg.len && m->src == KIW_TXS_SOURCE)
		n = kiw_tx_gather_source(qp, seg.off, seg.len);
	else
		n = seg.len;
	if (n < 0) {
		m->kind = KIW_TXM_NONE;
		return n;
	}
	if (n < seg.len)
		kiw_tx_seg_trim(&m->seg, &seg, n);
	n = kiw_txb_add(tx->b, tx->off, tx->markers, tx->crc,
			kiw_tx_hdr(tx, &seg));
	if (n < 0)
		return n;
	tx->off += n;
	kiw_stats_tx_fpdu(qp->kdev, tx->b);
	trace_kiw_fpdu_tx(qp, tx->b, NULL, 0);
	if (seg.last)
		kiw_tx_msg_end(tx);
	return 0;
}

