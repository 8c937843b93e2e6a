// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: kiw's counters (kiw_stats.h). Which counter each connection
 * event, Terminate and FPDU verdict moves, and the engines counting real
 * traffic: two QPs back to back (kiw_dp_test_util.c), a message each way,
 * FPDUs and octets on both sides equal to what crossed the wire, and a
 * corrupted FPDU counted as a CRC error and a Terminate each way.
 */
#include <kunit/test.h>

#include "kiw_cep.h"
#include "kiw_dp_test_util.h"
#include "kiw_stats.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct kiw_stats_cep_case {
	const char *name;
	enum kiw_cep_state prev;
	enum kiw_cep_event ev;
	enum kiw_cep_state next;
	int counter;
};

static const struct kiw_stats_cep_case kiw_stats_cep_cases[] = {
	{ "active_up", KIW_CEP_AWAIT_REP, KIW_CEP_EV_REPLY, KIW_CEP_CONNECTED,
	  KIW_STAT_CONN_ESTABLISHED },
	{ "passive_up", KIW_CEP_RECVD_REQ, KIW_CEP_EV_ACCEPT, KIW_CEP_CONNECTED,
	  KIW_STAT_CONN_ESTABLISHED },
	{ "tcp_up", KIW_CEP_CONNECTING, KIW_CEP_EV_TCP_UP, KIW_CEP_AWAIT_REP,
	  -1 },
	{ "request", KIW_CEP_AWAIT_REQ, KIW_CEP_EV_REQUEST, KIW_CEP_RECVD_REQ,
	  -1 },
	{ "consumer_rejects", KIW_CEP_RECVD_REQ, KIW_CEP_EV_REJECT,
	  KIW_CEP_CLOSED, KIW_STAT_CONN_REJECTS_SENT },
	{ "kiw_refuses", KIW_CEP_AWAIT_REQ, KIW_CEP_EV_REFUSE, KIW_CEP_CLOSED,
	  KIW_STAT_CONN_REJECTS_SENT },
	{ "peer_rejects", KIW_CEP_AWAIT_REP, KIW_CEP_EV_REJECTED,
	  KIW_CEP_CLOSED, KIW_STAT_CONN_REJECTS_RECEIVED },
	{ "bad_request", KIW_CEP_AWAIT_REQ, KIW_CEP_EV_BAD_FRAME,
	  KIW_CEP_CLOSED, KIW_STAT_CONN_MPA_ERRORS },
	{ "bad_reply", KIW_CEP_AWAIT_REP, KIW_CEP_EV_BAD_FRAME, KIW_CEP_CLOSED,
	  KIW_STAT_CONN_MPA_ERRORS },
	{ "startup_timeout", KIW_CEP_AWAIT_REP, KIW_CEP_EV_TIMEOUT,
	  KIW_CEP_CLOSED, KIW_STAT_CONN_TIMEOUTS },
	{ "close_timeout", KIW_CEP_FIN_SENT, KIW_CEP_EV_TIMEOUT, KIW_CEP_CLOSED,
	  KIW_STAT_CONN_TIMEOUTS },
	{ "reset", KIW_CEP_CONNECTED, KIW_CEP_EV_RESET, KIW_CEP_CLOSED,
	  KIW_STAT_CONN_RESETS },
	{ "graceful", KIW_CEP_CONNECTED, KIW_CEP_EV_CLOSE, KIW_CEP_CLOSING, -1 },
	{ "peer_fin", KIW_CEP_CONNECTED, KIW_CEP_EV_PEER_FIN, KIW_CEP_CLOSED,
	  -1 },
	{ "abort", KIW_CEP_CONNECTED, KIW_CEP_EV_ABORT, KIW_CEP_CLOSED, -1 },
};

static void kiw_stats_cep_desc(const struct kiw_stats_cep_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_stats_cep, kiw_stats_cep_cases, kiw_stats_cep_desc);

