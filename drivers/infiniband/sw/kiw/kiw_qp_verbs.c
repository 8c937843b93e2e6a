// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw QP verbs: create, destroy and query a QP, and iw_cm's QP
 * references. Creating and destroying a QP sets up and releases its rings
 * and the TX's and RX's per-QP state, so this sits above the data path;
 * modify_qp drives the state machine and stays with it (kiw_qp.c), and
 * posting is kiw_post.c.
 */
#include <linux/overflow.h>
#include <rdma/uverbs_ioctl.h>

#include "kiw_obj.h"
#include "kiw_qp.h"
#include "kiw_srq.h"
#include "kiw_mem.h"

/* IB QP numbers are 24 bits; 0 and 1 name the IB special QPs. */
#define KIW_QPN_MIN 2
#define KIW_QPN_MAX 0xffffff

void kiw_iw_add_ref(struct ib_qp *qp)
{
	kiw_qp_get(to_kiw_qp(qp));
}

void kiw_iw_rem_ref(struct ib_qp *qp)
{
	kiw_qp_put(to_kiw_qp(qp));
}

struct ib_qp *kiw_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct kiw_qp *qp = kiw_qp_from_num(to_kiw_dev(ibdev), qpn);

	return qp ? &qp->base : NULL;
}

static int kiw_qp_check_caps(const struct ib_qp_init_attr *attr)
{
	const struct ib_qp_cap *cap = &attr->cap;

	if (attr->qp_type != IB_QPT_RC)
		return -EOPNOTSUPP;
	if (attr->create_flags || attr->rwq_ind_tbl)
		return -EOPNOTSUPP;
	if (cap->max_send_wr > KIW_MAX_QP_WR ||
	    cap->max_send_sge > KIW_MAX_SGE ||
	    cap->max_inline_data > KIW_MAX_INLINE)
		return -EINVAL;
	if (!attr->srq && (cap->max_recv_wr > KIW_MAX_QP_WR ||
			   cap->max_recv_sge > KIW_MAX_SGE))
		return -EINVAL;
	return 0;
}

static int kiw_wq_alloc(struct kiw_wq *wq, u32 wr, size_t entry, bool user)
{
	size_t size;

	spin_lock_init(&wq->lock);
	wq->num = kiw_wq_size(wr);
	size = array_size(wq->num, entry);
	wq->ring = kiw_mmap_ring_alloc(size, user);
	return wq->ring ? 0 : -ENOMEM;
}

static void kiw_wq_free(struct kiw_wq *wq)
{
	kiw_mmap_ring_free(wq->entry, wq->ring);
}

static int kiw_wq_map(struct kiw_wq *wq, struct ib_udata *udata,
		      size_t entry, __u64 *key)
{
	return kiw_mmap_ring(udata, wq->ring, wq->num * entry, &wq->entry, key);
}

/* libsiw maps the rings with the keys and sizes it is told here. */
static int kiw_qp_map_user(struct kiw_qp *qp, struct ib_udata *udata)
{
	struct siw_uresp_create_qp uresp = {
		.qp_id = qp->base.qp_num,
		.num_sqe = qp->sq.num,
		.num_rqe = qp->srq ? 0 : qp->rq.num,
	};
	int ret;

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	ret = kiw_wq_map(&qp->sq, udata, sizeof(struct siw_sqe),
			 &uresp.sq_key);
	if (!ret && !qp->srq)
		ret = kiw_wq_map(&qp->rq, udata, sizeof(struct siw_rqe),
				 &uresp.rq_key);
	if (!ret)
		ret = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
	return ret;
}

static void kiw_qp_init_fields(struct kiw_qp *qp, struct ib_qp_init_attr *attr,
			       bool user)
{
	qp->kdev = to_kiw_dev(qp->base.device);
	qp->pd = to_kiw_pd(qp->base.pd);
	qp->scq = to_kiw_cq(attr->send_cq);
	qp->rcq = to_kiw_cq(attr->recv_cq);
	qp->srq = attr->srq ? to_kiw_srq(attr->srq) : NULL;
	qp->user = user;
	kref_init(&qp->ref);
	init_completion(&qp->released);
	spin_lock_init(&qp->state_lock);
	qp->state = KIW_QP_IDLE;
	qp->idle_ib_state = IB_QPS_RESET;
	qp->ord = KIW_MAX_ORD;
	qp->ird = KIW_MAX_IRD;
	qp->max_send_sge = KIW_MAX_SGE;
	qp->max_recv_sge = qp->srq ? 0 : KIW_MAX_SGE;
	qp->max_inline = KIW_MAX_INLINE;
	qp->sq_sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	spin_lock_init(&qp->rq.lock);
}

