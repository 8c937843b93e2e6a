// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw QPs: the state machine (with modify_qp, which drives it),
 * references, events, and the data path's workqueue. Below the TX and the
 * RX: what a state change asks of the TX is a kick (kiw_tx_kick(), an
 * inline in kiw_qp.h that queues the TX's work item on that workqueue).
 * Flushing is kiw_wq.c; create, destroy and query are kiw_qp_verbs.c.
 */
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "kiw_qp.h"
#include "kiw_trace.h"

/*
 * The data path's workqueue: every QP's TX work item, and the receive
 * work that takes over when one sk_data_ready call reaches its budget
 * (kiw_rx.h: what a softirq may take).
 * Unbound (no per-QP or per-CPU threads); WQ_MEM_RECLAIM, since storage
 * over RDMA (NFS, iSER, NVMe-oF) may need it to make progress while the
 * system reclaims memory.
 */
struct workqueue_struct *kiw_tx_wq;

int kiw_qp_wq_init(void)
{
	kiw_tx_wq = alloc_workqueue("kiw_tx", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return kiw_tx_wq ? 0 : -ENOMEM;
}

void kiw_qp_wq_exit(void)
{
	destroy_workqueue(kiw_tx_wq);
}

/*
 * IB's order among the states an unconnected QP passes through
 * (ib_modify_qp_is_ok()): RESET to INIT, INIT to INIT or RTR, and back to
 * RESET from any of them. rdma_cm walks INIT, INIT, RTR.
 */
static bool kiw_qp_idle_step_ok(enum ib_qp_state from, enum ib_qp_state to)
{
	switch (to) {
	case IB_QPS_RESET:
		return true;
	case IB_QPS_INIT:
		return from == IB_QPS_RESET || from == IB_QPS_INIT;
	case IB_QPS_RTR:
		return from == IB_QPS_INIT;
	default:
		return false;
	}
}

/**
 * kiw_qp_transition - what modify_qp to @req does in iWARP state @cur
 * @cur: the QP's state
 * @idle: the IB state an IDLE QP reports (RESET, INIT or RTR)
 * @req: the IB state the consumer asks for
 * @next: the state to enter
 * @actions: KIW_QP_ACT_* the change asks for
 *
 * rdma_cm walks an unconnected QP through RESET, INIT and RTR: for iWARP
 * those are all IDLE, and IB's order among them holds. Only the CM moves a
 * QP to RTS (when MPA completes), so asking for RTS is accepted only where
 * it changes nothing. iw_cm asks for SQD to disconnect gracefully, which
 * needs a connection (it may be going already: then SQD changes nothing),
 * and for ERR to abort; ib_drain_qp asks for ERR too. RESET after ERR
 * makes the QP reusable (the caller also checks that no connection is
 * left). SQE is a state a QP enters, never one to ask for.
 *
 * Return: 0, or -EINVAL for a change that cannot be made.
 */
int kiw_qp_transition(enum kiw_qp_state cur, enum ib_qp_state idle,
		      enum ib_qp_state req, enum kiw_qp_state *next,
		      unsigned int *actions)
{
	bool connected = cur == KIW_QP_RTS || cur == KIW_QP_CLOSING ||
			 cur == KIW_QP_TERMINATE;

	*next = cur;
	*actions = KIW_QP_ACT_NONE;
	switch (req) {
	case IB_QPS_RESET:
		if (cur != KIW_QP_IDLE && cur != KIW_QP_ERROR)
			return -EINVAL;
		*next = KIW_QP_IDLE;
		return 0;
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		return cur == KIW_QP_IDLE && kiw_qp_idle_step_ok(idle, req) ?
		       0 : -EINVAL;
	case IB_QPS_RTS:
		return cur == KIW_QP_RTS ? 0 : -EINVAL;
	case IB_QPS_SQD:
		if (cur == KIW_QP_IDLE)
			return -EINVAL;
		if (cur == KIW_QP_RTS) {
			*next = KIW_QP_CLOSING;
			*actions = KIW_QP_ACT_CLOSE;
		}
		return 0;
	case IB_QPS_ERR:
		*next = KIW_QP_ERROR;
		*actions = KIW_QP_ACT_FLUSH;
		/*
		 * Kernel consumers disconnect with rdma_disconnect() (SQD)
		 * and at once ib_drain_qp() (ERR): the graceful close they
		 * asked for goes on, with the SQ flushed instead of sent,
		 * and the TX lets the CM send its FIN (kiw_llp.h). Aborting
		 * here would reset every such connection under the peer.
		 */
		if (cur == KIW_QP_CLOSING)
			*actions |= KIW_QP_ACT_CLOSE;
		else if (connected)
			*actions |= KIW_QP_ACT_ABORT;
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_qp_transition);

/* The IB state query_qp reports for an iWARP state. */
enum ib_qp_state kiw_qp_ib_state(enum kiw_qp_state state,
				 enum ib_qp_state idle_ib_state)
{
	switch (state) {
	case KIW_QP_IDLE:
		return idle_ib_state;
	case KIW_QP_RTS:
		return IB_QPS_RTS;
	case KIW_QP_CLOSING:
		return IB_QPS_SQD;
	case KIW_QP_TERMINATE:
		return IB_QPS_SQE;
	default:
		return IB_QPS_ERR;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_qp_ib_state);

static void kiw_qp_release(struct kref *ref)
{
	complete(&container_of(ref, struct kiw_qp, ref)->released);
}

void kiw_qp_get(struct kiw_qp *qp)
{
	kref_get(&qp->ref);
}

void kiw_qp_put(struct kiw_qp *qp)
{
	kref_put(&qp->ref, kiw_qp_release);
}

/* The QP a number names, without a reference (iw_get_qp semantics). */
struct kiw_qp *kiw_qp_from_num(struct kiw_device *kdev, u32 qpn)
{
	return xa_load(&kdev->qp_xa, qpn);
}

/* The one way async events reach the consumer. Any context. */
void kiw_qp_event(struct kiw_qp *qp, enum ib_event_type type)
{
	struct ib_event event = {
		.device = qp->base.device,
		.event = type,
		.element.qp = &qp->base,
	};

	if (qp->base.event_handler)
		qp->base.event_handler(&event, qp->base.qp_context);
}

static void kiw_qp_flush(struct kiw_qp *qp)
{
	bool notify_s = false, notify_r = false;
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	kiw_sq_flush_locked(qp, &notify_s);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	spin_lock_irqsave(&qp->rq.lock, flags);
	kiw_rq_flush_locked(qp, &notify_r);
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	if (notify_s)
		kiw_cq_notify(qp->scq);
	if (notify_r)
		kiw_cq_notify(qp->rcq);
}

/* Every state change goes through here, under state_lock; traced. */
static void kiw_qp_set_state(struct kiw_qp *qp, enum kiw_qp_state next)
{
	lockdep_assert_held(&qp->state_lock);
	if (qp->state != next)
		trace_kiw_qp_state(qp, qp->state, next);
	WRITE_ONCE(qp->state, next);
}

/* Carry out a state change's actions; no kiw lock held. */
static void kiw_qp_act(struct kiw_qp *qp, enum kiw_qp_state prev,
		       unsigned int actions)
{
	if (actions & KIW_QP_ACT_FLUSH) {
		kiw_qp_flush(qp);
		/* IB: a QP on an SRQ reports when it will take no more. */
		if (qp->srq && prev != KIW_QP_ERROR)
			kiw_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
	}
	if (actions & KIW_QP_ACT_CLOSE)
		kiw_qp_report(qp, KIW_QP_REPORT_CLOSE);
	if (actions & KIW_QP_ACT_ABORT)
		kiw_qp_report(qp, KIW_QP_REPORT_ABORT);
}

/*
 * An IDLE QP moved to ERR while the CM is setting up its connection
 * (destroy_qp, or a consumer giving up): abort the attempt too, so that
 * its references go now rather than at the startup timeout. A QP that
 * already left IDLE has what kiw_qp_transition() gave it: an endpoint
 * still bound to an ERROR QP is closing, and the close it is making
 * (graceful after a drain, or abortive) is left alone.
 */
static unsigned int kiw_qp_abort_setup(struct kiw_qp *qp,
				       enum kiw_qp_state prev,
				       enum kiw_qp_state next,
				       unsigned int actions)
{
	lockdep_assert_held(&qp->state_lock);
	if (prev == KIW_QP_IDLE && next == KIW_QP_ERROR && qp->cep)
		actions |= KIW_QP_ACT_ABORT;
	return actions;
}

/* Enter ERROR, flush, and abort the connection if there is one. */
void kiw_qp_error(struct kiw_qp *qp)
{
	enum kiw_qp_state prev, next;
	unsigned int actions;
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	prev = qp->state;
	kiw_qp_transition(prev, qp->idle_ib_state, IB_QPS_ERR, &next,
			  &actions);
	actions = kiw_qp_abort_setup(qp, prev, next, actions);
	kiw_qp_set_state(qp, next);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	kiw_qp_act(qp, prev, actions);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_qp_error);

/**
 * kiw_qp_report - tell the connection owning the QP what happened
 * @qp: the QP
 * @what: see enum kiw_qp_report
 *
 * Nothing happens if no connection is bound. Any context; no kiw lock
 * held.
 */
void kiw_qp_report(struct kiw_qp *qp, enum kiw_qp_report what)
{
	unsigned long flags;
	bool bound;

	spin_lock_irqsave(&qp->state_lock, flags);
	bound = qp->cep;
	if (bound)
		qp->report(qp->cep, what);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	/* A graceful close waits for the TX's KIW_QP_REPORT_DRAINED. */
	if (bound && what == KIW_QP_REPORT_CLOSE)
		kiw_tx_kick(qp);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_qp_report);

/* The CM: MPA completed, the QP may move data. */
int kiw_qp_llp_established(struct kiw_qp *qp)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state == KIW_QP_IDLE)
		kiw_qp_set_state(qp, KIW_QP_RTS);
	else
		ret = -EINVAL;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	/* No TX kick: no socket yet; kiw_llp_attach() kicks if needed. */
	return ret;
}

/*
 * The CM: the connection is gone (closed gracefully, reset, or lost with
 * @error). The QP enters ERROR and flushes; losing a connection that was
 * in use is a fatal error for the consumer.
 */
void kiw_qp_llp_closed(struct kiw_qp *qp, bool error)
{
	enum kiw_qp_state prev;
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	prev = qp->state;
	kiw_qp_set_state(qp, KIW_QP_ERROR);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (error && prev == KIW_QP_RTS)
		kiw_qp_event(qp, IB_EVENT_QP_FATAL);
	kiw_qp_act(qp, prev, KIW_QP_ACT_FLUSH);
}

/*
 * The data path detected an error on a connected QP: remember the Terminate
 * error, tell the consumer, and let the TX send the Terminate. Only the
 * first error counts: a QP already terminating or in error stays as it is.
 * An unconnected QP has no one to tell: it goes straight to ERROR.
 */
void kiw_qp_terminate(struct kiw_qp *qp, kiw_term_t term,
		      enum ib_event_type event)
{
	enum kiw_qp_state prev;
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	prev = qp->state;
	if (prev == KIW_QP_RTS || prev == KIW_QP_CLOSING) {
		kiw_qp_set_state(qp, KIW_QP_TERMINATE);
		qp->term = term;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);

	switch (prev) {
	case KIW_QP_RTS:
	case KIW_QP_CLOSING:
		kiw_qp_event(qp, event);
		kiw_tx_kick(qp);
		break;
	case KIW_QP_IDLE:
		kiw_qp_error(qp);
		break;
	default:
		break;
	}
}

/* A Terminate arrived from the peer. */
void kiw_qp_peer_terminate(struct kiw_qp *qp, enum ib_event_type event)
{
	kiw_qp_event(qp, event);
	kiw_qp_error(qp);
}

/*
 * Attributes iWARP has no use for (paths, PSNs, timeouts, retries, P_Key,
 * Q_Key) are accepted and ignored, since rdma_cm and ULPs pass them.
 * Resizing a QP is not a change modify_qp can make (EINVAL, as
 * ib_modify_qp_is_ok() answers for IB); a rate limit is a feature kiw does
 * not have (EOPNOTSUPP, as for attributes unknown here).
 */
#define KIW_QP_ACCESS_FLAGS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			     IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			     IB_ACCESS_MW_BIND)

static int kiw_qp_check_attr(const struct ib_qp_attr *attr, int mask)
{
	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (mask & IB_QP_RATE_LIMIT)
		return -EOPNOTSUPP;
	if (mask & IB_QP_CAP)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~KIW_QP_ACCESS_FLAGS))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > KIW_MAX_ORD)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > KIW_MAX_IRD)
		return -EINVAL;
	return 0;
}

