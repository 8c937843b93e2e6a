/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw connection endpoints (CEPs) and listeners: the connection manager's
 * internals, shared by kiw_cm.c (endpoints, iw_cm hooks), kiw_cm_mpa.c
 * (the MPA exchange on the socket), kiw_cm_listen.c (listeners),
 * kiw_cm_backlog.c (what a listener holds) and kiw_cm_dev.c.
 *
 * The endpoint state machine and its promises to iw_cm: kiw_cm_fsm.h.
 */
#ifndef KIW_CEP_H
#define KIW_CEP_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <rdma/iw_cm.h>

#include "kiw.h"
#include "kiw_cm_fsm.h"
#include "kiw_llp.h"
#include "kiw_mpa.h"
#include "kiw_sock.h"

/* Largest frame: header and 512 octets of private data. */
#define KIW_CM_FRAME_MAX (sizeof(struct kiw_mpa_hdr) + KIW_MPA_PD_MAX)

/*
 * Consumer private data iw_cm can carry in an event (its length field is
 * a u8). A frame with more is "PD_Length larger than the receive buffer"
 * (RFC 5044 section 7.1.2 (9)): malformed, the connection is closed.
 */
#define KIW_CM_ULP_PD_MAX U8_MAX

/*
 * The MPA frames of the startup exchange, about 1 KiB that an endpoint
 * needs only until the exchange is over (kiw_cm_mpa.c reads the peer's
 * frame into @rx_buf, builds ours in @tx_buf; the frames' ulp_pd point
 * into them). Owned by the endpoint (kiw_cep.frames, under its lock):
 * allocated with it, freed by kiw_cep_step() as the endpoint leaves the
 * startup states (kiw_cep_timer_kind() KIW_CEP_TIMER_STARTUP: established,
 * refused, rejected, failed), which it never re-enters, or at the latest
 * by kiw_cep_free(). Everything that reads or sends a frame runs in a
 * startup state, so it finds them there.
 */
struct kiw_cep_frames {
	u16 rx_len;			/* octets of the frame read so far */
	u16 tx_len;			/* length of the frame in tx_buf */
	u8 rx_buf[KIW_CM_FRAME_MAX];
	u8 tx_buf[KIW_CM_FRAME_MAX];
};

/*
 * A TCP connection's address: IPv4 or IPv6 (a v4-mapped one unmapped),
 * and a port; a tenth of a sockaddr_storage, which iw_cm's events carry
 * (kiw_cep_addr_get()). All zeroes until known.
 */
union kiw_cep_addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};

/* Requests posted to an endpoint's work (kiw_cep.events bits). */
enum kiw_cep_post {
	KIW_CEP_POST_ABORT,
	KIW_CEP_POST_TIMEOUT,
	KIW_CEP_POST_CLOSE,
	KIW_CEP_POST_DRAINED,
	KIW_CEP_POST_SOCK,	/* socket state or data changed */
};

struct kiw_listener;

/* Which of its listener's lists an endpoint is on (kiw_cm_backlog.c). */
enum kiw_listen_list { KIW_LISTEN_NONE, KIW_LISTEN_AWAITING,
		       KIW_LISTEN_REQUESTED };

/*
 * A connection endpoint: one TCP connection from its creation (iw_connect,
 * or a connection a listener accepted) until its socket is released.
 *
 * References (ref):
 *   sock     one while @sock is set (released with the socket): the socket
 *            callbacks find the endpoint through sk_user_data (@llp)
 *   work     one per successful queue_work() of @work, dropped when it ran
 *   qp       one while a QP points to it (qp->cep), see kiw_cep_bind_qp()
 *   handle   one while it is in kdev->cm.pending (iw_cm's provider_data)
 *   callers  temporary ones, taken under a lock that made it findable
 * The endpoint in turn holds, while set: a QP reference (@llp.qp), an iw_cm
 * reference on @cm_id (add_ref), a listener reference (@listener).
 *
 * Contexts: socket callbacks and the timer run in softirq and only post
 * (kiw_cep_post()); everything else runs in process context under @lock:
 * the work, and the iw_cm hooks accept and reject.
 */
struct kiw_cep {
	struct kref ref;
	struct kiw_device *kdev;
	struct list_head dev_entry;	/* kdev->cm.ceps, under kdev->cm.lock */
	struct work_struct work;
	unsigned long events;		/* BIT(enum kiw_cep_post), atomic */
	struct timer_list timer;	/* posts KIW_CEP_POST_TIMEOUT */

	/*
	 * Protects all below. Held across the data path's attach, detach
	 * and drain, socket calls, and the (non-blocking) iw_cm upcalls;
	 * nothing that runs under it waits for an endpoint's work.
	 */
	struct mutex lock;
	struct net *net;		/* the socket's netns (no reference) */
	bool holds_sock;		/* under kdev->cm.lock: teardown waits */
	enum kiw_cep_state state;
	bool active;			/* we are the MPA initiator */
	bool attached;			/* kiw_llp_attach() succeeded */
	bool established;		/* the QP reached RTS through us */
	bool term_sent;			/* a Terminate refused the Reply */
	unsigned long deadline;		/* jiffies, for the current timer kind */
	struct socket *sock;
	struct kiw_sock_cbs saved_cbs;
	struct iw_cm_id *cm_id;
	struct kiw_listener *listener;
	struct list_head listen_entry;	/* under listener->lock */
	u8 listen_list;			/* kiw_listen_list, under listener->lock */
	unsigned long handle;		/* key in kdev->cm.pending, or 0 */
	struct kiw_llp_conn llp;	/* the bound QP; sk_user_data */
	int status;			/* CONNECT_REPLY status of a failure */
	union kiw_cep_addr local;
	union kiw_cep_addr remote;

