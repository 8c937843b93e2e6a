// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw kernel TCP sockets (see kiw_sock.h). Everything here runs in process
 * context and may sleep, except where a function says otherwise.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/tcp.h>
#include <linux/uio.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "kiw_sock.h"

/* A TCP socket of @family in @net, with kiw's options (kiw_sock_setup()). */
int kiw_sock_create(struct net *net, int family, struct socket **sockp)
{
	int ret;

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	ret = sock_create_kern(net, family, SOCK_STREAM, IPPROTO_TCP, sockp);
	if (ret)
		return ret;
	kiw_sock_setup(*sockp);
	return 0;
}

/*
 * Options for every kiw socket, also those kernel_accept() creates.
 *  - TCP_NODELAY: the data path sends whole FPDUs and wants each to leave
 *    at once (RFC 5044 Appendix A.2 recommends latency over Nagle).
 *  - SO_REUSEADDR: rdma_cm hands out port numbers from its own space, and
 *    a listener comes back on its port while old connections linger in
 *    TIME_WAIT.
 *  - GFP_NOIO: storage consumers (NFS, iSER, NVMe-oF) post work from
 *    memory reclaim; the socket's allocations must not recurse into I/O.
 *  - The sending task's page fragment (sk_use_task_frag, the default), not
 *    one of 32 KiB held by each socket for its lifetime. A socket whose
 *    sendmsg() can run nested in another sendmsg() of the same task (from
 *    reclaim entered there) must not share it. kiw's cannot: they send
 *    only from kiw's own work items (TX, CM), from a user's ib_uverbs
 *    call (the doorbell) and from the consumer's accept, all in task
 *    context and none inside a send; a kernel consumer's post, which may
 *    come from reclaim, only queues the TX work. (6.1's sk_page_frag()
 *    also wants __GFP_FS, so there each socket keeps its own.)
 */
void kiw_sock_setup(struct socket *sock)
{
	struct sock *sk = sock->sk;

	sock_set_reuseaddr(sk);
	tcp_sock_set_nodelay(sk);
	sk->sk_allocation = GFP_NOIO;
}

/*
 * Bind to @addr (a port of 0 picks one); @ifindex, when not 0, limits the
 * socket to that interface (a wildcard listener of one device).
 */
int kiw_sock_bind(struct socket *sock, const struct sockaddr_storage *addr,
		  int ifindex, bool v6only)
{
	int ret;

	if (addr->ss_family == AF_INET6 && v6only) {
		ret = ip6_sock_set_v6only(sock->sk);
		if (ret)
			return ret;
	}
	if (ifindex) {
		ret = sock_bindtoindex(sock->sk, ifindex, true);
		if (ret)
			return ret;
	}
	return kernel_bind(sock, (struct sockaddr_unsized *)addr,
			   kiw_sockaddr_len(addr));
}

/*
 * The one place kiw switches a socket's callbacks: every switch (the
 * connection manager's install and restore below, the data path's
 * hand-over in kiw_llp.c) is made here, under sk_callback_lock held for
 * writing, each pointer stored with WRITE_ONCE(), since TCP calls the
 * callbacks without the lock and may load a pointer while it changes.
 * kiw's callbacks read sk_user_data and check that they are still the
 * installed ones under the read lock, so once a switch returns, none of
 * the callbacks it replaced is still running or can start.
 */
static void kiw_sock_switch_locked(struct sock *sk,
				   const struct kiw_sock_cbs *to,
				   struct kiw_sock_cbs *saved)
{
	lockdep_assert_held_write(&sk->sk_callback_lock);
	if (saved)
		memset(saved, 0, sizeof(*saved));
	if (to->data_ready) {
		if (saved)
			saved->data_ready = sk->sk_data_ready;
		WRITE_ONCE(sk->sk_data_ready, to->data_ready);
	}
	if (to->state_change) {
		if (saved)
			saved->state_change = sk->sk_state_change;
		WRITE_ONCE(sk->sk_state_change, to->state_change);
	}
	if (to->write_space) {
		if (saved)
			saved->write_space = sk->sk_write_space;
		WRITE_ONCE(sk->sk_write_space, to->write_space);
	}
}

/**
 * kiw_sock_switch - switch some of a socket's callbacks
 * @sock: the socket
 * @to: the callbacks to install; NULL members are left alone
 * @saved: if not NULL, gets what was replaced (NULL for the others), for a
 *	later kiw_sock_switch(sock, saved, NULL) to put back
 */
void kiw_sock_switch(struct socket *sock, const struct kiw_sock_cbs *to,
		     struct kiw_sock_cbs *saved)
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	kiw_sock_switch_locked(sk, to, saved);
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Point the socket's callbacks at kiw and its sk_user_data at @user, saving
 * what was there. @state_change may be NULL (left alone). A callback sees
 * either the old or the new pair of callback and user data.
 * SK_USER_DATA_NOCOPY keeps a listener's pointer out of the sockets TCP
 * clones from it for new connections.
 */
