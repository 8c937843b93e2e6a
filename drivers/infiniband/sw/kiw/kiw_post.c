// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw posting: post_send and post_recv for kernel QPs, and libsiw's
 * doorbell for user QPs. The top of the data path: it writes the rings,
 * flushes what is posted after an error (kiw_wq.c) and kicks the TX.
 * Nothing here sleeps but the doorbell: kernel consumers post from any
 * context.
 */
#include <linux/overflow.h>
#include <kunit/visibility.h>

#include "kiw_qp.h"
#include "kiw_ring.h"
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