/* What is set here is what kiw_query_qp() reports. */
static void kiw_qp_set_attr(struct kiw_qp *qp, const struct ib_qp_attr *attr,
			    int mask)
{
	lockdep_assert_held(&qp->state_lock);
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->ord = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->ird = attr->max_dest_rd_atomic;
}

int kiw_modify_qp(struct ib_qp *base, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct kiw_qp *qp = to_kiw_qp(base);
	unsigned int actions = KIW_QP_ACT_NONE;
	enum kiw_qp_state prev, next;
	unsigned long flags;
	int ret;

	ret = kiw_qp_check_attr(attr, mask);
	if (ret)
		return ret;

	spin_lock_irqsave(&qp->state_lock, flags);
	prev = qp->state;
	next = prev;
	if (mask & IB_QP_STATE) {
		ret = kiw_qp_transition(prev, qp->idle_ib_state,
					attr->qp_state, &next, &actions);
		/* A QP is reused only once its connection is gone. */
		if (!ret && prev == KIW_QP_ERROR && next == KIW_QP_IDLE &&
		    qp->cep)
			ret = -EBUSY;
	}
	/*
	 * ORD and IRD are the consumer's until MPA negotiates them (rdma_cm
	 * passes them as connection parameters); from then on they are the
	 * connection's (kiw_cep_enter_full()), and what query_qp reports.
	 */
	if (!ret && prev != KIW_QP_IDLE &&
	    (mask & (IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC)))
		ret = -EINVAL;
	if (!ret) {
		kiw_qp_set_attr(qp, attr, mask);
		if (mask & IB_QP_STATE)
			actions = kiw_qp_abort_setup(qp, prev, next, actions);
		kiw_qp_set_state(qp, next);
		if (next == KIW_QP_IDLE && (mask & IB_QP_STATE))
			qp->idle_ib_state = attr->qp_state;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (ret)
		return ret;
	kiw_qp_act(qp, prev, actions);
	return 0;
}
