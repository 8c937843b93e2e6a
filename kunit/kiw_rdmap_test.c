// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: RDMAP (RFC 5040) control octet checks, RDMA Read Request,
 * Terminate build and parse, and the consumer's view of Terminate errors.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/string.h>

#include "kiw_rdmap.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define RERR(etype, code) KIW_TERM(KIW_TERM_LAYER_RDMAP, etype, code)
#define DERR(etype, code) KIW_TERM(KIW_TERM_LAYER_DDP, etype, code)
#define LERR(code) KIW_TERM(KIW_TERM_LAYER_LLP, KIW_LLP_ETYPE_MPA, code)
#define OP_ERR(code) RERR(KIW_RDMAP_ETYPE_REMOTE_OP, code)

#define F_M KIW_TERM_CTRL_M
#define F_D KIW_TERM_CTRL_D
#define F_R KIW_TERM_CTRL_R

/* ---- Control octet ---- */

struct kiw_op_case {
	u8 opcode;
	/* accepted combinations: bit (tagged ? 4 : 0) + QN, QN 0..3 */
	u8 allowed;
};

static const struct kiw_op_case kiw_op_cases[] = {
	{ 0x0, 0xf0 },	/* RDMA Write: tagged, QN meaningless */
	{ 0x1, 0x02 },	/* Read Request: untagged, QN 1 */
	{ 0x2, 0xf0 },	/* Read Response: tagged */
	{ 0x3, 0x01 },	/* Send: untagged, QN 0 */
	{ 0x4, 0x01 },	/* Send with Invalidate */
	{ 0x5, 0x01 },	/* Send with SE */
	{ 0x6, 0x01 },	/* Send with SE and Invalidate */
	{ 0x7, 0x04 },	/* Terminate: untagged, QN 2 */
	{ 0x8, 0 }, { 0x9, 0 }, { 0xa, 0 }, { 0xb, 0 },
	{ 0xc, 0 }, { 0xd, 0 }, { 0xe, 0 }, { 0xf, 0 },
};

static void kiw_op_case_desc(const struct kiw_op_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "opcode_0x%x", c->opcode);
}

KUNIT_ARRAY_PARAM(kiw_op, kiw_op_cases, kiw_op_case_desc);

/* Every opcode x tagged/untagged x QN 0..3, with and without L. */
static void kiw_rdmap_opcode_matrix_test(struct kunit *test)
{
	const struct kiw_op_case *c = test->param_value;
	int tagged, qn, last;

	for (tagged = 0; tagged < 2; tagged++) {
		for (qn = 0; qn < 4; qn++) {
			bool ok = c->allowed & BIT(tagged * 4 + qn);
			kiw_term_t want = ok ? KIW_TERM_NONE :
				OP_ERR(KIW_RDMAP_ECODE_UNEXPECTED_OPCODE);

			for (last = 0; last < 2; last++) {
				u8 ddp = kiw_ddp_ctrl(tagged, last);
				kiw_term_t got;

				got = kiw_rdmap_rx_check(ddp, 0x40 | c->opcode,
							 qn);
				KUNIT_EXPECT_EQ_MSG(test, got, want,
						    "tagged %d qn %d last %d",
						    tagged, qn, last);
			}
		}
	}
}

/* RV other than 1 is 0x2/0x05 whatever the opcode; Rsvd is ignored. */
static void kiw_rdmap_version_test(struct kunit *test)
{
	static const u8 rv[] = { 0x00, 0x80, 0xc0 };
	const kiw_term_t want = OP_ERR(KIW_RDMAP_ECODE_INVALID_VERSION);
	int i, op, tagged;
	kiw_term_t got;

	for (i = 0; i < ARRAY_SIZE(rv); i++) {
		for (op = 0; op < 16; op++) {
			for (tagged = 0; tagged < 2; tagged++) {
				got = kiw_rdmap_rx_check(kiw_ddp_ctrl(tagged,
								      true),
							 rv[i] | op, 0);
				KUNIT_EXPECT_EQ(test, got, want);
			}
		}
	}
	KUNIT_EXPECT_EQ(test, kiw_rdmap_rx_check(0x41, 0x73, 0), KIW_TERM_NONE);
	KUNIT_EXPECT_EQ(test, kiw_rdmap_rx_check(0xc1, 0x70, 3), KIW_TERM_NONE);
	/* The DDP Rsvd bits do not confuse the model either. */
	KUNIT_EXPECT_EQ(test, kiw_rdmap_rx_check(0x7d, 0x47, 2), KIW_TERM_NONE);
}

static void kiw_rdmap_op_class_test(struct kunit *test)
{
	static const struct {
		u8 op;
		bool send, inv, se;
	} t[] = {
		{ KIW_RDMAP_WRITE, false, false, false },
		{ KIW_RDMAP_READ_REQ, false, false, false },
		{ KIW_RDMAP_READ_RESP, false, false, false },
		{ KIW_RDMAP_SEND, true, false, false },
		{ KIW_RDMAP_SEND_INV, true, true, false },
		{ KIW_RDMAP_SEND_SE, true, false, true },
		{ KIW_RDMAP_SEND_SE_INV, true, true, true },
		{ KIW_RDMAP_TERMINATE, false, false, false },
		{ 0x8, false, false, false },
		{ 0xf, false, false, false },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		KUNIT_EXPECT_EQ(test, kiw_rdmap_is_send(t[i].op), t[i].send);
		KUNIT_EXPECT_EQ(test, kiw_rdmap_has_inval_stag(t[i].op),
				t[i].inv);
		KUNIT_EXPECT_EQ(test, kiw_rdmap_is_solicited(t[i].op), t[i].se);
	}
	KUNIT_EXPECT_EQ(test, kiw_rdmap_ctrl(KIW_RDMAP_SEND), 0x43);
	KUNIT_EXPECT_EQ(test, kiw_rdmap_ctrl(KIW_RDMAP_WRITE), 0x40);
}

