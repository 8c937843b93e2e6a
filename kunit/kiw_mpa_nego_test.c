// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: MPA negotiation (CRC, markers, revision, IRD/ORD, peer-to-peer),
 * MULPDU, marker arithmetic and CRC32c vectors.
 */
#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/random.h>
#include <linux/unaligned.h>

#include "kiw_mpa.h"
#include "kiw_test_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct kiw_hs {
	struct kiw_mpa_local li, lr;	/* initiator, responder settings */
	struct kiw_mpa_frame req, rep;	/* as each side parsed them */
	struct kiw_mpa_result ri, rr;
	enum kiw_mpa_err check, ei, er;	/* check_request, negotiations */
	u8 wire_req[600], wire_rep[600];
};

static struct kiw_mpa_local kiw_l(enum kiw_crc_policy crc, bool m, u8 rev)
{
	return (struct kiw_mpa_local){
		.crc = crc, .markers = m, .rev = rev, .rtr = KIW_MPA_RTR_KIW,
		.ird = 8, .ord = 8,
	};
}

/*
 * The whole startup over real octets: the initiator builds its Request,
 * the responder parses it, checks it, replies (accepting), the initiator
 * parses the Reply, and both negotiate.
 */
static void kiw_handshake(struct kunit *test, struct kiw_hs *h)
{
	struct kiw_mpa_frame sent_req, sent_rep;
	int n;

	KUNIT_ASSERT_EQ(test, kiw_mpa_request_init(&sent_req, &h->li, "I", 1),
			0);
	n = kiw_mpa_build(&sent_req, h->wire_req, sizeof(h->wire_req));
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, kiw_mpa_parse(h->wire_req, n, true, 2, 512,
					    &h->req), KIW_MPA_OK);
	h->check = kiw_mpa_check_request(&h->lr, &h->req);
	KUNIT_ASSERT_EQ(test, kiw_mpa_reply_init(&sent_rep, &h->lr, &h->req,
						 false, "R", 1), 0);
	n = kiw_mpa_build(&sent_rep, h->wire_rep, sizeof(h->wire_rep));
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, kiw_mpa_parse(h->wire_rep, n, false,
					    sent_req.rev, 512, &h->rep),
			KIW_MPA_OK);
	KUNIT_EXPECT_EQ(test, h->rep.ulp_pd_len, 1);
	KUNIT_EXPECT_EQ(test, h->req.ulp_pd_len, 1);
	h->er = kiw_mpa_negotiate(KIW_MPA_RESPONDER, &h->lr, &h->req,
				  &sent_rep, &h->rr);
	h->ei = kiw_mpa_negotiate(KIW_MPA_INITIATOR, &h->li, &sent_req,
				  &h->rep, &h->ri);
}

/*
 * CRC: OR of the two C bits; "required" refuses a peer with C=0.
 * Covers: MPA-MCR-5, MPA-MCR-6, MPA-CRC-4
 */
static void kiw_nego_crc_test(struct kunit *test)
{
	struct kiw_hs *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	enum kiw_crc_policy pi, pr;

	KUNIT_ASSERT_NOT_NULL(test, h);
	for (pi = 0; pi < KIW_CRC_POLICY_MAX; pi++)
		for (pr = 0; pr < KIW_CRC_POLICY_MAX; pr++) {
			bool on = pi != KIW_CRC_OFF || pr != KIW_CRC_OFF;
			bool refuse_r = pr == KIW_CRC_REQUIRED &&
					pi == KIW_CRC_OFF;
			bool refuse_i = pi == KIW_CRC_REQUIRED &&
					pr == KIW_CRC_OFF;

			h->li = kiw_l(pi, false, 2);
			h->lr = kiw_l(pr, false, 2);
			kiw_handshake(test, h);
			KUNIT_EXPECT_EQ(test, h->req.crc, pi != KIW_CRC_OFF);
			KUNIT_EXPECT_EQ(test, h->rep.crc, pr != KIW_CRC_OFF);
			KUNIT_EXPECT_EQ(test, h->check, refuse_r ?
					KIW_MPA_ERR_CRC_REQUIRED : KIW_MPA_OK);
			KUNIT_EXPECT_EQ(test, h->er, refuse_r ?
					KIW_MPA_ERR_CRC_REQUIRED : KIW_MPA_OK);
			KUNIT_EXPECT_EQ(test, h->ei, refuse_i ?
					KIW_MPA_ERR_CRC_REQUIRED : KIW_MPA_OK);
			if (!refuse_r)
				KUNIT_EXPECT_EQ(test, h->rr.crc, on);
			if (!refuse_i)
				KUNIT_EXPECT_EQ(test, h->ri.crc, on);
		}
}

