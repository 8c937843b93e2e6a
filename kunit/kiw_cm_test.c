// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the connection manager's pure logic. The endpoint state machine
 * is checked transition by transition against a table, and exhaustively:
 * every sequence of events from a new active or passive endpoint is walked
 * (over states and a summary of what iw_cm has been told) and the promises
 * kiw_cm_fsm.h makes to iw_cm are checked at every step.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/tcp_states.h>

#include "kiw_cm_fsm.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define S(x) KIW_CEP_##x
#define E(x) KIW_CEP_EV_##x
#define A(x) KIW_CEP_ACT_##x

struct kiw_fsm_case {
	enum kiw_cep_state from;
	enum kiw_cep_event ev;
	bool applies;
	enum kiw_cep_state to;
	unsigned int actions;
};

static const struct kiw_fsm_case kiw_fsm_cases[] = {
	/* Active startup. */
	{ S(CONNECTING), E(TCP_UP), true, S(AWAIT_REP), A(SEND_REQUEST) },
	{ S(CONNECTING), E(RESET), true, S(CLOSED),
	  A(UP_FAILED) | A(RESET) | A(RELEASE) },
	{ S(CONNECTING), E(TIMEOUT), true, S(CLOSED),
	  A(UP_FAILED) | A(RESET) | A(RELEASE) },
	{ S(CONNECTING), E(CLOSE), false },
	{ S(CONNECTING), E(REQUEST), false },
	{ S(AWAIT_REP), E(REPLY), true, S(CONNECTED), A(UP_CONNECTED) },
	/* A reject: the consumer gets it, TCP is closed gracefully. */
	{ S(AWAIT_REP), E(REJECTED), true, S(CLOSED),
	  A(UP_FAILED) | A(FIN) | A(RELEASE) },
	/* Malformed Reply, Initiator/Initiator: code 4, close at once. */
	{ S(AWAIT_REP), E(BAD_FRAME), true, S(CLOSED),
	  A(UP_FAILED) | A(RESET) | A(RELEASE) },
	{ S(AWAIT_REP), E(PEER_FIN), true, S(CLOSED),
	  A(UP_FAILED) | A(RESET) | A(RELEASE) },
	{ S(AWAIT_REP), E(ABORT), true, S(CLOSED),
	  A(UP_FAILED) | A(RESET) | A(RELEASE) },
	{ S(AWAIT_REP), E(TCP_UP), false },
	/* Passive startup. */
	{ S(AWAIT_REQ), E(REQUEST), true, S(RECVD_REQ), A(UP_REQUEST) },
	{ S(AWAIT_REQ), E(REFUSE), true, S(CLOSED),
	  A(SEND_REJECT) | A(FIN) | A(RELEASE) },
	{ S(AWAIT_REQ), E(BAD_FRAME), true, S(CLOSED), A(RESET) | A(RELEASE) },
	{ S(AWAIT_REQ), E(TIMEOUT), true, S(CLOSED), A(RESET) | A(RELEASE) },
	{ S(AWAIT_REQ), E(ACCEPT), false },
	{ S(RECVD_REQ), E(ACCEPT), true, S(CONNECTED), A(UP_ESTABLISHED) },
	{ S(RECVD_REQ), E(REJECT), true, S(CLOSED),
	  A(SEND_REJECT) | A(FIN) | A(RELEASE) },
	/* iw_cm's child is CONN_RECV: it may get no event. */
	{ S(RECVD_REQ), E(RESET), true, S(CLOSED), A(RESET) | A(RELEASE) },
	{ S(RECVD_REQ), E(PEER_FIN), true, S(CLOSED), A(RESET) | A(RELEASE) },
	{ S(RECVD_REQ), E(BAD_FRAME), true, S(CLOSED), A(RESET) | A(RELEASE) },
	{ S(RECVD_REQ), E(TIMEOUT), true, S(CLOSED), A(RESET) | A(RELEASE) },
	{ S(RECVD_REQ), E(REQUEST), false },
	/* Connected. */
	{ S(CONNECTED), E(CLOSE), true, S(CLOSING), 0 },
	{ S(CONNECTED), E(PEER_FIN), true, S(CLOSED),
	  A(DRAIN) | A(UP_DISCONNECT) | A(FIN) | A(RELEASE) | A(UP_CLOSE) },
	{ S(CONNECTED), E(RESET), true, S(CLOSED),
	  A(RESET) | A(RELEASE) | A(UP_CLOSE) },
	{ S(CONNECTED), E(ABORT), true, S(CLOSED),
	  A(RESET) | A(RELEASE) | A(UP_CLOSE) },
	{ S(CONNECTED), E(DRAINED), false },	/* a stale report */
	{ S(CONNECTED), E(TIMEOUT), false },	/* no timer runs here */
	/* Graceful close. */
	{ S(CLOSING), E(DRAINED), true, S(FIN_SENT), A(FIN) },
	{ S(CLOSING), E(CLOSE), false },
	{ S(CLOSING), E(PEER_FIN), true, S(CLOSED),
	  A(DRAIN) | A(UP_DISCONNECT) | A(FIN) | A(RELEASE) | A(UP_CLOSE) },
	{ S(CLOSING), E(TIMEOUT), true, S(CLOSED),
	  A(RESET) | A(RELEASE) | A(UP_CLOSE) },
	{ S(FIN_SENT), E(PEER_FIN), true, S(CLOSED),
	  A(DRAIN) | A(UP_DISCONNECT) | A(RELEASE) | A(UP_CLOSE) },
	{ S(FIN_SENT), E(TIMEOUT), true, S(CLOSED),
	  A(RESET) | A(RELEASE) | A(UP_CLOSE) },
	{ S(FIN_SENT), E(ABORT), true, S(CLOSED),
	  A(RESET) | A(RELEASE) | A(UP_CLOSE) },
	{ S(FIN_SENT), E(DRAINED), false },
	{ S(CLOSED), E(ABORT), false },
	{ S(CLOSED), E(PEER_FIN), false },
};