static struct kunit_case kiw_rdmap_ctrl_cases[] = {
	KUNIT_CASE_PARAM(kiw_rdmap_opcode_matrix_test, kiw_op_gen_params),
	KUNIT_CASE(kiw_rdmap_version_test),
	KUNIT_CASE(kiw_rdmap_op_class_test),
	{}
};

static struct kunit_suite kiw_rdmap_ctrl_suite = {
	.name = "kiw_rdmap_ctrl",
	.test_cases = kiw_rdmap_ctrl_cases,
};

/* ---- RDMA Read Request ---- */

static const struct kiw_rdmap_rreq kiw_rr = {
	.sink_stag = 0x11223344, .sink_to = 0x0102030405060708ull,
	.size = 0x1000,
	.src_stag = 0xaabbccdd, .src_to = 0x1112131415161718ull,
};

static const u8 kiw_rr_bytes[28] = {
	0x11, 0x22, 0x33, 0x44,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x00, 0x00, 0x10, 0x00,
	0xaa, 0xbb, 0xcc, 0xdd,
	0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,
};

static void kiw_rdmap_read_req_build_test(struct kunit *test)
{
	struct kiw_rdmap_read_req w;
	struct kiw_rdmap_rreq rr;

	memset(&w, 0xa5, sizeof(w));
	kiw_rdmap_read_req_build(&w, &kiw_rr);
	KUNIT_EXPECT_MEMEQ(test, &w, kiw_rr_bytes, sizeof(kiw_rr_bytes));
	KUNIT_ASSERT_EQ(test, kiw_rdmap_read_req_parse(&w, sizeof(w), &rr),
			KIW_TERM_NONE);
	KUNIT_EXPECT_EQ(test, rr.sink_stag, kiw_rr.sink_stag);
	KUNIT_EXPECT_EQ(test, rr.sink_to, kiw_rr.sink_to);
	KUNIT_EXPECT_EQ(test, rr.size, kiw_rr.size);
	KUNIT_EXPECT_EQ(test, rr.src_stag, kiw_rr.src_stag);
	KUNIT_EXPECT_EQ(test, rr.src_to, kiw_rr.src_to);
	KUNIT_EXPECT_TRUE(test, kiw_rdmap_read_req_src_check(&rr));
}

/* Any delivered length but 28 is refused; an empty read is valid. */
static void kiw_rdmap_read_req_len_test(struct kunit *test)
{
	u8 buf[64] = {};
	struct kiw_rdmap_rreq rr;
	u32 len;

	for (len = 0; len < 28; len++)
		KUNIT_EXPECT_EQ(test, kiw_rdmap_read_req_parse(buf, len, &rr),
				OP_ERR(KIW_RDMAP_ECODE_UNSPECIFIED));
	for (len = 29; len < sizeof(buf); len++)
		KUNIT_EXPECT_EQ(test, kiw_rdmap_read_req_parse(buf, len, &rr),
				DERR(KIW_DDP_ETYPE_UNTAGGED,
				     KIW_DDP_ECODE_UT_MSG_TOOLONG));
	KUNIT_EXPECT_EQ(test, kiw_rdmap_read_req_parse(buf, U32_MAX, &rr),
			DERR(KIW_DDP_ETYPE_UNTAGGED,
			     KIW_DDP_ECODE_UT_MSG_TOOLONG));
	/* all zero: size 0, STag 0: valid, and no source check */
	KUNIT_ASSERT_EQ(test, kiw_rdmap_read_req_parse(buf, 28, &rr),
			KIW_TERM_NONE);
	KUNIT_EXPECT_EQ(test, rr.size, 0);
	KUNIT_EXPECT_FALSE(test, kiw_rdmap_read_req_src_check(&rr));
}

struct kiw_rresp_case {
	const char *name;
	u32 size;	/* requested: sink STag 0x55, sink TO 0x1000 */
	u32 done;
	u32 stag;
	u64 to;
	u32 len;
	bool last;
	kiw_term_t err;
};

#define T_BOUNDS DERR(KIW_DDP_ETYPE_TAGGED, KIW_DDP_ECODE_T_BASE_BOUNDS)