/*
 * Markers: per direction, from the M of the frame the other side sent.
 * Covers: MPA-MCR-1, MPA-MCR-2, MPA-MCR-3
 */
static void kiw_nego_markers_test(struct kunit *test)
{
	struct kiw_hs *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	unsigned int mi, mr;

	KUNIT_ASSERT_NOT_NULL(test, h);
	for (mi = 0; mi < 2; mi++)
		for (mr = 0; mr < 2; mr++) {
			h->li = kiw_l(KIW_CRC_ON, mi, 1);
			h->lr = kiw_l(KIW_CRC_ON, mr, 1);
			kiw_handshake(test, h);
			KUNIT_ASSERT_EQ(test, h->ei, KIW_MPA_OK);
			KUNIT_ASSERT_EQ(test, h->er, KIW_MPA_OK);
			KUNIT_EXPECT_EQ(test, h->wire_req[16] & 0x80, mi << 7);
			KUNIT_EXPECT_EQ(test, h->wire_rep[16] & 0x80, mr << 7);
			KUNIT_EXPECT_EQ(test, h->ri.rx_markers, mi);
			KUNIT_EXPECT_EQ(test, h->ri.tx_markers, mr);
			KUNIT_EXPECT_EQ(test, h->rr.rx_markers, mr);
			KUNIT_EXPECT_EQ(test, h->rr.tx_markers, mi);
		}
}

/*
 * Revision: the Reply carries min(Request, responder); both agree.
 * Covers: MPA-REV-3, MPA-REV-4
 */
static void kiw_nego_rev_test(struct kunit *test)
{
	struct kiw_hs *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	unsigned int vi, vr;

	KUNIT_ASSERT_NOT_NULL(test, h);
	for (vi = 1; vi <= 2; vi++)
		for (vr = 1; vr <= 2; vr++) {
			h->li = kiw_l(KIW_CRC_ON, false, vi);
			h->lr = kiw_l(KIW_CRC_ON, false, vr);
			h->li.ird = 5;
			h->li.ord = 6;
			kiw_handshake(test, h);
			KUNIT_ASSERT_EQ(test, h->ei, KIW_MPA_OK);
			KUNIT_ASSERT_EQ(test, h->er, KIW_MPA_OK);
			KUNIT_EXPECT_EQ(test, h->wire_rep[17], min(vi, vr));
			KUNIT_EXPECT_EQ(test, h->ri.rev, min(vi, vr));
			KUNIT_EXPECT_EQ(test, h->rr.rev, min(vi, vr));
			KUNIT_EXPECT_EQ(test, h->rep.enhanced,
					vi == 2 && vr == 2);
			/* No word: each side keeps its own IRD/ORD. */
			if (vi == 1 || vr == 1) {
				KUNIT_EXPECT_EQ(test, h->ri.ird, 5);
				KUNIT_EXPECT_EQ(test, h->ri.ord, 6);
			}
			/* The responder waits for the first FPDU. */
			KUNIT_EXPECT_TRUE(test, h->rr.hold_tx);
			KUNIT_EXPECT_FALSE(test, h->ri.hold_tx);
		}
}

/* IRD/ORD: exhaustive over small values; the peers' views must fit. */
static void kiw_nego_ird_ord_test(struct kunit *test)
{
	struct kiw_hs *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	unsigned int v;

	KUNIT_ASSERT_NOT_NULL(test, h);
	for (v = 0; v < 5 * 5 * 5 * 5; v++) {
		h->li = kiw_l(KIW_CRC_ON, false, 2);
		h->lr = kiw_l(KIW_CRC_ON, false, 2);
		h->li.ird = v % 5;
		h->li.ord = v / 5 % 5;
		h->lr.ird = v / 25 % 5;
		h->lr.ord = v / 125;
		kiw_handshake(test, h);
		KUNIT_ASSERT_EQ(test, h->ei, KIW_MPA_OK);
		KUNIT_ASSERT_EQ(test, h->er, KIW_MPA_OK);
		/* The responder never exceeds the initiator's IRD... */
		KUNIT_EXPECT_EQ(test, h->rr.ord, min(h->lr.ord, h->li.ird));
		/* ...and raises its IRD to the initiator's ORD. */
		KUNIT_EXPECT_EQ(test, h->rr.ird, max(h->lr.ird, h->li.ord));
		/* Each side's ORD fits the other's IRD. */
		KUNIT_EXPECT_LE(test, h->ri.ord, h->rr.ird);
		KUNIT_EXPECT_LE(test, h->rr.ord, h->ri.ird);
		KUNIT_EXPECT_EQ(test, h->ri.ird, h->rr.ord);
		KUNIT_EXPECT_EQ(test, h->ri.ord, h->li.ord);
	}
	/* Raising is bounded by the device limit. */
	h->li = kiw_l(KIW_CRC_ON, false, 2);
	h->lr = kiw_l(KIW_CRC_ON, false, 2);
	h->li.ord = 1000;
	h->lr.ird = 1;
	kiw_handshake(test, h);
	KUNIT_EXPECT_EQ(test, h->rr.ird, KIW_MAX_IRD);
	KUNIT_EXPECT_EQ(test, h->ri.ord, KIW_MAX_IRD);
}