static void kiw_fsm_case_desc(const struct kiw_fsm_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s_%s", kiw_cep_state_name(c->from),
		 kiw_cep_event_name(c->ev));
}

KUNIT_ARRAY_PARAM(kiw_fsm, kiw_fsm_cases, kiw_fsm_case_desc);

/*
 * A malformed frame closes at once (RST), a reject sends its Reply and a
 * FIN, a reject received reaches the consumer, a peer's FIN the consumer.
 * Covers: MPA-SU-8, MPA-SU-10, MPA-SU-13, MPA-ERR-3, MPA-REJ-1, MPA-REJ-2
 * Covers: MPA-TD-2
 * The active endpoint sends the Request, the passive one waits for it. A
 * local close sends the FIN only once the TX has drained; a peer's FIN
 * reaches the consumer.
 * Covers: MPA-SU-5, MPA-TD-1, DDP-ST-3, DDP-LLP-9
 */
static void kiw_cep_fsm_table_test(struct kunit *test)
{
	const struct kiw_fsm_case *c = test->param_value;
	struct kiw_cep_step st;

	KUNIT_ASSERT_EQ(test, kiw_cep_fsm(c->from, c->ev, &st), c->applies);
	if (!c->applies) {
		KUNIT_EXPECT_EQ(test, st.next, c->from);
		KUNIT_EXPECT_EQ(test, st.actions, 0);
		return;
	}
	KUNIT_EXPECT_EQ(test, st.next, c->to);
	KUNIT_EXPECT_EQ(test, st.actions, c->actions);
}

/* What iw_cm and the socket have seen so far, on a path of events. */
enum {
	H_PASSIVE = BIT(0),
	H_REQ_UP = BIT(1),
	H_REPLY_OK = BIT(2),
	H_REPLY_FAIL = BIT(3),
	H_ESTAB = BIT(4),
	H_DISC = BIT(5),
	H_CLOSE = BIT(6),
	H_RELEASED = BIT(7),
	H_SENT_REQ = BIT(8),
	H_NBITS = 9,
};

