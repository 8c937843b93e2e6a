// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw connection manager set-up and teardown: the module's workqueue, a
 * device's CM state, iw_cm's entry points (kiw_cm_ops), and closing a
 * device's sockets in a network namespace before it is dismantled.
 *
 * Kernel sockets hold no reference on their netns. When a netns goes
 * away, its interfaces go too and with them the kiw devices on them, but
 * the device removal is queued and runs later; the netns's TCP state must
 * not outlive our sockets meanwhile. A pernet pre_exit hook (kiw_dev.c's,
 * which has the list of devices) therefore has each device close,
 * synchronously, every socket it has in the dying netns
 * (kiw_cm_dev_close_sockets()): listeners become dormant, connections are
 * aborted (iw_cm gets its events as for any abort). No socket is created
 * in a netns once its last reference is gone: creation takes one with
 * maybe_get_net() and publishes the socket before dropping it.
 */
#include <linux/wait.h>
#include <net/net_namespace.h>

#include "kiw_cep.h"
#include "kiw_cm.h"

void kiw_cm_dev_init(struct kiw_device *kdev)
{
	struct kiw_cm_dev *cm = &kdev->cm;

	spin_lock_init(&cm->lock);
	INIT_LIST_HEAD(&cm->ceps);
	INIT_LIST_HEAD(&cm->listeners);
	init_waitqueue_head(&cm->idle);
	xa_init(&cm->pending);
	cm->next_handle = 1;
}

static bool kiw_cm_in_net(const struct net *obj, const struct net *net)
{
	return !net || obj == net;
}

/* The next listener of @kdev in @net with a socket to stop, referenced. */
static struct kiw_listener *kiw_cm_next_listener(struct kiw_device *kdev,
						 const struct net *net)
{
	struct kiw_listener *l, *found = NULL;

	spin_lock_bh(&kdev->cm.lock);
	list_for_each_entry(l, &kdev->cm.listeners, dev_entry) {
		if (l->holds_sock && kiw_cm_in_net(l->net, net)) {
			kref_get(&l->ref);
			found = l;
			break;
		}
	}
	spin_unlock_bh(&kdev->cm.lock);
	return found;
}

/* Is any endpoint of @kdev in @net still holding its socket? */
static bool kiw_cm_busy(struct kiw_device *kdev, const struct net *net)
{
	struct kiw_cep *cep;
	bool busy = false;

	spin_lock_bh(&kdev->cm.lock);
	list_for_each_entry(cep, &kdev->cm.ceps, dev_entry) {
		if (cep->holds_sock && kiw_cm_in_net(cep->net, net)) {
			busy = true;
			break;
		}
	}
	spin_unlock_bh(&kdev->cm.lock);
	return busy;
}

/*
 * Close every socket @kdev has in @net (all of them if @net is NULL) and
 * wait until they are released. Process context.
 */
void kiw_cm_dev_close_sockets(struct kiw_device *kdev, const struct net *net)
{
	struct kiw_listener *l;
	struct kiw_cep *cep;

	/* Listeners first: no new endpoints after this. */
	while ((l = kiw_cm_next_listener(kdev, net))) {
		kiw_listener_stop(l);
		kiw_listener_put(l);
	}
	spin_lock_bh(&kdev->cm.lock);
	list_for_each_entry(cep, &kdev->cm.ceps, dev_entry) {
		if (!cep->holds_sock || !kiw_cm_in_net(cep->net, net))
			continue;
		/* The work keeps it; ours is never the last reference. */
		if (kref_get_unless_zero(&cep->ref)) {
			kiw_cep_post(cep, KIW_CEP_POST_ABORT);
			kiw_cep_put(cep);
		}
	}
	spin_unlock_bh(&kdev->cm.lock);
	wait_event(kdev->cm.idle, !kiw_cm_busy(kdev, net));
}

static bool kiw_cm_no_cep(struct kiw_cm_dev *cm)
{
	bool empty;

	spin_lock_bh(&cm->lock);
	empty = list_empty(&cm->ceps);
	spin_unlock_bh(&cm->lock);
	return empty;
}

/*
 * dealloc_driver: iw_cm has destroyed its listeners and connections, and
 * every QP is gone; what may be left are endpoints nobody claimed (a
 * CONNECT_REQUEST iw_cm dropped) and endpoints finishing their close.
 */
void kiw_cm_dev_fini(struct kiw_device *kdev)
{
	struct kiw_cm_dev *cm = &kdev->cm;

	kiw_cm_dev_close_sockets(kdev, NULL);
	wait_event(cm->idle, kiw_cm_no_cep(cm));
	WARN_ON_ONCE(!list_empty(&cm->listeners));
	WARN_ON_ONCE(!xa_empty(&cm->pending));
	xa_destroy(&cm->pending);
}

/* Module init, before any device. */
int kiw_cm_init(void)
{
	kiw_cm_wq = alloc_workqueue("kiw_cm", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return kiw_cm_wq ? 0 : -ENOMEM;
}

/* After every device is gone. */
void kiw_cm_exit(void)
{
	destroy_workqueue(kiw_cm_wq);
}

/* iw_cm's entry points: connect, accept, reject (kiw_cm.c), listen. */
const struct ib_device_ops kiw_cm_ops = {
	.iw_accept = kiw_iw_accept,
	.iw_connect = kiw_iw_connect,
	.iw_create_listen = kiw_iw_create_listen,
	.iw_destroy_listen = kiw_iw_destroy_listen,
	.iw_reject = kiw_iw_reject,
};