	/* MPA startup */
	struct kiw_mpa_cfg cfg;		/* the device's settings at creation */
	struct kiw_mpa_local mpa;	/* what we ask for and accept */
	struct kiw_mpa_frame req;	/* sent (active) or received */
	struct kiw_mpa_frame rep;	/* received (active) or sent */
	struct kiw_mpa_result res;
	const void *reject_pd;		/* iw_reject's private data, in a call */
	u8 reject_pd_len;
	struct kiw_cep_frames *frames;	/* startup only, or NULL */
};

/*
 * A listener: one iw_create_listen() call (cm_id->provider_data), with a
 * real listening socket in the device's netns, or dormant (no socket;
 * kiw_cm_listen.c explains when).
 *
 * References (ref): iw_cm's (create_listen to destroy_listen), one per
 * endpoint whose @listener points here, and temporary ones taken under
 * kdev->cm.lock.
 */
struct kiw_listener {
	struct kref ref;
	struct kiw_device *kdev;
	struct iw_cm_id *cm_id;		/* add_ref held until destroy */
	struct list_head dev_entry;	/* kdev->cm.listeners, under cm.lock */
	struct work_struct accept_work;
	struct kiw_sock_cbs saved_cbs;

	/*
	 * Under kdev->cm.lock, for netns teardown (kiw_cm_dev.c): @net is the
	 * socket's netns (no reference), set with @holds_sock, which is true
	 * from the socket's creation until it has been released.
	 */
	struct net *net;
	bool holds_sock;

	/*
	 * Serialises kiw_listener_stop(): a second caller returns only once
	 * the socket is released. Outside @lock.
	 */
	struct mutex stop_lock;

	/*
	 * Protects the fields below. Taken inside kiw_cep.lock, never the
	 * other way round.
	 */
	struct mutex lock;
	struct socket *sock;		/* NULL: dormant, or stopped */
	bool dead;			/* destroy_listen ran: no more upcalls */
	struct list_head awaiting;	/* endpoints reading the Request */
	struct list_head requested;	/* endpoints the consumer decides on */
	unsigned int n_awaiting;
	unsigned int n_requested;
	unsigned int max_awaiting;
	unsigned int backlog;		/* most endpoints in @requested */
};

static inline void kiw_cep_get(struct kiw_cep *cep)
{
	kref_get(&cep->ref);
}

/* An endpoint's address, as iw_cm's events and rdma_cm's users take it. */
static inline void kiw_cep_addr_get(struct sockaddr_storage *to,
				    const union kiw_cep_addr *from)
{
	memset(to, 0, sizeof(*to));
	memcpy(to, from, sizeof(*from));
}

/* An AF_INET or AF_INET6 address (iw_cm's, or a socket's) for an endpoint. */
static inline void kiw_cep_addr_set(union kiw_cep_addr *to,
				    const struct sockaddr_storage *from)
{
	memcpy(to, from, sizeof(*to));
}

/* kiw_cm.c */
extern struct workqueue_struct *kiw_cm_wq;
struct kiw_cep *kiw_cep_alloc(struct kiw_device *kdev, struct socket *sock,
			      bool active);
void kiw_cep_register(struct kiw_cep *cep);
void kiw_cep_install(struct kiw_cep *cep);
void kiw_cep_put(struct kiw_cep *cep);
void kiw_cep_post(struct kiw_cep *cep, enum kiw_cep_post what);
void kiw_cep_step(struct kiw_cep *cep, enum kiw_cep_event ev);
void kiw_cep_arm_timer(struct kiw_cep *cep, unsigned int ms);
int kiw_cep_bind_qp(struct kiw_cep *cep, u32 qpn);
int kiw_cep_enter_full(struct kiw_cep *cep);
int kiw_iw_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param);
int kiw_iw_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param);
int kiw_iw_reject(struct iw_cm_id *cm_id, const void *pd, u8 pd_len);

/* kiw_cm_mpa.c */
int kiw_cep_learn_addrs(struct kiw_cep *cep);
bool kiw_cep_mpa_input(struct kiw_cep *cep, enum kiw_cep_event *ev);
int kiw_cep_send_request(struct kiw_cep *cep);
int kiw_cep_send_reject(struct kiw_cep *cep);
int kiw_cep_prepare_request(struct kiw_cep *cep,
			    const struct iw_cm_conn_param *param);
int kiw_cep_accept_mpa(struct kiw_cep *cep,
		       const struct iw_cm_conn_param *param);
void kiw_cep_llp_params(const struct kiw_cep *cep,
			struct kiw_llp_params *params);

/* kiw_cm_backlog.c */
void kiw_listener_put(struct kiw_listener *l);
void kiw_listener_unlist(struct kiw_listener *l, struct kiw_cep *cep);
void kiw_listener_leave(struct kiw_cep *cep);
bool kiw_listener_request(struct kiw_cep *cep);

/* kiw_cm_listen.c */
void kiw_listener_stop(struct kiw_listener *l);
int kiw_iw_create_listen(struct iw_cm_id *cm_id, int backlog);
int kiw_iw_destroy_listen(struct iw_cm_id *cm_id);

#endif /* KIW_CEP_H */