#define H_UP (H_REPLY_OK | H_ESTAB)

struct kiw_walk {
	struct kunit *test;
	unsigned long *seen;		/* state * 2^H_NBITS + history */
	unsigned int nodes;
	unsigned int actions_seen;
	unsigned int states_seen;
};

/* Check one step against the promises of kiw_cm_fsm.h; the new history. */
static unsigned int kiw_walk_check(struct kiw_walk *w, enum kiw_cep_state s,
				   unsigned int h, enum kiw_cep_event ev,
				   const struct kiw_cep_step *st)
{
	struct kunit *test = w->test;
	unsigned int a = st->actions;
	bool passive = h & H_PASSIVE;

	KUNIT_EXPECT_NE(test, s, KIW_CEP_CLOSED);	/* terminal */
	/* Nothing reaches iw_cm after the end of the connection. */
	if (h & (H_CLOSE | H_REPLY_FAIL))
		KUNIT_EXPECT_EQ(test, a & KIW_CEP_ACT_UP_ANY, 0);
	/* One CONNECT_REPLY, active only; one CONNECT_REQUEST, passive. */
	if (a & (A(UP_CONNECTED) | A(UP_FAILED))) {
		KUNIT_EXPECT_FALSE(test, passive);
		KUNIT_EXPECT_FALSE(test, h & (H_REPLY_OK | H_REPLY_FAIL));
		KUNIT_EXPECT_NE(test, a & (A(UP_CONNECTED) | A(UP_FAILED)),
				A(UP_CONNECTED) | A(UP_FAILED));
	}
	if (a & A(UP_REQUEST))
		KUNIT_EXPECT_TRUE(test, passive && !(h & H_REQ_UP));
	/* ESTABLISHED once, after the request; nothing else before it. */
	if (a & A(UP_ESTABLISHED))
		KUNIT_EXPECT_TRUE(test, passive && (h & H_REQ_UP) &&
				  !(h & H_ESTAB));
	if (passive && !(h & H_ESTAB) && !(a & A(UP_ESTABLISHED)))
		KUNIT_EXPECT_EQ(test, a & KIW_CEP_ACT_UP_ANY & ~A(UP_REQUEST),
				0);
	/* DISCONNECT and CLOSE only for a connection that was up, once. */
	if (a & (A(UP_DISCONNECT) | A(UP_CLOSE)))
		KUNIT_EXPECT_TRUE(test, h & H_UP);
	if (a & A(UP_DISCONNECT)) {
		KUNIT_EXPECT_FALSE(test, h & (H_DISC | H_CLOSE));
		/* What the peer sent before its FIN is delivered first. */
		KUNIT_EXPECT_TRUE(test, a & A(DRAIN));
	}
	if (a & A(UP_CLOSE))
		KUNIT_EXPECT_FALSE(test, h & H_CLOSE);
	KUNIT_EXPECT_NE(test, a & (A(FIN) | A(RESET)), A(FIN) | A(RESET));
	if (a & A(SEND_REQUEST))
		KUNIT_EXPECT_TRUE(test, !passive && !(h & H_SENT_REQ));
	if (a & A(SEND_REJECT))
		KUNIT_EXPECT_TRUE(test, passive && !(h & H_ESTAB));
	/* The socket is released exactly when the endpoint closes. */
	KUNIT_EXPECT_EQ(test, !!(a & A(RELEASE)), st->next == KIW_CEP_CLOSED);
	if (st->next == KIW_CEP_CLOSED) {
		/* A connection that was up ends with CLOSE... */
		KUNIT_EXPECT_EQ(test, !!(a & A(UP_CLOSE)), !!(h & H_UP));
		/* ...and an attempt that was not, with a failed reply. */
		if (!passive && !(h & H_UP))
			KUNIT_EXPECT_TRUE(test, a & A(UP_FAILED));
	}

	h |= a & A(UP_REQUEST) ? H_REQ_UP : 0;
	h |= a & A(UP_CONNECTED) ? H_REPLY_OK : 0;
	h |= a & A(UP_FAILED) ? H_REPLY_FAIL : 0;
	h |= a & A(UP_ESTABLISHED) ? H_ESTAB : 0;
	h |= a & A(UP_DISCONNECT) ? H_DISC : 0;
	h |= a & A(UP_CLOSE) ? H_CLOSE : 0;
	h |= a & A(RELEASE) ? H_RELEASED : 0;
	h |= a & A(SEND_REQUEST) ? H_SENT_REQ : 0;
	return h;
}