static const struct kiw_rresp_case kiw_rresp_cases[] = {
	{ "first", 3000, 0, 0x55, 0x1000, 1486, false, 0 },
	{ "last", 3000, 1486, 0x55, 0x1000 + 1486, 1514, true, 0 },
	{ "single", 3000, 0, 0x55, 0x1000, 3000, true, 0 },
	{ "wrong_stag", 3000, 0, 0x56, 0x1000, 1486, false,
	  DERR(KIW_DDP_ETYPE_TAGGED, KIW_DDP_ECODE_T_INVALID_STAG) },
	{ "wrong_to", 3000, 0, 0x55, 0x1001, 1486, false, T_BOUNDS },
	{ "restarts", 3000, 1486, 0x55, 0x1000, 1486, false, T_BOUNDS },
	{ "too_long", 3000, 1486, 0x55, 0x1000 + 1486, 1515, false,
	  T_BOUNDS },
	{ "too_long_last", 3000, 1486, 0x55, 0x1000 + 1486, 1515, true,
	  T_BOUNDS },
	{ "short_last", 3000, 1486, 0x55, 0x1000 + 1486, 1000, true,
	  T_BOUNDS },
	{ "empty_read", 0, 0, 0, 0xdeadbeef, 0, true, 0 },
	{ "empty_read_with_data", 0, 0, 0x55, 0x1000, 1, true, T_BOUNDS },
	{ "empty_segment_mid", 3000, 1486, 0, 7, 0, false, 0 },
	{ "empty_segment_short", 3000, 1486, 0, 7, 0, true, T_BOUNDS },
};

static void kiw_rresp_case_desc(const struct kiw_rresp_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_rresp, kiw_rresp_cases, kiw_rresp_case_desc);

static void kiw_rdmap_read_resp_test(struct kunit *test)
{
	const struct kiw_rresp_case *c = test->param_value;
	struct kiw_rdmap_rreq rr = { .sink_stag = 0x55, .sink_to = 0x1000,
				     .size = c->size };
	struct kiw_ddp_info seg = {
		.ddp_ctrl = kiw_ddp_ctrl(true, c->last),
		.rdmap_ctrl = kiw_rdmap_ctrl(KIW_RDMAP_READ_RESP),
		.stag = c->stag, .to = c->to, .len = c->len,
	};

	KUNIT_EXPECT_EQ(test, kiw_rdmap_check_read_resp(&rr, c->done, &seg),
			c->err);
}

static struct kunit_case kiw_rdmap_rr_cases[] = {
	KUNIT_CASE(kiw_rdmap_read_req_build_test),
	KUNIT_CASE(kiw_rdmap_read_req_len_test),
	KUNIT_CASE_PARAM(kiw_rdmap_read_resp_test, kiw_rresp_gen_params),
	{}
};

static struct kunit_suite kiw_rdmap_rr_suite = {
	.name = "kiw_rdmap_read",
	.test_cases = kiw_rdmap_rr_cases,
};

/* ---- Terminate ---- */

/* The headers of offending segments, as a receive engine keeps them. */
static const u8 kiw_hdr_tagged[14] = {
	0xc1, 0x40, 0x00, 0x00, 0x12, 0x34,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00,
};

static const u8 kiw_hdr_send[18] = {
	0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
};

/* A Read Request segment: DDP header (QN 1, MSN 5) + kiw_rr_bytes. */
static u8 kiw_hdr_rreq[46];

static void kiw_hdr_rreq_fill(void)
{
	static const u8 ddp[18] = {
		0x41, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00,
	};

	memcpy(kiw_hdr_rreq, ddp, sizeof(ddp));
	memcpy(kiw_hdr_rreq + sizeof(ddp), kiw_rr_bytes, sizeof(kiw_rr_bytes));
}

enum kiw_hdr_kind { H_NONE, H_TAGGED, H_SEND, H_RREQ };

struct kiw_term_case {
	const char *name;
	kiw_term_t err;
	enum kiw_hdr_kind hdr;
	int hdr_len;		/* -1: the whole header */
	u16 seg_len;
	unsigned int len;	/* Terminate length expected */
	u32 flags;		/* M/D/R expected */
};