static void kiw_stats_cep_test(struct kunit *test)
{
	const struct kiw_stats_cep_case *c = test->param_value;
	struct kiw_cep_step st;

	/* Each case is a step the state machine really takes. */
	KUNIT_ASSERT_TRUE(test, kiw_cep_fsm(c->prev, c->ev, &st));
	KUNIT_ASSERT_EQ(test, st.next, c->next);
	KUNIT_EXPECT_EQ(test, kiw_stats_cep_counter(c->prev, c->ev, c->next),
			c->counter);
}

/* Established is counted once: no step from CONNECTED counts it again. */
static void kiw_stats_established_once_test(struct kunit *test)
{
	struct kiw_cep_step st;
	int ev;

	for (ev = 0; ev < KIW_CEP_EV_COUNT; ev++) {
		if (!kiw_cep_fsm(KIW_CEP_CONNECTED, ev, &st))
			continue;
		KUNIT_EXPECT_NE(test, kiw_stats_cep_counter(KIW_CEP_CONNECTED,
							    ev, st.next),
				KIW_STAT_CONN_ESTABLISHED);
	}
}

static void kiw_stats_term_test(struct kunit *test)
{
	kiw_term_t rdmap = KIW_TERM(KIW_TERM_LAYER_RDMAP,
				    KIW_RDMAP_ETYPE_CATASTROPHIC,
				    KIW_RDMAP_ECODE_CATASTROPHIC);
	kiw_term_t ddp = KIW_TERM(KIW_TERM_LAYER_DDP, 1, 0);
	kiw_term_t mpa = KIW_TERM(KIW_TERM_LAYER_LLP, KIW_LLP_ETYPE_MPA,
				  KIW_LLP_ECODE_CRC);

	KUNIT_EXPECT_EQ(test, kiw_stats_term_counter(rdmap, true),
			KIW_STAT_TX_TERM_RDMAP);
	KUNIT_EXPECT_EQ(test, kiw_stats_term_counter(ddp, true),
			KIW_STAT_TX_TERM_DDP);
	KUNIT_EXPECT_EQ(test, kiw_stats_term_counter(mpa, true),
			KIW_STAT_TX_TERM_MPA);
	KUNIT_EXPECT_EQ(test, kiw_stats_term_counter(rdmap, false),
			KIW_STAT_RX_TERM_RDMAP);
	KUNIT_EXPECT_EQ(test, kiw_stats_term_counter(ddp, false),
			KIW_STAT_RX_TERM_DDP);
	KUNIT_EXPECT_EQ(test, kiw_stats_term_counter(mpa, false),
			KIW_STAT_RX_TERM_MPA);
	/* A peer's layer 3..15, and no error at all, count nowhere. */
	KUNIT_EXPECT_EQ(test, kiw_stats_term_counter(KIW_TERM(3, 0, 0), false),
			-1);
	KUNIT_EXPECT_EQ(test, kiw_stats_term_counter(KIW_TERM(15, 15, 255),
						     false), -1);
	KUNIT_EXPECT_EQ(test, kiw_stats_term_counter(KIW_TERM_NONE, true), -1);
}

static void kiw_stats_rx_verdict_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kiw_stats_rx_counter(KIW_TERM_NONE),
			KIW_STAT_RX_FPDUS);
	KUNIT_EXPECT_EQ(test, kiw_stats_rx_counter(KIW_FPDU_ERR_CRC),
			KIW_STAT_RX_CRC_ERRORS);
	KUNIT_EXPECT_EQ(test, kiw_stats_rx_counter(KIW_FPDU_ERR_MARKER),
			KIW_STAT_RX_MARKER_ERRORS);
	KUNIT_EXPECT_EQ(test, kiw_stats_rx_counter(KIW_TERM(1, 2, 1)), -1);
}