/*
 * A Reply whose ORD exceeds the initiator's IRD is refused (code 6); the
 * result still says how to frame the Terminate that refuses it.
 */
static void kiw_nego_insufficient_ird_test(struct kunit *test)
{
	struct kiw_mpa_local l = kiw_l(KIW_CRC_ON, false, 2);
	struct kiw_mpa_frame req, rep = {
		.rev = 2, .enhanced = true, .ird = 8, .ord = 9, .markers = true,
	};
	struct kiw_mpa_result res;

	KUNIT_ASSERT_EQ(test, kiw_mpa_request_init(&req, &l, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, kiw_mpa_negotiate(KIW_MPA_INITIATOR, &l, &req,
						&rep, &res), KIW_MPA_ERR_IRD);
	KUNIT_EXPECT_TRUE(test, res.crc);
	KUNIT_EXPECT_TRUE(test, res.tx_markers);
	KUNIT_EXPECT_FALSE(test, res.rx_markers);
	rep.ord = 8;
	KUNIT_EXPECT_EQ(test, kiw_mpa_negotiate(KIW_MPA_INITIATOR, &l, &req,
						&rep, &res), KIW_MPA_OK);
}

struct kiw_rtr_case {
	u8 offer;		/* initiator's RTR types */
	u8 take;		/* responder's */
	u8 ord;			/* initiator's ORD */
	u8 picked;		/* 0: no match */
};

static const struct kiw_rtr_case kiw_rtr_cases[] = {
	{ KIW_MPA_RTR_KIW, KIW_MPA_RTR_KIW, 4, KIW_MPA_RTR_WRITE },
	{ KIW_MPA_RTR_ALL, KIW_MPA_RTR_ALL, 4, KIW_MPA_RTR_WRITE },
	{ KIW_MPA_RTR_READ, KIW_MPA_RTR_KIW, 4, KIW_MPA_RTR_READ },
	{ KIW_MPA_RTR_READ, KIW_MPA_RTR_KIW, 0, KIW_MPA_RTR_READ },
	{ KIW_MPA_RTR_WRITE, KIW_MPA_RTR_READ, 4, 0 },
	{ KIW_MPA_RTR_SEND, KIW_MPA_RTR_KIW, 4, 0 },
	{ KIW_MPA_RTR_SEND, KIW_MPA_RTR_ALL, 4, KIW_MPA_RTR_SEND },
	{ KIW_MPA_RTR_SEND | KIW_MPA_RTR_READ, KIW_MPA_RTR_ALL, 4,
	  KIW_MPA_RTR_READ },
};

static void kiw_rtr_case_desc(const struct kiw_rtr_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "offer %#x take %#x ord %u",
		 c->offer, c->take, c->ord);
}

KUNIT_ARRAY_PARAM(kiw_rtr, kiw_rtr_cases, kiw_rtr_case_desc);