static const struct kiw_term_case kiw_term_cases[] = {
	{ "llp_crc", LERR(KIW_LLP_ECODE_CRC), H_SEND, -1, 100, 4, 0 },
	{ "llp_marker", LERR(KIW_LLP_ECODE_MARKER), H_TAGGED, -1, 30, 4, 0 },
	{ "ddp_ut_too_long",
	  DERR(KIW_DDP_ETYPE_UNTAGGED, KIW_DDP_ECODE_UT_MSG_TOOLONG),
	  H_SEND, -1, 1000, 24, F_M | F_D },
	{ "ddp_ut_no_buffer",
	  DERR(KIW_DDP_ETYPE_UNTAGGED, KIW_DDP_ECODE_UT_INVALID_MSN_NOBUF),
	  H_SEND, -1, 18, 24, F_M | F_D },
	{ "ddp_t_bounds",
	  DERR(KIW_DDP_ETYPE_TAGGED, KIW_DDP_ECODE_T_BASE_BOUNDS),
	  H_TAGGED, -1, 1500, 20, F_M | F_D },
	{ "ddp_t_version",
	  DERR(KIW_DDP_ETYPE_TAGGED, KIW_DDP_ECODE_T_VERSION),
	  H_TAGGED, -1, 30, 4, 0 },
	{ "ddp_ut_version",
	  DERR(KIW_DDP_ETYPE_UNTAGGED, KIW_DDP_ECODE_UT_VERSION),
	  H_SEND, -1, 30, 4, 0 },
	{ "ddp_catastrophic",
	  DERR(KIW_DDP_ETYPE_CATASTROPHIC, KIW_DDP_ECODE_CATASTROPHIC),
	  H_SEND, -1, 30, 4, 0 },
	{ "ddp_error_on_rreq",
	  DERR(KIW_DDP_ETYPE_UNTAGGED, KIW_DDP_ECODE_UT_INVALID_MSN_NOBUF),
	  H_RREQ, -1, 46, 24, F_M | F_D },
	{ "rdmap_prot_rreq",
	  RERR(KIW_RDMAP_ETYPE_REMOTE_PROT, KIW_RDMAP_ECODE_INVALID_STAG),
	  H_RREQ, -1, 46, 52, F_M | F_D | F_R },
	{ "rdmap_prot_rreq_partial",
	  RERR(KIW_RDMAP_ETYPE_REMOTE_PROT, KIW_RDMAP_ECODE_ACCESS_RIGHTS),
	  H_RREQ, 45, 46, 24, F_M | F_D },
	{ "rdmap_prot_send",
	  RERR(KIW_RDMAP_ETYPE_REMOTE_PROT, KIW_RDMAP_ECODE_CANNOT_INVALIDATE),
	  H_SEND, -1, 18, 24, F_M | F_D },
	{ "rdmap_prot_write",
	  RERR(KIW_RDMAP_ETYPE_REMOTE_PROT, KIW_RDMAP_ECODE_ACCESS_RIGHTS),
	  H_TAGGED, -1, 1500, 20, F_M | F_D },
	{ "rdmap_version_rreq", OP_ERR(KIW_RDMAP_ECODE_INVALID_VERSION),
	  H_RREQ, -1, 46, 24, F_M | F_D },
	{ "rdmap_opcode_rreq", OP_ERR(KIW_RDMAP_ECODE_UNEXPECTED_OPCODE),
	  H_RREQ, -1, 46, 24, F_M | F_D },
	{ "rdmap_stream_rreq", OP_ERR(KIW_RDMAP_ECODE_CATASTROPHIC_STREAM),
	  H_RREQ, -1, 46, 52, F_M | F_D | F_R },
	{ "rdmap_catastrophic",
	  RERR(KIW_RDMAP_ETYPE_CATASTROPHIC, KIW_RDMAP_ECODE_CATASTROPHIC),
	  H_SEND, -1, 18, 4, 0 },
	{ "no_header",
	  RERR(KIW_RDMAP_ETYPE_REMOTE_PROT, KIW_RDMAP_ECODE_INVALID_STAG),
	  H_NONE, 0, 0, 4, 0 },
	{ "short_untagged",
	  DERR(KIW_DDP_ETYPE_UNTAGGED, KIW_DDP_ECODE_UT_MSG_TOOLONG),
	  H_SEND, 17, 100, 4, 0 },
	{ "short_tagged",
	  DERR(KIW_DDP_ETYPE_TAGGED, KIW_DDP_ECODE_T_INVALID_STAG),
	  H_TAGGED, 13, 100, 4, 0 },
	{ "none", KIW_TERM_NONE, H_SEND, -1, 18, 0, 0 },
};

static void kiw_term_case_desc(const struct kiw_term_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_term, kiw_term_cases, kiw_term_case_desc);

static const u8 *kiw_term_hdr(const struct kiw_term_case *c,
			      unsigned int *len)
{
	const u8 *h = NULL;
	unsigned int full = 0;

	kiw_hdr_rreq_fill();
	switch (c->hdr) {
	case H_TAGGED:
		h = kiw_hdr_tagged;
		full = sizeof(kiw_hdr_tagged);
		break;
	case H_SEND:
		h = kiw_hdr_send;
		full = sizeof(kiw_hdr_send);
		break;
	case H_RREQ:
		h = kiw_hdr_rreq;
		full = sizeof(kiw_hdr_rreq);
		break;
	case H_NONE:
		break;
	}
	*len = c->hdr_len < 0 ? full : c->hdr_len;
	return h;
}

