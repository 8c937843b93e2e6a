// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw work queues, as the data path and flushing use them: is an SQ entry
 * posted, fetch a work request (SQ, RQ or SRQ) and complete it, and flush
 * a ring. The layer below the QP state machine: nothing here changes a
 * QP's state or calls the TX or RX; an error the caller must act on (a
 * CQ overflow) comes back as a return value. Nothing here sleeps.
 */
#include <kunit/visibility.h>

#include "kiw_qp.h"
#include "kiw_ring.h"
#include "kiw_srq.h"

/* Complete one WR with a flush error (also for WRs posted after error). */
int kiw_wq_flush_one(struct kiw_qp *qp, struct kiw_cq *cq, u64 wr_id,
		     enum ib_wc_opcode opcode, bool *notify)
{
	struct kiw_wc wc = {
		.wr_id = wr_id,
		.opcode = opcode,
		.status = IB_WC_WR_FLUSH_ERR,
		.qp = &qp->base,
		.qp_num = qp->base.qp_num,
	};

	return kiw_cq_add(cq, &wc, notify);
}

/*
 * Flush a ring from get on, in order. Reading a user ring is safe here:
 * only the id and opcode are taken, once each, and go back to that same
 * user's CQ. The walk is bounded by the ring size whatever user space does.
 */
void kiw_sq_flush_locked(struct kiw_qp *qp, bool *notify)
{
	struct siw_sqe *ring = qp->sq.ring;
	u32 n;

	lockdep_assert_held(&qp->sq.lock);
	for (n = 0; n < qp->sq.num; n++) {
		struct siw_sqe *slot = &ring[qp->sq.get & (qp->sq.num - 1)];

		u64 id;
		u8 opcode;

		if (!kiw_ring_posted(slot))
			break;
		/* Freed before its CQE shows, as in kiw_sq_complete(). */
		id = READ_ONCE(slot->id);
		opcode = READ_ONCE(slot->opcode);
		kiw_sq_retire(qp, slot);
		kiw_wq_flush_one(qp, qp->scq, id, kiw_wc_opcode(opcode),
				 notify);
	}
}

void kiw_rq_flush_locked(struct kiw_qp *qp, bool *notify)
{
	struct siw_rqe *ring = qp->rq.ring;
	u32 n;

	lockdep_assert_held(&qp->rq.lock);
	if (qp->srq) {
		if (qp->srq_wqe_active)
			kiw_wq_flush_one(qp, qp->rcq, qp->srq_wqe.id,
					 IB_WC_RECV, notify);
		qp->srq_wqe_active = false;
		return;
	}
	for (n = 0; n < qp->rq.num; n++) {
		struct siw_rqe *slot = &ring[qp->rq.get & (qp->rq.num - 1)];

		u64 id;

		if (!kiw_ring_posted(slot))
			break;
		id = READ_ONCE(slot->id);
		kiw_ring_free(slot);
		qp->rq.get++;
		kiw_wq_flush_one(qp, qp->rcq, id, IB_WC_RECV, notify);
	}
}

/*
 * May the slot of SQ position @pos hold a WR for @pos? An entry stays VALID
 * until it completes, so once the TX has taken a whole ring's worth of
 * WRs, the slot the next position maps to still holds the oldest of them,
 * in flight: VALID, yet no new work. It can hold the WR for @pos only once
 * the one a ring before it has completed and its slot was freed, i.e.
 * once @get has passed that one. Reading @get with acquire orders the
 * free before whatever is read from the slot next.
 */
static bool kiw_sq_in_window(struct kiw_qp *qp, u32 pos)
{
	/* acquire: pairs with kiw_sq_retire() */
	return pos - smp_load_acquire(&qp->sq.get) < qp->sq.num;
}

bool kiw_sq_posted(struct kiw_qp *qp, u32 pos)
{
	struct siw_sqe *ring = qp->sq.ring;

	return kiw_sq_in_window(qp, pos) &&
	       kiw_ring_posted(&ring[pos & (qp->sq.num - 1)]);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_sq_posted);

int kiw_sq_fetch(struct kiw_qp *qp, u32 pos, struct kiw_sqe *sqe)
{
	struct siw_sqe *ring = qp->sq.ring;

	sqe->pos = pos;
	if (!kiw_sq_in_window(qp, pos))
		return -ENOENT;
	return kiw_sqe_copy(&ring[pos & (qp->sq.num - 1)], !qp->user,
			    qp->max_send_sge, qp->max_inline, sqe);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_sq_fetch);