static void kiw_walk(struct kiw_walk *w, enum kiw_cep_state s, unsigned int h)
{
	struct kunit *test = w->test;
	unsigned long node = (unsigned long)s << H_NBITS | h;
	enum kiw_cep_event ev;
	struct kiw_cep_step st;

	if (test_and_set_bit(node, w->seen))
		return;
	w->nodes++;
	w->states_seen |= BIT(s);
	if (s == KIW_CEP_CLOSED) {
		KUNIT_EXPECT_TRUE(test, h & H_RELEASED);
		for (ev = 0; ev < KIW_CEP_EV_COUNT; ev++)
			KUNIT_EXPECT_FALSE(test, kiw_cep_fsm(s, ev, &st));
		return;
	}
	/* Not closed: the socket is still ours. */
	KUNIT_EXPECT_FALSE(test, h & H_RELEASED);
	/* Only a connected endpoint waits without a deadline. */
	if (s != KIW_CEP_CONNECTED)
		KUNIT_EXPECT_NE(test, kiw_cep_timer_kind(s), KIW_CEP_TIMER_NONE);
	/* An abort ends anything at once (destroy_qp waits on it). */
	KUNIT_EXPECT_TRUE(test, kiw_cep_fsm(s, KIW_CEP_EV_ABORT, &st));
	KUNIT_EXPECT_EQ(test, st.next, KIW_CEP_CLOSED);

	for (ev = 0; ev < KIW_CEP_EV_COUNT; ev++) {
		if (!kiw_cep_fsm(s, ev, &st)) {
			KUNIT_EXPECT_EQ(test, st.next, s);
			KUNIT_EXPECT_EQ(test, st.actions, 0);
			continue;
		}
		w->actions_seen |= st.actions;
		kiw_walk(w, st.next, kiw_walk_check(w, s, h, ev, &st));
	}
}

static void kiw_cep_fsm_walk_test(struct kunit *test)
{
	size_t bits = KIW_CEP_STATE_COUNT << H_NBITS;
	struct kiw_walk w = { .test = test };

	w.seen = kunit_kcalloc(test, BITS_TO_LONGS(bits), sizeof(long),
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w.seen);
	kiw_walk(&w, KIW_CEP_CONNECTING, 0);
	kiw_walk(&w, KIW_CEP_AWAIT_REQ, H_PASSIVE);

	/* The walk saw every state and every action: it was not vacuous. */
	KUNIT_EXPECT_EQ(test, w.states_seen, BIT(KIW_CEP_STATE_COUNT) - 1);
	KUNIT_EXPECT_EQ(test, w.actions_seen, A(UP_CLOSE) * 2 - 1);
	kunit_info(test, "%u (state, history) nodes\n", w.nodes);
}

/* Actions run in bit order: check the order the glue relies on. */
static void kiw_cep_action_order_test(struct kunit *test)
{
	KUNIT_EXPECT_LT(test, A(DRAIN), A(UP_DISCONNECT));
	KUNIT_EXPECT_LT(test, A(UP_DISCONNECT), A(FIN));
	KUNIT_EXPECT_LT(test, A(SEND_REJECT), A(FIN));
	KUNIT_EXPECT_LT(test, A(FIN), A(RELEASE));
	KUNIT_EXPECT_LT(test, A(RESET), A(RELEASE));
	/* iw_cm hears CLOSE only once the socket is gone. */
	KUNIT_EXPECT_LT(test, A(RELEASE), A(UP_CLOSE));
}