/* What the QP can hold, as create_qp returns it and query_qp reports it. */
static void kiw_qp_fill_cap(const struct kiw_qp *qp, struct ib_qp_cap *cap)
{
	cap->max_send_wr = qp->sq.num;
	cap->max_recv_wr = qp->srq ? 0 : qp->rq.num;
	cap->max_send_sge = qp->max_send_sge;
	cap->max_recv_sge = qp->max_recv_sge;
	cap->max_inline_data = qp->max_inline;
}

int kiw_create_qp(struct ib_qp *base, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata)
{
	struct kiw_device *kdev = to_kiw_dev(base->device);
	struct kiw_qp *qp = to_kiw_qp(base);
	u32 qpn;
	int ret;

	ret = kiw_qp_check_caps(attr);
	if (ret)
		return ret;
	ret = kiw_take_slot(&kdev->num_qp, KIW_MAX_QP);
	if (ret)
		return ret;
	kiw_qp_init_fields(qp, attr, !!udata);

	ret = kiw_wq_alloc(&qp->sq, attr->cap.max_send_wr,
			   sizeof(struct siw_sqe), qp->user);
	if (!ret && !qp->srq)
		ret = kiw_wq_alloc(&qp->rq, attr->cap.max_recv_wr,
				   sizeof(struct siw_rqe), qp->user);
	if (ret)
		goto err_rings;

	ret = xa_alloc_cyclic(&kdev->qp_xa, &qpn, NULL,
			      XA_LIMIT(KIW_QPN_MIN, KIW_QPN_MAX),
			      &kdev->qp_next, GFP_KERNEL);
	if (ret < 0)
		goto err_rings;
	base->qp_num = qpn;
	if (udata) {
		ret = kiw_qp_map_user(qp, udata);
		if (ret)
			goto err_qpn;
	}
	kiw_tx_qp_init(qp);
	kiw_rx_qp_init(qp);
	kiw_qp_fill_cap(qp, &attr->cap);
	/* Findable by iw_get_qp only now that it is complete. */
	xa_store(&kdev->qp_xa, qpn, qp, GFP_KERNEL);
	return 0;

err_qpn:
	xa_erase(&kdev->qp_xa, qpn);
err_rings:
	kiw_wq_free(&qp->sq);
	kiw_wq_free(&qp->rq);
	atomic_dec(&kdev->num_qp);
	return ret;
}

/*
 * Abort whatever the QP was doing, make it unfindable, and wait until
 * iw_cm, the CM endpoint and the data path have dropped their references:
 * the RDMA core frees the QP when this returns.
 */
int kiw_destroy_qp(struct ib_qp *base, struct ib_udata *udata)
{
	struct kiw_qp *qp = to_kiw_qp(base);
	struct kiw_device *kdev = qp->kdev;

	kiw_qp_error(qp);
	xa_erase(&kdev->qp_xa, base->qp_num);
	kiw_qp_put(qp);
	wait_for_completion(&qp->released);

	kiw_tx_qp_release(qp);
	kiw_rx_qp_release(qp);
	kiw_wq_free(&qp->sq);
	kiw_wq_free(&qp->rq);
	atomic_dec(&kdev->num_qp);
	return 0;
}

int kiw_query_qp(struct ib_qp *base, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct kiw_qp *qp = to_kiw_qp(base);
	unsigned long flags;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	spin_lock_irqsave(&qp->state_lock, flags);
	attr->qp_state = kiw_qp_ib_state(qp->state, qp->idle_ib_state);
	attr->qp_access_flags = qp->access;
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	attr->sq_draining = qp->state == KIW_QP_CLOSING;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = ib_mtu_int_to_enum(READ_ONCE(qp->kdev->netdev->mtu));
	attr->port_num = 1;
	kiw_qp_fill_cap(qp, &attr->cap);

	init->event_handler = base->registered_event_handler;
	init->qp_context = base->qp_context;
	init->send_cq = base->send_cq;
	init->recv_cq = base->recv_cq;
	init->srq = base->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = IB_QPT_RC;
	init->port_num = 1;
	return 0;
}
