// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw shared receive queues: the ring, fetch for the receive path, the
 * limit event, and the SRQ verbs.
 */
#include <rdma/uverbs_ioctl.h>
#include <kunit/visibility.h>

#include "kiw_obj.h"
#include "kiw_qp.h"
#include "kiw_ring.h"
#include "kiw_srq.h"

/*
 * Posted entries are contiguous from @get (producers fill the ring in
 * order), so fewer than @limit are posted exactly when the entry @limit - 1
 * past @get is not. A producer that breaks the order (a user process
 * writing its own ring out of order) only changes when its own SRQ's
 * event fires.
 */
bool kiw_srq_below_limit(const struct siw_rqe *ring, u32 num, u32 get,
			 u32 limit)
{
	const struct siw_rqe *last;

	if (!limit)
		return false;
	if (limit > num)
		return true;
	last = &ring[(get + limit - 1) & (num - 1)];
	return !(READ_ONCE(last->flags) & SIW_WQE_VALID);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_srq_below_limit);

void kiw_srq_limit_event(struct kiw_srq *srq)
{
	struct ib_event event = {
		.device = srq->base.device,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
		.element.srq = &srq->base,
	};

	if (srq->base.event_handler)
		srq->base.event_handler(&event, srq->base.srq_context);
}

int kiw_srq_fetch(struct kiw_srq *srq, struct kiw_rqe *rqe, bool *limit)
{
	struct siw_rqe *slot;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&srq->lock, flags);
	slot = &srq->ring[srq->get & (srq->num - 1)];
	ret = kiw_rqe_copy(slot, srq->max_sge, rqe);
	if (ret != -ENOENT) {
		/* Taken, valid or not: free the entry for the producer. */
		kiw_ring_free(slot);
		srq->get++;
		if (srq->armed && kiw_srq_below_limit(srq->ring, srq->num,
						      srq->get, srq->limit)) {
			srq->armed = false;
			*limit = true;
		}
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	rqe->from_srq = true;
	return ret;
}

int kiw_post_srq_recv(struct ib_srq *base, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct kiw_srq *srq = to_kiw_srq(base);
	unsigned long flags;
	int ret = 0;

	if (srq->user) {
		*bad_wr = wr;
		return -EOPNOTSUPP;	/* libsiw posts into the mapped ring */
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		struct siw_rqe *slot = &srq->ring[srq->put & (srq->num - 1)];

		ret = kiw_rqe_from_wr(wr, srq->max_sge, slot);
		if (ret)
			break;
		srq->put++;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (ret)
		*bad_wr = wr;
	return ret;
}

static int kiw_srq_map_user(struct kiw_srq *srq, struct ib_udata *udata,
			    size_t size)
{
	struct siw_uresp_create_srq uresp = {
		.num_rqe = srq->num,
	};
	int ret;

	ret = kiw_mmap_ring_resp(udata, sizeof(uresp), srq->ring, size,
				 &srq->entry, &uresp.srq_key);
	if (ret)
		return ret;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

int kiw_create_srq(struct ib_srq *base, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct kiw_device *kdev = to_kiw_dev(base->device);
	struct ib_srq_attr *attr = &init->attr;
	struct kiw_srq *srq = to_kiw_srq(base);
	size_t size;
	int ret;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > KIW_MAX_SRQ_WR ||
	    attr->max_sge > KIW_MAX_SGE || attr->srq_limit > attr->max_wr)
		return -EINVAL;
	ret = kiw_take_slot(&kdev->num_srq, KIW_MAX_SRQ);
	if (ret)
		return ret;

	spin_lock_init(&srq->lock);
	srq->user = !!udata;
	srq->num = kiw_wq_size(attr->max_wr);
	srq->max_sge = KIW_MAX_SGE;
	srq->limit = attr->srq_limit;
	srq->armed = attr->srq_limit > 0;
	size = array_size(srq->num, sizeof(*srq->ring));
	srq->ring = kiw_mmap_ring_alloc(size, srq->user);
	if (!srq->ring) {
		ret = -ENOMEM;
		goto err_slot;
	}
	if (udata) {
		ret = kiw_srq_map_user(srq, udata, size);
		if (ret)
			goto err_free;
	}
	/* What the consumer got, as query_srq reports it. */
	attr->max_wr = srq->num;
	attr->max_sge = srq->max_sge;
	return 0;

err_free:
	kiw_mmap_ring_free(srq->entry, srq->ring);
err_slot:
	atomic_dec(&kdev->num_srq);
	return ret;
}

int kiw_modify_srq(struct ib_srq *base, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct kiw_srq *srq = to_kiw_srq(base);
	unsigned long flags;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;	/* no resizing */
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->num)
		return -EINVAL;
	spin_lock_irqsave(&srq->lock, flags);
	srq->limit = attr->srq_limit;
	srq->armed = attr->srq_limit > 0;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

int kiw_query_srq(struct ib_srq *base, struct ib_srq_attr *attr)
{
	struct kiw_srq *srq = to_kiw_srq(base);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = srq->num;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->armed ? srq->limit : 0;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

/* The RDMA core destroys an SRQ only when no QP uses it any more. */
int kiw_destroy_srq(struct ib_srq *base, struct ib_udata *udata)
{
	struct kiw_srq *srq = to_kiw_srq(base);

	kiw_mmap_ring_free(srq->entry, srq->ring);
	atomic_dec(&to_kiw_dev(base->device)->num_srq);
	return 0;
}
