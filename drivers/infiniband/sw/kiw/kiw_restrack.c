// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw resource tracking: what "rdma res show qp|cm_id|cq|mr -dd" (RDMA
 * netlink, nldev) shows of kiw's objects besides the RDMA core's own
 * fields, as driver attributes:
 *
 *   qp     state (kiw's iWARP state), sq_wr, rq_wr, srq, user, ird, ord,
 *          terminate (the first error, if any), the send side's progress
 *          (sq_started, sq_completed, orq, irq, tx_wait: for a stalled
 *          QP, what it waits for), and its connection
 *   cm_id  a listener (listen: listening/dormant/stopped, backlog,
 *          awaiting, requested) or a connection
 *   the connection of either: cm_state, role, laddr, raddr (the TCP
 *          connection's addresses), and once MPA is done: mpa_rev, crc,
 *          markers_tx, markers_rx, rtr
 *   cq     cqe (ring entries), user, armed, overflowed
 *   mr     kind (dma, user, fast), valid, access, pages, page_size
 *
 * nldev calls these in process context holding a restrack reference on
 * the object and no lock; each takes the object's own lock (a connection
 * endpoint's mutex, a QP's or CQ's spinlock) only to copy what it shows.
 */
#include <net/netlink.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/restrack.h>

#include "kiw_cep.h"
#include "kiw_mem.h"
#include "kiw_qp.h"
#include "kiw_srq.h"

/* What is shown of a connection endpoint, copied under its lock. */
struct kiw_res_cep {
	enum kiw_cep_state state;
	bool active;
	bool established;
	struct kiw_mpa_result res;
	struct sockaddr_storage local;
	struct sockaddr_storage remote;
};

static void kiw_res_cep_snap(struct kiw_cep *cep, struct kiw_res_cep *s)
{
	mutex_lock(&cep->lock);
	s->state = cep->state;
	s->active = cep->active;
	s->established = cep->established;
	s->res = cep->res;
	kiw_cep_addr_get(&s->local, &cep->local);
	kiw_cep_addr_get(&s->remote, &cep->remote);
	mutex_unlock(&cep->lock);
}

static int kiw_res_put_addr(struct sk_buff *msg, const char *name,
			    const struct sockaddr_storage *a)
{
	char buf[64];

	if (!a->ss_family)
		return 0;
	snprintf(buf, sizeof(buf), "%pISpc", a);
	return rdma_nl_put_driver_string(msg, name, buf);
}

static const char *kiw_res_rtr_name(u8 rtr)
{
	switch (kiw_cm_rtr(rtr)) {
	case KIW_RTR_SEND:
		return "send";
	case KIW_RTR_WRITE:
		return "write";
	case KIW_RTR_READ:
		return "read";
	default:
		return "none";
	}
}

static int kiw_res_put_cep(struct sk_buff *msg, struct kiw_cep *cep)
{
	struct kiw_res_cep s;

	kiw_res_cep_snap(cep, &s);
	if (rdma_nl_put_driver_string(msg, "cm_state",
				      kiw_cep_state_name(s.state)) ||
	    rdma_nl_put_driver_string(msg, "role", s.active ? "initiator" :
								"responder") ||
	    kiw_res_put_addr(msg, "laddr", &s.local) ||
	    kiw_res_put_addr(msg, "raddr", &s.remote))
		return -EMSGSIZE;
	if (!s.established)
		return 0;
	if (rdma_nl_put_driver_u32(msg, "mpa_rev", s.res.rev) ||
	    rdma_nl_put_driver_string(msg, "crc", s.res.crc ? "on" : "off") ||
	    rdma_nl_put_driver_u32(msg, "markers_tx", s.res.tx_markers) ||
	    rdma_nl_put_driver_u32(msg, "markers_rx", s.res.rx_markers) ||
	    rdma_nl_put_driver_string(msg, "rtr", kiw_res_rtr_name(s.res.rtr)))
		return -EMSGSIZE;
	return 0;
}

static const char * const kiw_res_qp_states[KIW_QP_STATE_COUNT] = {
	[KIW_QP_IDLE] = "idle",
	[KIW_QP_RTS] = "rts",
	[KIW_QP_CLOSING] = "closing",
	[KIW_QP_TERMINATE] = "terminate",
	[KIW_QP_ERROR] = "error",
};

static const char * const kiw_res_layers[] = { "rdmap", "ddp", "mpa" };

/* "mpa/0x0/0x02": the layer, error type and code of a Terminate. */
static int kiw_res_put_term(struct sk_buff *msg, kiw_term_t term)
{
	u8 layer = kiw_term_layer(term);
	char buf[32];

	if (!term)
		return 0;
	snprintf(buf, sizeof(buf), "%s/0x%x/0x%02x",
		 layer < ARRAY_SIZE(kiw_res_layers) ? kiw_res_layers[layer] :
						      "?",
		 kiw_term_etype(term), kiw_term_ecode(term));
	return rdma_nl_put_driver_string(msg, "terminate", buf);
}

static int kiw_res_put_qp(struct sk_buff *msg, struct kiw_qp *qp,
			  enum kiw_qp_state state, kiw_term_t term, u32 ird,
			  u32 ord)
{
	if (rdma_nl_put_driver_string(msg, "state",
				      state < KIW_QP_STATE_COUNT ?
				      kiw_res_qp_states[state] : "?") ||
	    rdma_nl_put_driver_u32(msg, "sq_wr", qp->sq.num) ||
	    rdma_nl_put_driver_u32(msg, "rq_wr", qp->srq ? 0 : qp->rq.num) ||
	    rdma_nl_put_driver_u32(msg, "srq", !!qp->srq) ||
	    rdma_nl_put_driver_u32(msg, "user", qp->user) ||
	    rdma_nl_put_driver_u32(msg, "ird", ird) ||
	    rdma_nl_put_driver_u32(msg, "ord", ord) ||
	    kiw_res_put_term(msg, term))
		return -EMSGSIZE;
	return 0;
}

/*
 * The send side's progress, for a QP that seems stuck: SQ positions
 * started and completed (free-running counters), Reads outstanding (ORQ)
 * and owed to the peer (IRQ), and what the TX waits for besides the
 * socket: "orq" (ORD reached, or a fence), "peer" (a responder waiting
 * for the initiator's first FPDU). The queues' counters belong to the TX
 * and the RX; a snapshot of them, read without their owners, is good
 * enough to tell a stall from progress.
 */
static int kiw_res_put_tx(struct sk_buff *msg, struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;
	u32 started, completed, orq, irq;
	const char *wait = "none";

	spin_lock_bh(&tx->lock);
	started = tx->txc.tail;
	completed = tx->txc.head;
	spin_unlock_bh(&tx->lock);
	orq = kiw_rdq_used(&tx->orq_q);
	irq = kiw_rdq_used(&tx->irq_q);
	if (READ_ONCE(tx->orq_wait))
		wait = "orq";
	else if (READ_ONCE(tx->hold))
		wait = "peer";
	if (rdma_nl_put_driver_u32(msg, "sq_started", started) ||
	    rdma_nl_put_driver_u32(msg, "sq_completed", completed) ||
	    rdma_nl_put_driver_u32(msg, "orq", orq) ||
	    rdma_nl_put_driver_u32(msg, "irq", irq) ||
	    rdma_nl_put_driver_string(msg, "tx_wait", wait))
		return -EMSGSIZE;
	return 0;
}

static int kiw_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct kiw_qp *qp = to_kiw_qp(ibqp);
	struct kiw_cep *cep = NULL;
	enum kiw_qp_state state;
	struct nlattr *table;
	unsigned long flags;
	kiw_term_t term;
	u32 ird, ord;
	int ret;

	spin_lock_irqsave(&qp->state_lock, flags);
	state = qp->state;
	term = qp->term;
	ird = qp->ird;
	ord = qp->ord;
	if (qp->cep && kref_get_unless_zero(&qp->cep->ref))
		cep = qp->cep;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	ret = -EMSGSIZE;
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		goto out;
	ret = kiw_res_put_qp(msg, qp, state, term, ird, ord);
	if (!ret)
		ret = kiw_res_put_tx(msg, qp);
	if (!ret && cep)
		ret = kiw_res_put_cep(msg, cep);
	if (ret)
		nla_nest_cancel(msg, table);
	else
		nla_nest_end(msg, table);
out:
	if (cep)
		kiw_cep_put(cep);
	return ret;
}

static int kiw_res_put_listener(struct sk_buff *msg, struct kiw_listener *l)
{
	const char *what;
	unsigned int backlog, awaiting, requested;

	mutex_lock(&l->lock);
	what = l->dead ? "stopped" : l->sock ? "listening" : "dormant";
	backlog = l->backlog;
	awaiting = l->n_awaiting;
	requested = l->n_requested;
	mutex_unlock(&l->lock);
	if (rdma_nl_put_driver_string(msg, "listen", what) ||
	    rdma_nl_put_driver_u32(msg, "backlog", backlog) ||
	    rdma_nl_put_driver_u32(msg, "awaiting", awaiting) ||
	    rdma_nl_put_driver_u32(msg, "requested", requested))
		return -EMSGSIZE;
	return 0;
}

/*
 * The kiw object behind an iw_cm id, with a reference: its listener, the
 * endpoint it drives, or the endpoint still waiting for the consumer's
 * accept or reject (found by the handle iw_cm holds as provider_data).
 */
static void kiw_res_find(struct kiw_device *kdev, struct iw_cm_id *iw,
			 struct kiw_listener **lp, struct kiw_cep **cepp)
{
	struct kiw_cm_dev *cm = &kdev->cm;
	struct kiw_listener *l;
	struct kiw_cep *cep;

	*lp = NULL;
	*cepp = NULL;
	spin_lock_bh(&cm->lock);
	list_for_each_entry(l, &cm->listeners, dev_entry) {
		if (l->cm_id == iw && kref_get_unless_zero(&l->ref)) {
			*lp = l;
			break;
		}
	}
	/*
	 * cep->cm_id is set and cleared under cep->lock, which cannot be
	 * taken here: what is read is only compared.
	 */
	list_for_each_entry(cep, &cm->ceps, dev_entry) {
		if (*lp)
			break;
		if (READ_ONCE(cep->cm_id) == iw &&
		    kref_get_unless_zero(&cep->ref)) {
			*cepp = cep;
			break;
		}
	}
	spin_unlock_bh(&cm->lock);
	if (*lp || *cepp)
		return;
	xa_lock_bh(&cm->pending);
	cep = xa_load(&cm->pending, (unsigned long)READ_ONCE(iw->provider_data));
	if (cep && kref_get_unless_zero(&cep->ref))
		*cepp = cep;
	xa_unlock_bh(&cm->pending);
}

static int kiw_fill_res_cm_id_entry(struct sk_buff *msg,
				    struct rdma_cm_id *id)
{
	struct iw_cm_id *iw = rdma_iw_cm_id(id);
	struct kiw_listener *l;
	struct kiw_cep *cep;
	struct nlattr *table;
	int ret = 0;

	if (!iw || !id->device)
		return 0;
	kiw_res_find(to_kiw_dev(id->device), iw, &l, &cep);
	if (!l && !cep)
		return 0;	/* not kiw's yet, or gone already */
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table) {
		ret = -EMSGSIZE;
		goto out;
	}
	ret = l ? kiw_res_put_listener(msg, l) : kiw_res_put_cep(msg, cep);
	if (ret)
		nla_nest_cancel(msg, table);
	else
		nla_nest_end(msg, table);
out:
	if (l)
		kiw_listener_put(l);
	if (cep)
		kiw_cep_put(cep);
	return ret;
}

