// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: MPA Request/Reply frames, build and parse, every field and bit,
 * and every malformed-frame class (RFC 5044 section 7.1, RFC 6581).
 */
#include <kunit/test.h>
#include <linux/unaligned.h>

#include "kiw_mpa.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static const u8 kiw_key_req[16] = "MPA ID Req Frame";
static const u8 kiw_key_rep[16] = "MPA ID Rep Frame";

/* VECTORS.txt: Request C=1 M=0 Rev 1 no PD; Reply R=1 C=1 Rev 1 "NOPE". */
static const u8 kiw_vec_req[20] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x40, 0x01, 0x00, 0x00,
};

static const u8 kiw_vec_rej[24] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x60, 0x01, 0x00, 0x04, 0x4e, 0x4f, 0x50, 0x45,
};

static struct kiw_mpa_local kiw_local(enum kiw_crc_policy crc, bool m, u8 rev)
{
	return (struct kiw_mpa_local){
		.crc = crc, .markers = m, .rev = rev, .rtr = KIW_MPA_RTR_KIW,
		.ird = 16, .ord = 16,
	};
}

/*
 * The keys are the RFC's 16 ASCII octets.
 * Covers: MPA-RR-2, MPA-RR-4
 */
static void kiw_mpa_keys_test(struct kunit *test)
{
	static const u8 req[] = KIW_MPA_KEY_REQ, rep[] = KIW_MPA_KEY_REP;

	KUNIT_EXPECT_MEMEQ(test, req, kiw_key_req, 16);
	KUNIT_EXPECT_MEMEQ(test, rep, kiw_key_rep, 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct kiw_mpa_hdr), 20);
}

/* Covers: MPA-SU-6, MPA-RR-1, MPA-REV-1 */
static void kiw_mpa_vector_request_test(struct kunit *test)
{
	struct kiw_mpa_local l = kiw_local(KIW_CRC_ON, false, 1);
	struct kiw_mpa_frame f;
	u8 buf[64];

	KUNIT_ASSERT_EQ(test, kiw_mpa_request_init(&f, &l, NULL, 0), 0);
	KUNIT_ASSERT_EQ(test, kiw_mpa_build(&f, buf, sizeof(buf)), 20);
	KUNIT_EXPECT_MEMEQ(test, buf, kiw_vec_req, 20);
}

/* Covers: MPA-REJ-1, MPA-REJ-2, MPA-REJ-4, MPA-MCR-8 */
static void kiw_mpa_vector_reject_test(struct kunit *test)
{
	struct kiw_mpa_local l = kiw_local(KIW_CRC_ON, false, 1);
	struct kiw_mpa_frame req, rep;
	u8 buf[64];

	KUNIT_ASSERT_EQ(test, kiw_mpa_parse(kiw_vec_req, 20, true, 2, 512,
					    &req), KIW_MPA_OK);
	KUNIT_ASSERT_EQ(test, kiw_mpa_reply_init(&rep, &l, &req, true,
						 "NOPE", 4), 0);
	KUNIT_ASSERT_EQ(test, kiw_mpa_build(&rep, buf, sizeof(buf)), 24);
	KUNIT_EXPECT_MEMEQ(test, buf, kiw_vec_rej, 24);

	/* And the initiator reads it back as a reject carrying "NOPE". */
	KUNIT_ASSERT_EQ(test, kiw_mpa_parse(buf, 24, false, 1, 512, &rep),
			KIW_MPA_OK);
	KUNIT_EXPECT_TRUE(test, rep.reject);
	KUNIT_EXPECT_TRUE(test, rep.crc);
	KUNIT_EXPECT_EQ(test, rep.ulp_pd_len, 4);
	KUNIT_EXPECT_MEMEQ(test, rep.ulp_pd, "NOPE", 4);
}

/*
 * Every flag bit, alone, in both frame types and revisions; Res and a
 * Request's R go out as 0.
 * Covers: MPA-RR-1, MPA-MCR-7, MPA-MCR-9
 */