void kiw_sock_install(struct socket *sock, void *user,
		      void (*data_ready)(struct sock *sk),
		      void (*state_change)(struct sock *sk),
		      struct kiw_sock_cbs *saved)
{
	const struct kiw_sock_cbs to = {
		.data_ready = data_ready,
		.state_change = state_change,
	};
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	WRITE_ONCE(sk->sk_user_data,
		   (void *)((uintptr_t)user | SK_USER_DATA_NOCOPY));
	kiw_sock_switch_locked(sk, &to, saved);
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Put back what kiw_sock_install() saved and clear sk_user_data; nothing
 * if nothing was installed (@saved all zero). Once this returns, no kiw
 * callback still looks at the socket's user data.
 */
void kiw_sock_restore(struct socket *sock, const struct kiw_sock_cbs *saved)
{
	struct sock *sk = sock->sk;

	if (!saved->data_ready)
		return;
	write_lock_bh(&sk->sk_callback_lock);
	WRITE_ONCE(sk->sk_user_data, NULL);
	kiw_sock_switch_locked(sk, saved, NULL);
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Read at most @len octets without blocking, never more: what follows
 * stays in the socket (for the MPA frames, the first octet of Full
 * Operation must be left for the data path).
 *
 * Return: octets read, 0 at end of stream (the peer's FIN), -EAGAIN when
 * nothing is there, or the socket's error.
 */
int kiw_sock_read(struct socket *sock, void *buf, size_t len)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };

	return kernel_recvmsg(sock, &msg, &iov, 1, len, MSG_DONTWAIT);
}

/*
 * Send @len octets without blocking, all or nothing as far as the caller
 * is concerned: an MPA frame is at most 532 octets and goes out on a
 * socket with an empty send queue, so a short send means the connection
 * is unusable. So does -EAGAIN there (TCP found no memory for the skb):
 * the caller aborts the connection, and a consumer told "try again"
 * (rdma_accept() returns what this returns) could not.
 */
int kiw_sock_send(struct socket *sock, const void *buf, size_t len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	int ret;

	ret = kernel_sendmsg(sock, &msg, &iov, 1, len);
	if (ret == -EAGAIN)
		return -ENOBUFS;
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -ENOBUFS;
}

/* Octets wait in the receive queue. Any context. */
bool kiw_sock_has_data(struct socket *sock)
{
	return !skb_queue_empty_lockless(&sock->sk->sk_receive_queue);
}

/*
 * Throw away what was received, so that closing sends a FIN after the
 * queued data instead of a RST (TCP resets a connection closed with unread
 * data, which would also discard what we still had to send).
 */
void kiw_sock_discard(struct socket *sock)
{
	u8 scratch[256];
	int i;

	/* Bounded: a peer that keeps sending gets its RST after all. */
	for (i = 0; i < 256; i++)
		if (kiw_sock_read(sock, scratch, sizeof(scratch)) <= 0)
			break;
}

/*
 * An IPv4 connection an IPv6 wildcard listener took has v4-mapped
 * addresses (::ffff:a.b.c.d); rdma_cm resolves them as what they are,
 * IPv4 addresses.
 */
static void kiw_sockaddr_unmap(struct sockaddr_storage *ss)
{
	struct sockaddr_in6 in6 = *(struct sockaddr_in6 *)ss;
	struct sockaddr_in *in = (struct sockaddr_in *)ss;

	if (in6.sin6_family != AF_INET6 || !ipv6_addr_v4mapped(&in6.sin6_addr))
		return;
	memset(ss, 0, sizeof(*ss));
	in->sin_family = AF_INET;
	in->sin_port = in6.sin6_port;
	in->sin_addr.s_addr = in6.sin6_addr.s6_addr32[3];
}

/* The connection's local and remote addresses. */
int kiw_sock_addrs(struct socket *sock, struct sockaddr_storage *local,
		   struct sockaddr_storage *remote)
{
	int ret;

	memset(local, 0, sizeof(*local));
	memset(remote, 0, sizeof(*remote));
	ret = kernel_getsockname(sock, (struct sockaddr *)local);
	if (ret < 0)
		return ret;
	ret = kernel_getpeername(sock, (struct sockaddr *)remote);
	if (ret < 0)
		return ret;
	kiw_sockaddr_unmap(local);
	kiw_sockaddr_unmap(remote);
	return 0;
}

/* Our half of the connection is done: a FIN after what is queued. */
void kiw_sock_shutdown(struct socket *sock)
{
	kernel_sock_shutdown(sock, SHUT_WR);
}

/*
 * Release the socket. @reset: abortively, with a RST (SO_LINGER 0), and
 * whatever is still queued in either direction is dropped. Otherwise TCP
 * finishes the close by itself (FIN after the queued data, TIME_WAIT).
 */
void kiw_sock_release(struct socket *sock, bool reset)
{
	if (reset)
		sock_no_linger(sock->sk);
	sock_release(sock);
}