struct kiw_sock_case {
	const char *name;
	enum kiw_cep_state state;
	int tcp_state;
	int err;
	bool rcv_shutdown;
	bool has_event;
	enum kiw_cep_event ev;
};

static const struct kiw_sock_case kiw_sock_cases[] = {
	{ "syn_sent", S(CONNECTING), TCP_SYN_SENT, 0, false, false },
	{ "connected", S(CONNECTING), TCP_ESTABLISHED, 0, false, true,
	  E(TCP_UP) },
	{ "refused", S(CONNECTING), TCP_CLOSE, ECONNREFUSED, false, true,
	  E(RESET) },
	{ "syn_error", S(CONNECTING), TCP_SYN_SENT, EHOSTUNREACH, false, true,
	  E(RESET) },
	/* Up and already closed by the peer: the Request read finds EOF. */
	{ "up_then_fin", S(CONNECTING), TCP_CLOSE_WAIT, 0, true, true,
	  E(TCP_UP) },
	/* While frames are read, reading decides. */
	{ "await_req", S(AWAIT_REQ), TCP_CLOSE_WAIT, 0, true, false },
	{ "await_rep", S(AWAIT_REP), TCP_CLOSE, ECONNRESET, true, false },
	{ "recvd_fin", S(RECVD_REQ), TCP_CLOSE_WAIT, 0, true, true,
	  E(PEER_FIN) },
	{ "recvd_rst", S(RECVD_REQ), TCP_CLOSE, ECONNRESET, true, true,
	  E(RESET) },
	{ "conn_quiet", S(CONNECTED), TCP_ESTABLISHED, 0, false, false },
	{ "conn_fin", S(CONNECTED), TCP_CLOSE_WAIT, 0, true, true,
	  E(PEER_FIN) },
	{ "conn_rst", S(CONNECTED), TCP_CLOSE, ECONNRESET, true, true,
	  E(RESET) },
	/* The error was taken by a reader: CLOSE before our FIN is a break. */
	{ "conn_rst_taken", S(CONNECTED), TCP_CLOSE, 0, true, true, E(RESET) },
	{ "conn_timeout", S(CONNECTED), TCP_CLOSE, ETIMEDOUT, false, true,
	  E(RESET) },
	{ "closing_fin", S(CLOSING), TCP_CLOSE_WAIT, 0, true, true,
	  E(PEER_FIN) },
	{ "fin_wait", S(FIN_SENT), TCP_FIN_WAIT2, 0, false, false },
	{ "fin_both", S(FIN_SENT), TCP_CLOSE, 0, true, true, E(PEER_FIN) },
	{ "fin_closing", S(FIN_SENT), TCP_CLOSING, 0, true, true,
	  E(PEER_FIN) },
	{ "fin_rst", S(FIN_SENT), TCP_CLOSE, ECONNRESET, true, true,
	  E(RESET) },
	{ "closed", S(CLOSED), TCP_CLOSE, ECONNRESET, true, false },
};

static void kiw_sock_case_desc(const struct kiw_sock_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_sock, kiw_sock_cases, kiw_sock_case_desc);

static void kiw_cep_sock_event_test(struct kunit *test)
{
	const struct kiw_sock_case *c = test->param_value;
	enum kiw_cep_event ev = KIW_CEP_EV_COUNT;

	KUNIT_ASSERT_EQ(test, kiw_cep_sock_event(c->state, c->tcp_state,
						 c->err, c->rcv_shutdown, &ev),
			c->has_event);
	if (c->has_event)
		KUNIT_EXPECT_EQ(test, ev, c->ev);
}