static void kiw_mpa_flags_build_test(struct kunit *test)
{
	unsigned int bits;
	u8 buf[32];

	for (bits = 0; bits < 32; bits++) {
		struct kiw_mpa_frame f = {
			.request = bits & 1, .markers = bits & 2,
			.crc = bits & 4, .reject = bits & 8,
			.rev = bits & 16 ? 2 : 1, .enhanced = bits & 16,
			.pd_len = bits & 16 ? 4 : 0,
		};
		u8 want = (f.markers ? 0x80 : 0) | (f.crc ? 0x40 : 0) |
			  (f.reject && !f.request ? 0x20 : 0) |
			  (f.enhanced ? 0x10 : 0);

		KUNIT_ASSERT_EQ(test, kiw_mpa_build(&f, buf, sizeof(buf)),
				20 + f.pd_len);
		KUNIT_EXPECT_MEMEQ(test, buf, f.request ? kiw_key_req :
				   kiw_key_rep, 16);
		KUNIT_EXPECT_EQ_MSG(test, buf[16], want, "bits %u", bits);
		KUNIT_EXPECT_EQ(test, buf[17], f.rev);
		KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + 18), f.pd_len);
	}
}

/*
 * Every value of the flags octet parses the same way; Res is ignored.
 * Covers: MPA-MCR-7, MPA-MCR-9
 */
static void kiw_mpa_flags_parse_test(struct kunit *test)
{
	unsigned int flags, rev, req;
	struct kiw_mpa_frame f;
	enum kiw_mpa_err e;
	u8 buf[24];

	for (req = 0; req < 2; req++)
		for (rev = 1; rev <= 2; rev++)
			for (flags = 0; flags < 256; flags++) {
				bool v2 = rev == 2 && (flags & 0x10);

				memcpy(buf, req ? kiw_key_req : kiw_key_rep,
				       16);
				buf[16] = flags;
				buf[17] = rev;
				put_unaligned_be16(4, buf + 18);
				memset(buf + 20, 0, 4);
				e = kiw_mpa_parse(buf, 24, req, 2, 512, &f);
				KUNIT_ASSERT_EQ(test, e, KIW_MPA_OK);
				KUNIT_EXPECT_EQ(test, f.request, req);
				KUNIT_EXPECT_EQ(test, f.markers, !!(flags & 0x80));
				KUNIT_EXPECT_EQ(test, f.crc, !!(flags & 0x40));
				/* R is ignored in a Request. */
				KUNIT_EXPECT_EQ(test, f.reject,
						!req && (flags & 0x20));
				KUNIT_EXPECT_EQ(test, f.enhanced, v2);
				KUNIT_EXPECT_EQ(test, f.rev, rev);
				KUNIT_EXPECT_EQ(test, f.ulp_pd_len, v2 ? 0 : 4);
			}
}

struct kiw_v2_case {
	u16 ird, ord;		/* the two words on the wire */
	bool p2p;
	u8 rtr;
	u16 ird_val, ord_val;
};

static const struct kiw_v2_case kiw_v2_cases[] = {
	{ 0x0000, 0x0000, false, 0, 0, 0 },
	{ 0x3fff, 0x3fff, false, 0, 0x3fff, 0x3fff },
	{ 0x8000, 0x0000, true, 0, 0, 0 },
	{ 0x4000, 0x0000, false, KIW_MPA_RTR_SEND, 0, 0 },
	{ 0x0000, 0x8000, false, KIW_MPA_RTR_WRITE, 0, 0 },
	{ 0x0000, 0x4000, false, KIW_MPA_RTR_READ, 0, 0 },
	{ 0xc001, 0xc002, true, KIW_MPA_RTR_ALL, 1, 2 },
	{ 0x8010, 0x8020, true, KIW_MPA_RTR_WRITE, 16, 32 },
	{ 0x2000, 0x1000, false, 0, 0x2000, 0x1000 },
};

static void kiw_v2_case_desc(const struct kiw_v2_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "ird %04x ord %04x", c->ird,
		 c->ord);
}

KUNIT_ARRAY_PARAM(kiw_v2, kiw_v2_cases, kiw_v2_case_desc);

