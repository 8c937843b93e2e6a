// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw listeners: iw_create_listen/iw_destroy_listen, accepting TCP
 * connections, and the limits on what connections that have not been
 * accepted yet may hold.
 *
 * Network namespaces. A listener's socket lives in the netns of the
 * device's interface. rdma_cm turns a wildcard listen into one listener
 * per RDMA device, on every device of every netns, and fails as a whole if
 * one of them fails; so on a device whose interface is in another netns
 * than the listening task, the listener is dormant: it succeeds, has no
 * socket and never reports a connection (kiw_cm_listen_dormant()). The
 * rule looks at the task that calls iw_create_listen, which is the one
 * that listens, with one exception: rdma_cm also creates the listeners of
 * an existing wildcard listen on a device registered later, from the task
 * registering that device ("rdma link add"). Such a listener is real if
 * that task runs in the device's netns, whatever the netns of the original
 * listener (rdma_cm then refuses requests whose address it cannot find in
 * the listener's netns: the peer gets a reject), and dormant otherwise.
 * A specific address was resolved by rdma_cm to this device's interface,
 * so such a listener is always real, in the interface's netns.
 *
 * Hostile peers. A connection is accepted at once and has the device's
 * MPA timeout to deliver its Request. At most max_awaiting connections of
 * a listener may be waiting for their Request; a new one beyond that
 * closes the oldest (RST), so a flood of silent connections cannot keep a
 * well-behaved peer out. At most backlog Requests may wait for the
 * consumer; beyond that a Request is refused with a reject Reply.
 */
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/tcp_states.h>

#include "kiw_cep.h"

/* Bounds on connections waiting for their Request, per listener. */
#define KIW_CM_AWAITING_MIN	64
#define KIW_CM_AWAITING_MAX	1024
/* TCP's accept queue: kiw accepts at once, so it only absorbs bursts. */
#define KIW_CM_TCP_BACKLOG_MIN	128
/* Connections accepted per run of the accept work before it yields. */
#define KIW_CM_ACCEPT_BATCH	32

/* @cep is new on @l, locked; close the oldest silent one if too many. */
static int kiw_listener_join(struct kiw_listener *l, struct kiw_cep *cep)
{
	struct kiw_cep *oldest = NULL;

	mutex_lock(&l->lock);
	if (l->dead || !l->sock) {
		mutex_unlock(&l->lock);
		return -ENODEV;
	}
	kref_get(&l->ref);
	cep->listener = l;
	list_add_tail(&cep->listen_entry, &l->awaiting);
	cep->listen_list = KIW_LISTEN_AWAITING;
	if (++l->n_awaiting > l->max_awaiting) {
		oldest = list_first_entry(&l->awaiting, struct kiw_cep,
					  listen_entry);
		/* Alive: it leaves this list under this lock before it goes. */
		kiw_listener_unlist(l, oldest);
		kiw_cep_post(oldest, KIW_CEP_POST_ABORT);
	}
	mutex_unlock(&l->lock);
	if (oldest)
		ibdev_info_ratelimited(&l->kdev->ibdev,
				       "%u connections wait for an MPA Request: closing the oldest\n",
				       l->max_awaiting);
	return 0;
}

/* A connection TCP accepted: an endpoint waiting for its Request. */
static void kiw_listener_new_conn(struct kiw_listener *l, struct socket *sock)
{
	struct kiw_cep *cep;

	kiw_sock_setup(sock);
	cep = kiw_cep_alloc(l->kdev, sock, false);
	if (!cep) {
		kiw_sock_release(sock, true);
		return;
	}
	kiw_cep_get(cep);	/* ours, for the unlock below */
	mutex_lock(&cep->lock);
	kiw_cep_register(cep);
	if (kiw_cep_learn_addrs(cep) ||
	    kiw_listener_join(l, cep)) {
		kiw_cep_step(cep, KIW_CEP_EV_ABORT);
		goto out;
	}
	kiw_cep_arm_timer(cep, cep->cfg.timeout_ms);
	kiw_cep_install(cep);
	/*
	 * The accepted socket inherited the listener's data_ready; what it
	 * gets back at release is the listener's original one.
	 */
	cep->saved_cbs.data_ready = l->saved_cbs.data_ready;
	kiw_cep_post(cep, KIW_CEP_POST_SOCK);	/* the Request may be in */
out:
	mutex_unlock(&cep->lock);
	kiw_cep_put(cep);
}

static void kiw_listener_accept_work(struct work_struct *work)
{
	struct kiw_listener *l = container_of(work, struct kiw_listener,
					      accept_work);
	struct socket *sock;
	int i, ret = -EAGAIN;

	for (i = 0; i < KIW_CM_ACCEPT_BATCH; i++) {
		mutex_lock(&l->lock);
		ret = l->sock ? kernel_accept(l->sock, &sock, O_NONBLOCK) :
				-ENODEV;
		mutex_unlock(&l->lock);
		if (ret)
			break;
		kiw_listener_new_conn(l, sock);
	}
	if (!ret)
		queue_work(kiw_cm_wq, &l->accept_work);	/* more may wait */
}

/*
 * New connections on the listening socket (softirq). Sockets TCP clones
 * from the listener inherit this callback with no user data until they
 * are accepted: they are ignored here.
 */
static void kiw_listener_sk_data_ready(struct sock *sk)
{
	struct kiw_listener *l;

	read_lock_bh(&sk->sk_callback_lock);
	l = kiw_sock_user(sk);
	if (l && sk->sk_state == TCP_LISTEN)
		queue_work(kiw_cm_wq, &l->accept_work);
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Close the listening socket (destroy_listen, or the netns is going away);
 * the listener stays, dormant. Idempotent, and when it returns the socket
 * is released, even if another caller was the one to release it: netns
 * teardown relies on that (kiw_cm_dev.c).
 */
void kiw_listener_stop(struct kiw_listener *l)
{
	struct kiw_cm_dev *cm = &l->kdev->cm;
	struct socket *sock;

	mutex_lock(&l->stop_lock);
	mutex_lock(&l->lock);
	sock = l->sock;
	l->sock = NULL;
	mutex_unlock(&l->lock);
	if (sock) {
		kiw_sock_restore(sock, &l->saved_cbs);
		cancel_work_sync(&l->accept_work);
		kiw_sock_release(sock, false);
		spin_lock_bh(&cm->lock);
		l->holds_sock = false;
		spin_unlock_bh(&cm->lock);
	}
	mutex_unlock(&l->stop_lock);
}

static int kiw_listener_open(struct kiw_listener *l, struct iw_cm_id *cm_id,
			     int backlog)
{
	struct sockaddr_storage *addr = &cm_id->m_local_addr;
	struct net_device *netdev = l->kdev->netdev;
	bool wildcard = kiw_cm_addr_any(addr);
	struct socket *sock;
	struct net *net;
	int ret;

	net = maybe_get_net(dev_net(netdev));
	if (!net)
		return -ENETDOWN;
	ret = kiw_sock_create(net, addr->ss_family, &sock);
	if (ret)
		goto out;
	/* A wildcard listener of one device takes only that device's. */
	ret = kiw_sock_bind(sock, addr, wildcard ? netdev->ifindex : 0,
			    cm_id->afonly);
	if (!ret)
		ret = kernel_listen(sock, max(backlog, KIW_CM_TCP_BACKLOG_MIN));
	if (ret) {
		kiw_sock_release(sock, false);
		goto out;
	}
	/*
	 * Visible to netns teardown from here. It cannot run before put_net()
	 * below, so it sees this socket and stops it.
	 */
	spin_lock_bh(&l->kdev->cm.lock);
	l->net = net;
	l->holds_sock = true;
	spin_unlock_bh(&l->kdev->cm.lock);
	mutex_lock(&l->lock);
	l->sock = sock;
	kiw_sock_install(sock, l, kiw_listener_sk_data_ready, NULL,
			 &l->saved_cbs);
	mutex_unlock(&l->lock);
	/* Connections may have completed before the callback was in. */
	queue_work(kiw_cm_wq, &l->accept_work);
out:
	put_net(net);
	return ret;
}

int kiw_iw_create_listen(struct iw_cm_id *cm_id, int backlog)
{
	struct kiw_device *kdev = to_kiw_dev(cm_id->device);
	struct sockaddr_storage *addr = &cm_id->m_local_addr;
	struct net *caller = current->nsproxy ? current->nsproxy->net_ns :
						&init_net;
	struct kiw_listener *l;
	bool dormant;
	int ret = 0;

	if (addr->ss_family != AF_INET && addr->ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	kref_init(&l->ref);
	l->kdev = kdev;
	l->cm_id = cm_id;
	mutex_init(&l->stop_lock);
	mutex_init(&l->lock);
	INIT_LIST_HEAD(&l->awaiting);
	INIT_LIST_HEAD(&l->requested);
	INIT_WORK(&l->accept_work, kiw_listener_accept_work);
	l->backlog = max(backlog, 1);
	l->max_awaiting = clamp(2 * l->backlog, KIW_CM_AWAITING_MIN,
				KIW_CM_AWAITING_MAX);

	/* Published (for netns teardown) before the socket may exist. */
	spin_lock_bh(&kdev->cm.lock);
	list_add_tail(&l->dev_entry, &kdev->cm.listeners);
	spin_unlock_bh(&kdev->cm.lock);
	dormant = kiw_cm_listen_dormant(kiw_cm_addr_any(addr),
					dev_net(kdev->netdev), caller);
	if (!dormant)
		ret = kiw_listener_open(l, cm_id, backlog);
	if (ret) {
		spin_lock_bh(&kdev->cm.lock);
		list_del(&l->dev_entry);
		spin_unlock_bh(&kdev->cm.lock);
		kiw_listener_put(l);
		return ret;
	}
	ibdev_dbg(&kdev->ibdev, "listen %pISpc%s\n", addr,
		  dormant ? " (dormant: another netns)" : "");
	cm_id->add_ref(cm_id);
	cm_id->provider_data = l;
	return 0;
}

/* Detach the first endpoint of @l's lists from it; false when none. */
static bool kiw_listener_drop_one(struct kiw_listener *l)
{
	struct kiw_cep *cep;

	mutex_lock(&l->lock);
	cep = list_first_entry_or_null(&l->awaiting, struct kiw_cep,
				       listen_entry);
	if (!cep)
		cep = list_first_entry_or_null(&l->requested, struct kiw_cep,
					       listen_entry);
	if (cep) {
		kiw_listener_unlist(l, cep);
		kiw_cep_get(cep);
	}
	mutex_unlock(&l->lock);
	if (!cep)
		return false;

	mutex_lock(&cep->lock);
	/*
	 * A connection still reading its Request goes now. One the consumer
	 * was told about stays for iw_cm's accept or reject (or its timeout).
	 */
	if (cep->state == KIW_CEP_AWAIT_REQ)
		kiw_cep_step(cep, KIW_CEP_EV_ABORT);
	kiw_listener_leave(cep);
	mutex_unlock(&cep->lock);
	kiw_cep_put(cep);
	return true;
}

int kiw_iw_destroy_listen(struct iw_cm_id *cm_id)
{
	struct kiw_listener *l = cm_id->provider_data;
	struct kiw_cm_dev *cm = &l->kdev->cm;

	mutex_lock(&l->lock);
	l->dead = true;		/* no CONNECT_REQUEST from now on */
	mutex_unlock(&l->lock);
	kiw_listener_stop(l);
	/* Stopped earlier (netns teardown) or dormant: nothing may run. */
	cancel_work_sync(&l->accept_work);
	while (kiw_listener_drop_one(l))
		;
	spin_lock_bh(&cm->lock);
	list_del(&l->dev_entry);
	spin_unlock_bh(&cm->lock);
	cm_id->provider_data = NULL;
	cm_id->rem_ref(cm_id);
	kiw_listener_put(l);
	return 0;
}