/*
 * Did a flush already complete the entry at @pos? Positions before @get
 * are done; one after it would be an out-of-order completion, a data path
 * bug, reported once and refused.
 */
static bool kiw_wq_stale(const struct kiw_wq *wq, u32 pos)
{
	lockdep_assert_held(&wq->lock);
	if (pos == wq->get)
		return false;
	WARN_ON_ONCE((s32)(pos - wq->get) > 0);
	return true;
}

int kiw_sq_complete(struct kiw_qp *qp, const struct kiw_sqe *sqe,
		    enum ib_wc_status status, u32 bytes)
{
	struct siw_sqe *ring = qp->sq.ring;
	struct kiw_wc wc = {
		.wr_id = sqe->id,
		.opcode = kiw_wc_opcode(sqe->opcode),
		.status = status,
		.byte_len = bytes,
		.qp = &qp->base,
		.qp_num = qp->base.qp_num,
	};
	bool notify = false;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&qp->sq.lock, flags);
	if (kiw_wq_stale(&qp->sq, sqe->pos)) {
		spin_unlock_irqrestore(&qp->sq.lock, flags);
		return 0;
	}
	/*
	 * Free the entry before its completion is visible: a consumer that
	 * polls the CQE may post into this slot at once (perftest does), and
	 * libsiw refuses a slot still VALID. The CQE's release store orders
	 * the free before it.
	 */
	kiw_sq_retire(qp, &ring[sqe->pos & (qp->sq.num - 1)]);
	if ((sqe->flags & SIW_WQE_SIGNALLED) || status != IB_WC_SUCCESS)
		ret = kiw_cq_add(qp->scq, &wc, &notify);
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	if (notify)
		kiw_cq_notify(qp->scq);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_sq_complete);

static int kiw_rq_fetch_srq(struct kiw_qp *qp, struct kiw_rqe *rqe,
			    bool *limit)
{
	int ret;

	lockdep_assert_held(&qp->rq.lock);
	if (qp->srq_wqe_active) {
		*rqe = qp->srq_wqe;
		return 0;
	}
	ret = kiw_srq_fetch(qp->srq, rqe, limit);
	if (ret != -ENOENT) {
		/* Taken from the SRQ: this QP completes or flushes it. */
		qp->srq_wqe = *rqe;
		qp->srq_wqe_active = true;
	}
	return ret;
}

int kiw_rq_fetch(struct kiw_qp *qp, struct kiw_rqe *rqe)
{
	struct siw_rqe *ring = qp->rq.ring;
	bool limit = false;
	unsigned long flags;
	int ret;

	if (kiw_qp_state(qp) == KIW_QP_ERROR)
		return -ENOENT;
	spin_lock_irqsave(&qp->rq.lock, flags);
	if (qp->srq) {
		ret = kiw_rq_fetch_srq(qp, rqe, &limit);
	} else {
		rqe->pos = qp->rq.get;
		rqe->from_srq = false;
		ret = kiw_rqe_copy(&ring[rqe->pos & (qp->rq.num - 1)],
				   qp->max_recv_sge, rqe);
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	if (limit)
		kiw_srq_limit_event(qp->srq);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rq_fetch);

/* Take the receive WR @rqe off the QP; false if a flush already did. */
static bool kiw_rq_take(struct kiw_qp *qp, const struct kiw_rqe *rqe)
{
	struct siw_rqe *ring = qp->rq.ring;

	lockdep_assert_held(&qp->rq.lock);
	if (rqe->from_srq) {
		if (!qp->srq_wqe_active || qp->srq_wqe.id != rqe->id)
			return false;
		qp->srq_wqe_active = false;
		return true;
	}
	if (kiw_wq_stale(&qp->rq, rqe->pos))
		return false;
	kiw_ring_free(&ring[rqe->pos & (qp->rq.num - 1)]);
	qp->rq.get++;
	return true;
}

int kiw_rq_complete(struct kiw_qp *qp, const struct kiw_rqe *rqe,
		    struct kiw_wc *wc)
{
	bool notify = false;
	unsigned long flags;
	int ret = 0;

	wc->wr_id = rqe->id;
	wc->opcode = IB_WC_RECV;
	wc->qp = &qp->base;
	wc->qp_num = qp->base.qp_num;

	spin_lock_irqsave(&qp->rq.lock, flags);
	if (kiw_rq_take(qp, rqe))
		ret = kiw_cq_add(qp->rcq, wc, &notify);
	spin_unlock_irqrestore(&qp->rq.lock, flags);

	if (notify)
		kiw_cq_notify(qp->rcq);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rq_complete);