/* The RFC 6581 word: every bit to its field, both ways. */
static void kiw_mpa_v2_word_test(struct kunit *test)
{
	const struct kiw_v2_case *c = test->param_value;
	struct kiw_mpa_frame f, g;
	u8 buf[32], out[32];

	memcpy(buf, kiw_key_req, 16);
	buf[16] = KIW_MPA_FLAG_ENHANCED;
	buf[17] = 2;
	put_unaligned_be16(6, buf + 18);
	put_unaligned_be16(c->ird, buf + 20);
	put_unaligned_be16(c->ord, buf + 22);
	buf[24] = 'h';
	buf[25] = 'i';
	KUNIT_ASSERT_EQ(test, kiw_mpa_parse(buf, 26, true, 2, 512, &f),
			KIW_MPA_OK);
	KUNIT_EXPECT_TRUE(test, f.enhanced);
	KUNIT_EXPECT_EQ(test, f.p2p, c->p2p);
	KUNIT_EXPECT_EQ(test, f.rtr, c->rtr);
	KUNIT_EXPECT_EQ(test, f.ird, c->ird_val);
	KUNIT_EXPECT_EQ(test, f.ord, c->ord_val);
	KUNIT_EXPECT_EQ(test, f.pd_len, 6);
	KUNIT_EXPECT_EQ(test, f.ulp_pd_len, 2);
	KUNIT_EXPECT_MEMEQ(test, f.ulp_pd, "hi", 2);

	/* Built back, the frame is the same octets. */
	g = f;
	KUNIT_ASSERT_EQ(test, kiw_mpa_build(&g, out, sizeof(out)), 26);
	KUNIT_EXPECT_MEMEQ(test, out, buf, 26);
}

/*
 * Request from settings: rev 1 has no word; rev 2 puts it first; no more
 * than 512 octets of private data.
 * Covers: MPA-PD-1, MPA-PD-2
 */
static void kiw_mpa_request_init_test(struct kunit *test)
{
	struct kiw_mpa_local l = kiw_local(KIW_CRC_OFF, true, 1);
	struct kiw_mpa_frame f;
	u8 *buf = kunit_kzalloc(test, 600, GFP_KERNEL);
	u8 *pd = kunit_kzalloc(test, 512, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, pd);
	memset(pd, 0x5a, 512);
	KUNIT_ASSERT_EQ(test, kiw_mpa_request_init(&f, &l, pd, 512), 0);
	KUNIT_EXPECT_EQ(test, kiw_mpa_build(&f, buf, 600), 532);
	KUNIT_EXPECT_EQ(test, buf[16], 0x80);	/* M, no C */
	KUNIT_EXPECT_EQ(test, buf[17], 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + 18), 512);
	KUNIT_EXPECT_MEMEQ(test, buf + 20, pd, 512);
	KUNIT_EXPECT_EQ(test, kiw_mpa_request_init(&f, &l, pd, 513),
			-EMSGSIZE);

	l = kiw_local(KIW_CRC_REQUIRED, false, 2);
	l.ird = 3;
	l.ord = 7;
	KUNIT_ASSERT_EQ(test, kiw_mpa_request_init(&f, &l, pd, 10), 0);
	KUNIT_EXPECT_EQ(test, kiw_mpa_build(&f, buf, 600), 34);
	KUNIT_EXPECT_EQ(test, buf[16], 0x50);	/* C, S */
	KUNIT_EXPECT_EQ(test, buf[17], 2);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + 18), 14);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + 20), 3);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + 22), 7);
	KUNIT_EXPECT_MEMEQ(test, buf + 24, pd, 10);
	KUNIT_EXPECT_EQ(test, kiw_mpa_request_init(&f, &l, pd, 509),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, kiw_mpa_request_init(&f, &l, pd, 508), 0);
	/* Too small a buffer: nothing built. */
	KUNIT_EXPECT_EQ(test, kiw_mpa_build(&f, buf, 531), -EMSGSIZE);

	/* Peer-to-peer: A, the offered RTR types, ORD >= 1 for a Read. */
	l.p2p = true;
	l.ord = 0;
	KUNIT_ASSERT_EQ(test, kiw_mpa_request_init(&f, &l, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, kiw_mpa_build(&f, buf, 600), 24);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + 20), 0x8003);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + 22), 0xc001);
	l.rtr = 0;
	KUNIT_EXPECT_EQ(test, kiw_mpa_request_init(&f, &l, NULL, 0), -EINVAL);
	l = kiw_local(KIW_CRC_ON, false, 3);
	KUNIT_EXPECT_EQ(test, kiw_mpa_request_init(&f, &l, NULL, 0), -EINVAL);
}

/*
 * Build then parse gives back every field, for each PD length.
 * Covers: MPA-RR-1, MPA-PD-1
 */
