// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: DDP (RFC 5041) headers, segmentation, receive checks and
 * reassembly state. Byte vectors are from CONFORMANCE.md 4.1/4.3 and
 * VECTORS.txt.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/string.h>

#include "kiw_ddp.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define T_ERR(code) KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_TAGGED, code)
#define UT_ERR(code) KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_UNTAGGED, code)
#define SHORT_ERR KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_CATASTROPHIC, 0)
#define OPCODE_ERR KIW_TERM(KIW_TERM_LAYER_RDMAP, KIW_RDMAP_ETYPE_REMOTE_OP, \
			    KIW_RDMAP_ECODE_UNEXPECTED_OPCODE)

#define CTRL_WRITE 0x40		/* RV 1, RDMA Write */
#define CTRL_SEND 0x43		/* RV 1, Send */
#define CTRL_SEND_SE 0x45	/* RV 1, Send with SE */

/* ---- Headers ---- */

/*
 * The control octet for T x L: DV 1, Rsvd 0 on transmit.
 * Covers: DDP-CF-1, DDP-CF-6
 */
static void kiw_ddp_ctrl_octet_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kiw_ddp_ctrl(false, false), 0x01);
	KUNIT_EXPECT_EQ(test, kiw_ddp_ctrl(false, true), 0x41);
	KUNIT_EXPECT_EQ(test, kiw_ddp_ctrl(true, false), 0x81);
	KUNIT_EXPECT_EQ(test, kiw_ddp_ctrl(true, true), 0xc1);
}

/*
 * VECTORS.txt: "Tagged last hdr (STag 0x12345678, TO 0x4000)".
 * Covers: DDP-TG-1
 */
static void kiw_ddp_tagged_vector_test(struct kunit *test)
{
	static const u8 want[] = { 0xc1, 0x40, 0x12, 0x34, 0x56, 0x78, 0x00,
				   0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00 };
	struct kiw_ddp_tagged_hdr h;

	memset(&h, 0xa5, sizeof(h));
	kiw_ddp_build_tagged(&h, CTRL_WRITE, 0x12345678, 0x4000, true);
	KUNIT_EXPECT_MEMEQ(test, &h, want, sizeof(want));
}

/*
 * CONFORMANCE 4.3: the tagged FPDU's header, STag 0x1234, TO 0.
 * Covers: DDP-TG-1
 */
static void kiw_ddp_tagged_fpdu_vector_test(struct kunit *test)
{
	static const u8 want[] = { 0xc1, 0x40, 0x00, 0x00, 0x12, 0x34, 0x00,
				   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 };
	struct kiw_ddp_tagged_hdr h;

	kiw_ddp_build_tagged(&h, CTRL_WRITE, 0x1234, 0, true);
	KUNIT_EXPECT_MEMEQ(test, &h, want, sizeof(want));
}

/*
 * RFC 5044 Fig. 5 octets 0x06-0x17 (MSN 1) and Fig. 6 (MSN 2).
 * Covers: DDP-UT-1
 */
static void kiw_ddp_untagged_fig_test(struct kunit *test)
{
	static const u8 fig5[] = { 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0,
				   0, 0, 0, 1, 0, 0, 0, 0 };
	static const u8 fig6[] = { 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0,
				   0, 0, 0, 2, 0, 0, 0, 0 };
	struct kiw_ddp_untagged_hdr h;

	memset(&h, 0xa5, sizeof(h));
	kiw_ddp_build_untagged(&h, CTRL_SEND, 0, KIW_DDP_QN_SEND, 1, 0, true);
	KUNIT_EXPECT_MEMEQ(test, &h, fig5, sizeof(fig5));
	kiw_ddp_build_untagged(&h, CTRL_SEND, 0, KIW_DDP_QN_SEND, 2, 0, true);
	KUNIT_EXPECT_MEMEQ(test, &h, fig6, sizeof(fig6));
}

/*
 * Every field lands where decode finds it, extremes included: the
 * untagged RsvdULP (RDMAP octet and 32-bit word) is carried unchanged
 * and handed up.
 * Covers: DDP-TG-1, DDP-UT-1, DDP-UT-2
 */
static void kiw_ddp_build_decode_test(struct kunit *test)
{
	struct kiw_ddp_untagged_hdr u;
	struct kiw_ddp_tagged_hdr t;
	struct kiw_ddp_info info;

	kiw_ddp_build_tagged(&t, 0x42, 0xfedcba98, U64_MAX - 1, false);
	kiw_ddp_decode(&t, &info);
	KUNIT_EXPECT_EQ(test, info.ddp_ctrl, 0x81);
	KUNIT_EXPECT_EQ(test, info.rdmap_ctrl, 0x42);
	KUNIT_EXPECT_EQ(test, info.stag, 0xfedcba98);
	KUNIT_EXPECT_EQ(test, info.to, U64_MAX - 1);
	KUNIT_EXPECT_EQ(test, info.len, 0);

	kiw_ddp_build_untagged(&u, 0x44, 0x01020304, 2, U32_MAX, 0x05060708,
			       true);
	kiw_ddp_decode(&u, &info);
	KUNIT_EXPECT_EQ(test, info.ddp_ctrl, 0x41);
	KUNIT_EXPECT_EQ(test, info.rdmap_ctrl, 0x44);
	KUNIT_EXPECT_EQ(test, info.ulp_word, 0x01020304);
	KUNIT_EXPECT_EQ(test, info.qn, 2);
	KUNIT_EXPECT_EQ(test, info.msn, U32_MAX);
	KUNIT_EXPECT_EQ(test, info.mo, 0x05060708);
	KUNIT_EXPECT_EQ(test, info.stag, 0);
	KUNIT_EXPECT_EQ(test, info.to, 0);
}