/* ULPDU_Length (2) + ULPDU + PAD to a multiple of 4 + CRC (4). */
static void kiw_stats_octets_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kiw_stats_fpdu_octets(18), 24);
	KUNIT_EXPECT_EQ(test, kiw_stats_fpdu_octets(19), 28);
	KUNIT_EXPECT_EQ(test, kiw_stats_fpdu_octets(20), 28);
	KUNIT_EXPECT_EQ(test, kiw_stats_fpdu_octets(21), 28);
	KUNIT_EXPECT_EQ(test, kiw_stats_fpdu_octets(22), 28);
	KUNIT_EXPECT_EQ(test, kiw_stats_fpdu_octets(1442), 1448);
}

/* Every counter has a name; names are unique. */
static void kiw_stats_names_test(struct kunit *test)
{
	int i, j;

	for (i = 0; i < KIW_STAT_COUNT; i++) {
		KUNIT_ASSERT_NOT_NULL(test, kiw_stat_name(i));
		KUNIT_EXPECT_STRNEQ(test, kiw_stat_name(i), "invalid");
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, kiw_stat_name(i),
					    kiw_stat_name(j));
	}
}

static void kiw_stats_post(struct kunit *test, struct kiw_dp_env *e, int from,
			   struct kiw_dp_region *src, struct kiw_dp_region *dst,
			   u32 len)
{
	struct ib_sge sge = { src->iova, len, src->stag };
	struct ib_sge rsge = { dst->iova, len, dst->stag };
	struct ib_send_wr swr = {
		.opcode = IB_WR_SEND, .sg_list = &sge, .num_sge = 1,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 };
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *sbad;

	KUNIT_ASSERT_EQ(test, kiw_post_recv(&e->qp[!from]->base, &rwr, &rbad),
			0);
	KUNIT_ASSERT_EQ(test, kiw_post_send(&e->qp[from]->base, &swr, &sbad),
			0);
}

/* Everything side @from has, moved across; the wire octets it took. */
static u64 kiw_stats_pump(struct kunit *test, struct kiw_dp_env *e, int from,
			  unsigned int mss)
{
	unsigned int n, len;
	u64 wire = 0;

	while ((len = kiw_dp_step(test, e, from, mss, &n))) {
		kiw_dp_feed(test, e, !from, e->wire, len);
		wire += len;
		KUNIT_ASSERT_LT(test, wire, 1ULL << 24);
	}
	return wire;
}

struct kiw_stats_traffic_case {
	const char *name;
	bool crc;
	bool markers;
	u32 len;
	unsigned int mss;
};

static const struct kiw_stats_traffic_case kiw_stats_traffic_cases[] = {
	{ "crc", true, false, 5000, 1448 },
	{ "no_crc", false, false, 1, 1448 },
	{ "markers", true, true, 9000, 536 },
};

static void kiw_stats_traffic_desc(const struct kiw_stats_traffic_case *c,
				   char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_stats_traffic, kiw_stats_traffic_cases,
		  kiw_stats_traffic_desc);

/*
 * A message each way. Both QPs are on one device, so what one side
 * sends, the same device receives: the two halves must agree, and
 * without markers equal the octets that crossed the wire.
 */