static void kiw_mpa_roundtrip_test(struct kunit *test)
{
	struct kiw_mpa_local l = kiw_local(KIW_CRC_ON, true, 2);
	struct kiw_mpa_frame f, g;
	unsigned int n, i;
	u8 *buf, *pd;

	buf = kunit_kzalloc(test, 600, GFP_KERNEL);
	pd = kunit_kzalloc(test, 512, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, pd);
	for (i = 0; i < 512; i++)
		pd[i] = i * 13;
	for (n = 0; n <= 512; n++) {
		l.rev = n % 2 ? 1 : 2;
		if (n > kiw_mpa_ulp_pd_max(l.rev == 2))
			continue;
		KUNIT_ASSERT_EQ(test, kiw_mpa_request_init(&f, &l, pd, n), 0);
		KUNIT_ASSERT_EQ(test, kiw_mpa_build(&f, buf, 600),
				20 + f.pd_len);
		KUNIT_ASSERT_EQ(test, kiw_mpa_parse(buf, 20 + f.pd_len, true,
						    2, 512, &g), KIW_MPA_OK);
		KUNIT_EXPECT_EQ(test, g.rev, f.rev);
		KUNIT_EXPECT_EQ(test, g.enhanced, f.enhanced);
		KUNIT_EXPECT_EQ(test, g.markers, true);
		KUNIT_EXPECT_EQ(test, g.crc, true);
		KUNIT_EXPECT_EQ(test, g.ird, f.ird);
		KUNIT_EXPECT_EQ(test, g.ord, f.ord);
		KUNIT_ASSERT_EQ(test, g.ulp_pd_len, n);
		if (n)
			KUNIT_EXPECT_MEMEQ(test, g.ulp_pd, pd, n);
	}
}

/* A valid Rev 1 Request of 20 + 4 octets ("abcd"). */
static void kiw_good_request(u8 *buf)
{
	memcpy(buf, kiw_key_req, 16);
	buf[16] = 0x40;
	buf[17] = 1;
	put_unaligned_be16(4, buf + 18);
	memcpy(buf + 20, "abcd", 4);
}

/*
 * Each of the 16 key octets, changed alone, is a bad key.
 * Covers: MPA-RR-3, MPA-RR-5, MPA-RR-6
 */
static void kiw_mpa_bad_key_test(struct kunit *test)
{
	struct kiw_mpa_frame f;
	unsigned int i, x;
	enum kiw_mpa_err e;
	u8 buf[24];

	for (i = 0; i < 16; i++)
		for (x = 1; x < 256; x <<= 1) {
			kiw_good_request(buf);
			buf[i] ^= x;
			/* Octet 9 ^ 1 turns 'q' into 'p': the Rep key. */
			e = kiw_mpa_parse(buf, 24, true, 2, 512, &f);
			KUNIT_EXPECT_EQ_MSG(test, e, i == 9 && x == 1 ?
					    KIW_MPA_ERR_NOT_REQUEST :
					    KIW_MPA_ERR_KEY,
					    "octet %u ^ %#x", i, x);
		}
	/* Lower case, and a NUL-terminated C string compare, are wrong. */
	kiw_good_request(buf);
	memcpy(buf, "mpa id req frame", 16);
	KUNIT_EXPECT_EQ(test, kiw_mpa_parse(buf, 24, true, 2, 512, &f),
			KIW_MPA_ERR_KEY);
	kiw_good_request(buf);
	buf[15] = 0;
	KUNIT_EXPECT_EQ(test, kiw_mpa_parse(buf, 24, true, 2, 512, &f),
			KIW_MPA_ERR_KEY);
}

/*
 * Initiator/Initiator, and a Reply sent to a responder.
 * Covers: MPA-SU-15, MPA-SU-17
 */
static void kiw_mpa_wrong_frame_test(struct kunit *test)
{
	struct kiw_mpa_frame f;
	u8 buf[24];

	kiw_good_request(buf);
	KUNIT_EXPECT_EQ(test, kiw_mpa_parse(buf, 24, false, 2, 512, &f),
			KIW_MPA_ERR_INIT_INIT);
	memcpy(buf, kiw_key_rep, 16);
	KUNIT_EXPECT_EQ(test, kiw_mpa_parse(buf, 24, true, 2, 512, &f),
			KIW_MPA_ERR_NOT_REQUEST);
	KUNIT_EXPECT_EQ(test, kiw_mpa_parse(buf, 24, false, 2, 512, &f),
			KIW_MPA_OK);
}

struct kiw_rev_case {
	bool request;
	u8 rev;
	u8 max_rev;
	enum kiw_mpa_err err;
};

