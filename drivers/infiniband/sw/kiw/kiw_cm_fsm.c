// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw connection endpoint state machine, and the other pure decisions of
 * the connection manager (kiw_cep.h). No sockets, no locks: KUnit drives
 * all of it.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kernel.h>
#include <net/ipv6.h>
#include <net/tcp_states.h>
#include <kunit/visibility.h>

#include "kiw_cm_fsm.h"

static const char * const kiw_cep_state_names[KIW_CEP_STATE_COUNT] = {
	[KIW_CEP_CONNECTING] = "connecting",
	[KIW_CEP_AWAIT_REP] = "await-reply",
	[KIW_CEP_AWAIT_REQ] = "await-request",
	[KIW_CEP_RECVD_REQ] = "request-received",
	[KIW_CEP_CONNECTED] = "connected",
	[KIW_CEP_CLOSING] = "closing",
	[KIW_CEP_FIN_SENT] = "fin-sent",
	[KIW_CEP_CLOSED] = "closed",
};

static const char * const kiw_cep_event_names[KIW_CEP_EV_COUNT] = {
	[KIW_CEP_EV_TCP_UP] = "tcp-up",
	[KIW_CEP_EV_REQUEST] = "request",
	[KIW_CEP_EV_REFUSE] = "refuse",
	[KIW_CEP_EV_REPLY] = "reply",
	[KIW_CEP_EV_REJECTED] = "rejected",
	[KIW_CEP_EV_BAD_FRAME] = "bad-frame",
	[KIW_CEP_EV_ACCEPT] = "accept",
	[KIW_CEP_EV_REJECT] = "reject",
	[KIW_CEP_EV_CLOSE] = "close",
	[KIW_CEP_EV_DRAINED] = "drained",
	[KIW_CEP_EV_PEER_FIN] = "peer-fin",
	[KIW_CEP_EV_RESET] = "reset",
	[KIW_CEP_EV_TIMEOUT] = "timeout",
	[KIW_CEP_EV_ABORT] = "abort",
};

const char *kiw_cep_state_name(enum kiw_cep_state state)
{
	return state < KIW_CEP_STATE_COUNT ? kiw_cep_state_names[state] :
					     "invalid";
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cep_state_name);

const char *kiw_cep_event_name(enum kiw_cep_event ev)
{
	return ev < KIW_CEP_EV_COUNT ? kiw_cep_event_names[ev] : "invalid";
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cep_event_name);

/* What a startup failure does: abortive close, no further events. */
#define KIW_CEP_FAIL_ACTIVE (KIW_CEP_ACT_UP_FAILED | KIW_CEP_ACT_RESET | \
			     KIW_CEP_ACT_RELEASE)
#define KIW_CEP_FAIL_PASSIVE (KIW_CEP_ACT_RESET | KIW_CEP_ACT_RELEASE)
/* A connection that was up ends with CLOSE after the socket is gone. */
#define KIW_CEP_DOWN (KIW_CEP_ACT_RESET | KIW_CEP_ACT_RELEASE | \
		      KIW_CEP_ACT_UP_CLOSE)
/* The peer closed first: deliver what it sent, then tell the consumer. */
#define KIW_CEP_PEER_DOWN (KIW_CEP_ACT_DRAIN | KIW_CEP_ACT_UP_DISCONNECT | \
			   KIW_CEP_ACT_RELEASE | KIW_CEP_ACT_UP_CLOSE)

static bool kiw_cep_is_failure(enum kiw_cep_event ev)
{
	return ev == KIW_CEP_EV_BAD_FRAME || ev == KIW_CEP_EV_PEER_FIN ||
	       ev == KIW_CEP_EV_RESET || ev == KIW_CEP_EV_TIMEOUT ||
	       ev == KIW_CEP_EV_ABORT;
}

static bool kiw_cep_is_down(enum kiw_cep_event ev)
{
	return ev == KIW_CEP_EV_RESET || ev == KIW_CEP_EV_ABORT;
}

