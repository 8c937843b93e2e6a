// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw work queues: posting (kernel verbs and libsiw's doorbell), and the
 * fetch and complete helpers the data path works with. Nothing here
 * sleeps: kernel consumers post from any context.
 */
#include <linux/overflow.h>
#include <kunit/visibility.h>

#include "kiw_qp.h"
#include "kiw_ring.h"
#include "kiw_srq.h"
#include "kiw_mem.h"

#define KIW_SEND_FLAGS (IB_SEND_SIGNALED | IB_SEND_SOLICITED | \
			IB_SEND_INLINE | IB_SEND_FENCE)

static int kiw_sqe_sges(struct kiw_qp *qp, const struct ib_send_wr *wr,
			struct siw_sqe *e)
{
	u64 total = 0;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > qp->max_send_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		e->sge[i].laddr = wr->sg_list[i].addr;
		e->sge[i].length = wr->sg_list[i].length;
		e->sge[i].lkey = wr->sg_list[i].lkey;
		total += wr->sg_list[i].length;
	}
	e->num_sge = wr->num_sge;
	return total > U32_MAX ? -EINVAL : 0;	/* RFC 5041 section 5.2 */
}

/* Inline data: the SGEs' bytes (kernel addresses) go into the WQE. */
static int kiw_sqe_inline(struct kiw_qp *qp, const struct ib_send_wr *wr,
			  struct siw_sqe *e)
{
	u8 *data = (u8 *)&e->sge[1];
	u32 total = 0;
	int i;

	if (wr->num_sge < 0)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		u32 len = wr->sg_list[i].length;

		if (len > qp->max_inline - total)
			return -EINVAL;
		memcpy(data + total, (void *)(uintptr_t)wr->sg_list[i].addr,
		       len);
		total += len;
	}
	e->sge[0].length = total;
	e->num_sge = 0;
	e->flags |= SIW_WQE_INLINE;
	return 0;
}

static int kiw_sqe_data(struct kiw_qp *qp, const struct ib_send_wr *wr,
			struct siw_sqe *e)
{
	if (wr->send_flags & IB_SEND_INLINE)
		return kiw_sqe_inline(qp, wr, e);
	return kiw_sqe_sges(qp, wr, e);
}

/* Translate one kernel work request into a ring entry (flags not set). */
static int kiw_sqe_from_wr(struct kiw_qp *qp, const struct ib_send_wr *wr,
			   struct siw_sqe *e)
{
	bool inl = wr->send_flags & IB_SEND_INLINE;

