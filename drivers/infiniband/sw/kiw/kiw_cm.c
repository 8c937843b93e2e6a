// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw connection manager: connection endpoints, their work and timer, the
 * glue that carries out the state machine's actions (kiw_cm_fsm.c), the
 * iw_cm hooks connect, accept and reject, and the hooks the QP and the
 * data path call. Listeners are in kiw_cm_listen.c, the MPA exchange in
 * kiw_cm_mpa.c, device and netns teardown in kiw_cm_dev.c.
 *
 * Network namespaces: an endpoint's socket lives in the netns of the
 * device's interface, whoever asks for the connection (kernel consumers
 * connect from kworkers in init_net).
 */
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/tcp_states.h>

#include "kiw_cep.h"
#include "kiw_qp.h"
#include "kiw_stats.h"
#include "kiw_trace.h"

/*
 * Endpoint work: MPA exchanges, timeouts and teardown, for every device.
 * Not ordered: a slow peer does not hold up another connection, and an
 * endpoint's own work never runs twice at once.
 */
struct workqueue_struct *kiw_cm_wq;

/*
 * An endpoint lives as long as its connection, at both ends: keep it a
 * kmalloc-512 object, or kmalloc-1k in a debug kernel (lockdep's maps in
 * the lock, the work and the timer, and a mutex's owner checks, add over
 * 100 octets). The MPA frames, needed only at startup, are apart (struct
 * kiw_cep_frames).
 */
static_assert(sizeof(struct kiw_cep) <= 1024);
static_assert(sizeof(struct kiw_cep) <= 512 || IS_ENABLED(CONFIG_LOCKDEP) ||
	      IS_ENABLED(CONFIG_DEBUG_MUTEXES));

static void kiw_cep_work(struct work_struct *work);
static void kiw_cep_timeout(struct timer_list *t);

static void kiw_cep_free(struct kref *ref)
{
	struct kiw_cep *cep = container_of(ref, struct kiw_cep, ref);
	struct kiw_cm_dev *cm = &cep->kdev->cm;

	WARN_ON_ONCE(cep->sock || cep->llp.qp || cep->cm_id || cep->listener);
	spin_lock_bh(&cm->lock);
	list_del(&cep->dev_entry);
	wake_up(&cm->idle);
	spin_unlock_bh(&cm->lock);
	mutex_destroy(&cep->lock);
	kfree(cep->frames);
	kfree(cep);
}

/* Never the last reference in softirq: see the reference list in kiw_cep.h. */
void kiw_cep_put(struct kiw_cep *cep)
{
	kref_put(&cep->ref, kiw_cep_free);
}

/*
 * An endpoint for @sock, holding the socket's reference. It is published
 * (on the device list, and through the socket's callbacks) by the caller,
 * under the endpoint's lock, once it is set up.
 */
struct kiw_cep *kiw_cep_alloc(struct kiw_device *kdev, struct socket *sock,
			      bool active)
{
	struct kiw_cep *cep = kzalloc(sizeof(*cep), GFP_KERNEL);

	if (!cep)
		return NULL;
	cep->frames = kzalloc(sizeof(*cep->frames), GFP_KERNEL);
	if (!cep->frames) {
		kfree(cep);
		return NULL;
	}
	kref_init(&cep->ref);
	cep->kdev = kdev;
	INIT_LIST_HEAD(&cep->dev_entry);
	INIT_LIST_HEAD(&cep->listen_entry);
	INIT_WORK(&cep->work, kiw_cep_work);
	timer_setup(&cep->timer, kiw_cep_timeout, 0);
	mutex_init(&cep->lock);
	cep->sock = sock;
	cep->net = sock_net(sock->sk);
	cep->active = active;
	cep->state = active ? KIW_CEP_CONNECTING : KIW_CEP_AWAIT_REQ;
	kiw_dev_mpa_cfg(kdev, &cep->cfg);
	kiw_stats_cep_new(kdev, active);
	return cep;
}

