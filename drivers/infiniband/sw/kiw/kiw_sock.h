/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw kernel TCP sockets: creation in a given network namespace, the
 * socket options every kiw connection uses, callback switching, exact
 * non-blocking reads and all-or-nothing sends of the MPA startup frames,
 * and the two ways to close (FIN or RST).
 *
 * The connection manager is the only user: it owns every kiw socket from
 * creation to release (kiw_llp.h says what the data path borrows).
 *
 * Network namespaces. Kernel sockets do not hold a reference on their
 * namespace, so whoever creates one must release it before the namespace
 * is dismantled; kiw_cm.c does that from a pernet pre_exit hook.
 */
#ifndef KIW_SOCK_H
#define KIW_SOCK_H

#include <linux/net.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <net/sock.h>

struct net;

/*
 * A socket's callbacks kiw switches (kiw_sock_switch()): those to install,
 * or those a switch replaced, to put back. NULL: not switched.
 */
struct kiw_sock_cbs {
	void (*data_ready)(struct sock *sk);
	void (*state_change)(struct sock *sk);
	void (*write_space)(struct sock *sk);
};

int kiw_sock_create(struct net *net, int family, struct socket **sockp);
void kiw_sock_setup(struct socket *sock);
int kiw_sock_bind(struct socket *sock, const struct sockaddr_storage *addr,
		  int ifindex, bool v6only);

void kiw_sock_install(struct socket *sock, void *user,
		      void (*data_ready)(struct sock *sk),
		      void (*state_change)(struct sock *sk),
		      struct kiw_sock_cbs *saved);
void kiw_sock_restore(struct socket *sock, const struct kiw_sock_cbs *saved);
void kiw_sock_switch(struct socket *sock, const struct kiw_sock_cbs *to,
		     struct kiw_sock_cbs *saved);

int kiw_sock_read(struct socket *sock, void *buf, size_t len);
int kiw_sock_send(struct socket *sock, const void *buf, size_t len);
bool kiw_sock_has_data(struct socket *sock);
void kiw_sock_discard(struct socket *sock);
int kiw_sock_addrs(struct socket *sock, struct sockaddr_storage *local,
		   struct sockaddr_storage *remote);

void kiw_sock_shutdown(struct socket *sock);
void kiw_sock_release(struct socket *sock, bool reset);

/*
 * The pointer kiw_sock_install() put in sk_user_data (NULL once restored,
 * and in sockets TCP cloned from a listener). For kiw's socket callbacks,
 * under read_lock_bh(&sk->sk_callback_lock).
 */
static inline void *kiw_sock_user(const struct sock *sk)
{
	return (void *)((uintptr_t)READ_ONCE(sk->sk_user_data) &
			SK_USER_DATA_PTRMASK);
}

static inline int kiw_sockaddr_len(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					  sizeof(struct sockaddr_in);
}

#endif /* KIW_SOCK_H */