/*
 * CONFORMANCE 4.3 segmentation header octets for 4.1.7 (MULPDU 1500, 2048
 * octets): built from the segmenter's own output.
 * Covers: DDP-TG-1, DDP-UT-1
 */
static void kiw_ddp_seg_hdr_vector_test(struct kunit *test)
{
	static const u8 ut2[] = { 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0,
				  0, 0, 0, 1, 0, 0, 0x05, 0xca };
	static const u8 t1[] = { 0x81, 0x40, 0xde, 0xad, 0xbe, 0xef,
				 0, 0, 0, 0, 0, 0, 0x40, 0x00 };
	static const u8 t2[] = { 0xc1, 0x40, 0xde, 0xad, 0xbe, 0xef,
				 0, 0, 0, 0, 0, 0, 0x45, 0xce };
	struct kiw_ddp_segmenter s;
	struct kiw_ddp_untagged_hdr u;
	struct kiw_ddp_tagged_hdr t;
	struct kiw_ddp_seg seg;

	KUNIT_ASSERT_EQ(test, kiw_ddp_seg_init(&s, 2048, 1500, false), 0);
	KUNIT_ASSERT_TRUE(test, kiw_ddp_seg_next(&s, &seg));
	KUNIT_ASSERT_TRUE(test, kiw_ddp_seg_next(&s, &seg));
	kiw_ddp_build_untagged(&u, CTRL_SEND, 0, 0, 1, seg.off, seg.last);
	KUNIT_EXPECT_MEMEQ(test, &u, ut2, sizeof(ut2));

	KUNIT_ASSERT_EQ(test, kiw_ddp_seg_init(&s, 2048, 1500, true), 0);
	KUNIT_ASSERT_TRUE(test, kiw_ddp_seg_next(&s, &seg));
	kiw_ddp_build_tagged(&t, CTRL_WRITE, 0xdeadbeef, 16384 + seg.off,
			     seg.last);
	KUNIT_EXPECT_MEMEQ(test, &t, t1, sizeof(t1));
	KUNIT_ASSERT_TRUE(test, kiw_ddp_seg_next(&s, &seg));
	kiw_ddp_build_tagged(&t, CTRL_WRITE, 0xdeadbeef, 16384 + seg.off,
			     seg.last);
	KUNIT_EXPECT_MEMEQ(test, &t, t2, sizeof(t2));
}

static struct kunit_case kiw_ddp_hdr_cases[] = {
	KUNIT_CASE(kiw_ddp_ctrl_octet_test),
	KUNIT_CASE(kiw_ddp_tagged_vector_test),
	KUNIT_CASE(kiw_ddp_tagged_fpdu_vector_test),
	KUNIT_CASE(kiw_ddp_untagged_fig_test),
	KUNIT_CASE(kiw_ddp_build_decode_test),
	KUNIT_CASE(kiw_ddp_seg_hdr_vector_test),
	{}
};

static struct kunit_suite kiw_ddp_hdr_suite = {
	.name = "kiw_ddp_hdr",
	.test_cases = kiw_ddp_hdr_cases,
};

/* ---- Segmentation ---- */

struct kiw_seg_case {
	const char *name;
	u32 len;
	unsigned int mulpdu;
	bool tagged;
	u32 nsegs;			/* segments expected */
	struct kiw_ddp_seg first[2];	/* the first (up to) two */
	struct kiw_ddp_seg last;	/* and the last */
};

#define SEG(o, l, f) { .off = (o), .len = (l), .last = (f) }

