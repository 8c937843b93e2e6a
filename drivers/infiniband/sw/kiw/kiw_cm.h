/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw connection manager: the iw_cm hooks (connect, accept, reject,
 * listen), connection endpoints and their MPA startup on kernel TCP
 * sockets, and connection teardown. Its internals are in kiw_cep.h; this
 * is what the rest of kiw sees.
 *
 * Files: kiw_cm.c (endpoints, connect/accept/reject, teardown, netns),
 * kiw_cm_mpa.c (the MPA exchange on the socket), kiw_cm_listen.c
 * (listeners), kiw_cm_fsm.c (the pure state machine), kiw_sock.c (socket
 * helpers).
 */
#ifndef KIW_CM_H
#define KIW_CM_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

struct kiw_device;
struct kiw_qp;
struct net;

/* The connection endpoint a QP is bound to (qp->cep). Owned by the CM. */
struct kiw_cep;

/* A device's connection manager state, embedded in struct kiw_device. */
struct kiw_cm_dev {
	/*
	 * Protects ceps, listeners, and the holds_sock and net fields of
	 * their entries. A spinlock (bottom halves off): an endpoint's last
	 * reference may go in any context.
	 */
	spinlock_t lock;
	struct list_head ceps;		/* every endpoint of the device */
	struct list_head listeners;	/* every listener of the device */
	wait_queue_head_t idle;		/* woken as endpoints let go */

	/*
	 * Passive endpoints iw_cm may still accept or reject, by the handle
	 * given as CONNECT_REQUEST's provider_data (its own lock). iw_cm
	 * may drop that event (its listener is being destroyed) and then
	 * never calls back; a handle that is gone makes a late accept fail
	 * cleanly where a pointer would be stale. Handles are not reused.
	 */
	struct xarray pending;
	unsigned long next_handle;	/* under lock */
};

/* Module and device set-up (kiw_cm_dev.c). */
int kiw_cm_init(void);
void kiw_cm_exit(void);
void kiw_cm_dev_init(struct kiw_device *kdev);
void kiw_cm_dev_fini(struct kiw_device *kdev);
void kiw_cm_dev_close_sockets(struct kiw_device *kdev, const struct net *net);
extern const struct ib_device_ops kiw_cm_ops;

#endif /* KIW_CM_H */