static const struct kiw_rev_case kiw_rev_cases[] = {
	{ true, 0, 2, KIW_MPA_ERR_REV },
	{ true, 1, 2, KIW_MPA_OK },
	{ true, 2, 2, KIW_MPA_OK },
	{ true, 3, 2, KIW_MPA_ERR_REV },
	{ true, 255, 2, KIW_MPA_ERR_REV },
	{ false, 0, 2, KIW_MPA_ERR_REV },
	{ false, 1, 2, KIW_MPA_OK },	/* Rev 2 initiator, Rev 1 Reply */
	{ false, 2, 2, KIW_MPA_OK },
	{ false, 2, 1, KIW_MPA_ERR_REV }, /* Reply above our Request */
	{ false, 3, 2, KIW_MPA_ERR_REV },
	{ false, 255, 255, KIW_MPA_ERR_REV },
};

static void kiw_rev_case_desc(const struct kiw_rev_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s rev %u (max %u)",
		 c->request ? "Request" : "Reply", c->rev, c->max_rev);
}

KUNIT_ARRAY_PARAM(kiw_rev, kiw_rev_cases, kiw_rev_case_desc);

/* Covers: MPA-REV-2 */
static void kiw_mpa_rev_test(struct kunit *test)
{
	const struct kiw_rev_case *c = test->param_value;
	struct kiw_mpa_frame f;
	u8 buf[24];

	kiw_good_request(buf);
	if (!c->request)
		memcpy(buf, kiw_key_rep, 16);
	buf[17] = c->rev;
	KUNIT_EXPECT_EQ(test, kiw_mpa_parse(buf, 24, c->request, c->max_rev,
					    512, &f), c->err);
}

struct kiw_pd_case {
	u16 pd_len;
	unsigned int have;	/* octets of PD present */
	size_t buf_len;		/* receiver's PD buffer */
	u8 flags, rev;
	enum kiw_mpa_err err;
};

static const struct kiw_pd_case kiw_pd_cases[] = {
	{ 512, 512, 512, 0, 1, KIW_MPA_OK },
	{ 513, 513, 1024, 0, 1, KIW_MPA_ERR_PD_LEN },
	{ 513, 0, 1024, 0, 1, KIW_MPA_ERR_PD_LEN },
	{ 0xffff, 0, 0x10000, 0, 1, KIW_MPA_ERR_PD_LEN },
	{ 0xffff, 600, 0x10000, 0, 1, KIW_MPA_ERR_PD_LEN },
	{ 256, 256, 256, 0, 1, KIW_MPA_OK },
	{ 257, 257, 256, 0, 1, KIW_MPA_ERR_PD_BUF },
	{ 1, 1, 0, 0, 1, KIW_MPA_ERR_PD_BUF },
	{ 0, 0, 0, 0, 1, KIW_MPA_OK },
	{ 100, 99, 512, 0, 1, KIW_MPA_ERR_TRUNCATED },
	{ 100, 0, 512, 0, 1, KIW_MPA_ERR_TRUNCATED },
	{ 3, 3, 512, 0x10, 2, KIW_MPA_ERR_V2_SHORT },
	{ 3, 3, 512, 0x10, 1, KIW_MPA_OK },	/* S is Res in Rev 1 */
	{ 3, 3, 512, 0x00, 2, KIW_MPA_OK },	/* Rev 2 without S */
	{ 4, 4, 512, 0x10, 2, KIW_MPA_OK },
	{ 4, 4, 512, 0x1f, 1, KIW_MPA_OK },	/* Res ignored */
};

static void kiw_pd_case_desc(const struct kiw_pd_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE,
		 "PD_Length %u, %u there, buffer %zu, rev %u flags %#x",
		 c->pd_len, c->have, c->buf_len, c->rev, c->flags);
}

KUNIT_ARRAY_PARAM(kiw_pd, kiw_pd_cases, kiw_pd_case_desc);

/*
 * The PD is not CRC-protected: the part kiw itself reads (the RFC 6581
 * IRD/ORD word) is refused when it is short.
 * Covers: MPA-PD-3, MPA-PD-4, MPA-PD-5, MPA-MCR-9, MPA-PD-7
 */
static void kiw_mpa_pd_len_test(struct kunit *test)
{
	const struct kiw_pd_case *c = test->param_value;
	struct kiw_mpa_frame f;
	u8 *buf;

	/* Exactly the octets received, so KASAN sees any overread. */
	buf = kunit_kzalloc(test, 20 + c->have, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, kiw_key_req, 16);
	buf[16] = c->flags;
	buf[17] = c->rev;
	put_unaligned_be16(c->pd_len, buf + 18);
	KUNIT_EXPECT_EQ(test, kiw_mpa_parse(buf, 20 + c->have, true, 2,
					    c->buf_len, &f), c->err);
}

