// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a listener holds: the endpoints it accepted that wait for their MPA
 * Request (awaiting), and those whose Request was offered to the consumer
 * (requested), each list under the listener's lock; and the listener's
 * reference count. An endpoint leaves when the consumer accepts or rejects
 * it, or when it is released.
 *
 * Below both users: kiw_cm.c offers a Request and lets an endpoint leave;
 * kiw_cm_listen.c adds accepted connections and empties the lists when the
 * listener goes. Nothing here calls either of them.
 */
#include <linux/slab.h>

#include "kiw_cep.h"

static void kiw_listener_free(struct kref *ref)
{
	struct kiw_listener *l = container_of(ref, struct kiw_listener, ref);

	WARN_ON_ONCE(l->sock || l->holds_sock || !list_empty(&l->awaiting) ||
		     !list_empty(&l->requested));
	mutex_destroy(&l->lock);
	mutex_destroy(&l->stop_lock);
	kfree(l);
}

void kiw_listener_put(struct kiw_listener *l)
{
	kref_put(&l->ref, kiw_listener_free);
}

/* Take @cep off whichever of @l's lists it is on; @l->lock held. */
void kiw_listener_unlist(struct kiw_listener *l, struct kiw_cep *cep)
{
	lockdep_assert_held(&l->lock);
	if (cep->listen_list == KIW_LISTEN_AWAITING)
		l->n_awaiting--;
	else if (cep->listen_list == KIW_LISTEN_REQUESTED)
		l->n_requested--;
	cep->listen_list = KIW_LISTEN_NONE;
	list_del_init(&cep->listen_entry);
}

/* The endpoint is claimed or gone: it no longer counts on its listener. */
void kiw_listener_leave(struct kiw_cep *cep)
{
	struct kiw_listener *l = cep->listener;

	lockdep_assert_held(&cep->lock);
	if (!l)
		return;
	mutex_lock(&l->lock);
	kiw_listener_unlist(l, cep);
	mutex_unlock(&l->lock);
	cep->listener = NULL;
	kiw_listener_put(l);
}

/* A handle for iw_cm's provider_data; the table holds a reference. */
static int kiw_cep_publish(struct kiw_cep *cep)
{
	struct kiw_cm_dev *cm = &cep->kdev->cm;
	unsigned long handle;
	int ret;

	spin_lock_bh(&cm->lock);
	handle = cm->next_handle++;
	spin_unlock_bh(&cm->lock);
	ret = xa_insert(&cm->pending, handle, cep, GFP_KERNEL);
	if (ret)
		return ret;
	kiw_cep_get(cep);
	cep->handle = handle;
	return 0;
}

static void kiw_cep_request_event(struct kiw_cep *cep, struct iw_cm_event *ev)
{
	const struct kiw_mpa_frame *req = &cep->req;

	memset(ev, 0, sizeof(*ev));
	ev->event = IW_CM_EVENT_CONNECT_REQUEST;
	kiw_cep_addr_get(&ev->local_addr, &cep->local);
	kiw_cep_addr_get(&ev->remote_addr, &cep->remote);
	ev->provider_data = (void *)cep->handle;
	ev->private_data = (void *)req->ulp_pd;
	ev->private_data_len = req->ulp_pd_len;
	/*
	 * rdma_cm turns ird into initiator_depth and ord into
	 * responder_resources, seen from this side, as the IB CM does
	 * (rdma_accept(3)): initiator_depth bounds the Reads we may issue,
	 * which is the peer's IRD; responder_resources is the peer's ORD.
	 * Consumers accept with ORD = min(initiator_depth, their limit): a
	 * peer that asks for no Reads of its own (ORD 0, as NVMe-oF and
	 * NFS clients do) must not leave us with ORD 0. A Rev 1 peer
	 * states none: what kiw can do.
	 */
	ev->ird = req->enhanced ? min_t(u16, req->ird, U8_MAX) : KIW_MAX_ORD;
	ev->ord = req->enhanced ? min_t(u16, req->ord, U8_MAX) : KIW_MAX_IRD;
}

/*
 * Offer a valid Request to the listener's consumer (CONNECT_REQUEST).
 * Under the listener's lock, so that destroy_listen, once it has marked
 * the listener dead, sees no more upcalls.
 *
 * Return: false if it cannot be offered (the listener is gone, too many
 * Requests wait, iw_cm is out of room): the caller refuses it.
 */
bool kiw_listener_request(struct kiw_cep *cep)
{
	struct kiw_listener *l = cep->listener;
	struct iw_cm_event ev;
	bool ok = false;

	lockdep_assert_held(&cep->lock);
	if (!l || kiw_cep_publish(cep))
		return false;
	kiw_cep_request_event(cep, &ev);
	mutex_lock(&l->lock);
	if (!l->dead && l->n_requested < l->backlog) {
		kiw_listener_unlist(l, cep);
		list_add_tail(&cep->listen_entry, &l->requested);
		cep->listen_list = KIW_LISTEN_REQUESTED;
		l->n_requested++;
		ok = !l->cm_id->event_handler(l->cm_id, &ev);
	}
	mutex_unlock(&l->lock);
	if (!ok)
		ibdev_info_ratelimited(&cep->kdev->ibdev,
				       "%pISpc: connection request refused: listener busy or gone\n",
				       &cep->remote);
	return ok;	/* on failure, the release takes the handle back */
}