/* Put the endpoint on its device's list: teardown will find it. */
void kiw_cep_register(struct kiw_cep *cep)
{
	struct kiw_cm_dev *cm = &cep->kdev->cm;

	spin_lock_bh(&cm->lock);
	list_add_tail(&cep->dev_entry, &cm->ceps);
	cep->holds_sock = true;
	spin_unlock_bh(&cm->lock);
}

/*
 * Ask the endpoint's work to look at @what. Any context; the caller makes
 * sure the endpoint is alive (it holds a reference, or a lock under which
 * it is findable), and the work takes its own.
 */
void kiw_cep_post(struct kiw_cep *cep, enum kiw_cep_post what)
{
	kiw_cep_get(cep);
	set_bit(what, &cep->events);
	if (!queue_work(kiw_cm_wq, &cep->work))
		kiw_cep_put(cep);	/* the queued work holds one */
}

/*
 * The timer runs only while the endpoint holds its socket (it is stopped
 * before the socket's reference goes), so the endpoint is alive here.
 */
static void kiw_cep_timeout(struct timer_list *t)
{
	struct kiw_cep *cep = timer_container_of(cep, t, timer);

	kiw_cep_post(cep, KIW_CEP_POST_TIMEOUT);
}

void kiw_cep_arm_timer(struct kiw_cep *cep, unsigned int ms)
{
	lockdep_assert_held(&cep->lock);
	cep->deadline = jiffies + msecs_to_jiffies(ms);
	mod_timer(&cep->timer, cep->deadline);
}

/* The endpoint whose socket this is (under sk_callback_lock), or NULL. */
static struct kiw_cep *kiw_cep_of_sk(const struct sock *sk)
{
	struct kiw_llp_conn *conn = kiw_sock_user(sk);

	return conn ? container_of(conn, struct kiw_cep, llp) : NULL;
}