static void kiw_stats_traffic_test(struct kunit *test)
{
	const struct kiw_stats_traffic_case *c = test->param_value;
	struct kiw_dp_env *e = kiw_dp_env(test, c->crc, c->markers, 4);
	u32 acc = IB_ACCESS_LOCAL_WRITE;
	struct kiw_dp_region *r[2];
	u64 v[KIW_STAT_COUNT], wire;
	int i;

	for (i = 0; i < 2; i++)
		r[i] = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0,
				     c->len, acc, 0);
	kiw_stats_read(e->kdev, v);
	for (i = 0; i < KIW_STAT_COUNT; i++)
		KUNIT_EXPECT_EQ_MSG(test, v[i], 0, "%s", kiw_stat_name(i));

	kiw_stats_post(test, e, 0, r[0], r[1], c->len);
	wire = kiw_stats_pump(test, e, 0, c->mss);
	kiw_stats_post(test, e, 1, r[1], r[0], c->len);
	wire += kiw_stats_pump(test, e, 1, c->mss);

	kiw_stats_read(e->kdev, v);
	KUNIT_EXPECT_EQ(test, v[KIW_STAT_TX_FPDUS], e->nr_fpdu);
	KUNIT_EXPECT_GE(test, v[KIW_STAT_TX_FPDUS], 2);
	KUNIT_EXPECT_EQ(test, v[KIW_STAT_RX_FPDUS], v[KIW_STAT_TX_FPDUS]);
	KUNIT_EXPECT_EQ(test, v[KIW_STAT_RX_BYTES], v[KIW_STAT_TX_BYTES]);
	if (c->markers) {
		/* Markers are on the wire, not in the count: 4 octets each. */
		KUNIT_EXPECT_LT(test, v[KIW_STAT_TX_BYTES], wire);
		KUNIT_EXPECT_EQ(test, (wire - v[KIW_STAT_TX_BYTES]) % 4, 0);
	} else {
		KUNIT_EXPECT_EQ(test, v[KIW_STAT_TX_BYTES], wire);
	}
	for (i = KIW_STAT_RX_CRC_ERRORS; i < KIW_STAT_COUNT; i++)
		KUNIT_EXPECT_EQ_MSG(test, v[i], 0, "%s", kiw_stat_name(i));
}

/*
 * A corrupted octet: one CRC error, no good FPDU received; the receiver
 * terminates (MPA layer), and the sender receives that Terminate.
 */
static void kiw_stats_crc_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, true, false, 4);
	struct kiw_dp_region *r[2];
	u64 v[KIW_STAT_COUNT];
	unsigned int len, n;
	int i;

	for (i = 0; i < 2; i++)
		r[i] = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 500,
				     IB_ACCESS_LOCAL_WRITE, 0);
	kiw_stats_post(test, e, 0, r[0], r[1], 500);
	len = kiw_dp_step(test, e, 0, 1448, &n);
	KUNIT_ASSERT_EQ(test, n, 1);
	e->wire[100] ^= 0x10;
	kiw_dp_feed(test, e, 1, e->wire, len);
	KUNIT_ASSERT_GT(test, kiw_dp_pump_term(test, e, 1), 0);

	kiw_stats_read(e->kdev, v);
	KUNIT_EXPECT_EQ(test, v[KIW_STAT_RX_CRC_ERRORS], 1);
	KUNIT_EXPECT_EQ(test, v[KIW_STAT_TX_TERM_MPA], 1);
	KUNIT_EXPECT_EQ(test, v[KIW_STAT_RX_TERM_MPA], 1);
	/* The Send, then the Terminate; only the Terminate arrived good. */
	KUNIT_EXPECT_EQ(test, v[KIW_STAT_TX_FPDUS], 2);
	KUNIT_EXPECT_EQ(test, v[KIW_STAT_RX_FPDUS], 1);
	KUNIT_EXPECT_EQ(test, v[KIW_STAT_RX_MARKER_ERRORS], 0);
	KUNIT_EXPECT_EQ(test, v[KIW_STAT_TX_TERM_DDP] + v[KIW_STAT_TX_TERM_RDMAP],
			0);
}

static struct kunit_case kiw_stats_test_cases[] = {
	KUNIT_CASE_PARAM(kiw_stats_cep_test, kiw_stats_cep_gen_params),
	KUNIT_CASE(kiw_stats_established_once_test),
	KUNIT_CASE(kiw_stats_term_test),
	KUNIT_CASE(kiw_stats_rx_verdict_test),
	KUNIT_CASE(kiw_stats_octets_test),
	KUNIT_CASE(kiw_stats_names_test),
	KUNIT_CASE_PARAM(kiw_stats_traffic_test, kiw_stats_traffic_gen_params),
	KUNIT_CASE(kiw_stats_crc_test),
	{}
};

static struct kunit_suite kiw_stats_test_suite = {
	.name = "kiw_stats",
	.test_cases = kiw_stats_test_cases,
};

kunit_test_suite(kiw_stats_test_suite);