static const struct kiw_seg_case kiw_seg_cases[] = {
	/* RFC 5041 section 5.2 examples (CONFORMANCE 4.1.7) */
	{ "rfc_untagged_2048", 2048, 1500, false, 2,
	  { SEG(0, 1482, false), SEG(1482, 566, true) }, SEG(1482, 566, true) },
	{ "rfc_tagged_2048", 2048, 1500, true, 2,
	  { SEG(0, 1486, false), SEG(1486, 562, true) }, SEG(1486, 562, true) },
	/* empty and tiny */
	{ "zero_untagged", 0, 1500, false, 1, { SEG(0, 0, true) },
	  SEG(0, 0, true) },
	{ "zero_tagged", 0, 128, true, 1, { SEG(0, 0, true) },
	  SEG(0, 0, true) },
	{ "one_octet", 1, 1500, false, 1, { SEG(0, 1, true) },
	  SEG(0, 1, true) },
	/* payload exactly fills the MULPDU, and one octet more */
	{ "exact_untagged", 1482, 1500, false, 1, { SEG(0, 1482, true) },
	  SEG(0, 1482, true) },
	{ "exact_plus_one", 1483, 1500, false, 2,
	  { SEG(0, 1482, false), SEG(1482, 1, true) }, SEG(1482, 1, true) },
	{ "exact_tagged", 1486, 1500, true, 1, { SEG(0, 1486, true) },
	  SEG(0, 1486, true) },
	{ "two_full_tagged", 2972, 1500, true, 2,
	  { SEG(0, 1486, false), SEG(1486, 1486, true) },
	  SEG(1486, 1486, true) },
	/* the smallest MULPDU MPA allows: 110 / 114 payload octets */
	{ "mulpdu128_untagged", 1000, 128, false, 10,
	  { SEG(0, 110, false), SEG(110, 110, false) }, SEG(990, 10, true) },
	{ "mulpdu128_tagged", 228, 128, true, 2,
	  { SEG(0, 114, false), SEG(114, 114, true) }, SEG(114, 114, true) },
	{ "mulpdu_hdr_plus_one", 3, 15, true, 3,
	  { SEG(0, 1, false), SEG(1, 1, false) }, SEG(2, 1, true) },
	/* the largest message: 2^32 - 1 octets */
	{ "max_len_tagged", U32_MAX, 1500, true, 2890288,
	  { SEG(0, 1486, false), SEG(1486, 1486, false) },
	  SEG(4294966482u, 813, true) },
	{ "max_len_mulpdu_max", U32_MAX, 64768, false, 66332,
	  { SEG(0, 64750, false), SEG(64750, 64750, false) },
	  SEG(4294932250u, 35045, true) },
};

static void kiw_seg_case_desc(const struct kiw_seg_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_seg, kiw_seg_cases, kiw_seg_case_desc);

/*
 * The expected segments, and the invariants for every segment: contiguous
 * offsets from 0, each ULPDU (header + payload) within the MULPDU, L only
 * on the last, lengths summing to the message. The zero-length cases are
 * one segment (DDP-SR-4); the L segment comes last, at the highest MO.
 * Covers: DDP-SR-1, DDP-SR-4, DDP-CF-3, DDP-CF-4, DDP-ORD-2
 */
static void kiw_ddp_seg_table_test(struct kunit *test)
{
	const struct kiw_seg_case *c = test->param_value;
	unsigned int hdr = c->tagged ? 14 : 18;
	u32 n = 0, bad_off = 0, bad_size = 0, bad_last = 0;
	struct kiw_ddp_segmenter s;
	struct kiw_ddp_seg seg, prev = {};
	u64 expect_off = 0;

	KUNIT_ASSERT_EQ(test, kiw_ddp_seg_init(&s, c->len, c->mulpdu,
					       c->tagged), 0);
	while (kiw_ddp_seg_next(&s, &seg)) {
		if (n < ARRAY_SIZE(c->first) && n < c->nsegs) {
			KUNIT_EXPECT_EQ(test, seg.off, c->first[n].off);
			KUNIT_EXPECT_EQ(test, seg.len, c->first[n].len);
			KUNIT_EXPECT_EQ(test, seg.last, c->first[n].last);
		}
		bad_off += seg.off != expect_off;
		bad_size += hdr + seg.len > c->mulpdu;
		bad_size += c->len && !seg.len;
		bad_last += seg.last != (expect_off + seg.len == c->len);
		expect_off += seg.len;
		prev = seg;
		n++;
		if (n > c->nsegs)
			break;
	}
	KUNIT_EXPECT_EQ(test, n, c->nsegs);
	KUNIT_EXPECT_EQ(test, expect_off, (u64)c->len);
	KUNIT_EXPECT_EQ(test, bad_off, 0);
	KUNIT_EXPECT_EQ(test, bad_size, 0);
	KUNIT_EXPECT_EQ(test, bad_last, 0);
	KUNIT_EXPECT_EQ(test, prev.off, c->last.off);
	KUNIT_EXPECT_EQ(test, prev.len, c->last.len);
	KUNIT_EXPECT_TRUE(test, prev.last);
	/* Exhausted for good. */
	KUNIT_EXPECT_FALSE(test, kiw_ddp_seg_next(&s, &seg));
}

