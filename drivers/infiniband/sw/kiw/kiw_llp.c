// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw LLP hand-over (kiw_llp.h): the data path takes the socket's
 * sk_data_ready and sk_write_space from the connection manager when MPA
 * completes, and gives them back before the socket is released.
 *
 * The switch is kiw_sock_switch()'s (kiw_sock.c: under
 * sk->sk_callback_lock held for writing, each pointer stored with
 * WRITE_ONCE()), and ours run with the lock held for reading, so once
 * kiw_llp_detach() has put the old ones back, no call of ours is still
 * under way or can start: a call that read the pointer before the switch
 * finds, under the lock, that it is no longer installed, and passes the
 * event on to the one that is.
 */
#include <linux/tcp.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "kiw_llp.h"
#include "kiw_qp.h"
#include "kiw_sock.h"

/* The QP of a connection's socket (sk_callback_lock held), or NULL. */
static struct kiw_qp *kiw_llp_sk_qp(const struct sock *sk)
{
	struct kiw_llp_conn *conn = kiw_sock_user(sk);

	return conn ? READ_ONCE(conn->qp) : NULL;
}

static void kiw_llp_data_ready(struct sock *sk)
{
	void (*other)(struct sock *sk) = NULL;
	struct kiw_qp *qp;

	read_lock_bh(&sk->sk_callback_lock);
	if (READ_ONCE(sk->sk_data_ready) != kiw_llp_data_ready) {
		other = READ_ONCE(sk->sk_data_ready);
	} else {
		qp = kiw_llp_sk_qp(sk);
		if (qp)
			kiw_rx_data_ready(qp, sk);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (other)
		other(sk);
}

static void kiw_llp_write_space(struct sock *sk)
{
	void (*other)(struct sock *sk) = NULL;
	struct kiw_qp *qp;

	read_lock_bh(&sk->sk_callback_lock);
	if (READ_ONCE(sk->sk_write_space) != kiw_llp_write_space) {
		other = READ_ONCE(sk->sk_write_space);
	} else if (sk_stream_is_writeable(sk) && sk->sk_socket) {
		/* As sk_stream_write_space(): no more wakeups until asked. */
		clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		qp = kiw_llp_sk_qp(sk);
		if (qp)
			kiw_tx_kick(qp);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (other)
		other(sk);
}

static const struct kiw_sock_cbs kiw_llp_cbs = {
	.data_ready = kiw_llp_data_ready,
	.write_space = kiw_llp_write_space,
};

int kiw_llp_attach(struct kiw_qp *qp, const struct kiw_llp_params *params)
{
	struct sock *sk = params->sock->sk;
	int ret;

	if (READ_ONCE(qp->tx.sock) || qp->rx.sock)
		return -EBUSY;
	ret = kiw_tx_attach(qp, params);
	if (!ret)
		ret = kiw_rx_attach(qp, params);
	if (ret) {
		WRITE_ONCE(qp->tx.sock, NULL);
		return ret;
	}
	/* Latency first, as siw (RFC 5044 Appendix A.2, MPA-AL-7). */
	tcp_sock_set_nodelay(sk);

	kiw_sock_switch(params->sock, &kiw_llp_cbs, &qp->llp_saved);

	/* FPDUs that came with the Reply, or before the switch. */
	lock_sock(sk);
	ret = kiw_rx_run(qp, sk, KIW_RX_BUDGET);
	release_sock(sk);
	if (ret == -EAGAIN)
		queue_work(kiw_tx_wq, &qp->rx.work);
	/*
	 * The QP is in RTS already: the RTR, or what was posted meanwhile.
	 * Nothing to send: no work is queued (a wakeup saved per connection).
	 */
	if (kiw_tx_wanted(qp))
		kiw_tx_kick(qp);
	return 0;
}

void kiw_llp_detach(struct kiw_qp *qp)
{
	struct socket *sock = qp->rx.sock;

	if (!sock)
		return;
	kiw_sock_switch(sock, &qp->llp_saved, NULL);

	/* Nothing queues these any more; wait for what runs. */
	cancel_work_sync(&qp->rx.work);
	kiw_tx_detach(qp);
	kiw_rx_detach(qp);
}

void kiw_llp_drain(struct kiw_qp *qp)
{
	struct socket *sock = qp->rx.sock;
	struct sock *sk;

	if (!sock)
		return;
	sk = sock->sk;
	lock_sock(sk);
	while (kiw_rx_run(qp, sk, KIW_RX_BUDGET) == -EAGAIN)
		cond_resched();
	release_sock(sk);
}