static bool kiw_cep_go(struct kiw_cep_step *step, enum kiw_cep_state next,
		       unsigned int actions)
{
	step->next = next;
	step->actions = actions;
	return true;
}

static bool kiw_cep_fsm_startup(enum kiw_cep_state state,
				enum kiw_cep_event ev,
				struct kiw_cep_step *step)
{
	switch (state) {
	case KIW_CEP_CONNECTING:
		if (ev == KIW_CEP_EV_TCP_UP)
			return kiw_cep_go(step, KIW_CEP_AWAIT_REP,
					  KIW_CEP_ACT_SEND_REQUEST);
		if (kiw_cep_is_failure(ev))
			return kiw_cep_go(step, KIW_CEP_CLOSED, KIW_CEP_FAIL_ACTIVE);
		return false;
	case KIW_CEP_AWAIT_REP:
		if (ev == KIW_CEP_EV_REPLY)
			return kiw_cep_go(step, KIW_CEP_CONNECTED,
					  KIW_CEP_ACT_UP_CONNECTED);
		/* A reject leaves TCP open (RFC 5044 7.1.2 (3)); we close it. */
		if (ev == KIW_CEP_EV_REJECTED)
			return kiw_cep_go(step, KIW_CEP_CLOSED,
					  KIW_CEP_ACT_UP_FAILED |
					  KIW_CEP_ACT_FIN | KIW_CEP_ACT_RELEASE);
		if (kiw_cep_is_failure(ev))
			return kiw_cep_go(step, KIW_CEP_CLOSED, KIW_CEP_FAIL_ACTIVE);
		return false;
	case KIW_CEP_AWAIT_REQ:
		if (ev == KIW_CEP_EV_REQUEST)
			return kiw_cep_go(step, KIW_CEP_RECVD_REQ,
					  KIW_CEP_ACT_UP_REQUEST);
		if (ev == KIW_CEP_EV_REFUSE)
			return kiw_cep_go(step, KIW_CEP_CLOSED,
					  KIW_CEP_ACT_SEND_REJECT |
					  KIW_CEP_ACT_FIN | KIW_CEP_ACT_RELEASE);
		if (kiw_cep_is_failure(ev))
			return kiw_cep_go(step, KIW_CEP_CLOSED, KIW_CEP_FAIL_PASSIVE);
		return false;
	case KIW_CEP_RECVD_REQ:
		if (ev == KIW_CEP_EV_ACCEPT)
			return kiw_cep_go(step, KIW_CEP_CONNECTED,
					  KIW_CEP_ACT_UP_ESTABLISHED);
		if (ev == KIW_CEP_EV_REJECT)
			return kiw_cep_go(step, KIW_CEP_CLOSED,
					  KIW_CEP_ACT_SEND_REJECT |
					  KIW_CEP_ACT_FIN | KIW_CEP_ACT_RELEASE);
		/* iw_cm's child id is CONN_RECV: it must get no event now. */
		if (kiw_cep_is_failure(ev))
			return kiw_cep_go(step, KIW_CEP_CLOSED, KIW_CEP_FAIL_PASSIVE);
		return false;
	default:
		return false;
	}
}

/**
 * kiw_cep_fsm - one step of a connection endpoint
 * @state: where it is
 * @ev: what happened
 * @step: the next state and the actions (enum kiw_cep_action), in order
 *
 * Return: false if @ev means nothing in @state (a late or repeated event:
 * the endpoint stays as it is and nothing is done).
 */