/* Peer-to-peer: A echoed, one RTR type picked, both sides agree. */
static void kiw_nego_rtr_test(struct kunit *test)
{
	const struct kiw_rtr_case *c = test->param_value;
	struct kiw_hs *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	enum kiw_mpa_err want = c->picked ? KIW_MPA_OK : KIW_MPA_ERR_RTR;

	KUNIT_ASSERT_NOT_NULL(test, h);
	h->li = kiw_l(KIW_CRC_ON, false, 2);
	h->lr = kiw_l(KIW_CRC_ON, false, 2);
	h->li.p2p = true;
	h->li.rtr = c->offer;
	h->li.ord = c->ord;
	h->lr.rtr = c->take;
	h->lr.ird = 0;
	kiw_handshake(test, h);
	KUNIT_EXPECT_TRUE(test, h->req.p2p);
	KUNIT_EXPECT_EQ(test, h->req.rtr, c->offer);
	KUNIT_EXPECT_EQ(test, h->check, want);
	KUNIT_EXPECT_EQ(test, h->er, want);
	KUNIT_EXPECT_EQ(test, h->ei, want);
	KUNIT_EXPECT_TRUE(test, h->rep.p2p);
	KUNIT_EXPECT_EQ(test, h->rep.rtr, c->picked);
	if (!c->picked)
		return;
	KUNIT_EXPECT_EQ(test, h->ri.rtr, c->picked);
	KUNIT_EXPECT_EQ(test, h->rr.rtr, c->picked);
	KUNIT_EXPECT_TRUE(test, h->ri.send_rtr);
	KUNIT_EXPECT_FALSE(test, h->ri.await_rtr);
	KUNIT_EXPECT_TRUE(test, h->rr.await_rtr);
	KUNIT_EXPECT_FALSE(test, h->rr.send_rtr);
	KUNIT_EXPECT_TRUE(test, h->rr.hold_tx);
	/* A zero-length Read needs one credit at each end. */
	if (c->picked == KIW_MPA_RTR_READ) {
		KUNIT_EXPECT_GE(test, h->ri.ord, 1);
		KUNIT_EXPECT_GE(test, h->rr.ird, 1);
	}
}

/* Replies an initiator must refuse in peer-to-peer mode (code 7). */
static void kiw_nego_rtr_bad_reply_test(struct kunit *test)
{
	struct kiw_mpa_local l = kiw_l(KIW_CRC_ON, false, 2);
	struct kiw_mpa_frame req, rep = {
		.rev = 2, .enhanced = true, .ird = 8, .ord = 8, .p2p = true,
	};
	struct kiw_mpa_result res;
	enum kiw_mpa_err e;
	u8 rtr;

	l.p2p = true;
	l.rtr = KIW_MPA_RTR_WRITE | KIW_MPA_RTR_READ;
	KUNIT_ASSERT_EQ(test, kiw_mpa_request_init(&req, &l, NULL, 0), 0);
	for (rtr = 0; rtr <= KIW_MPA_RTR_ALL; rtr++) {
		bool ok = rtr == KIW_MPA_RTR_WRITE || rtr == KIW_MPA_RTR_READ;

		rep.rtr = rtr;
		e = kiw_mpa_negotiate(KIW_MPA_INITIATOR, &l, &req, &rep, &res);
		KUNIT_EXPECT_EQ_MSG(test, e, ok ? KIW_MPA_OK : KIW_MPA_ERR_RTR,
				    "rtr %#x", rtr);
	}
	/* A not echoed. */
	rep.p2p = false;
	rep.rtr = 0;
	KUNIT_EXPECT_EQ(test, kiw_mpa_negotiate(KIW_MPA_INITIATOR, &l, &req,
						&rep, &res), KIW_MPA_ERR_RTR);
	/* A in a Reply to a client-server Request. */
	l.p2p = false;
	KUNIT_ASSERT_EQ(test, kiw_mpa_request_init(&req, &l, NULL, 0), 0);
	rep.p2p = true;
	rep.rtr = KIW_MPA_RTR_WRITE;
	KUNIT_EXPECT_EQ(test, kiw_mpa_negotiate(KIW_MPA_INITIATOR, &l, &req,
						&rep, &res), KIW_MPA_ERR_RTR);
	/* A Reply above the Request's revision. */
	req.rev = 1;
	KUNIT_EXPECT_EQ(test, kiw_mpa_negotiate(KIW_MPA_INITIATOR, &l, &req,
						&rep, &res), KIW_MPA_ERR_REV);
}

/* A Rev 2 peer-to-peer initiator against a Rev 1 responder falls back. */
static void kiw_nego_fallback_test(struct kunit *test)
{
	struct kiw_hs *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	h->li = kiw_l(KIW_CRC_ON, false, 2);
	h->li.p2p = true;
	h->lr = kiw_l(KIW_CRC_ON, false, 1);
	kiw_handshake(test, h);
	KUNIT_EXPECT_EQ(test, h->check, KIW_MPA_OK);
	KUNIT_EXPECT_EQ(test, h->ei, KIW_MPA_OK);
	KUNIT_EXPECT_EQ(test, h->er, KIW_MPA_OK);
	KUNIT_EXPECT_EQ(test, h->wire_rep[17], 1);
	KUNIT_EXPECT_EQ(test, h->ri.rtr, 0);
	KUNIT_EXPECT_FALSE(test, h->ri.send_rtr);
	KUNIT_EXPECT_FALSE(test, h->rr.await_rtr);
	KUNIT_EXPECT_TRUE(test, h->rr.hold_tx);
}