	if (wr->send_flags & ~KIW_SEND_FLAGS)
		return -EINVAL;
	e->id = wr->wr_id;
	switch (wr->opcode) {
	case IB_WR_SEND_WITH_INV:
		e->rkey = wr->ex.invalidate_rkey;
		fallthrough;
	case IB_WR_SEND:
		e->opcode = wr->opcode == IB_WR_SEND ? SIW_OP_SEND :
						       SIW_OP_SEND_REMOTE_INV;
		return kiw_sqe_data(qp, wr, e);
	case IB_WR_RDMA_WRITE:
		e->opcode = SIW_OP_WRITE;
		e->raddr = rdma_wr(wr)->remote_addr;
		e->rkey = rdma_wr(wr)->rkey;
		return kiw_sqe_data(qp, wr, e);
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		/* One sink SGE: a Read Request names one sink STag. */
		if (inl || wr->num_sge > KIW_MAX_SGE_RD ||
		    (wr->opcode == IB_WR_RDMA_READ_WITH_INV && wr->num_sge != 1))
			return -EINVAL;
		e->opcode = wr->opcode == IB_WR_RDMA_READ ?
			    SIW_OP_READ : SIW_OP_READ_LOCAL_INV;
		e->raddr = rdma_wr(wr)->remote_addr;
		e->rkey = rdma_wr(wr)->rkey;
		return kiw_sqe_sges(qp, wr, e);
	case IB_WR_LOCAL_INV:
		e->opcode = SIW_OP_INVAL_STAG;
		e->rkey = wr->ex.invalidate_rkey;
		return inl ? -EINVAL : 0;
	case IB_WR_REG_MR:
		e->opcode = SIW_OP_REG_MR;
		e->base_mr = (uintptr_t)to_kiw_mr(reg_wr(wr)->mr);
		e->rkey = reg_wr(wr)->key;
		e->access = reg_wr(wr)->access;
		return inl ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

/* The completion opcode of a WR flushed as it is posted. */
static enum ib_wc_opcode kiw_wr_wc_opcode(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		return IB_WC_RDMA_READ;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	default:
		return IB_WC_SEND;
	}
}

static u16 kiw_sqe_flags(struct kiw_qp *qp, const struct ib_send_wr *wr)
{
	u16 flags = SIW_WQE_VALID;

	if ((wr->send_flags & IB_SEND_SIGNALED) || qp->sq_sig_all)
		flags |= SIW_WQE_SIGNALLED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		flags |= SIW_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		flags |= SIW_WQE_READ_FENCE;
	return flags;
}

static int kiw_sq_post_one(struct kiw_qp *qp, const struct ib_send_wr *wr)
{
	struct siw_sqe *slot, e = {};
	int ret;

	lockdep_assert_held(&qp->sq.lock);
	slot = &((struct siw_sqe *)qp->sq.ring)[qp->sq.put & (qp->sq.num - 1)];
	if (kiw_ring_posted(slot))
		return -ENOMEM;		/* the SQ is full */
	ret = kiw_sqe_from_wr(qp, wr, &e);
	if (ret)
		return ret;
	e.flags |= kiw_sqe_flags(qp, wr);
	slot->id = e.id;
	slot->num_sge = e.num_sge;
	slot->opcode = e.opcode;
	slot->rkey = e.rkey;
	slot->raddr = e.raddr;
	memcpy(slot->sge, e.sge, sizeof(e.sge));	/* or access (REG_MR) */
	kiw_ring_publish(slot, e.flags);
	qp->sq.put++;
	return 0;
}

/* libsiw's doorbell: an empty post_send on a user QP. */
static int kiw_sq_doorbell(struct kiw_qp *qp)
{
	bool notify = false;
	unsigned long flags;

	switch (kiw_qp_state(qp)) {
	case KIW_QP_RTS:
		kiw_tx_doorbell(qp);
		return 0;
	case KIW_QP_TERMINATE:
	case KIW_QP_ERROR:
		/* WRs written after the error complete in error too. */
		spin_lock_irqsave(&qp->sq.lock, flags);
		kiw_sq_flush_locked(qp, &notify);
		spin_unlock_irqrestore(&qp->sq.lock, flags);
		if (notify)
			kiw_cq_notify(qp->scq);
		return 0;
	default:
		return -ENOTCONN;
	}
}

/*
 * In RTS, WRs go into the ring and the TX is kicked. In TERMINATE and
 * ERROR they complete at once with IB_WC_WR_FLUSH_ERR, after anything
 * still in the ring (ib_drain_sq relies on this). Before the connection
 * exists, or once a graceful close has begun, posting fails (RFC 5041
 * section 6.2.1).
 */
int kiw_post_send(struct ib_qp *base, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct kiw_qp *qp = to_kiw_qp(base);
	enum kiw_qp_state state;
	bool notify = false;
	unsigned long flags;
	int ret = 0;

	if (qp->user)
		return kiw_sq_doorbell(qp);

	spin_lock_irqsave(&qp->sq.lock, flags);
	state = kiw_qp_state(qp);
	if (state == KIW_QP_TERMINATE || state == KIW_QP_ERROR) {
		kiw_sq_flush_locked(qp, &notify);
		for (; wr; wr = wr->next)
			kiw_wq_flush_one(qp, qp->scq, wr->wr_id,
					 kiw_wr_wc_opcode(wr->opcode),
					 &notify);
	} else if (state != KIW_QP_RTS) {
		ret = -ENOTCONN;
	}
	while (wr && !ret) {
		ret = kiw_sq_post_one(qp, wr);
		if (!ret)
			wr = wr->next;
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	if (ret)
		*bad_wr = wr;
	if (notify)
		kiw_cq_notify(qp->scq);
	if (state == KIW_QP_RTS)
		kiw_tx_kick(qp);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_post_send);

int kiw_post_recv(struct ib_qp *base, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct kiw_qp *qp = to_kiw_qp(base);
	enum kiw_qp_state state;
	bool notify = false;
	unsigned long flags;
	int ret = 0;

	if (qp->srq || qp->user) {
		*bad_wr = wr;	/* libsiw posts into the mapped ring */
		return qp->srq ? -EINVAL : -EOPNOTSUPP;
	}

	spin_lock_irqsave(&qp->rq.lock, flags);
	state = kiw_qp_state(qp);
	if (state == KIW_QP_TERMINATE || state == KIW_QP_ERROR) {
		kiw_rq_flush_locked(qp, &notify);
		for (; wr; wr = wr->next)
			kiw_wq_flush_one(qp, qp->rcq, wr->wr_id, IB_WC_RECV,
					 &notify);
	}
	for (; wr; wr = wr->next) {
		struct siw_rqe *slot = qp->rq.ring;

		ret = kiw_rqe_from_wr(wr, qp->max_recv_sge,
				      &slot[qp->rq.put & (qp->rq.num - 1)]);
		if (ret)
			break;
		qp->rq.put++;
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);

	if (ret)
		*bad_wr = wr;
	if (notify)
		kiw_cq_notify(qp->rcq);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_post_recv);

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
	if (ret)
		kiw_qp_error(qp);	/* CQ overflow */
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
	if (ret)
		kiw_qp_error(qp);	/* CQ overflow */
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rq_complete);