bool kiw_cep_fsm(enum kiw_cep_state state, enum kiw_cep_event ev,
		 struct kiw_cep_step *step)
{
	step->next = state;
	step->actions = 0;
	switch (state) {
	case KIW_CEP_CONNECTED:
		if (ev == KIW_CEP_EV_CLOSE)
			return kiw_cep_go(step, KIW_CEP_CLOSING, 0);
		/*
		 * The peer closed gracefully: the connection is over (the QP
		 * leaves RTS). We answer with our FIN rather than finishing
		 * our SQ: the consumer's outstanding work is flushed.
		 */
		if (ev == KIW_CEP_EV_PEER_FIN)
			return kiw_cep_go(step, KIW_CEP_CLOSED, KIW_CEP_PEER_DOWN |
					  KIW_CEP_ACT_FIN);
		if (kiw_cep_is_down(ev))
			return kiw_cep_go(step, KIW_CEP_CLOSED, KIW_CEP_DOWN);
		return false;
	case KIW_CEP_CLOSING:
		if (ev == KIW_CEP_EV_DRAINED)
			return kiw_cep_go(step, KIW_CEP_FIN_SENT, KIW_CEP_ACT_FIN);
		if (ev == KIW_CEP_EV_PEER_FIN)
			return kiw_cep_go(step, KIW_CEP_CLOSED, KIW_CEP_PEER_DOWN |
					  KIW_CEP_ACT_FIN);
		if (kiw_cep_is_down(ev) || ev == KIW_CEP_EV_TIMEOUT)
			return kiw_cep_go(step, KIW_CEP_CLOSED, KIW_CEP_DOWN);
		return false;
	case KIW_CEP_FIN_SENT:
		/* Both FINs are out: TCP finishes the close (TIME_WAIT). */
		if (ev == KIW_CEP_EV_PEER_FIN)
			return kiw_cep_go(step, KIW_CEP_CLOSED, KIW_CEP_PEER_DOWN);
		if (kiw_cep_is_down(ev) || ev == KIW_CEP_EV_TIMEOUT)
			return kiw_cep_go(step, KIW_CEP_CLOSED, KIW_CEP_DOWN);
		return false;
	case KIW_CEP_CLOSED:
		return false;
	default:
		return kiw_cep_fsm_startup(state, ev, step);
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cep_fsm);

/* The deadline that runs while an endpoint is in @state. */
enum kiw_cep_timer kiw_cep_timer_kind(enum kiw_cep_state state)
{
	switch (state) {
	case KIW_CEP_CONNECTING:
	case KIW_CEP_AWAIT_REP:
	case KIW_CEP_AWAIT_REQ:
	case KIW_CEP_RECVD_REQ:
		return KIW_CEP_TIMER_STARTUP;
	case KIW_CEP_CLOSING:
	case KIW_CEP_FIN_SENT:
		return KIW_CEP_TIMER_CLOSE;
	default:
		return KIW_CEP_TIMER_NONE;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cep_timer_kind);

/**
 * kiw_cep_sock_event - what the TCP socket's state means for an endpoint
 * @state: the endpoint's state
 * @tcp_state: the socket's TCP state (TCP_ESTABLISHED...)
 * @tcp_err: the socket's pending error (positive errno), or 0
 * @rcv_shutdown: the peer's FIN was received (RCV_SHUTDOWN)
 * @ev: the event, when there is one
 *
 * While the MPA frames are read, end of stream and errors are found by
 * reading; here only what reading cannot show. Before our FIN a connection
 * can reach TCP_CLOSE only by breaking (a reset, or a retransmission
 * timeout, whose error another reader may already have taken); once our
 * FIN is out, TCP_CLOSE is the normal end.
 *
 * Return: whether there is an event.
 */
bool kiw_cep_sock_event(enum kiw_cep_state state, int tcp_state, int tcp_err,
			bool rcv_shutdown, enum kiw_cep_event *ev)
{
	switch (state) {
	case KIW_CEP_CONNECTING:
		if (tcp_state == TCP_SYN_SENT && !tcp_err)
			return false;
		*ev = tcp_err || tcp_state == TCP_CLOSE ? KIW_CEP_EV_RESET :
							  KIW_CEP_EV_TCP_UP;
		return true;
	case KIW_CEP_RECVD_REQ:
	case KIW_CEP_CONNECTED:
	case KIW_CEP_CLOSING:
		if (tcp_err || tcp_state == TCP_CLOSE)
			*ev = KIW_CEP_EV_RESET;
		else if (rcv_shutdown)
			*ev = KIW_CEP_EV_PEER_FIN;
		else
			return false;
		return true;
	case KIW_CEP_FIN_SENT:
		if (tcp_err)
			*ev = KIW_CEP_EV_RESET;
		else if (rcv_shutdown || tcp_state == TCP_CLOSE)
			*ev = KIW_CEP_EV_PEER_FIN;
		else
			return false;
		return true;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cep_sock_event);

/* The wildcard address of its family (INADDR_ANY, in6addr_any). */
bool kiw_cm_addr_any(const struct sockaddr_storage *addr)
{
	if (addr->ss_family == AF_INET)
		return ((const struct sockaddr_in *)addr)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	if (addr->ss_family == AF_INET6)
		return ipv6_addr_any(&((const struct sockaddr_in6 *)addr)->sin6_addr);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cm_addr_any);

/**
 * kiw_cm_listen_dormant - is a listener on this device only a placeholder?
 * @wildcard: it listens on the wildcard address
 * @dev_net: the netns of the device's netdev
 * @caller_net: the netns of the task calling iw_create_listen
 *
 * rdma_cm turns a wildcard listen into one listener per RDMA device, on
 * every device, and fails as a whole if one of them fails. A device whose
 * interface lives in another netns than the listening task cannot take
 * that task's connections: its listener exists, but listens on nothing.
 * A specific address was already found on this device's interface (in the
 * caller's netns, by rdma_cm), so such a listener is always real.
 */
bool kiw_cm_listen_dormant(bool wildcard, const struct net *dev_net,
			   const struct net *caller_net)
{
	return wildcard && !net_eq(dev_net, caller_net);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cm_listen_dormant);

/* The RTR message the data path sends or awaits, from kiw_mpa_result.rtr. */
enum kiw_rtr kiw_cm_rtr(u8 mpa_rtr)
{
	switch (mpa_rtr) {
	case KIW_MPA_RTR_SEND:
		return KIW_RTR_SEND;
	case KIW_MPA_RTR_WRITE:
		return KIW_RTR_WRITE;
	case KIW_MPA_RTR_READ:
		return KIW_RTR_READ;
	default:
		return KIW_RTR_NONE;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cm_rtr);

/**
 * kiw_cm_hold_tx - must a responder hold its FPDUs until the peer's first?
 * @req: the initiator's Request
 * @res: what the Request and Reply settled (kiw_mpa_negotiate())
 * @p2p: the responder device's p2p setting
 *
 * RFC 5044 7.1.2 (4): a responder sends no FPDU before it has received
 * one. In peer-to-peer mode (RFC 6581) that first FPDU is the RTR, which
 * the initiator sends unasked, and the rule costs nothing. An initiator
 * that did not ask for an RTR leaves a consumer whose server speaks first
 * (ib_write_lat, ucmatose) waiting for good, and no frame of the
 * responder's can make it send one. With @p2p set (the default), a
 * responder therefore sends at once to an RFC 6581 initiator that chose
 * client-server mode (a Rev 2 Request with the IRD/ORD word but without
 * A, as Linux siw sends), as siw's own responder does; that initiator was
 * free to ask for an RTR. A Rev 1 Request (RFC 5044 only: the rule's
 * "dual stack" peers), or @p2p clear, keeps the rule to the letter.
 *
 * Return: true if the data path holds its FPDUs until one arrives.
 */
bool kiw_cm_hold_tx(const struct kiw_mpa_frame *req,
		    const struct kiw_mpa_result *res, bool p2p)
{
	if (!res->hold_tx)
		return false;
	if (res->rtr || !req->enhanced)
		return true;
	return !p2p;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cm_hold_tx);