/* A MULPDU with no room for payload is refused. */
static void kiw_ddp_seg_bad_mulpdu_test(struct kunit *test)
{
	struct kiw_ddp_segmenter s;

	KUNIT_EXPECT_EQ(test, kiw_ddp_seg_init(&s, 10, 14, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiw_ddp_seg_init(&s, 10, 18, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiw_ddp_seg_init(&s, 10, 0, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiw_ddp_seg_init(&s, 10, 15, true), 0);
	KUNIT_EXPECT_EQ(test, kiw_ddp_seg_init(&s, 10, 19, false), 0);
	KUNIT_EXPECT_EQ(test, kiw_ddp_seg_init(&s, 10, UINT_MAX, false), 0);
	KUNIT_EXPECT_EQ(test, kiw_ddp_seg_set_mulpdu(&s, 18), -EINVAL);
	KUNIT_EXPECT_EQ(test, s.max_payload, UINT_MAX - 18);
}

/*
 * A MULPDU change applies to the segments not yet handed out only
 * (RFC 5041 section 3, item 2).
 * Covers: DDP-LLP-1, DDP-LLP-2
 */
static void kiw_ddp_seg_mulpdu_change_test(struct kunit *test)
{
	struct kiw_ddp_segmenter s;
	struct kiw_ddp_seg seg;

	KUNIT_ASSERT_EQ(test, kiw_ddp_seg_init(&s, 3000, 1500, false), 0);
	KUNIT_ASSERT_TRUE(test, kiw_ddp_seg_next(&s, &seg));
	KUNIT_EXPECT_EQ(test, seg.len, 1482);
	KUNIT_ASSERT_EQ(test, kiw_ddp_seg_set_mulpdu(&s, 1018), 0);
	KUNIT_ASSERT_TRUE(test, kiw_ddp_seg_next(&s, &seg));
	KUNIT_EXPECT_EQ(test, seg.off, 1482);
	KUNIT_EXPECT_EQ(test, seg.len, 1000);
	KUNIT_EXPECT_FALSE(test, seg.last);
	KUNIT_ASSERT_TRUE(test, kiw_ddp_seg_next(&s, &seg));
	KUNIT_EXPECT_EQ(test, seg.off, 2482);
	KUNIT_EXPECT_EQ(test, seg.len, 518);
	KUNIT_EXPECT_TRUE(test, seg.last);
	KUNIT_EXPECT_FALSE(test, kiw_ddp_seg_next(&s, &seg));
}

static struct kunit_case kiw_ddp_seg_cases[] = {
	KUNIT_CASE_PARAM(kiw_ddp_seg_table_test, kiw_seg_gen_params),
	KUNIT_CASE(kiw_ddp_seg_bad_mulpdu_test),
	KUNIT_CASE(kiw_ddp_seg_mulpdu_change_test),
	{}
};

static struct kunit_suite kiw_ddp_seg_suite = {
	.name = "kiw_ddp_seg",
	.test_cases = kiw_ddp_seg_cases,
};

/* ---- Receive: parse ---- */

struct kiw_parse_case {
	const char *name;
	u8 hdr[18];
	unsigned int seg_len;
	kiw_term_t err;
	u32 len;	/* payload length when accepted */
};

#define HDR_T(ctrl) { ctrl, CTRL_WRITE, 0, 0, 0x12, 0x34, 0, 0, 0, 0, 0, 0, \
		      0x40, 0 }
#define HDR_UT(ctrl, qn0, qn3) { ctrl, CTRL_SEND, 0, 0, 0, 0, qn0, 0, 0, \
				 qn3, 0, 0, 0, 1, 0, 0, 0, 0 }

static const struct kiw_parse_case kiw_parse_cases[] = {
	{ "tagged_ok", HDR_T(0xc1), 14 + 100, KIW_TERM_NONE, 100 },
	{ "tagged_empty", HDR_T(0xc1), 14, KIW_TERM_NONE, 0 },
	{ "untagged_ok", HDR_UT(0x41, 0, 0), 18 + 7, KIW_TERM_NONE, 7 },
	{ "untagged_empty", HDR_UT(0x01, 0, 0), 18, KIW_TERM_NONE, 0 },
	/* DV must be 1: tagged 1/0x04, untagged 2/0x06 (DDP-CF-7) */
	{ "tagged_dv0", HDR_T(0xc0), 30, T_ERR(0x04) },
	{ "tagged_dv2", HDR_T(0xc2), 30, T_ERR(0x04) },
	{ "tagged_dv3", HDR_T(0x83), 30, T_ERR(0x04) },
	{ "untagged_dv0", HDR_UT(0x40, 0, 0), 30, UT_ERR(0x06) },
	{ "untagged_dv2", HDR_UT(0x02, 0, 0), 30, UT_ERR(0x06) },
	{ "untagged_dv3", HDR_UT(0x43, 0, 0), 30, UT_ERR(0x06) },
	{ "dv_before_length", HDR_UT(0x42, 0, 0), 3, UT_ERR(0x06) },
	/* Rsvd bits are not checked (DDP-CF-6) */
	{ "tagged_rsvd_set", HDR_T(0xfd), 14, KIW_TERM_NONE, 0 },
	{ "untagged_rsvd_set", HDR_UT(0x7d, 0, 0), 20, KIW_TERM_NONE, 2 },
	/* too short for the header the T bit announces */
	{ "empty_segment", HDR_T(0xc1), 0, SHORT_ERR },
	{ "tagged_13", HDR_T(0xc1), 13, SHORT_ERR },
	{ "untagged_17", HDR_UT(0x41, 0, 0), 17, SHORT_ERR },
	{ "untagged_as_tagged_len", HDR_UT(0x41, 0, 0), 14, SHORT_ERR },
	/* QN valid: 0, 1, 2 (DDP-ERR-2) */
	{ "qn1", HDR_UT(0x41, 0, 1), 18, KIW_TERM_NONE, 0 },
	{ "qn2", HDR_UT(0x41, 0, 2), 18, KIW_TERM_NONE, 0 },
	{ "qn3", HDR_UT(0x41, 0, 3), 18, UT_ERR(0x01) },
	{ "qn_high", HDR_UT(0x41, 0x80, 0), 18, UT_ERR(0x01) },
	{ "qn_max", { 0x41, CTRL_SEND, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff },
	  18, UT_ERR(0x01) },
};

static void kiw_parse_case_desc(const struct kiw_parse_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_parse, kiw_parse_cases, kiw_parse_case_desc);

/*
 * DV != 1 gives the tagged 0x04 / untagged 0x06 codes, a bad QN 0x01;
 * Rsvd is not checked.
 * Covers: DDP-CF-6, DDP-ERR-14
 */
static void kiw_ddp_rx_parse_test(struct kunit *test)
{
	const struct kiw_parse_case *c = test->param_value;
	struct kiw_ddp_info info;

	KUNIT_EXPECT_EQ(test, kiw_ddp_rx_parse(c->hdr, c->seg_len, &info),
			c->err);
	if (c->err == KIW_TERM_NONE) {
		KUNIT_EXPECT_EQ(test, info.len, c->len);
		KUNIT_EXPECT_EQ(test, info.ddp_ctrl, c->hdr[0]);
		KUNIT_EXPECT_EQ(test, info.rdmap_ctrl, c->hdr[1]);
	}
}

/* ---- Receive: untagged checks ---- */

struct kiw_ut_case {
	const char *name;
	struct kiw_ddp_rxq q;		/* the queue's state */
	u8 rdmap_ctrl;
	u32 ulp_word;
	u32 msn, mo, len;
	u32 nr_bufs;
	u64 buf_len;
	kiw_term_t err;
};

#define Q_NEW(m) { .msn = (m) }
#define Q_MID(m, placed, ctrl) { (m), (placed), (ctrl), true }

static const struct kiw_ut_case kiw_ut_cases[] = {
	{ "first_ok", Q_NEW(1), CTRL_SEND, 0, 1, 0, 100, 1, 4096, 0 },
	{ "fills_buffer", Q_NEW(1), CTRL_SEND, 0, 1, 0, 4096, 1, 4096, 0 },
	{ "empty_msg_empty_buf", Q_NEW(1), CTRL_SEND, 0, 1, 0, 0, 1, 0, 0 },
	/* U2: no buffer for the queue (Send with no RQE posted) */
	{ "no_buffer", Q_NEW(1), CTRL_SEND, 0, 1, 0, 100, 0, 0, UT_ERR(0x02) },
	{ "no_buffer_empty_send", Q_NEW(1), CTRL_SEND, 0, 1, 0, 0, 0, 0,
	  UT_ERR(0x02) },
	{ "no_buffer_bad_msn", Q_NEW(1), CTRL_SEND, 0, 9, 0, 1, 0, 0,
	  UT_ERR(0x02) },
	/* U5: MSN range; kiw accepts only the next MSN (in order) */
	{ "msn_beyond_window", Q_NEW(1), CTRL_SEND, 0, 7, 0, 10, 2, 4096,
	  UT_ERR(0x03) },
	{ "msn_zero_at_start", Q_NEW(1), CTRL_SEND, 0, 0, 0, 10, 2, 4096,
	  UT_ERR(0x03) },
	{ "msn_in_window_skips", Q_NEW(1), CTRL_SEND, 0, 2, 0, 10, 2, 4096,
	  UT_ERR(0x03) },
	/* Covers: DDP-ORD-4 */
	{ "msn_old", Q_NEW(5), CTRL_SEND, 0, 4, 0, 10, 1, 4096, UT_ERR(0x03) },
	{ "msn_at_wrap", Q_NEW(U32_MAX), CTRL_SEND, 0, U32_MAX, 0, 10, 1, 4096,
	  0 },
	{ "msn_after_wrap", Q_NEW(0), CTRL_SEND, 0, 0, 0, 10, 1, 4096, 0 },
	{ "msn_after_wrap_not_1", Q_NEW(0), CTRL_SEND, 0, 1, 0, 10, 1, 4096,
	  UT_ERR(0x03) },
	{ "msn_mid_message", Q_MID(3, 100, CTRL_SEND), CTRL_SEND, 0, 4, 100, 10,
	  1, 4096, UT_ERR(0x03) },
	/* U3: MO (first segment at 0, continuing at the octets placed) */
	{ "mo_beyond_buffer", Q_NEW(1), CTRL_SEND, 0, 1, 5000, 10, 1, 4096,
	  UT_ERR(0x04) },
	/* Covers: DDP-UT-6 (a message starts at MO 0) */
	{ "mo_gap_first", Q_NEW(1), CTRL_SEND, 0, 1, 10, 10, 1, 4096,
	  UT_ERR(0x04) },
	{ "mo_continues", Q_MID(1, 1482, CTRL_SEND), CTRL_SEND, 0, 1, 1482, 566,
	  1, 2048, 0 },
	{ "mo_repeats", Q_MID(1, 1482, CTRL_SEND), CTRL_SEND, 0, 1, 0, 566, 1,
	  2048, UT_ERR(0x04) },
	{ "mo_skips", Q_MID(1, 1482, CTRL_SEND), CTRL_SEND, 0, 1, 1483, 1, 1,
	  2048, UT_ERR(0x04) },
	/* U4: MO + length within the buffer and below 2^32 */
	{ "one_past_buffer", Q_NEW(1), CTRL_SEND, 0, 1, 0, 4097, 1, 4096,
	  UT_ERR(0x05) },
	{ "continuation_past", Q_MID(1, 4000, CTRL_SEND), CTRL_SEND, 0, 1, 4000,
	  97, 1, 4096, UT_ERR(0x05) },
	{ "data_into_empty_buf", Q_NEW(1), CTRL_SEND, 0, 1, 0, 1, 1, 0,
	  UT_ERR(0x05) },
	/* Covers: DDP-SR-2 */
	{ "msg_reaches_2_32", Q_MID(1, U32_MAX - 10, CTRL_SEND), CTRL_SEND, 0,
	  1, U32_MAX - 10, 11, 1, U64_MAX, UT_ERR(0x05) },
	{ "msg_2_32_minus_1", Q_MID(1, U32_MAX - 10, CTRL_SEND), CTRL_SEND, 0,
	  1, U32_MAX - 10, 10, 1, U64_MAX, 0 },
	/* the RDMAP opcode may not change inside a message */
	{ "opcode_changes", Q_MID(1, 100, CTRL_SEND), CTRL_SEND_SE, 0, 1, 100,
	  10, 1, 4096, OPCODE_ERR },
	{ "opcode_same", Q_MID(1, 100, CTRL_SEND_SE), CTRL_SEND_SE, 0, 1, 100,
	  10, 1, 4096, 0 },
	/* RsvdULP's STag word need not match (DDP-UT-2) */
	/* Covers: DDP-UT-2 */
	{ "ulp_word_differs", Q_MID(1, 100, 0x44), 0x44, 0x1234, 1, 100, 10,
	  1, 4096, 0 },
};

static void kiw_ut_case_desc(const struct kiw_ut_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_ut, kiw_ut_cases, kiw_ut_case_desc);

/*
 * The untagged checks in RFC 5041 7.1 order, each with its code: U1 0x01
 * (kiw_ddp_rx_parse_test), U2 0x02, U5 0x03, U3 0x04, U4 0x05.
 * Covers: DDP-ERR-14
 */
static void kiw_ddp_rx_untagged_test(struct kunit *test)
{
	const struct kiw_ut_case *c = test->param_value;
	struct kiw_ddp_info seg = {
		.ddp_ctrl = 0x41, .rdmap_ctrl = c->rdmap_ctrl,
		.ulp_word = c->ulp_word,
		.msn = c->msn, .mo = c->mo, .len = c->len,
	};

	KUNIT_EXPECT_EQ(test, kiw_ddp_rx_check_untagged(&c->q, &seg,
							c->nr_bufs,
							c->buf_len), c->err);
}

/* ---- Receive: tagged continuity ---- */

struct kiw_t_case {
	const char *name;
	struct kiw_ddp_rxt t;
	u32 stag;
	u64 to;
	u32 len;
	kiw_term_t err;
};

static const struct kiw_t_case kiw_t_cases[] = {
	/* a new message: any STag/TO (the STag check is kiw_mem.c's) */
	{ "first", {}, 0x1234, 0x4000, 100, 0 },
	{ "first_stag0", {}, 0, U64_MAX, 100, 0 },
	{ "continues", { 0x1234, 17870, true }, 0x1234, 17870, 562, 0 },
	{ "stag_changes", { 0x1234, 17870, true }, 0x1235, 17870, 562,
	  T_ERR(0x00) },
	{ "to_gap", { 0x1234, 17870, true }, 0x1234, 17871, 562,
	  T_ERR(0x01) },
	{ "to_back", { 0x1234, 17870, true }, 0x1234, 16384, 562,
	  T_ERR(0x01) },
	/* zero-length: STag and TO never checked (DDP-SR-5) */
	{ "empty_garbage", { 0x1234, 17870, true }, 0, 0xdeadbeef, 0, 0 },
	{ "empty_first", {}, 0, 0xdeadbeef, 0, 0 },
};

static void kiw_t_case_desc(const struct kiw_t_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_t, kiw_t_cases, kiw_t_case_desc);

/*
 * Continuity of a tagged message: another STag 0x00, a TO gap 0x01.
 * Covers: DDP-ERR-14
 */
static void kiw_ddp_rx_tagged_test(struct kunit *test)
{
	const struct kiw_t_case *c = test->param_value;
	struct kiw_ddp_info seg = {
		.ddp_ctrl = 0x81, .rdmap_ctrl = CTRL_WRITE,
		.stag = c->stag, .to = c->to, .len = c->len,
	};

	KUNIT_EXPECT_EQ(test, kiw_ddp_rx_check_tagged(&c->t, &seg), c->err);
}

/* ---- Reassembly state ---- */

static void kiw_ddp_rx_init_test(struct kunit *test)
{
	struct kiw_ddp_rx rx;
	int i;

	memset(&rx, 0xa5, sizeof(rx));
	kiw_ddp_rx_init(&rx);
	for (i = 0; i < KIW_DDP_QN_COUNT; i++) {
		KUNIT_EXPECT_EQ(test, rx.q[i].msn, 1);
		KUNIT_EXPECT_EQ(test, rx.q[i].placed, 0);
		KUNIT_EXPECT_FALSE(test, rx.q[i].active);
	}
	KUNIT_EXPECT_FALSE(test, rx.write.active);
	KUNIT_EXPECT_FALSE(test, rx.read_resp.active);
}

/*
 * Feed one untagged segment through parse, the check and advance, as the
 * receive engine would: returns the error, or 0 with *done set.
 */
static kiw_term_t kiw_feed_ut(struct kiw_ddp_rx *rx, u8 rdmap_ctrl, u32 qn,
			      u32 msn, u32 mo, u32 len, bool last, bool *done)
{
	struct kiw_ddp_untagged_hdr h;
	struct kiw_ddp_info seg;
	kiw_term_t err;

	kiw_ddp_build_untagged(&h, rdmap_ctrl, 0, qn, msn, mo, last);
	err = kiw_ddp_rx_parse(&h, sizeof(h) + len, &seg);
	if (err)
		return err;
	err = kiw_ddp_rx_check_untagged(&rx->q[qn], &seg, 1, 4096);
	if (err)
		return err;
	*done = kiw_ddp_rxq_advance(&rx->q[qn], &seg);
	return KIW_TERM_NONE;
}

/*
 * A segmented Send, completed once, only on its L segment; its L moves
 * the queue on, a second L for the same MSN is refused, each QN keeps
 * its own MSN, a zero-length Send is one message and takes an MSN.
 * Covers: DDP-CF-3, DDP-CF-5, DDP-DLV-2, DDP-ORD-4, DDP-UT-6, DDP-SR-4
 * Covers: DDP-SR-6
 */
static void kiw_ddp_reassembly_test(struct kunit *test)
{
	struct kiw_ddp_rx rx;
	bool done = true;

	kiw_ddp_rx_init(&rx);
	KUNIT_EXPECT_EQ(test, kiw_feed_ut(&rx, CTRL_SEND, 0, 1, 0, 1482,
					  false, &done), 0);
	KUNIT_EXPECT_FALSE(test, done);
	KUNIT_EXPECT_TRUE(test, rx.q[0].active);
	KUNIT_EXPECT_EQ(test, rx.q[0].placed, 1482);
	KUNIT_EXPECT_EQ(test, kiw_feed_ut(&rx, CTRL_SEND, 0, 1, 1482, 566,
					  true, &done), 0);
	KUNIT_EXPECT_TRUE(test, done);
	KUNIT_EXPECT_EQ(test, rx.q[0].msn, 2);
	KUNIT_EXPECT_EQ(test, rx.q[0].placed, 0);
	KUNIT_EXPECT_FALSE(test, rx.q[0].active);
	/* A second L for MSN 1 (DDP-CF-3) */
	KUNIT_EXPECT_EQ(test, kiw_feed_ut(&rx, CTRL_SEND, 0, 1, 0, 10, true,
					  &done), UT_ERR(0x03));
	/* The other queues did not move (DDP-UT-4) */
	KUNIT_EXPECT_EQ(test, rx.q[1].msn, 1);
	KUNIT_EXPECT_EQ(test, rx.q[2].msn, 1);
	KUNIT_EXPECT_EQ(test, kiw_feed_ut(&rx, 0x41, 1, 1, 0, 28, true,
					  &done), 0);
	KUNIT_EXPECT_TRUE(test, done);
	KUNIT_EXPECT_EQ(test, rx.q[1].msn, 2);
	KUNIT_EXPECT_EQ(test, rx.q[0].msn, 2);
	/* A zero-length Send is one message and takes an MSN (SR-4/SR-6) */
	KUNIT_EXPECT_EQ(test, kiw_feed_ut(&rx, CTRL_SEND, 0, 2, 0, 0, true,
					  &done), 0);
	KUNIT_EXPECT_TRUE(test, done);
	KUNIT_EXPECT_EQ(test, rx.q[0].msn, 3);
}

/* Delivered length is MO + length of the L segment (DDP-DLV-3). */
static void kiw_ddp_msg_len_test(struct kunit *test)
{
	struct kiw_ddp_info seg = { .ddp_ctrl = 0x41, .mo = 1482, .len = 566 };

	KUNIT_EXPECT_EQ(test, kiw_ddp_msg_len(&seg), 2048);
	KUNIT_EXPECT_FALSE(test, kiw_ddp_needs_stag_check(&seg));
}

/* The MSN wraps from 0xffffffff to 0 (DDP-UT-4). */
static void kiw_ddp_msn_wrap_test(struct kunit *test)
{
	struct kiw_ddp_rx rx;
	bool done;

	kiw_ddp_rx_init(&rx);
	rx.q[0].msn = U32_MAX;
	KUNIT_EXPECT_EQ(test, kiw_feed_ut(&rx, CTRL_SEND, 0, U32_MAX, 0, 1,
					  true, &done), 0);
	KUNIT_EXPECT_EQ(test, rx.q[0].msn, 0);
	KUNIT_EXPECT_EQ(test, kiw_feed_ut(&rx, CTRL_SEND, 0, 0, 0, 1, true,
					  &done), 0);
	KUNIT_EXPECT_EQ(test, rx.q[0].msn, 1);
	KUNIT_EXPECT_EQ(test, kiw_ddp_msn_next(U32_MAX), 0);
	KUNIT_EXPECT_EQ(test, kiw_ddp_msn_next(0), 1);
}

/* Tagged contexts: continuity, zero-length segments, interleaving. */
static void kiw_ddp_tagged_state_test(struct kunit *test)
{
	struct kiw_ddp_info w = { .ddp_ctrl = 0x81, .rdmap_ctrl = CTRL_WRITE,
				  .stag = 7, .to = 16384, .len = 1486 };
	struct kiw_ddp_info rr = { .ddp_ctrl = 0x81, .rdmap_ctrl = 0x42,
				   .stag = 9, .to = 0, .len = 100 };
	struct kiw_ddp_info empty = { .ddp_ctrl = 0x81,
				      .rdmap_ctrl = CTRL_WRITE,
				      .stag = 0, .to = 1 };
	struct kiw_ddp_rx rx;

	kiw_ddp_rx_init(&rx);
	KUNIT_EXPECT_TRUE(test, kiw_ddp_needs_stag_check(&w));
	KUNIT_EXPECT_FALSE(test, kiw_ddp_needs_stag_check(&empty));
	KUNIT_ASSERT_PTR_EQ(test, kiw_ddp_rx_tagged_ctx(&rx, &w), &rx.write);
	KUNIT_ASSERT_PTR_EQ(test, kiw_ddp_rx_tagged_ctx(&rx, &rr),
			    &rx.read_resp);

	/* An empty non-last segment starts nothing. */
	KUNIT_EXPECT_FALSE(test, kiw_ddp_rxt_advance(&rx.write, &empty));
	KUNIT_EXPECT_FALSE(test, rx.write.active);

	KUNIT_EXPECT_EQ(test, kiw_ddp_rx_check_tagged(&rx.write, &w), 0);
	KUNIT_EXPECT_FALSE(test, kiw_ddp_rxt_advance(&rx.write, &w));
	KUNIT_EXPECT_TRUE(test, rx.write.active);
	KUNIT_EXPECT_EQ(test, rx.write.next_to, 17870);

	/* A Read Response interleaves without disturbing the Write. */
	KUNIT_EXPECT_EQ(test, kiw_ddp_rx_check_tagged(&rx.read_resp, &rr), 0);
	KUNIT_EXPECT_FALSE(test, kiw_ddp_rxt_advance(&rx.read_resp, &rr));
	KUNIT_EXPECT_EQ(test, rx.write.next_to, 17870);

	/* An empty segment inside the Write moves nothing. */
	KUNIT_EXPECT_EQ(test, kiw_ddp_rx_check_tagged(&rx.write, &empty), 0);
	KUNIT_EXPECT_FALSE(test, kiw_ddp_rxt_advance(&rx.write, &empty));
	KUNIT_EXPECT_EQ(test, rx.write.next_to, 17870);
	KUNIT_EXPECT_EQ(test, rx.write.stag, 7);

	w.to = 17870;
	w.len = 562;
	w.ddp_ctrl = 0xc1;
	KUNIT_EXPECT_EQ(test, kiw_ddp_rx_check_tagged(&rx.write, &w), 0);
	KUNIT_EXPECT_TRUE(test, kiw_ddp_rxt_advance(&rx.write, &w));
	KUNIT_EXPECT_FALSE(test, rx.write.active);
	/* The next Write may go anywhere (DDP-TG-7). */
	w.to = 0;
	KUNIT_EXPECT_EQ(test, kiw_ddp_rx_check_tagged(&rx.write, &w), 0);
}

static struct kunit_case kiw_ddp_rx_cases[] = {
	KUNIT_CASE_PARAM(kiw_ddp_rx_parse_test, kiw_parse_gen_params),
	KUNIT_CASE_PARAM(kiw_ddp_rx_untagged_test, kiw_ut_gen_params),
	KUNIT_CASE_PARAM(kiw_ddp_rx_tagged_test, kiw_t_gen_params),
	KUNIT_CASE(kiw_ddp_rx_init_test),
	KUNIT_CASE(kiw_ddp_reassembly_test),
	KUNIT_CASE(kiw_ddp_msg_len_test),
	KUNIT_CASE(kiw_ddp_msn_wrap_test),
	KUNIT_CASE(kiw_ddp_tagged_state_test),
	{}
};

static struct kunit_suite kiw_ddp_rx_suite = {
	.name = "kiw_ddp_rx",
	.test_cases = kiw_ddp_rx_cases,
};

kunit_test_suites(&kiw_ddp_hdr_suite, &kiw_ddp_seg_suite, &kiw_ddp_rx_suite);