/* Build, check every field, then parse back what was built. */
static void kiw_rdmap_term_build_test(struct kunit *test)
{
	const struct kiw_term_case *c = test->param_value;
	struct kiw_rdmap_term_info ti;
	struct kiw_rdmap_term term;
	unsigned int hdr_len, dlen;
	const u8 *hdr = kiw_term_hdr(c, &hdr_len);
	u32 ctrl;

	memset(&term, 0xa5, sizeof(term));
	KUNIT_ASSERT_EQ(test, kiw_rdmap_term_build(&term, c->err, hdr,
						   hdr_len, c->seg_len),
			c->len);
	if (!c->len)
		return;
	ctrl = be32_to_cpu(term.ctrl);
	KUNIT_EXPECT_EQ(test, ctrl >> 16, kiw_term_wire(c->err));
	KUNIT_EXPECT_EQ(test, ctrl & KIW_TERM_CTRL_HDRCT, c->flags);
	KUNIT_EXPECT_EQ(test, ctrl & KIW_TERM_CTRL_RSVD, 0);
	if (c->flags & F_D) {
		dlen = kiw_ddp_hdr_len(hdr[0]);
		KUNIT_EXPECT_EQ(test, be16_to_cpu(term.ddp_seg_len), c->seg_len);
		KUNIT_EXPECT_MEMEQ(test, term.hdrs, hdr, dlen);
		if (c->flags & F_R)
			KUNIT_EXPECT_MEMEQ(test, term.hdrs + dlen, kiw_rr_bytes,
					   sizeof(kiw_rr_bytes));
	}

	KUNIT_ASSERT_EQ(test, kiw_rdmap_term_parse(&term, c->len, &ti), 0);
	KUNIT_EXPECT_EQ(test, ti.err, c->err);
	KUNIT_EXPECT_EQ(test, ti.hdrct, c->flags);
	if (c->flags & F_D) {
		struct kiw_ddp_info want;

		kiw_ddp_decode(hdr, &want);
		KUNIT_EXPECT_EQ(test, ti.ddp_seg_len, c->seg_len);
		KUNIT_EXPECT_EQ(test, ti.ddp.ddp_ctrl, want.ddp_ctrl);
		KUNIT_EXPECT_EQ(test, ti.ddp.stag, want.stag);
		KUNIT_EXPECT_EQ(test, ti.ddp.to, want.to);
		KUNIT_EXPECT_EQ(test, ti.ddp.qn, want.qn);
		KUNIT_EXPECT_EQ(test, ti.ddp.msn, want.msn);
		KUNIT_EXPECT_EQ(test, ti.ddp.len, c->seg_len - dlen);
	}
	if (c->flags & F_R) {
		KUNIT_EXPECT_EQ(test, ti.rreq.src_stag, kiw_rr.src_stag);
		KUNIT_EXPECT_EQ(test, ti.rreq.src_to, kiw_rr.src_to);
		KUNIT_EXPECT_EQ(test, ti.rreq.size, kiw_rr.size);
	}
}

/* The longest Terminate, octet by octet. */
static const u8 kiw_term_full[52] = {
	0x01, 0x00, 0xe0, 0x00,		/* RDMAP, prot., Invalid STag, MDR */
	0x00, 0x2e,			/* DDP Segment Length 46 */
	0x41, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00,
	0x11, 0x22, 0x33, 0x44,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x00, 0x00, 0x10, 0x00,
	0xaa, 0xbb, 0xcc, 0xdd,
	0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,
};

static void kiw_rdmap_term_vector_test(struct kunit *test)
{
	static const u8 ddp_err[24] = {
		0x12, 0x05, 0xc0, 0x00,		/* DDP, untagged, too long */
		0x03, 0xe8,			/* 1000 */
		0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	};
	static const u8 llp_err[4] = { 0x20, 0x02, 0x00, 0x00 };
	struct kiw_rdmap_term term;
	unsigned int len;
	kiw_term_t err;

	kiw_hdr_rreq_fill();
	err = RERR(KIW_RDMAP_ETYPE_REMOTE_PROT, KIW_RDMAP_ECODE_INVALID_STAG);
	len = kiw_rdmap_term_build(&term, err, kiw_hdr_rreq,
				   sizeof(kiw_hdr_rreq), 46);
	KUNIT_ASSERT_EQ(test, len, 52);
	KUNIT_EXPECT_MEMEQ(test, &term, kiw_term_full, sizeof(kiw_term_full));

	err = DERR(KIW_DDP_ETYPE_UNTAGGED, KIW_DDP_ECODE_UT_MSG_TOOLONG);
	len = kiw_rdmap_term_build(&term, err, kiw_hdr_send,
				   sizeof(kiw_hdr_send), 1000);
	KUNIT_ASSERT_EQ(test, len, 24);
	KUNIT_EXPECT_MEMEQ(test, &term, ddp_err, sizeof(ddp_err));

	len = kiw_rdmap_term_build(&term, LERR(KIW_LLP_ECODE_CRC), NULL, 0, 0);
	KUNIT_ASSERT_EQ(test, len, 4);
	KUNIT_EXPECT_MEMEQ(test, &term, llp_err, sizeof(llp_err));
}

/*
 * A Terminate travels as an untagged segment on QN 2, MSN 1, MO 0, L; the
 * receive checks accept it into a buffer of KIW_RDMAP_TERM_MAX_LEN octets
 * and refuse a longer one.
 */
static void kiw_rdmap_term_segment_test(struct kunit *test)
{
	u8 seg[sizeof(struct kiw_ddp_untagged_hdr) + KIW_RDMAP_TERM_MAX_LEN + 1];
	struct kiw_ddp_rx rx;
	struct kiw_ddp_info info;
	struct kiw_rdmap_term_info ti;

	kiw_ddp_rx_init(&rx);
	kiw_ddp_build_untagged((void *)seg,
			       kiw_rdmap_ctrl(KIW_RDMAP_TERMINATE), 0,
			       KIW_DDP_QN_TERMINATE, 1, 0, true);
	memcpy(seg + 18, kiw_term_full, sizeof(kiw_term_full));
	KUNIT_ASSERT_EQ(test, kiw_ddp_rx_parse(seg, 18 + 52, &info), 0);
	KUNIT_ASSERT_EQ(test, kiw_rdmap_rx_check(info.ddp_ctrl,
						 info.rdmap_ctrl, info.qn), 0);
	KUNIT_ASSERT_EQ(test, kiw_ddp_rx_check_untagged(&rx.q[2], &info, 1,
							KIW_RDMAP_TERM_MAX_LEN),
			0);
	KUNIT_EXPECT_TRUE(test, kiw_ddp_rxq_advance(&rx.q[2], &info));
	KUNIT_ASSERT_EQ(test, kiw_rdmap_term_parse(seg + 18,
						   kiw_ddp_msg_len(&info), &ti),
			0);
	KUNIT_EXPECT_EQ(test, ti.err, RERR(KIW_RDMAP_ETYPE_REMOTE_PROT,
					   KIW_RDMAP_ECODE_INVALID_STAG));
	/* one octet too many */
	kiw_ddp_rx_init(&rx);
	KUNIT_ASSERT_EQ(test, kiw_ddp_rx_parse(seg, sizeof(seg), &info), 0);
	KUNIT_EXPECT_EQ(test, kiw_ddp_rx_check_untagged(&rx.q[2], &info, 1,
							KIW_RDMAP_TERM_MAX_LEN),
			DERR(KIW_DDP_ETYPE_UNTAGGED,
			     KIW_DDP_ECODE_UT_MSG_TOOLONG));
}

