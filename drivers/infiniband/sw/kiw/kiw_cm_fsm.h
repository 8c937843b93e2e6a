/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw connection manager, the pure part (kiw_cm_fsm.c): no sockets, no
 * locks, no endpoint here; kiw_cep.h has the endpoint that carries these
 * decisions out.
 *
 * The endpoint state machine: a state and an event
 * give the next state and the actions, in the order the glue carries them
 * out. Every iw_cm event comes from an action, so what iw_cm sees is
 * decided in one table that KUnit walks exhaustively:
 *
 *  active:  CONNECTING -TCP_UP-> AWAIT_REP -REPLY-> CONNECTED
 *  passive: AWAIT_REQ -REQUEST-> RECVD_REQ -ACCEPT-> CONNECTED
 *  close:   CONNECTED -CLOSE-> CLOSING -DRAINED-> FIN_SENT -PEER_FIN-> CLOSED
 *           CONNECTED -PEER_FIN-> CLOSED (drain, DISCONNECT, FIN, CLOSE)
 *           any -ABORT/RESET/TIMEOUT-> CLOSED
 *
 * iw_cm sees, per connection:
 *  active:  exactly one CONNECT_REPLY; if its status is 0, then at most one
 *           DISCONNECT and exactly one CLOSE, in that order;
 *  passive: one CONNECT_REQUEST to the listener; after a successful
 *           accept, exactly one ESTABLISHED (queued by iw_accept itself),
 *           then at most one DISCONNECT and exactly one CLOSE; nothing
 *           after a reject or a failed accept, nor for a connection that
 *           died before the consumer decided.
 */
#ifndef KIW_CM_FSM_H
#define KIW_CM_FSM_H

#include <linux/bits.h>
#include <linux/types.h>

#include "kiw_mpa.h"

struct net;
struct sockaddr_storage;

enum kiw_cep_state {
	KIW_CEP_CONNECTING,	/* active: TCP handshake under way */
	KIW_CEP_AWAIT_REP,	/* active: Request sent, reading the Reply */
	KIW_CEP_AWAIT_REQ,	/* passive: reading the Request */
	KIW_CEP_RECVD_REQ,	/* passive: the consumer decides */
	KIW_CEP_CONNECTED,	/* Full Operation: the data path has the socket */
	KIW_CEP_CLOSING,	/* graceful close: the TX finishes the SQ */
	KIW_CEP_FIN_SENT,	/* our FIN is out: waiting for the peer's */
	KIW_CEP_CLOSED,		/* the socket is released; terminal */
	KIW_CEP_STATE_COUNT
};

enum kiw_cep_event {
	KIW_CEP_EV_TCP_UP,	/* active: the TCP connection is up */
	KIW_CEP_EV_REQUEST,	/* passive: a valid Request for the consumer */
	KIW_CEP_EV_REFUSE,	/* passive: a valid Request kiw refuses itself */
	KIW_CEP_EV_REPLY,	/* active: accepting Reply, negotiation done */
	KIW_CEP_EV_REJECTED,	/* active: a Reply with R set */
	KIW_CEP_EV_BAD_FRAME,	/* malformed frame, unusable negotiation, or
				 * octets where the peer may send none
				 */
	KIW_CEP_EV_ACCEPT,	/* passive: accepted, the Reply is out */
	KIW_CEP_EV_REJECT,	/* passive: the consumer rejects */
	KIW_CEP_EV_CLOSE,	/* graceful close asked (modify to SQD) */
	KIW_CEP_EV_DRAINED,	/* the TX sent what was posted before */
	KIW_CEP_EV_PEER_FIN,	/* the peer closed its half */
	KIW_CEP_EV_RESET,	/* the connection broke: RST, TCP error */
	KIW_CEP_EV_TIMEOUT,	/* startup or close took too long */
	KIW_CEP_EV_ABORT,	/* abortive close asked: ERR, destroy, teardown */
	KIW_CEP_EV_COUNT
};

/* Actions of one step, carried out in this order (bit order). */
enum kiw_cep_action {
	KIW_CEP_ACT_SEND_REQUEST	= BIT(0),
	KIW_CEP_ACT_SEND_REJECT		= BIT(1),  /* a Reply with R set */
	KIW_CEP_ACT_UP_REQUEST		= BIT(2),  /* CONNECT_REQUEST */
	KIW_CEP_ACT_UP_CONNECTED	= BIT(3),  /* CONNECT_REPLY, status 0 */
	KIW_CEP_ACT_UP_FAILED		= BIT(4),  /* CONNECT_REPLY, an error */
	KIW_CEP_ACT_UP_ESTABLISHED	= BIT(5),
	KIW_CEP_ACT_DRAIN		= BIT(6),  /* kiw_llp_drain() */
	KIW_CEP_ACT_UP_DISCONNECT	= BIT(7),
	KIW_CEP_ACT_FIN			= BIT(8),  /* shut our half down */
	KIW_CEP_ACT_RESET		= BIT(9),  /* close abortively */
	KIW_CEP_ACT_RELEASE		= BIT(10), /* detach, release, unbind */
	KIW_CEP_ACT_UP_CLOSE		= BIT(11),
};

#define KIW_CEP_ACT_UP_ANY (KIW_CEP_ACT_UP_REQUEST | KIW_CEP_ACT_UP_CONNECTED | \
			    KIW_CEP_ACT_UP_FAILED | KIW_CEP_ACT_UP_ESTABLISHED | \
			    KIW_CEP_ACT_UP_DISCONNECT | KIW_CEP_ACT_UP_CLOSE)

struct kiw_cep_step {
	enum kiw_cep_state next;
	unsigned int actions;
};

/* Which deadline runs in a state. */
enum kiw_cep_timer {
	KIW_CEP_TIMER_NONE,
	KIW_CEP_TIMER_STARTUP,	/* TCP connect/accept to the Reply */
	KIW_CEP_TIMER_CLOSE,	/* graceful close to the peer's FIN */
};

/* Pure (kiw_cm_fsm.c, KUnit) */
bool kiw_cep_fsm(enum kiw_cep_state state, enum kiw_cep_event ev,
		 struct kiw_cep_step *step);
enum kiw_cep_timer kiw_cep_timer_kind(enum kiw_cep_state state);
bool kiw_cep_sock_event(enum kiw_cep_state state, int tcp_state, int tcp_err,
			bool rcv_shutdown, enum kiw_cep_event *ev);
const char *kiw_cep_state_name(enum kiw_cep_state state);
const char *kiw_cep_event_name(enum kiw_cep_event ev);
bool kiw_cm_addr_any(const struct sockaddr_storage *addr);
bool kiw_cm_listen_dormant(bool wildcard, const struct net *dev_net,
			   const struct net *caller_net);
enum kiw_rtr kiw_cm_rtr(u8 mpa_rtr);
bool kiw_cm_hold_tx(const struct kiw_mpa_frame *req,
		    const struct kiw_mpa_result *res, bool p2p);

#endif /* KIW_CM_FSM_H */