/* Socket callbacks (softirq, or process context): they only post. */
static void kiw_cep_sk_data_ready(struct sock *sk)
{
	struct kiw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = kiw_cep_of_sk(sk);
	if (cep)
		kiw_cep_post(cep, KIW_CEP_POST_SOCK);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void kiw_cep_sk_state_change(struct sock *sk)
{
	void (*orig)(struct sock *sk) = NULL;
	struct kiw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = kiw_cep_of_sk(sk);
	if (cep) {
		kiw_cep_post(cep, KIW_CEP_POST_SOCK);
		orig = cep->saved_cbs.state_change;
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (orig)
		orig(sk);	/* wakes anyone blocked on the socket */
}

void kiw_cep_install(struct kiw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	kiw_sock_install(cep->sock, &cep->llp, kiw_cep_sk_data_ready,
			 kiw_cep_sk_state_change, &cep->saved_cbs);
}

/*
 * The bound QP's reports (kiw_qp_report(), under its state_lock, any
 * context): posted to the endpoint's work like every other event.
 */
static void kiw_cep_qp_report(struct kiw_cep *cep, enum kiw_qp_report what)
{
	static const enum kiw_cep_post post[] = {
		[KIW_QP_REPORT_CLOSE] = KIW_CEP_POST_CLOSE,
		[KIW_QP_REPORT_ABORT] = KIW_CEP_POST_ABORT,
		[KIW_QP_REPORT_DRAINED] = KIW_CEP_POST_DRAINED,
	};

	kiw_cep_post(cep, post[what]);
}

/*
 * Bind the QP iw_cm named to the endpoint. iw_cm holds a reference on it
 * (iw_add_ref after iw_get_qp), so it cannot go away under us; it must be
 * unconnected and free.
 */
int kiw_cep_bind_qp(struct kiw_cep *cep, u32 qpn)
{
	struct kiw_qp *qp = kiw_qp_from_num(cep->kdev, qpn);
	unsigned long flags;
	int ret = 0;

	lockdep_assert_held(&cep->lock);
	if (!qp)
		return -EINVAL;
	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state != KIW_QP_IDLE || qp->cep) {
		ret = -EBUSY;
	} else {
		qp->cep = cep;
		qp->report = kiw_cep_qp_report;
		kiw_cep_get(cep);
		kiw_qp_get(qp);
		WRITE_ONCE(cep->llp.qp, qp);
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return ret;
}

static void kiw_cep_unbind_qp(struct kiw_cep *cep)
{
	struct kiw_qp *qp = cep->llp.qp;
	unsigned long flags;

	if (!qp)
		return;
	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->cep == cep)
		qp->cep = NULL;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	WRITE_ONCE(cep->llp.qp, NULL);
	kiw_qp_put(qp);
	kiw_cep_put(cep);	/* the QP's; the caller holds another */
}

/*
 * Full Operation: the negotiated IRD/ORD go to the QP, the QP enters RTS,
 * and the data path takes the socket (kiw_llp.h has the order).
 */
int kiw_cep_enter_full(struct kiw_cep *cep)
{
	struct kiw_qp *qp = cep->llp.qp;
	struct kiw_llp_params params;
	unsigned long flags;
	int ret;

	lockdep_assert_held(&cep->lock);
	spin_lock_irqsave(&qp->state_lock, flags);
	qp->ird = cep->res.ird;
	qp->ord = cep->res.ord;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	ret = kiw_qp_llp_established(qp);
	if (ret)
		return ret;
	cep->established = true;
	kiw_cep_llp_params(cep, &params);
	trace_kiw_mpa_result(cep, &params);
	ibdev_dbg(&cep->kdev->ibdev,
		  "%pISpc: full operation: initiator=%d rev=%u crc=%d tx_markers=%d rx_markers=%d ird=%u ord=%u rtr=%d hold_tx=%d\n",
		  &cep->remote, params.initiator, params.mpa_rev, params.crc,
		  params.tx_markers, params.rx_markers, params.ird, params.ord,
		  params.rtr, params.hold_tx_until_rx);
	ret = kiw_llp_attach(qp, &params);
	if (ret)
		return ret;
	cep->attached = true;
	return 0;
}

/* A Terminate we sent still has to reach the peer: close behind it. */
static bool kiw_cep_after_terminate(struct kiw_cep *cep)
{
	struct kiw_qp *qp = cep->llp.qp;
	unsigned long flags;
	bool term;

	if (cep->term_sent)
		return true;
	if (!qp)
		return false;
	spin_lock_irqsave(&qp->state_lock, flags);
	term = qp->term != KIW_TERM_NONE;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return term;
}

/*
 * The connection is over: the data path lets go, the socket is closed
 * (abortively if @reset) and released, the QP leaves RTS and is unbound,
 * and the endpoint leaves its listener and the pending table.
 */
static void kiw_cep_release(struct kiw_cep *cep, bool reset, bool error)
{
	struct kiw_cm_dev *cm = &cep->kdev->cm;
	struct socket *sock = cep->sock;

	if (cep->attached) {
		kiw_llp_detach(cep->llp.qp);
		cep->attached = false;
	}
	kiw_sock_restore(sock, &cep->saved_cbs);
	/* No timer may fire once the socket's reference is gone. */
	timer_delete_sync(&cep->timer);
	if (reset && kiw_cep_after_terminate(cep)) {
		kiw_sock_discard(sock);
		kiw_sock_shutdown(sock);
		reset = false;
	}
	kiw_stats_sock_release(cep->kdev, sock);
	kiw_sock_release(sock, reset);
	cep->sock = NULL;
	spin_lock_bh(&cm->lock);
	cep->holds_sock = false;
	wake_up(&cm->idle);
	spin_unlock_bh(&cm->lock);

	if (cep->established)
		kiw_qp_llp_closed(cep->llp.qp, error);
	kiw_cep_unbind_qp(cep);
	if (cep->handle && xa_erase(&cm->pending, cep->handle) == cep)
		kiw_cep_put(cep);
	cep->handle = 0;
	kiw_listener_leave(cep);
	kiw_cep_put(cep);	/* the socket's; the caller holds another */
}

static int kiw_cep_upcall(struct kiw_cep *cep, enum iw_cm_event_type type,
			  int status)
{
	struct iw_cm_event ev = {
		.event = type,
		.status = status,
	};
	const struct kiw_mpa_frame *peer = cep->active ? &cep->rep : &cep->req;

	if (!cep->cm_id)
		return 0;
	kiw_cep_addr_get(&ev.local_addr, &cep->local);
	kiw_cep_addr_get(&ev.remote_addr, &cep->remote);
	if (type == IW_CM_EVENT_CONNECT_REPLY &&
	    (!status || (status == -ECONNREFUSED && peer->reject))) {
		ev.private_data = (void *)peer->ulp_pd;
		ev.private_data_len = peer->ulp_pd_len;
	}
	/*
	 * rdma_cm reports ird as initiator_depth and ord as responder
	 * resources: give it our ORD and IRD, as they now are in the QP.
	 */
	if (!status && (type == IW_CM_EVENT_CONNECT_REPLY ||
			type == IW_CM_EVENT_ESTABLISHED)) {
		ev.ird = cep->res.ord;
		ev.ord = cep->res.ird;
	}
	return cep->cm_id->event_handler(cep->cm_id, &ev);
}

/*
 * The startup exchange is over for good: let its frames go, and with them
 * the private data the Request and Reply pointed at (iw_cm copied what it
 * was given in the upcalls).
 */
static void kiw_cep_frames_drop(struct kiw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	kfree(cep->frames);
	cep->frames = NULL;
	cep->req.ulp_pd = NULL;
	cep->req.ulp_pd_len = 0;
	cep->rep.ulp_pd = NULL;
	cep->rep.ulp_pd_len = 0;
}

/* Carry out one step's actions, in order; -errno if the step broke. */
static int kiw_cep_act(struct kiw_cep *cep, enum kiw_cep_event ev,
		       unsigned int a)
{
	bool error = ev == KIW_CEP_EV_RESET || ev == KIW_CEP_EV_TIMEOUT;
	int ret = 0;

	if (a & KIW_CEP_ACT_SEND_REQUEST)
		ret = kiw_cep_send_request(cep);
	if (a & KIW_CEP_ACT_SEND_REJECT)
		kiw_cep_send_reject(cep);	/* closing anyway */
	if ((a & KIW_CEP_ACT_UP_REQUEST) && !kiw_listener_request(cep))
		ret = -ECONNREFUSED;
	if (a & KIW_CEP_ACT_UP_CONNECTED)
		kiw_cep_upcall(cep, IW_CM_EVENT_CONNECT_REPLY, 0);
	if (a & KIW_CEP_ACT_UP_FAILED)
		kiw_cep_upcall(cep, IW_CM_EVENT_CONNECT_REPLY,
			       cep->status ?: -ECONNABORTED);
	if (a & KIW_CEP_ACT_UP_ESTABLISHED)
		kiw_cep_upcall(cep, IW_CM_EVENT_ESTABLISHED, 0);
	if ((a & KIW_CEP_ACT_DRAIN) && cep->attached)
		kiw_llp_drain(cep->llp.qp);
	if (a & KIW_CEP_ACT_UP_DISCONNECT)
		kiw_cep_upcall(cep, IW_CM_EVENT_DISCONNECT, 0);
	if ((a & KIW_CEP_ACT_FIN) && !(a & KIW_CEP_ACT_RESET))
		kiw_sock_shutdown(cep->sock);
	if (a & KIW_CEP_ACT_RELEASE)
		kiw_cep_release(cep, a & KIW_CEP_ACT_RESET, error);
	if (a & KIW_CEP_ACT_UP_CLOSE)
		kiw_cep_upcall(cep, IW_CM_EVENT_CLOSE,
			       ev == KIW_CEP_EV_RESET ? -ECONNRESET : 0);
	return ret;
}

/*
 * Feed @ev to the state machine and do what it says. When an action fails
 * (the Request cannot be sent, the consumer cannot be told), the failure
 * is fed in turn. On reaching CLOSED, iw_cm's cm_id is let go: no event
 * can follow.
 */
void kiw_cep_step(struct kiw_cep *cep, enum kiw_cep_event ev)
{
	enum kiw_cep_timer before, after;
	enum kiw_cep_state prev;
	struct kiw_cep_step st;
	int ret;

	lockdep_assert_held(&cep->lock);
	prev = cep->state;
	if (!kiw_cep_fsm(prev, ev, &st))
		return;
	ibdev_dbg(&cep->kdev->ibdev, "cep %p: %s: %s -> %s\n", cep,
		  kiw_cep_event_name(ev), kiw_cep_state_name(prev),
		  kiw_cep_state_name(st.next));
	cep->state = st.next;
	kiw_stats_cep_step(cep, prev, ev);
	trace_kiw_cep_state(cep, prev, ev);
	before = kiw_cep_timer_kind(prev);
	after = kiw_cep_timer_kind(st.next);
	if (after != before && after != KIW_CEP_TIMER_NONE)
		kiw_cep_arm_timer(cep, cep->cfg.timeout_ms);
	else if (after == KIW_CEP_TIMER_NONE && cep->sock)
		timer_delete(&cep->timer);

	ret = kiw_cep_act(cep, ev, st.actions);
	/* No state after startup leads back into it (kiw_cm_fsm.c). */
	if (after != KIW_CEP_TIMER_STARTUP && cep->frames)
		kiw_cep_frames_drop(cep);
	if (st.next == KIW_CEP_CLOSED && cep->cm_id) {
		cep->cm_id->rem_ref(cep->cm_id);
		cep->cm_id = NULL;
	}
	if (ret) {
		cep->status = ret;
		kiw_cep_step(cep, ev == KIW_CEP_EV_REQUEST ? KIW_CEP_EV_REJECT :
						      KIW_CEP_EV_RESET);
	}
}

/* The initiator's Reply was good: Full Operation, then the consumer. */
static void kiw_cep_connected(struct kiw_cep *cep)
{
	int ret = kiw_cep_enter_full(cep);

	if (ret) {
		cep->status = ret;
		kiw_cep_step(cep, KIW_CEP_EV_ABORT);
		return;
	}
	kiw_cep_step(cep, KIW_CEP_EV_REPLY);
}

/* The peer's MPA frame, as far as it came: step with what it amounts to. */
static void kiw_cep_mpa_step(struct kiw_cep *cep)
{
	enum kiw_cep_event ev;

	if (!kiw_cep_mpa_input(cep, &ev))
		return;
	if (ev == KIW_CEP_EV_REPLY)
		kiw_cep_connected(cep);
	else
		kiw_cep_step(cep, ev);
}

/* What the socket says, outside the MPA reads. */
static void kiw_cep_poll(struct kiw_cep *cep)
{
	struct sock *sk;
	enum kiw_cep_event ev;
	int err;

	if (cep->state == KIW_CEP_AWAIT_REQ || cep->state == KIW_CEP_AWAIT_REP)
		kiw_cep_mpa_step(cep);
	if (!cep->sock)
		return;
	/* Nothing may come before our Reply (RFC 5044 7.1.2 (2), (4)). */
	if (cep->state == KIW_CEP_RECVD_REQ && kiw_sock_has_data(cep->sock)) {
		ibdev_warn_ratelimited(&cep->kdev->ibdev,
				       "%pISpc: data before the MPA Reply\n",
				       &cep->remote);
		kiw_cep_step(cep, KIW_CEP_EV_BAD_FRAME);
		return;
	}
	sk = cep->sock->sk;
	err = READ_ONCE(sk->sk_err);
	if (!kiw_cep_sock_event(cep->state, READ_ONCE(sk->sk_state), err,
				READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN, &ev))
		return;
	if (ev == KIW_CEP_EV_RESET)
		cep->status = err ? -err : -ECONNRESET;
	kiw_cep_step(cep, ev);
	/* The connection just came up: the Reply may already be there. */
	if (cep->state == KIW_CEP_AWAIT_REP)
		kiw_cep_mpa_step(cep);
}

static void kiw_cep_work(struct work_struct *work)
{
	struct kiw_cep *cep = container_of(work, struct kiw_cep, work);
	unsigned long ev;

	mutex_lock(&cep->lock);
	ev = xchg(&cep->events, 0);
	if (ev & BIT(KIW_CEP_POST_ABORT)) {
		cep->status = cep->status ?: -ECONNABORTED;
		kiw_cep_step(cep, KIW_CEP_EV_ABORT);
	}
	if ((ev & BIT(KIW_CEP_POST_TIMEOUT)) &&
	    kiw_cep_timer_kind(cep->state) != KIW_CEP_TIMER_NONE &&
	    !time_before(jiffies, cep->deadline)) {
		ibdev_info_ratelimited(&cep->kdev->ibdev,
				       "%pISpc: %s timed out\n", &cep->remote,
				       kiw_cep_state_name(cep->state));
		cep->status = -ETIMEDOUT;
		kiw_cep_step(cep, KIW_CEP_EV_TIMEOUT);
	}
	if (ev & BIT(KIW_CEP_POST_CLOSE))
		kiw_cep_step(cep, KIW_CEP_EV_CLOSE);
	if (ev & BIT(KIW_CEP_POST_DRAINED))
		kiw_cep_step(cep, KIW_CEP_EV_DRAINED);
	kiw_cep_poll(cep);
	mutex_unlock(&cep->lock);
	kiw_cep_put(cep);
}

static int kiw_cep_bind_local(struct kiw_cep *cep, struct iw_cm_id *cm_id)
{
	struct sockaddr_storage local = cm_id->m_local_addr;
	int ret;

	ret = kiw_sock_bind(cep->sock, &local, 0, false);
	/* rdma_cm's port space is not TCP's: fall back to any free port. */
	if (ret == -EADDRINUSE) {
		if (local.ss_family == AF_INET)
			((struct sockaddr_in *)&local)->sin_port = 0;
		else
			((struct sockaddr_in6 *)&local)->sin6_port = 0;
		ret = kiw_sock_bind(cep->sock, &local, 0, false);
	}
	if (!ret && cm_id->tos_set && local.ss_family == AF_INET)
		ip_sock_set_tos(cep->sock->sk, cm_id->tos);
	return ret;
}

/* iw_connect, with @cep locked: everything but the TCP connect. */
static int kiw_cep_connect_setup(struct kiw_cep *cep, struct iw_cm_id *cm_id,
				 struct iw_cm_conn_param *param)
{
	int ret;

	ret = kiw_cep_bind_qp(cep, param->qpn);
	if (!ret)
		ret = kiw_cep_prepare_request(cep, param);
	if (!ret)
		ret = kiw_cep_bind_local(cep, cm_id);
	if (ret)
		return ret;
	/* Until TCP is up and tells us the port it picked. */
	kiw_cep_addr_set(&cep->local, &cm_id->m_local_addr);
	kiw_cep_addr_set(&cep->remote, &cm_id->m_remote_addr);
	kiw_cep_arm_timer(cep, cep->cfg.timeout_ms);
	kiw_cep_install(cep);
	return 0;
}

/*
 * iw_connect: the TCP connection is started here and completes in the
 * endpoint's work, which sends the Request; iw_cm then gets exactly one
 * CONNECT_REPLY. Returning an error means no event at all.
 */
int kiw_iw_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param)
{
	struct kiw_device *kdev = to_kiw_dev(cm_id->device);
	struct sockaddr_storage *raddr = &cm_id->m_remote_addr;
	struct socket *sock;
	struct kiw_cep *cep;
	struct net *net;
	int ret;

	if (raddr->ss_family != cm_id->m_local_addr.ss_family)
		return -EINVAL;
	/* A netns on its way out takes no new socket (kiw_cm_dev.c). */
	net = maybe_get_net(dev_net(kdev->netdev));
	if (!net)
		return -ENETDOWN;
	ret = kiw_sock_create(net, raddr->ss_family, &sock);
	if (ret)
		goto out_net;
	cep = kiw_cep_alloc(kdev, sock, true);
	if (!cep) {
		kiw_sock_release(sock, true);
		ret = -ENOMEM;
		goto out_net;
	}
	kiw_cep_get(cep);	/* ours, for the unlock below */
	mutex_lock(&cep->lock);
	kiw_cep_register(cep);
	ret = kiw_cep_connect_setup(cep, cm_id, param);
	if (!ret) {
		ret = kernel_connect(sock, (struct sockaddr_unsized *)raddr,
				     kiw_sockaddr_len(raddr), O_NONBLOCK);
		if (ret == -EINPROGRESS)
			ret = 0;
	}
	if (ret) {
		/* No cm_id yet: the failure reaches iw_cm as our return. */
		kiw_cep_step(cep, KIW_CEP_EV_ABORT);
	} else {
		cm_id->add_ref(cm_id);
		cep->cm_id = cm_id;
		kiw_cep_post(cep, KIW_CEP_POST_SOCK);
	}
	mutex_unlock(&cep->lock);
	kiw_cep_put(cep);
out_net:
	put_net(net);
	return ret;
}