static int kiw_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct kiw_cq *cq = to_kiw_cq(ibcq);
	struct nlattr *table;
	unsigned long flags;
	bool overflowed;
	u32 armed;

	spin_lock_irqsave(&cq->lock, flags);
	overflowed = cq->overflowed;
	/* A user CQ's arming word is in the mapped ring: read it once. */
	armed = READ_ONCE(cq->notify->flags);
	spin_unlock_irqrestore(&cq->lock, flags);

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "cqe", cq->num_cqe) ||
	    rdma_nl_put_driver_u32(msg, "user", cq->user) ||
	    rdma_nl_put_driver_u32_hex(msg, "armed", armed) ||
	    rdma_nl_put_driver_u32(msg, "overflowed", overflowed)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

static const char * const kiw_res_mr_kinds[] = {
	[KIW_MR_DMA] = "dma",
	[KIW_MR_USER] = "user",
	[KIW_MR_FAST] = "fast",
};

/* Not the STag, nor addresses: nldev shows keys to CAP_NET_ADMIN only. */
static int kiw_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct kiw_mr *mr = to_kiw_mr(ibmr);
	struct kiw_mr_map map;
	struct nlattr *table;
	u32 page_size;

	kiw_mr_snapshot(mr, &map);
	page_size = map.kind == KIW_MR_FAST ? 1U << map.page_shift : PAGE_SIZE;
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_string(msg, "kind",
				      map.kind < ARRAY_SIZE(kiw_res_mr_kinds) ?
				      kiw_res_mr_kinds[map.kind] : "?") ||
	    rdma_nl_put_driver_u32(msg, "valid", map.valid) ||
	    rdma_nl_put_driver_u32_hex(msg, "access", map.access) ||
	    rdma_nl_put_driver_u32(msg, "pages", map.npages) ||
	    rdma_nl_put_driver_u32(msg, "page_size", page_size)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

const struct ib_device_ops kiw_restrack_ops = {
	.fill_res_cm_id_entry = kiw_fill_res_cm_id_entry,
	.fill_res_cq_entry = kiw_fill_res_cq_entry,
	.fill_res_mr_entry = kiw_fill_res_mr_entry,
	.fill_res_qp_entry = kiw_fill_res_qp_entry,
};