/*
 * A reject Reply is a full Reply: Rep key, Rev, R, M and C, PD.
 * Covers: MPA-REJ-4
 */
static void kiw_nego_reject_test(struct kunit *test)
{
	struct kiw_mpa_local l = kiw_l(KIW_CRC_ON, true, 2);
	struct kiw_mpa_frame req, rep, got;
	u8 buf[64];

	KUNIT_ASSERT_EQ(test, kiw_mpa_request_init(&req, &l, NULL, 0), 0);
	KUNIT_ASSERT_EQ(test, kiw_mpa_reply_init(&rep, &l, &req, true, "no", 2),
			0);
	KUNIT_ASSERT_EQ(test, kiw_mpa_build(&rep, buf, sizeof(buf)), 26);
	KUNIT_EXPECT_EQ(test, buf[16], 0x80 | 0x40 | 0x20 | 0x10);
	KUNIT_ASSERT_EQ(test, kiw_mpa_parse(buf, 26, false, 2, 512, &got),
			KIW_MPA_OK);
	KUNIT_EXPECT_TRUE(test, got.reject);
	KUNIT_EXPECT_FALSE(test, got.p2p);
	KUNIT_EXPECT_MEMEQ(test, got.ulp_pd, "no", 2);
}

/* Settings from the module parameters: as given, IRD/ORD capped. */
static void kiw_nego_local_init_test(struct kunit *test)
{
	struct kiw_mpa_cfg cfg = {
		.crc = KIW_CRC_REQUIRED, .markers = true, .rev = 1,
	};
	struct kiw_mpa_local l;

	kiw_mpa_local_init(&l, &cfg, 3, 100000);
	KUNIT_EXPECT_EQ(test, l.crc, KIW_CRC_REQUIRED);
	KUNIT_EXPECT_TRUE(test, l.markers);
	KUNIT_EXPECT_EQ(test, l.rev, 1);
	KUNIT_EXPECT_FALSE(test, l.p2p);
	KUNIT_EXPECT_EQ(test, l.rtr, KIW_MPA_RTR_KIW);
	KUNIT_EXPECT_EQ(test, l.ird, 3);
	KUNIT_EXPECT_EQ(test, l.ord, KIW_MAX_ORD);
	kiw_mpa_local_init(&l, &cfg, 100000, 0);
	KUNIT_EXPECT_EQ(test, l.ird, KIW_MAX_IRD);
	KUNIT_EXPECT_EQ(test, l.ord, 0);
}

static struct kunit_case kiw_mpa_nego_cases[] = {
	KUNIT_CASE(kiw_nego_crc_test),
	KUNIT_CASE(kiw_nego_markers_test),
	KUNIT_CASE(kiw_nego_rev_test),
	KUNIT_CASE(kiw_nego_ird_ord_test),
	KUNIT_CASE(kiw_nego_insufficient_ird_test),
	KUNIT_CASE_PARAM(kiw_nego_rtr_test, kiw_rtr_gen_params),
	KUNIT_CASE(kiw_nego_rtr_bad_reply_test),
	KUNIT_CASE(kiw_nego_fallback_test),
	KUNIT_CASE(kiw_nego_reject_test),
	KUNIT_CASE(kiw_nego_local_init_test),
	{}
};

static struct kunit_suite kiw_mpa_nego_suite = {
	.name = "kiw_mpa_nego",
	.test_cases = kiw_mpa_nego_cases,
};

struct kiw_mulpdu_case {
	unsigned int emss, with, without;
};

/* CONFORMANCE 4.3 (MPA-SZ-1/2) and the clamps (MPA-IF-3, MPA-SZ-6). */
static const struct kiw_mulpdu_case kiw_mulpdu_cases[] = {
	{ 536, 522, 530 }, { 1448, 1430, 1442 }, { 1460, 1442, 1454 },
	{ 8948, 8870, 8942 }, { 9000, 8922, 8994 },
	{ 0, 128, 128 }, { 40, 128, 128 }, { 100, 128, 128 },
	{ 127, 128, 128 }, { 128, 128, 128 }, { 134, 128, 128 },
	{ 141, 130, 134 }, { 146, 134, 138 }, { 65495, 64768, 64768 },
	{ 65535, 64768, 64768 },
};