/* Every truncation of the longest Terminate fails cleanly. */
static void kiw_rdmap_term_truncated_test(struct kunit *test)
{
	kiw_term_t err = RERR(KIW_RDMAP_ETYPE_REMOTE_PROT,
			      KIW_RDMAP_ECODE_INVALID_STAG);
	struct kiw_rdmap_term_info ti;
	unsigned int len;
	u8 *buf;

	for (len = 0; len < sizeof(kiw_term_full); len++) {
		/* exactly len octets, so KASAN sees any overread */
		buf = kunit_kmalloc(test, len ?: 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, buf);
		memcpy(buf, kiw_term_full, len);
		KUNIT_EXPECT_EQ_MSG(test, kiw_rdmap_term_parse(buf, len, &ti),
				    -EBADMSG, "len %u", len);
		if (len < 4)
			KUNIT_EXPECT_EQ(test, ti.err,
					OP_ERR(KIW_RDMAP_ECODE_UNSPECIFIED));
		else
			KUNIT_EXPECT_EQ(test, ti.err, err);
		KUNIT_EXPECT_EQ_MSG(test, ti.hdrct,
				    len >= 24 ? F_M | F_D : len >= 6 ? F_M : 0,
				    "len %u", len);
		kunit_kfree(test, buf);
	}
}

/* Malformed and unusual Terminates from the wire. */
static void kiw_rdmap_term_odd_test(struct kunit *test)
{
	static const u8 rsvd_set[] = { 0x12, 0x01, 0x1f, 0xff };
	static const u8 r_only[] = { 0x01, 0x00, 0x20, 0x00, 0x00, 0x00 };
	static const u8 d_untagged[] = { 0x11, 0x00, 0xc0, 0x00, 0x00, 0x20,
					 0x41 };
	static const u8 m_short[] = { 0x11, 0x00, 0xc0, 0x00, 0x00, 0x05,
				      0xc1 };
	static const u8 d_only[] = { 0x11, 0x00, 0x40, 0x00, 0x00, 0x40,
				     0xc1 };
	struct kiw_rdmap_term_info ti;
	u8 buf[80];

	/* Reserved bits set, no optional fields: fine. */
	memcpy(buf, rsvd_set, sizeof(rsvd_set));
	KUNIT_EXPECT_EQ(test, kiw_rdmap_term_parse(buf, 4, &ti), 0);
	KUNIT_EXPECT_EQ(test, ti.err, DERR(KIW_DDP_ETYPE_UNTAGGED,
					   KIW_DDP_ECODE_UT_INVALID_QN));
	KUNIT_EXPECT_EQ(test, ti.hdrct, 0);

	/* Octets after the announced fields are ignored. */
	memset(buf, 0xee, sizeof(buf));
	memcpy(buf, kiw_term_full, sizeof(kiw_term_full));
	KUNIT_EXPECT_EQ(test, kiw_rdmap_term_parse(buf, sizeof(buf), &ti), 0);
	KUNIT_EXPECT_EQ(test, ti.hdrct, F_M | F_D | F_R);
	KUNIT_EXPECT_EQ(test, ti.ddp.msn, 5);
	KUNIT_EXPECT_EQ(test, ti.rreq.sink_stag, kiw_rr.sink_stag);

	/* R without D: the Read Request header follows the length field. */
	memcpy(buf, r_only, sizeof(r_only));
	memcpy(buf + 6, kiw_rr_bytes, sizeof(kiw_rr_bytes));
	KUNIT_EXPECT_EQ(test, kiw_rdmap_term_parse(buf, 34, &ti), 0);
	KUNIT_EXPECT_EQ(test, ti.hdrct, F_R);
	KUNIT_EXPECT_EQ(test, ti.rreq.src_to, kiw_rr.src_to);

	/* D announcing an untagged header with only a tagged one's room. */
	memcpy(buf, d_untagged, sizeof(d_untagged));
	KUNIT_EXPECT_EQ(test, kiw_rdmap_term_parse(buf, 6 + 14, &ti),
			-EBADMSG);
	KUNIT_EXPECT_EQ(test, ti.hdrct, F_M);
	/* M's length shorter than the header: no payload length made up */
	memcpy(buf, m_short, sizeof(m_short));
	KUNIT_EXPECT_EQ(test, kiw_rdmap_term_parse(buf, 6 + 14, &ti), 0);
	KUNIT_EXPECT_EQ(test, ti.ddp_seg_len, 5);
	KUNIT_EXPECT_EQ(test, ti.ddp.len, 0);
	/* D without M: the header, but no length */
	memcpy(buf, d_only, sizeof(d_only));
	KUNIT_EXPECT_EQ(test, kiw_rdmap_term_parse(buf, 6 + 14, &ti), 0);
	KUNIT_EXPECT_EQ(test, ti.hdrct, F_D);
	KUNIT_EXPECT_EQ(test, ti.ddp.ddp_ctrl, 0xc1);
	KUNIT_EXPECT_EQ(test, ti.ddp.len, 0);
}

