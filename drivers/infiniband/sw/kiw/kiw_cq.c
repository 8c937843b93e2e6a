// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw completion queues: the ring shared with libsiw, arming, and the
 * kernel poll and notify verbs.
 */
#include <linux/log2.h>
#include <rdma/uverbs_ioctl.h>
#include <kunit/visibility.h>

#include "kiw_cq.h"
#include "kiw_obj.h"
#include "kiw_ring.h"

/*
 * Should adding a completion raise a CQ event? @notify_flags is the CQ's
 * arming word (SIW_NOTIFY_*). Armed for the next completion: yes. Armed for
 * solicited completions only: for a solicited one, and, as the IB
 * specification asks, for an unsuccessful one (the caller passes those as
 * solicited).
 */
bool kiw_cq_notify_due(u32 notify_flags, bool solicited)
{
	if (notify_flags & SIW_NOTIFY_NEXT_COMPLETION)
		return true;
	return solicited && (notify_flags & SIW_NOTIFY_SOLICITED);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cq_notify_due);

/*
 * A ring entry is free until its consumer has taken it: VALID is set by
 * kiw as the entry's last store and cleared by the poller.
 */
bool kiw_cq_slot_free(const struct siw_cqe *cqe)
{
	return !kiw_ring_posted(cqe);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cq_slot_free);

/* Ring entries for a request of @cqe: a power of two, at least one. */
u32 kiw_cq_ring_size(u32 cqe)
{
	return roundup_pow_of_two(max(cqe, 1u));
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cq_ring_size);