static void kiw_mulpdu_case_desc(const struct kiw_mulpdu_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "EMSS %u", c->emss);
}

KUNIT_ARRAY_PARAM(kiw_mulpdu, kiw_mulpdu_cases, kiw_mulpdu_case_desc);

/*
 * Covers: MPA-SZ-1, MPA-SZ-2, MPA-SZ-6, MPA-IF-2, MPA-IF-3
 * Covers: DDP-LLP-1
 */
static void kiw_mulpdu_test(struct kunit *test)
{
	const struct kiw_mulpdu_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, kiw_mpa_mulpdu(c->emss, true), c->with);
	KUNIT_EXPECT_EQ(test, kiw_mpa_mulpdu(c->emss, false), c->without);
}

/*
 * An FPDU of MULPDU octets always fits the EMSS, markers and all.
 * Covers: MPA-SZ-1
 */
static void kiw_mulpdu_fits_test(struct kunit *test)
{
	unsigned int emss, start;

	for (emss = 140; emss <= 9004; emss = emss == 1600 ? 8940 : emss + 1) {
		unsigned int m = kiw_mpa_mulpdu(emss, true);

		for (start = 0; start < 512; start += 4) {
			struct kiw_fpdu_layout lay;

			KUNIT_ASSERT_EQ(test, kiw_fpdu_layout(&lay, start, m,
							      true), 0);
			KUNIT_ASSERT_LE_MSG(test, lay.wire_len, emss,
					    "EMSS %u start %u", emss, start);
		}
		KUNIT_ASSERT_LE(test, kiw_mpa_mulpdu(emss, false) + 6 +
				kiw_mpa_pad(kiw_mpa_mulpdu(emss, false)), emss);
	}
}

/* TCP sequence number of the first marker at or after @seq. */
static u32 kiw_seq_next_marker(u32 seq, u32 seq_start)
{
	return seq_start + kiw_mpa_next_marker(kiw_mpa_stream_off(seq,
								  seq_start));
}

/*
 * RFC 5044 4.3: SeqStart 11 -> markers at 11, 523, 1035, and across the
 * 32-bit wrap.
 * Covers: MPA-MK-4, MPA-MK-14
 */
static void kiw_marker_positions_test(struct kunit *test)
{
	static const u32 starts[] = { 11, 0, 0xfffffe04, 0xffffffff, 513 };
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		u32 s = starts[i];

		for (k = 0; k < 2048; k++) {
			u32 off = kiw_mpa_stream_off(s + k, s);
			bool is_mk = k % 512 == 0;

			KUNIT_ASSERT_EQ(test, off, k);
			KUNIT_ASSERT_EQ(test, kiw_mpa_to_marker(off) == 0, is_mk);
			KUNIT_ASSERT_EQ(test, kiw_mpa_next_marker(off),
					round_up(k, 512));
		}
	}
	/* The RFC example, in sequence numbers. */
	KUNIT_EXPECT_EQ(test, kiw_seq_next_marker(12, 11), 523);
	KUNIT_EXPECT_EQ(test, kiw_seq_next_marker(524, 11), 1035);
	/* Across the wrap: 0xfffffe04 -> 0x4 -> 0x204. */
	KUNIT_EXPECT_EQ(test, kiw_seq_next_marker(0xfffffe05, 0xfffffe04), 4);
	KUNIT_EXPECT_EQ(test, kiw_seq_next_marker(5, 0xfffffe04), 0x204);
	/* Stream offsets wrap after 4 GiB; the grid stays. */
	KUNIT_EXPECT_EQ(test, kiw_mpa_next_marker(0xfffffff0), 0);
	KUNIT_EXPECT_EQ(test, kiw_mpa_to_marker(0xfffffe00), 0);
	KUNIT_EXPECT_EQ(test, kiw_mpa_to_marker(0xfffffe04), 508);
}

/*
 * FPDUPTR, both ways (RFC Figs. 4, 5 and 6); its low bits are ignored.
 * Covers: MPA-MK-3, MPA-MK-6, MPA-MK-7, MPA-MK-10
 */