/* Pseudo-random Terminates of every length: no crash, sane results. */
static void kiw_rdmap_term_fuzz_test(struct kunit *test)
{
	struct kiw_rdmap_term_info ti;
	u32 x = 0x2545f491, bad = 0;
	unsigned int i, j, len;
	u8 *buf;

	for (i = 0; i < 4000; i++) {
		len = i % 64;
		buf = kunit_kmalloc(test, len ?: 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, buf);
		for (j = 0; j < len; j++) {
			x = x * 1103515245 + 12345;
			buf[j] = x >> 16;
		}
		/* make the optional fields likely */
		if (len >= 3 && (i & 1))
			buf[2] |= 0xe0;
		switch (kiw_rdmap_term_parse(buf, len, &ti)) {
		case 0:
		case -EBADMSG:
			break;
		default:
			bad++;
		}
		bad += !(ti.err & KIW_TERM_VALID);
		bad += !!(ti.hdrct & ~KIW_TERM_CTRL_HDRCT);
		kunit_kfree(test, buf);
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
}

static struct kunit_case kiw_rdmap_term_cases[] = {
	KUNIT_CASE_PARAM(kiw_rdmap_term_build_test, kiw_term_gen_params),
	KUNIT_CASE(kiw_rdmap_term_vector_test),
	KUNIT_CASE(kiw_rdmap_term_segment_test),
	KUNIT_CASE(kiw_rdmap_term_truncated_test),
	KUNIT_CASE(kiw_rdmap_term_odd_test),
	KUNIT_CASE(kiw_rdmap_term_fuzz_test),
	{}
};

static struct kunit_suite kiw_rdmap_term_suite = {
	.name = "kiw_rdmap_term",
	.test_cases = kiw_rdmap_term_cases,
};

/* ---- Consumer view ---- */

struct kiw_report_case {
	const char *name;
	kiw_term_t err;
	bool received;
	enum ib_event_type event;
	enum ib_wc_status wc;
};

#define PROT(c) RERR(KIW_RDMAP_ETYPE_REMOTE_PROT, c)
#define TAG(c) DERR(KIW_DDP_ETYPE_TAGGED, c)
#define UNTAG(c) DERR(KIW_DDP_ETYPE_UNTAGGED, c)
#define EV(e) IB_EVENT_QP_##e

static const struct kiw_report_case kiw_report_cases[] = {
	/* found here, reported to the peer */
	{ "local_catastrophic", RERR(0, 0), false, EV(FATAL), IB_WC_FATAL_ERR },
	{ "invalid_stag", PROT(0x00), false, EV(ACCESS_ERR),
	  IB_WC_LOC_PROT_ERR },
	{ "base_bounds", PROT(0x01), false, EV(ACCESS_ERR),
	  IB_WC_LOC_PROT_ERR },
	{ "access_rights", PROT(0x02), false, EV(ACCESS_ERR),
	  IB_WC_LOC_PROT_ERR },
	{ "not_associated", PROT(0x03), false, EV(ACCESS_ERR),
	  IB_WC_LOC_PROT_ERR },
	{ "to_wrap", PROT(0x04), false, EV(ACCESS_ERR), IB_WC_LOC_PROT_ERR },
	{ "prot_unspecified", PROT(0xff), false, EV(ACCESS_ERR),
	  IB_WC_LOC_PROT_ERR },
	{ "prot_cannot_inval", PROT(0x09), false, EV(ACCESS_ERR),
	  IB_WC_REM_INV_REQ_ERR },
	{ "rdmap_version", OP_ERR(0x05), false, EV(REQ_ERR),
	  IB_WC_LOC_QP_OP_ERR },
	{ "unexpected_opcode", OP_ERR(0x06), false, EV(REQ_ERR),
	  IB_WC_LOC_QP_OP_ERR },
	{ "op_stream_catastrophic", OP_ERR(0x07), false, EV(FATAL),
	  IB_WC_FATAL_ERR },
	{ "op_global_catastrophic", OP_ERR(0x08), false, EV(FATAL),
	  IB_WC_FATAL_ERR },
	{ "op_cannot_inval", OP_ERR(0x09), false, EV(REQ_ERR),
	  IB_WC_REM_INV_REQ_ERR },
	{ "op_unspecified", OP_ERR(0xff), false, EV(REQ_ERR),
	  IB_WC_LOC_QP_OP_ERR },
	{ "ddp_catastrophic", DERR(0, 0), false, EV(FATAL), IB_WC_FATAL_ERR },
	{ "ddp_t_stag", TAG(0x00), false, EV(ACCESS_ERR), IB_WC_LOC_PROT_ERR },
	{ "ddp_t_bounds", TAG(0x01), false, EV(ACCESS_ERR),
	  IB_WC_LOC_PROT_ERR },
	{ "ddp_t_assoc", TAG(0x02), false, EV(ACCESS_ERR),
	  IB_WC_LOC_PROT_ERR },
	{ "ddp_t_wrap", TAG(0x03), false, EV(ACCESS_ERR), IB_WC_LOC_PROT_ERR },
	{ "ddp_t_version", TAG(0x04), false, EV(REQ_ERR),
	  IB_WC_LOC_QP_OP_ERR },
	{ "ddp_ut_qn", UNTAG(0x01), false, EV(REQ_ERR), IB_WC_LOC_QP_OP_ERR },
	{ "ddp_ut_nobuf", UNTAG(0x02), false, EV(REQ_ERR),
	  IB_WC_LOC_QP_OP_ERR },
	{ "ddp_ut_msn", UNTAG(0x03), false, EV(REQ_ERR), IB_WC_LOC_QP_OP_ERR },
	{ "ddp_ut_mo", UNTAG(0x04), false, EV(REQ_ERR), IB_WC_LOC_LEN_ERR },
	{ "ddp_ut_too_long", UNTAG(0x05), false, EV(REQ_ERR),
	  IB_WC_LOC_LEN_ERR },
	{ "ddp_ut_version", UNTAG(0x06), false, EV(REQ_ERR),
	  IB_WC_LOC_QP_OP_ERR },
	{ "ddp_llp_reserved", DERR(3, 0), false, EV(FATAL), IB_WC_FATAL_ERR },
	{ "llp_crc", LERR(0x02), false, EV(FATAL), IB_WC_FATAL_ERR },
	{ "llp_marker", LERR(0x03), false, EV(FATAL), IB_WC_FATAL_ERR },
	{ "llp_lost", LERR(0x01), false, EV(FATAL), IB_WC_FATAL_ERR },
	{ "unknown_layer", KIW_TERM(3, 0, 0), false, EV(FATAL),
	  IB_WC_FATAL_ERR },
	{ "none", KIW_TERM_NONE, false, EV(FATAL), IB_WC_FATAL_ERR },
	/* received from the peer */
	{ "rx_catastrophic", RERR(0, 0), true, EV(FATAL), IB_WC_REM_OP_ERR },
	{ "rx_invalid_stag", PROT(0x00), true, EV(ACCESS_ERR),
	  IB_WC_REM_ACCESS_ERR },
	{ "rx_access_rights", PROT(0x02), true, EV(ACCESS_ERR),
	  IB_WC_REM_ACCESS_ERR },
	{ "rx_prot_cannot_inval", PROT(0x09), true, EV(ACCESS_ERR),
	  IB_WC_REM_ACCESS_ERR },
	{ "rx_unexpected_opcode", OP_ERR(0x06), true, EV(REQ_ERR),
	  IB_WC_REM_INV_REQ_ERR },
	{ "rx_op_cannot_inval", OP_ERR(0x09), true, EV(REQ_ERR),
	  IB_WC_REM_OP_ERR },
	{ "rx_op_stream", OP_ERR(0x07), true, EV(FATAL), IB_WC_REM_OP_ERR },
	{ "rx_ddp_t_wrap", TAG(0x03), true, EV(ACCESS_ERR),
	  IB_WC_REM_ACCESS_ERR },
	{ "rx_ddp_ut_too_long", UNTAG(0x05), true, EV(REQ_ERR),
	  IB_WC_REM_INV_REQ_ERR },
	{ "rx_ddp_ut_nobuf", UNTAG(0x02), true, EV(REQ_ERR),
	  IB_WC_REM_INV_REQ_ERR },
	{ "rx_ddp_catastrophic", DERR(0, 0), true, EV(FATAL),
	  IB_WC_REM_OP_ERR },
	{ "rx_llp_crc", LERR(0x02), true, EV(FATAL), IB_WC_FATAL_ERR },
	{ "rx_unknown_layer", KIW_TERM(0xf, 0xf, 0xff), true, EV(FATAL),
	  IB_WC_REM_OP_ERR },
};

static void kiw_report_case_desc(const struct kiw_report_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_report, kiw_report_cases, kiw_report_case_desc);

static void kiw_term_report_test(struct kunit *test)
{
	const struct kiw_report_case *c = test->param_value;
	struct kiw_term_report r = kiw_term_report(c->err, c->received);

	KUNIT_EXPECT_EQ(test, r.event, c->event);
	KUNIT_EXPECT_EQ(test, r.wc_status, c->wc);
}

static struct kunit_case kiw_rdmap_report_cases[] = {
	KUNIT_CASE_PARAM(kiw_term_report_test, kiw_report_gen_params),
	{}
};

static struct kunit_suite kiw_rdmap_report_suite = {
	.name = "kiw_rdmap_report",
	.test_cases = kiw_rdmap_report_cases,
};

kunit_test_suites(&kiw_rdmap_ctrl_suite, &kiw_rdmap_rr_suite,
		  &kiw_rdmap_term_suite, &kiw_rdmap_report_suite);