static void kiw_cm_addr_any_test(struct kunit *test)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

	KUNIT_EXPECT_FALSE(test, kiw_cm_addr_any(&ss));	/* AF_UNSPEC */
	in->sin_family = AF_INET;
	in->sin_port = htons(7174);
	KUNIT_EXPECT_TRUE(test, kiw_cm_addr_any(&ss));
	in->sin_addr.s_addr = htonl(0x0a4d0002);
	KUNIT_EXPECT_FALSE(test, kiw_cm_addr_any(&ss));
	in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	KUNIT_EXPECT_FALSE(test, kiw_cm_addr_any(&ss));

	memset(&ss, 0, sizeof(ss));
	in6->sin6_family = AF_INET6;
	KUNIT_EXPECT_TRUE(test, kiw_cm_addr_any(&ss));
	in6->sin6_addr.s6_addr[15] = 1;			/* ::1 */
	KUNIT_EXPECT_FALSE(test, kiw_cm_addr_any(&ss));
	ipv6_addr_set_v4mapped(0, &in6->sin6_addr);	/* ::ffff:0.0.0.0 */
	KUNIT_EXPECT_FALSE(test, kiw_cm_addr_any(&ss));
}

/* The netns rule for listeners (kiw_cm_listen.c). */
static void kiw_cm_listen_dormant_test(struct kunit *test)
{
	/* Only the identity of a netns matters here. */
	struct net *other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	struct net *me = &init_net;

	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_EXPECT_FALSE(test, kiw_cm_listen_dormant(true, me, me));
	KUNIT_EXPECT_FALSE(test, kiw_cm_listen_dormant(false, me, me));
	/* rdma_cm asks every device: another netns's device stays quiet. */
	KUNIT_EXPECT_TRUE(test, kiw_cm_listen_dormant(true, other, me));
	KUNIT_EXPECT_TRUE(test, kiw_cm_listen_dormant(true, me, other));
	/* A specific address was found on this device: always real. */
	KUNIT_EXPECT_FALSE(test, kiw_cm_listen_dormant(false, other, me));
}

static void kiw_cm_rtr_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kiw_cm_rtr(0), KIW_RTR_NONE);
	KUNIT_EXPECT_EQ(test, kiw_cm_rtr(KIW_MPA_RTR_SEND), KIW_RTR_SEND);
	KUNIT_EXPECT_EQ(test, kiw_cm_rtr(KIW_MPA_RTR_WRITE), KIW_RTR_WRITE);
	KUNIT_EXPECT_EQ(test, kiw_cm_rtr(KIW_MPA_RTR_READ), KIW_RTR_READ);
	/* The negotiation settles exactly one; anything else is none. */
	KUNIT_EXPECT_EQ(test, kiw_cm_rtr(KIW_MPA_RTR_ALL), KIW_RTR_NONE);
}

/*
 * The responder's hold (RFC 5044 7.1.2 (4)) after real frames: kept for
 * an RTR and for a Rev 1 initiator; with p2p (the default) dropped for a
 * Rev 2 initiator in client-server mode, such as Linux siw; kept for all
 * without p2p. An initiator never holds.
 */
struct kiw_hold_case {
	const char *name;
	u8 req_rev;		/* the initiator's revision */
	bool req_p2p;		/* it asks for peer-to-peer mode */
	u8 rep_rev;		/* the responder's revision setting */
	bool hold;		/* responder with p2p set */
	bool hold_strict;	/* responder with p2p clear */
};

static const struct kiw_hold_case kiw_hold_cases[] = {
	{ "rev 2 p2p (kiw, hardware)", 2, true, 2, true, true },
	{ "rev 2 client-server (siw)", 2, false, 2, false, true },
	{ "rev 2 client-server, rev 1 reply", 2, false, 1, false, true },
	{ "rev 2 p2p, rev 1 reply", 2, true, 1, false, true },
	{ "rev 1", 1, false, 2, true, true },
	{ "rev 1 to rev 1", 1, false, 1, true, true },
};

static void kiw_hold_case_desc(const struct kiw_hold_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_hold, kiw_hold_cases, kiw_hold_case_desc);