static void kiw_marker_fpduptr_test(struct kunit *test)
{
	u32 s;

	KUNIT_EXPECT_EQ(test, kiw_mpa_fpduptr(0x200, 0x1ec), 0x14);
	KUNIT_EXPECT_EQ(test, kiw_mpa_fpduptr(0, 4), 0);
	KUNIT_EXPECT_EQ(test, kiw_mpa_fpduptr(0x200, 0x204), 0);
	KUNIT_EXPECT_EQ(test, kiw_mpa_fpduptr(1000 + 12, 1000), 12);
	KUNIT_EXPECT_EQ(test, kiw_mpa_fpdu_start(4, 0x10), 0xfffffff4);
	KUNIT_EXPECT_EQ(test, kiw_mpa_fpdu_start(4, 0x13), 0xfffffff4);
	KUNIT_EXPECT_EQ(test, kiw_mpa_fpdu_start(0x200, 0x14), 0x1ec);
	KUNIT_EXPECT_EQ(test, kiw_mpa_fpdu_start(0x200, 0), 0x200);
	KUNIT_EXPECT_EQ(test, kiw_mpa_ulpdu_len_off(0x200, 0), 0x204);
	KUNIT_EXPECT_EQ(test, kiw_mpa_ulpdu_len_off(0x200, 3), 0x204);
	KUNIT_EXPECT_EQ(test, kiw_mpa_ulpdu_len_off(0x200, 0x14), 0x1ec);
	KUNIT_EXPECT_EQ(test, kiw_mpa_ulpdu_len_off(0, 0x10), 0xfffffff0);
	for (s = 0xffffff00; s != 0x100; s += 4) {
		u32 mk = kiw_mpa_next_marker(s + 4);
		u16 ptr = kiw_mpa_fpduptr(mk, s);

		KUNIT_ASSERT_EQ(test, kiw_mpa_ulpdu_len_off(mk, ptr), s);
	}
}

/*
 * RFC 3720 B.4 and the CRC-32C check value (CONFORMANCE 4.2).
 * Covers: MPA-CRC-1, MPA-CRC-8, DDP-LLP-6
 */
static void kiw_crc32c_vectors_test(struct kunit *test)
{
	static const u8 want[4][4] = {
		{ 0xaa, 0x36, 0x91, 0x8a }, { 0x43, 0xab, 0xa8, 0x62 },
		{ 0x4e, 0x79, 0xdd, 0x46 }, { 0x5c, 0xdb, 0x3f, 0x11 },
	};
	u8 in[4][32], wire[4];
	unsigned int v, i;
	u32 c;

	for (i = 0; i < 32; i++) {
		in[0][i] = 0;
		in[1][i] = 0xff;
		in[2][i] = i;
		in[3][i] = 31 - i;
	}
	for (v = 0; v < 4; v++) {
		kiw_crc_put(wire, kiw_crc_final(kiw_crc_update(kiw_crc_init(),
							       in[v], 32)));
		KUNIT_EXPECT_MEMEQ(test, wire, want[v], 4);
	}
	c = kiw_crc_update(kiw_crc_init(), "123456789", 9);
	KUNIT_EXPECT_EQ(test, kiw_crc_final(c), 0xe3069283);
	/* Piecewise updates give the same value. */
	c = kiw_crc_update(kiw_crc_init(), "1234", 4);
	c = kiw_crc_update(c, "56789", 5);
	KUNIT_EXPECT_EQ(test, kiw_crc_final(c), 0xe3069283);
}

/*
 * Figs. 5/6: the right bytes, and each common bug's wrong ones (4.4).
 * Covers: MPA-CRC-8, MPA-CRC-9, MPA-CRC-10, MPA-MK-11
 */