/* Fewer than 20 octets: truncated, whatever they hold. */
static void kiw_mpa_truncated_test(struct kunit *test)
{
	struct kiw_mpa_frame f;
	unsigned int n;
	u8 *buf;

	for (n = 0; n < 20; n++) {
		buf = kunit_kzalloc(test, n ?: 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, buf);
		memcpy(buf, kiw_vec_req, n);
		KUNIT_EXPECT_EQ(test, kiw_mpa_parse_hdr(buf, n, true, 2, 512,
							&f),
				KIW_MPA_ERR_TRUNCATED);
	}
	KUNIT_EXPECT_EQ(test, kiw_mpa_parse_hdr(kiw_vec_req, 20, true, 2, 512,
						&f), KIW_MPA_OK);
}

/* Every error class has a name, a Terminate code and an errno. */
static void kiw_mpa_err_table_test(struct kunit *test)
{
	enum kiw_mpa_err e;

	for (e = KIW_MPA_ERR_TRUNCATED; e < KIW_MPA_ERR_MAX; e++) {
		kiw_term_t t = kiw_mpa_err_term(e);

		KUNIT_EXPECT_NOT_NULL(test, kiw_mpa_err_name(e));
		KUNIT_EXPECT_STRNEQ(test, kiw_mpa_err_name(e), "invalid");
		KUNIT_EXPECT_LT(test, kiw_mpa_err_errno(e), 0);
		KUNIT_EXPECT_EQ(test, kiw_term_layer(t), KIW_TERM_LAYER_LLP);
		KUNIT_EXPECT_EQ(test, kiw_term_etype(t), KIW_LLP_ETYPE_MPA);
		KUNIT_EXPECT_EQ(test, kiw_mpa_err_is_malformed(e),
				kiw_term_ecode(t) == KIW_LLP_ECODE_BAD_FRAME &&
				e != KIW_MPA_ERR_CRC_REQUIRED);
	}
	KUNIT_EXPECT_EQ(test, kiw_mpa_err_term(KIW_MPA_ERR_IRD),
			KIW_TERM(KIW_TERM_LAYER_LLP, KIW_LLP_ETYPE_MPA,
				 KIW_LLP_ECODE_INSUFFICIENT_IRD));
	KUNIT_EXPECT_EQ(test, kiw_mpa_err_term(KIW_MPA_ERR_RTR),
			KIW_TERM(KIW_TERM_LAYER_LLP, KIW_LLP_ETYPE_MPA,
				 KIW_LLP_ECODE_NO_MATCHING_RTR));
	KUNIT_EXPECT_EQ(test, kiw_mpa_err_term(KIW_MPA_OK), KIW_TERM_NONE);
	KUNIT_EXPECT_STREQ(test, kiw_mpa_err_name(KIW_MPA_ERR_MAX), "invalid");
}

static struct kunit_case kiw_mpa_frame_cases[] = {
	KUNIT_CASE(kiw_mpa_keys_test),
	KUNIT_CASE(kiw_mpa_vector_request_test),
	KUNIT_CASE(kiw_mpa_vector_reject_test),
	KUNIT_CASE(kiw_mpa_flags_build_test),
	KUNIT_CASE(kiw_mpa_flags_parse_test),
	KUNIT_CASE_PARAM(kiw_mpa_v2_word_test, kiw_v2_gen_params),
	KUNIT_CASE(kiw_mpa_request_init_test),
	KUNIT_CASE(kiw_mpa_roundtrip_test),
	KUNIT_CASE(kiw_mpa_bad_key_test),
	KUNIT_CASE(kiw_mpa_wrong_frame_test),
	KUNIT_CASE_PARAM(kiw_mpa_rev_test, kiw_rev_gen_params),
	KUNIT_CASE_PARAM(kiw_mpa_pd_len_test, kiw_pd_gen_params),
	KUNIT_CASE(kiw_mpa_truncated_test),
	KUNIT_CASE(kiw_mpa_err_table_test),
	{}
};

static struct kunit_suite kiw_mpa_frame_suite = {
	.name = "kiw_mpa_frame",
	.test_cases = kiw_mpa_frame_cases,
};

kunit_test_suite(kiw_mpa_frame_suite);