/* iw_cm hands back CONNECT_REQUEST's provider_data: claim the endpoint. */
static struct kiw_cep *kiw_cep_claim(struct iw_cm_id *cm_id)
{
	struct kiw_device *kdev = to_kiw_dev(cm_id->device);

	return xa_erase(&kdev->cm.pending, (unsigned long)cm_id->provider_data);
}

/*
 * iw_accept, synchronously: the Reply goes out here, after the data path
 * has the socket (RFC 5044 7.1, MPA-SU-4), and ESTABLISHED is queued to
 * iw_cm before this returns. On error iw_cm expects no event: the
 * connection is closed without one.
 */
int kiw_iw_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param)
{
	struct kiw_cep *cep = kiw_cep_claim(cm_id);
	int ret = -ECONNRESET;

	if (!cep)
		return ret;
	mutex_lock(&cep->lock);
	cep->handle = 0;
	if (cep->state != KIW_CEP_RECVD_REQ)
		goto out;
	kiw_listener_leave(cep);
	ret = kiw_cep_bind_qp(cep, param->qpn);
	if (!ret)
		ret = kiw_cep_accept_mpa(cep, param);
	if (!ret)
		ret = kiw_cep_enter_full(cep);
	if (!ret)
		ret = kiw_sock_send(cep->sock, cep->frames->tx_buf,
				    cep->frames->tx_len);
	if (ret) {
		kiw_cep_step(cep, KIW_CEP_EV_ABORT);
		goto out;
	}
	cm_id->add_ref(cm_id);
	cep->cm_id = cm_id;
	kiw_cep_step(cep, KIW_CEP_EV_ACCEPT);
out:
	mutex_unlock(&cep->lock);
	kiw_cep_put(cep);	/* the pending table's */
	return ret;
}

/* iw_reject: a Reply with R set and the consumer's private data. */
int kiw_iw_reject(struct iw_cm_id *cm_id, const void *pd, u8 pd_len)
{
	struct kiw_cep *cep = kiw_cep_claim(cm_id);

	if (!cep)
		return 0;	/* the connection is gone already */
	mutex_lock(&cep->lock);
	cep->handle = 0;
	cep->reject_pd = pd;
	cep->reject_pd_len = pd_len;
	kiw_cep_step(cep, KIW_CEP_EV_REJECT);
	cep->reject_pd = NULL;
	mutex_unlock(&cep->lock);
	kiw_cep_put(cep);
	return 0;
}