/* libsiw turns these back into ibv_wc_opcode values. */
u8 kiw_siw_opcode(enum ib_wc_opcode opcode)
{
	switch (opcode) {
	case IB_WC_RDMA_WRITE:
		return SIW_OP_WRITE;
	case IB_WC_RDMA_READ:
		return SIW_OP_READ;
	case IB_WC_RECV:
		return SIW_OP_RECEIVE;
	case IB_WC_REG_MR:
		return SIW_OP_REG_MR;
	case IB_WC_LOCAL_INV:
		return SIW_OP_INVAL_STAG;
	case IB_WC_SEND:
	default:
		return SIW_OP_SEND;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_siw_opcode);

/* libsiw indexes a table with this: it must stay below SIW_NUM_WC_STATUS. */
u16 kiw_siw_wc_status(enum ib_wc_status status)
{
	switch (status) {
	case IB_WC_SUCCESS:
		return SIW_WC_SUCCESS;
	case IB_WC_LOC_LEN_ERR:
		return SIW_WC_LOC_LEN_ERR;
	case IB_WC_LOC_PROT_ERR:
		return SIW_WC_LOC_PROT_ERR;
	case IB_WC_LOC_QP_OP_ERR:
		return SIW_WC_LOC_QP_OP_ERR;
	case IB_WC_WR_FLUSH_ERR:
		return SIW_WC_WR_FLUSH_ERR;
	case IB_WC_BAD_RESP_ERR:
		return SIW_WC_BAD_RESP_ERR;
	case IB_WC_LOC_ACCESS_ERR:
		return SIW_WC_LOC_ACCESS_ERR;
	case IB_WC_REM_ACCESS_ERR:
		return SIW_WC_REM_ACCESS_ERR;
	case IB_WC_REM_INV_REQ_ERR:
		return SIW_WC_REM_INV_REQ_ERR;
	default:
		return SIW_WC_GENERAL_ERR;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_siw_wc_status);

static void kiw_cq_fill(struct kiw_cq *cq, struct siw_cqe *cqe,
			const struct kiw_wc *wc)
{
	u8 flags = SIW_WQE_VALID;

	cqe->id = wc->wr_id;
	cqe->bytes = wc->byte_len;
	cqe->inval_stag = wc->invalidated ? wc->inval_stag : 0;
	if (wc->invalidated)
		flags |= SIW_WQE_REM_INVAL;
	if (wc->solicited)
		flags |= SIW_WQE_SOLICITED;
	if (cq->user) {
		cqe->opcode = kiw_siw_opcode(wc->opcode);
		cqe->status = kiw_siw_wc_status(wc->status);
		cqe->qp_id = wc->qp_num;
	} else {
		cqe->opcode = wc->opcode;
		cqe->status = wc->status;
		cqe->base_qp = wc->qp;
	}
	/* The entry is complete before its consumer can see VALID. */
	kiw_ring_publish(cqe, flags);
}

static void kiw_cq_event(struct kiw_cq *cq, enum ib_event_type type)
{
	struct ib_event event = {
		.device = cq->base.device,
		.event = type,
		.element.cq = &cq->base,
	};

	if (cq->base.event_handler)
		cq->base.event_handler(&event, cq->base.cq_context);
}

int kiw_cq_add(struct kiw_cq *cq, const struct kiw_wc *wc, bool *notify)
{
	bool solicited = wc->solicited || wc->status != IB_WC_SUCCESS;
	struct siw_cqe *cqe;
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	cqe = &cq->queue[cq->put & (cq->num_cqe - 1)];
	if (!kiw_cq_slot_free(cqe)) {
		cq->overflowed = true;
		*notify = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		return -ENOSPC;
	}
	kiw_cq_fill(cq, cqe, wc);
	cq->put++;
	/*
	 * libsiw arms a CQ by storing to the arming word, with no system
	 * call, and then polls the ring once more before it sleeps (seq_cst
	 * atomics: its store is ordered before its load). We store the CQE,
	 * then load the arming word: without a full barrier between the two
	 * each side can miss the other's store, the CQE unseen and no event
	 * raised, and the consumer sleeps for good (rsockets did). Kernel
	 * consumers arm under cq->lock, so only user CQs need it.
	 */
	if (cq->user)
		smp_mb();	/* pairs with libsiw: arm, then poll */
	/* User space writes this word too: read it once, clear it once. */
	if (kiw_cq_notify_due(READ_ONCE(cq->notify->flags), solicited)) {
		WRITE_ONCE(cq->notify->flags, SIW_NOTIFY_NOT);
		cq->comp_due = true;
		*notify = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cq_add);

void kiw_cq_notify(struct kiw_cq *cq)
{
	bool comp, overflowed;
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	comp = cq->comp_due;
	overflowed = cq->overflowed;
	cq->comp_due = false;
	cq->overflowed = false;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (overflowed) {
		ibdev_warn_ratelimited(cq->base.device, "CQ overflow\n");
		kiw_cq_event(cq, IB_EVENT_CQ_ERR);
	}
	if (comp && cq->base.comp_handler)
		cq->base.comp_handler(&cq->base, cq->base.cq_context);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cq_notify);

int kiw_cq_complete(struct kiw_cq *cq, const struct kiw_wc *wc)
{
	bool notify = false;
	int ret;

	ret = kiw_cq_add(cq, wc, &notify);
	if (notify)
		kiw_cq_notify(cq);
	return ret;
}

static void kiw_cq_to_wc(const struct siw_cqe *cqe, struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->byte_len = cqe->bytes;
	wc->qp = cqe->base_qp;
	wc->port_num = 1;
	if (cqe->flags & SIW_WQE_REM_INVAL) {
		wc->wc_flags = IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = cqe->inval_stag;
	}
}

int kiw_poll_cq(struct ib_cq *base, int num_entries, struct ib_wc *wc)
{
	struct kiw_cq *cq = to_kiw_cq(base);
	unsigned long flags;
	int n;

	if (cq->user)
		return -EOPNOTSUPP;	/* libsiw polls the mapped ring */

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries; n++) {
		struct siw_cqe *cqe = &cq->queue[cq->get & (cq->num_cqe - 1)];

		if (kiw_cq_slot_free(cqe))
			break;
		kiw_cq_to_wc(cqe, &wc[n]);
		kiw_ring_free(cqe);
		cq->get++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_poll_cq);

int kiw_req_notify_cq(struct ib_cq *base, enum ib_cq_notify_flags flags)
{
	struct kiw_cq *cq = to_kiw_cq(base);
	u32 arm = SIW_NOTIFY_SOLICITED;
	unsigned long irqflags;
	int missed = 0;

	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		arm |= SIW_NOTIFY_NEXT_COMPLETION;

	spin_lock_irqsave(&cq->lock, irqflags);
	WRITE_ONCE(cq->notify->flags, arm);
	/* Only a kernel CQ's consumer index is known here. */
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && !cq->user)
		missed = !kiw_cq_slot_free(&cq->queue[cq->get &
						     (cq->num_cqe - 1)]);
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_req_notify_cq);

static int kiw_cq_map_user(struct kiw_cq *cq, struct ib_udata *udata,
			   size_t size)
{
	struct siw_uresp_create_cq uresp = {
		.num_cqe = cq->num_cqe,
	};
	int ret;

	ret = kiw_mmap_ring_resp(udata, sizeof(uresp), cq->queue, size,
				 &cq->entry, &uresp.cq_key);
	if (ret)
		return ret;
	/* Only for libsiw's messages: unique within the user context. */
	uresp.cq_id = uresp.cq_key >> PAGE_SHIFT;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

int kiw_create_cq(struct ib_cq *base, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs)
{
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
	struct kiw_device *kdev = to_kiw_dev(base->device);
	struct kiw_cq *cq = to_kiw_cq(base);
	size_t size;
	int ret;

	if (attr->flags)
		return -EOPNOTSUPP;
	/* A CQ holds at least one entry (ibv_create_cq(3)), as for rxe, siw. */
	if (!attr->cqe || attr->cqe > KIW_MAX_CQE ||
	    attr->comp_vector >= base->device->num_comp_vectors)
		return -EINVAL;
	ret = kiw_take_slot(&kdev->num_cq, KIW_MAX_CQ);
	if (ret)
		return ret;

	spin_lock_init(&cq->lock);
	cq->num_cqe = kiw_cq_ring_size(attr->cqe);
	cq->user = !!udata;
	size = array_size(cq->num_cqe, sizeof(*cq->queue));
	/* A user CQ's arming word follows its ring, in the same mapping. */
	if (cq->user)
		size += sizeof(*cq->notify);
	cq->queue = kiw_mmap_ring_alloc(size, cq->user);
	if (!cq->queue) {
		ret = -ENOMEM;
		goto err_slot;
	}
	if (cq->user) {
		cq->notify = (struct siw_cq_ctrl *)(cq->queue + cq->num_cqe);
		ret = kiw_cq_map_user(cq, udata, size);
		if (ret)
			goto err_free;
	} else {
		cq->notify = &cq->kernel_notify;
	}
	base->cqe = cq->num_cqe;
	return 0;

err_free:
	kiw_mmap_ring_free(cq->entry, cq->queue);
err_slot:
	atomic_dec(&kdev->num_cq);
	return ret;
}

/*
 * The RDMA core destroys a CQ only when no QP uses it any more, so no
 * completion can race with this. A mapping user space still holds keeps
 * its pages (they are reference counted), not this object.
 */
int kiw_destroy_cq(struct ib_cq *base, struct ib_udata *udata)
{
	struct kiw_cq *cq = to_kiw_cq(base);

	kiw_mmap_ring_free(cq->entry, cq->queue);
	atomic_dec(&to_kiw_dev(base->device)->num_cq);
	return 0;
}