static void kiw_cm_hold_tx_test(struct kunit *test)
{
	const struct kiw_hold_case *c = test->param_value;
	struct kiw_mpa_cfg ci = { .crc = KIW_CRC_ON, .rev = c->req_rev,
				  .p2p = c->req_p2p };
	struct kiw_mpa_cfg cr = { .crc = KIW_CRC_ON, .rev = c->rep_rev };
	struct kiw_mpa_local li, lr;
	struct kiw_mpa_frame req, rep;
	struct kiw_mpa_result ri, rr;

	kiw_mpa_local_init(&li, &ci, 1, 1);
	li.p2p = ci.p2p && ci.rev == KIW_MPA_REV_2;
	kiw_mpa_local_init(&lr, &cr, 1, 1);
	KUNIT_ASSERT_EQ(test, kiw_mpa_request_init(&req, &li, NULL, 0), 0);
	KUNIT_ASSERT_EQ(test, kiw_mpa_check_request(&lr, &req), KIW_MPA_OK);
	KUNIT_ASSERT_EQ(test, kiw_mpa_reply_init(&rep, &lr, &req, false,
						 NULL, 0), 0);
	KUNIT_ASSERT_EQ(test, kiw_mpa_negotiate(KIW_MPA_RESPONDER, &lr, &req,
						&rep, &rr), KIW_MPA_OK);
	KUNIT_ASSERT_EQ(test, kiw_mpa_negotiate(KIW_MPA_INITIATOR, &li, &req,
						&rep, &ri), KIW_MPA_OK);
	KUNIT_EXPECT_EQ(test, kiw_cm_hold_tx(&req, &rr, true), c->hold);
	KUNIT_EXPECT_EQ(test, kiw_cm_hold_tx(&req, &rr, false),
			c->hold_strict);
	KUNIT_EXPECT_FALSE(test, kiw_cm_hold_tx(&req, &ri, true));
	KUNIT_EXPECT_FALSE(test, kiw_cm_hold_tx(&req, &ri, false));
	/* Only peer-to-peer settles an RTR, and then the responder holds. */
	KUNIT_EXPECT_EQ(test, !!rr.rtr,
			c->req_p2p && c->req_rev == 2 && c->rep_rev == 2);
	if (rr.rtr)
		KUNIT_EXPECT_TRUE(test, kiw_cm_hold_tx(&req, &rr, true));
}

static void kiw_cep_names_test(struct kunit *test)
{
	int i;

	for (i = 0; i < KIW_CEP_STATE_COUNT; i++)
		KUNIT_EXPECT_NOT_NULL(test, kiw_cep_state_name(i));
	for (i = 0; i < KIW_CEP_EV_COUNT; i++)
		KUNIT_EXPECT_NOT_NULL(test, kiw_cep_event_name(i));
	KUNIT_EXPECT_STREQ(test, kiw_cep_state_name(KIW_CEP_STATE_COUNT),
			   "invalid");
	KUNIT_EXPECT_STREQ(test, kiw_cep_event_name(KIW_CEP_EV_COUNT),
			   "invalid");
}

static struct kunit_case kiw_cm_test_cases[] = {
	KUNIT_CASE_PARAM(kiw_cep_fsm_table_test, kiw_fsm_gen_params),
	KUNIT_CASE(kiw_cep_fsm_walk_test),
	KUNIT_CASE(kiw_cep_action_order_test),
	KUNIT_CASE_PARAM(kiw_cep_sock_event_test, kiw_sock_gen_params),
	KUNIT_CASE(kiw_cm_addr_any_test),
	KUNIT_CASE(kiw_cm_listen_dormant_test),
	KUNIT_CASE(kiw_cm_rtr_test),
	KUNIT_CASE_PARAM(kiw_cm_hold_tx_test, kiw_hold_gen_params),
	KUNIT_CASE(kiw_cep_names_test),
	{}
};

static struct kunit_suite kiw_cm_test_suite = {
	.name = "kiw_cm",
	.test_cases = kiw_cm_test_cases,
};

kunit_test_suite(kiw_cm_test_suite);