static void kiw_crc32c_fig_test(struct kunit *test)
{
	static const u8 be5[] = { 0x83, 0x99, 0x23, 0x52 };
	static const u8 be6[] = { 0x98, 0x58, 0x92, 0x84 };
	static const u8 nomk5[] = { 0xb7, 0x24, 0x3e, 0xc3 };
	static const u8 nomk6[] = { 0x29, 0x0f, 0xbe, 0xde };
	static const u8 nocompl5[] = { 0xad, 0xdc, 0x66, 0x7c };
	u32 c5 = kiw_crc_update(kiw_crc_init(), kiw_vec_fig5, 48);
	u32 c6 = kiw_crc_update(kiw_crc_init(), kiw_vec_fig6, 48);
	u8 w[4];

	KUNIT_EXPECT_EQ(test, kiw_crc_final(c5), 0x83992352);
	kiw_crc_put(w, kiw_crc_final(c5));
	KUNIT_EXPECT_MEMEQ(test, w, kiw_vec_fig5 + 48, 4);
	kiw_crc_put(w, kiw_crc_final(c6));
	KUNIT_EXPECT_MEMEQ(test, w, kiw_vec_fig6 + 48, 4);
	KUNIT_EXPECT_EQ(test, kiw_crc_get(kiw_vec_fig6 + 48),
			kiw_crc_final(c6));

	put_unaligned_be32(kiw_crc_final(c5), w);
	KUNIT_EXPECT_MEMEQ(test, w, be5, 4);
	put_unaligned_be32(kiw_crc_final(c6), w);
	KUNIT_EXPECT_MEMEQ(test, w, be6, 4);
	kiw_crc_put(w, kiw_crc_final(kiw_crc_update(kiw_crc_init(),
						    kiw_vec_fig5 + 4, 44)));
	KUNIT_EXPECT_MEMEQ(test, w, nomk5, 4);
	c6 = kiw_crc_update(kiw_crc_init(), kiw_vec_fig6, 20);
	c6 = kiw_crc_update(c6, kiw_vec_fig6 + 24, 24);
	kiw_crc_put(w, kiw_crc_final(c6));
	KUNIT_EXPECT_MEMEQ(test, w, nomk6, 4);
	kiw_crc_put(w, c5);
	KUNIT_EXPECT_MEMEQ(test, w, nocompl5, 4);
}

/*
 * Both implementations kiw_crc_update() chooses from (kiw_crc.c) give the
 * CRC-32C check value, Fig. 5's CRC, and crc32c()'s value for random
 * buffers at random lengths and alignments, in one piece and in two; and
 * the parameter refuses anything else. The choice made at load (or by the
 * parameter) is restored afterwards.
 * Covers: MPA-CRC-1, MPA-CRC-8
 */
static void kiw_crc_impl_test(struct kunit *test)
{
	static const char *const impls[] = { "table", "crypto" };
	const char *asked = kiw_crc_asked_impl();
	unsigned int i, n, len, off, cut;
	u8 *buf;
	u32 c;

	buf = kunit_kmalloc(test, 9100, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, kiw_crc_set_impl("tables"), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiw_crc_set_impl(""), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(impls); i++) {
		KUNIT_EXPECT_EQ(test, kiw_crc_set_impl(impls[i]), 0);
		KUNIT_EXPECT_EQ(test, kiw_crc_uses_table(), i == 0);
		KUNIT_EXPECT_STREQ(test, kiw_crc_asked_impl(), impls[i]);
		c = kiw_crc_update(kiw_crc_init(), "123456789", 9);
		KUNIT_EXPECT_EQ_MSG(test, kiw_crc_final(c), 0xe3069283,
				    "%s", impls[i]);
		c = kiw_crc_update(kiw_crc_init(), kiw_vec_fig5, 48);
		KUNIT_EXPECT_EQ_MSG(test, kiw_crc_final(c), 0x83992352,
				    "%s", impls[i]);
		for (n = 0; n < 64; n++) {
			len = get_random_u32_below(9000);
			off = get_random_u32_below(64);
			cut = len ? get_random_u32_below(len) : 0;
			get_random_bytes(buf + off, len);
			c = kiw_crc_update(~0U, buf + off, cut);
			c = kiw_crc_update(c, buf + off + cut, len - cut);
			KUNIT_EXPECT_EQ_MSG(test, c,
					    crc32c(~0U, buf + off, len),
					    "%s len %u off %u cut %u",
					    impls[i], len, off, cut);
		}
	}
	KUNIT_EXPECT_EQ(test, kiw_crc_set_impl(asked), 0);
}

static struct kunit_case kiw_mpa_util_cases[] = {
	KUNIT_CASE_PARAM(kiw_mulpdu_test, kiw_mulpdu_gen_params),
	KUNIT_CASE(kiw_mulpdu_fits_test),
	KUNIT_CASE(kiw_marker_positions_test),
	KUNIT_CASE(kiw_marker_fpduptr_test),
	KUNIT_CASE(kiw_crc32c_vectors_test),
	KUNIT_CASE(kiw_crc32c_fig_test),
	KUNIT_CASE(kiw_crc_impl_test),
	{}
};

static struct kunit_suite kiw_mpa_util_suite = {
	.name = "kiw_mpa_util",
	.test_cases = kiw_mpa_util_cases,
};

kunit_test_suites(&kiw_mpa_nego_suite, &kiw_mpa_util_suite);
