// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the FPDU receive parser against the RFC 5044 Figure 5/6 dumps and
 * VECTORS.txt, split at every octet, with corrupted CRCs, markers, PAD and
 * lengths, and its stop-for-good rule.
 */
#include <kunit/test.h>
#include <linux/unaligned.h>

#include "kiw_test_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct kiw_rx_vec {
	const char *name;
	const u8 *wire;
	unsigned int len;
	u32 start;		/* stream offset of wire[0] */
	bool markers;
	u16 ulpdu_len;
	/* The ULPDU is wire[a, b) + wire[c, d): markers left out. */
	unsigned int a, b, c, d;
};

static const struct kiw_rx_vec kiw_rx_vecs[] = {
	{ "fig5", kiw_vec_fig5, 52, 0, true, 42, 6, 48, 48, 48 },
	{ "fig6", kiw_vec_fig6, 52, 0x1ec, true, 42, 2, 20, 24, 48 },
	{ "between", kiw_vec_between, 52, 0x200, true, 42, 6, 48, 48, 48 },
	{ "tagged", kiw_vec_tagged, 36, 0x123458, false, 30, 2, 32, 32, 32 },
	{ "padded", kiw_vec_padded, 28, 7, false, 19, 2, 21, 21, 21 },
};

static void kiw_rx_vec_desc(const struct kiw_rx_vec *v, char *desc)
{
	strscpy(desc, v->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_rx_vec, kiw_rx_vecs, kiw_rx_vec_desc);

static struct kiw_test_ulp *kiw_rx_new(struct kunit *test,
				       const struct kiw_rx_vec *v, bool crc,
				       enum kiw_test_copy copy)
{
	struct kiw_test_ulp *u = kiw_test_ulp_new(test, 256, v->markers, crc);

	u->rx.off = v->start;
	u->copy = copy;
	return u;
}

/* The same parser and buffers again, fresh, for the next run. */
static struct kiw_test_ulp *kiw_rx_again(struct kiw_test_ulp *u,
					 const struct kiw_rx_vec *v, bool crc)
{
	kiw_test_ulp_reset(u, v->markers, crc);
	u->rx.off = v->start;
	return u;
}

static void kiw_rx_expect_ulpdu(struct kunit *test, struct kiw_test_ulp *u,
				const struct kiw_rx_vec *v)
{
	KUNIT_EXPECT_EQ(test, u->nr_ok, 1);
	KUNIT_EXPECT_EQ(test, u->nr_bad, 0);
	KUNIT_EXPECT_EQ(test, u->nr_hdr, 1);
	KUNIT_EXPECT_EQ(test, u->ulpdu_len[0], v->ulpdu_len);
	KUNIT_ASSERT_EQ(test, u->len, v->ulpdu_len);
	KUNIT_EXPECT_MEMEQ(test, u->buf, v->wire + v->a, v->b - v->a);
	KUNIT_EXPECT_MEMEQ(test, u->buf + v->b - v->a, v->wire + v->c,
			   v->d - v->c);
	KUNIT_EXPECT_EQ(test, u->rx.state, KIW_FPDU_RX_LEN);
	KUNIT_EXPECT_EQ(test, u->rx.off, v->start + v->len);
}

/*
 * Each vector parses, whole and with every copy helper: one ULPDU and
 * its length up, without the length field, markers, PAD or CRC.
 * Covers: MPA-IF-6, MPA-IF-9, MPA-FR-1, MPA-FR-2, MPA-MK-12
 * Covers: MPA-RX-2, MPA-RX-3, DDP-LLP-4, DDP-LLP-7
 */
static void kiw_rx_vector_test(struct kunit *test)
{
	const struct kiw_rx_vec *v = test->param_value;
	enum kiw_test_copy copy;

	for (copy = KIW_TEST_COPY; copy <= KIW_TEST_COPY_PAGE; copy++) {
		struct kiw_test_ulp *u = kiw_rx_new(test, v, true, copy);

		KUNIT_EXPECT_EQ(test, kiw_test_feed(u, v->wire, v->len, 0),
				v->len);
		kiw_rx_expect_ulpdu(test, u, v);
	}
}

/*
 * Every 2-way split point, and 1-octet chunks.
 * Covers: MPA-FR-8, MPA-RX-4, MPA-AL-3, MPA-RX-5
 */
static void kiw_rx_split_test(struct kunit *test)
{
	const struct kiw_rx_vec *v = test->param_value;
	struct kiw_test_ulp *u = kiw_rx_new(test, v, true, KIW_TEST_COPY);
	unsigned int k;

	for (k = 1; k < v->len; k++) {
		kiw_rx_again(u, v, true);
		kiw_test_feed(u, v->wire, k, 0);
		KUNIT_EXPECT_EQ(test, u->nr_ok, 0);
		kiw_test_feed(u, v->wire + k, v->len - k, 0);
		kiw_rx_expect_ulpdu(test, u, v);
	}
	kiw_rx_again(u, v, true);
	u->copy = KIW_TEST_COPY_PAGE;
	KUNIT_EXPECT_EQ(test, kiw_test_feed(u, v->wire, v->len, 1), v->len);
	kiw_rx_expect_ulpdu(test, u, v);
}

/*
 * Any one bit flipped, anywhere in the FPDU (length, header, payload,
 * marker, PAD, CRC), and the FPDU is never good; outside ULPDU_Length,
 * where the framing stays, it is a CRC error (MPA-CRC-12). Without CRC,
 * only the marker's FPDUPTR is still checked.
 * Covers: MPA-CRC-12, MPA-SEC-4, DDP-LLP-6
 */
static void kiw_rx_bitflip_test(struct kunit *test)
{
	const struct kiw_rx_vec *v = test->param_value;
	struct kiw_test_ulp *u = kiw_rx_new(test, v, true, KIW_TEST_COPY);
	unsigned int i, len_at = v->a - 2, bit;
	u8 wire[64];

	for (i = 0; i < v->len; i++)
		for (bit = 0; bit < 8; bit++) {
			bool in_len = i == len_at || i == len_at + 1;

			memcpy(wire, v->wire, v->len);
			wire[i] ^= 1 << bit;
			kiw_rx_again(u, v, true);
			kiw_test_feed(u, wire, v->len, 0);
			KUNIT_EXPECT_EQ_MSG(test, u->nr_ok, 0, "octet %u", i);
			if (!in_len)
				KUNIT_EXPECT_EQ_MSG(test, u->verdict,
						    KIW_FPDU_ERR_CRC,
						    "octet %u bit %u", i, bit);
		}
}

/*
 * CRC not negotiated: the field, whatever it holds, is not checked.
 * Covers: MPA-MCR-6, MPA-CRC-7, MPA-FR-6
 */
static void kiw_rx_crc_off_test(struct kunit *test)
{
	const struct kiw_rx_vec *v = test->param_value;
	struct kiw_test_ulp *u = kiw_rx_new(test, v, false, KIW_TEST_COPY);
	unsigned int i;
	u8 wire[64];

	for (i = 0; i < 256; i += 17) {
		kiw_rx_again(u, v, false);
		memcpy(wire, v->wire, v->len);
		memset(wire + v->len - 4, i, 4);
		wire[v->b - 1] ^= i;	/* the ULPDU changes too */
		kiw_test_feed(u, wire, v->len, 0);
		KUNIT_EXPECT_EQ(test, u->nr_ok, 1);
		KUNIT_EXPECT_EQ(test, u->nr_bad, 0);
	}
}

/*
 * The CRC values common bugs produce (CONFORMANCE 4.4) are refused.
 * Covers: MPA-CRC-8, MPA-CRC-9, MPA-CRC-10, MPA-MK-11
 */
static void kiw_rx_bug_signature_test(struct kunit *test)
{
	static const u8 bad5[][4] = {
		{ 0x83, 0x99, 0x23, 0x52 }, { 0xb7, 0x24, 0x3e, 0xc3 },
		{ 0xad, 0xdc, 0x66, 0x7c },
	};
	static const u8 bad6[][4] = {
		{ 0x98, 0x58, 0x92, 0x84 }, { 0x29, 0x0f, 0xbe, 0xde },
	};
	const struct kiw_rx_vec *v5 = &kiw_rx_vecs[0], *v6 = &kiw_rx_vecs[1];
	struct kiw_test_ulp *u;
	unsigned int i;
	u8 wire[52];

	for (i = 0; i < ARRAY_SIZE(bad5); i++) {
		memcpy(wire, kiw_vec_fig5, 52);
		memcpy(wire + 48, bad5[i], 4);
		u = kiw_rx_new(test, v5, true, KIW_TEST_COPY);
		kiw_test_feed(u, wire, 52, 0);
		KUNIT_EXPECT_EQ(test, u->nr_ok, 0);
		KUNIT_EXPECT_EQ(test, u->verdict, KIW_FPDU_ERR_CRC);
	}
	for (i = 0; i < ARRAY_SIZE(bad6); i++) {
		memcpy(wire, kiw_vec_fig6, 52);
		memcpy(wire + 48, bad6[i], 4);
		u = kiw_rx_new(test, v6, true, KIW_TEST_COPY);
		kiw_test_feed(u, wire, 52, 0);
		KUNIT_EXPECT_EQ(test, u->verdict, KIW_FPDU_ERR_CRC);
	}
}

static void kiw_fix_crc(u8 *wire, unsigned int len)
{
	u32 c = kiw_crc_update(kiw_crc_init(), wire, len - 4);

	kiw_crc_put(wire + len - 4, kiw_crc_final(c));
}

/*
 * PAD content is ignored, but covered by the CRC.
 * Covers: MPA-FR-5
 */
static void kiw_rx_pad_test(struct kunit *test)
{
	const struct kiw_rx_vec *v = &kiw_rx_vecs[4];
	struct kiw_test_ulp *u;
	u8 wire[28];

	memcpy(wire, v->wire, v->len);
	memset(wire + 21, 0xff, 3);
	kiw_fix_crc(wire, v->len);
	u = kiw_rx_new(test, v, true, KIW_TEST_COPY);
	kiw_test_feed(u, wire, v->len, 0);
	kiw_rx_expect_ulpdu(test, u, v);
	/* The same PAD under the original CRC: refused. */
	memcpy(wire + 24, v->wire + 24, 4);
	u = kiw_rx_new(test, v, true, KIW_TEST_COPY);
	kiw_test_feed(u, wire, v->len, 0);
	KUNIT_EXPECT_EQ(test, u->verdict, KIW_FPDU_ERR_CRC);
}

struct kiw_mk_case {
	unsigned int vec;	/* kiw_rx_vecs index */
	unsigned int at;	/* marker octet offset in the vector */
	u16 rsvd, ptr;
	bool crc;
	kiw_term_t verdict;
};

static const struct kiw_mk_case kiw_mk_cases[] = {
	/* Low FPDUPTR bits ignored (MPA-MK-3), RESERVED ignored (MK-2). */
	{ 1, 20, 0, 0x15, true, KIW_TERM_NONE },
	{ 1, 20, 0, 0x17, true, KIW_TERM_NONE },
	{ 1, 20, 0xffff, 0x14, true, KIW_TERM_NONE },
	{ 0, 0, 0x1234, 0x0003, true, KIW_TERM_NONE },
	/* FPDUPTR off by 4 or more, valid CRC: code 3 (MPA-ERR-2). */
	{ 1, 20, 0, 0x18, true, KIW_FPDU_ERR_MARKER },
	{ 1, 20, 0, 0x10, true, KIW_FPDU_ERR_MARKER },
	{ 1, 20, 0, 0x0000, true, KIW_FPDU_ERR_MARKER },
	{ 0, 0, 0, 0x0004, true, KIW_FPDU_ERR_MARKER },
	{ 2, 0, 0, 0x0200, true, KIW_FPDU_ERR_MARKER },
	{ 1, 20, 0, 0x18, false, KIW_FPDU_ERR_MARKER },
	{ 0, 0, 0, 0xfffc, false, KIW_FPDU_ERR_MARKER },
};

static void kiw_mk_case_desc(const struct kiw_mk_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s rsvd %#x ptr %#x crc %d",
		 kiw_rx_vecs[c->vec].name, c->rsvd, c->ptr, c->crc);
}

KUNIT_ARRAY_PARAM(kiw_mk, kiw_mk_cases, kiw_mk_case_desc);

/* Covers: MPA-MK-2, MPA-MK-3, MPA-ERR-1, MPA-ERR-2 */
static void kiw_rx_marker_test(struct kunit *test)
{
	const struct kiw_mk_case *c = test->param_value;
	const struct kiw_rx_vec *v = &kiw_rx_vecs[c->vec];
	struct kiw_test_ulp *u = kiw_rx_new(test, v, c->crc, KIW_TEST_COPY);
	u8 wire[64];

	memcpy(wire, v->wire, v->len);
	put_unaligned_be16(c->rsvd, wire + c->at);
	put_unaligned_be16(c->ptr, wire + c->at + 2);
	kiw_fix_crc(wire, v->len);
	kiw_test_feed(u, wire, v->len, 0);
	if (!c->verdict) {
		kiw_rx_expect_ulpdu(test, u, v);
		return;
	}
	KUNIT_EXPECT_EQ(test, u->nr_ok, 0);
	KUNIT_EXPECT_EQ(test, u->nr_bad, 1);
	KUNIT_EXPECT_EQ(test, u->verdict, c->verdict);
	KUNIT_EXPECT_EQ(test, kiw_fpdu_rx_error(&u->rx), c->verdict);
	/* With CRC, nothing after the marker went up; without, at once. */
	if (c->crc)
		KUNIT_EXPECT_EQ(test, u->rx.off, v->start + v->len);
	else
		KUNIT_EXPECT_EQ(test, u->rx.off, v->start + c->at + 4);
}

/*
 * ULPDU_Length below the DDP header: a clean error, no hdr() call.
 * Covers: MPA-FR-7
 */
static void kiw_rx_short_test(struct kunit *test)
{
	static const struct {
		u16 len;
		u8 ctrl;
	} cases[] = {
		{ 0, 0 }, { 1, 0xc1 }, { 13, 0xc1 }, { 17, 0x41 }, { 1, 0x41 },
		{ 14, 0x41 },
	};
	unsigned int i, crc, n;
	u8 ulpdu[20], wire[64];

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		for (crc = 0; crc < 2; crc++) {
			struct kiw_test_ulp *u;

			memset(ulpdu, 0, sizeof(ulpdu));
			ulpdu[0] = cases[i].ctrl;
			n = kiw_ref_fpdu(wire, 0, ulpdu, cases[i].len, false,
					 true, NULL);
			u = kiw_test_ulp_new(test, 64, false, crc);
			kiw_test_feed(u, wire, n, 1);
			KUNIT_EXPECT_EQ(test, u->nr_hdr, 0);
			KUNIT_EXPECT_EQ(test, u->nr_data, 0);
			KUNIT_EXPECT_EQ(test, u->nr_bad, 1);
			KUNIT_EXPECT_EQ(test, u->verdict, KIW_FPDU_ERR_SHORT);
			/* With a bad CRC too, the CRC error wins. */
			wire[n - 1] ^= 1;
			u = kiw_test_ulp_new(test, 64, false, true);
			kiw_test_feed(u, wire, n, 0);
			KUNIT_EXPECT_EQ(test, u->verdict, KIW_FPDU_ERR_CRC);
		}
}

/* kiw_rx_many_test()'s stream: FPDUs of assorted lengths back to back. */
static const u16 kiw_rx_many_lens[] = { 18, 19, 20, 21, 30, 490, 491, 492,
					493, 502, 14, 600, 1100, 18, 4000 };

/* That stream, from an unaligned stream offset near the 32-bit wrap. */
struct kiw_rx_many {
	u8 *wire;
	u8 *ulpdu;		/* the ULPDUs back to back */
	unsigned int n;		/* octets of @wire */
	unsigned int total;	/* octets of @ulpdu */
	u32 start;
};

static void kiw_rx_many_stream(struct kunit *test, struct kiw_rx_many *m,
			       bool markers)
{
	unsigned int i;

	if (!m->wire) {
		m->wire = kunit_kzalloc(test, 16384, GFP_KERNEL);
		m->ulpdu = kunit_kzalloc(test, 16384, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, m->wire);
		KUNIT_ASSERT_NOT_NULL(test, m->ulpdu);
	}
	m->start = 0xfffff000 + 0x1c4;
	m->n = 0;
	m->total = 0;
	for (i = 0; i < ARRAY_SIZE(kiw_rx_many_lens); i++) {
		unsigned int len = kiw_rx_many_lens[i];
		u8 *p = m->ulpdu + m->total;

		kiw_ref_send_hdr(p, i + 1);
		if (len > 18)
			memset(p + 18, i, len - 18);
		if (len == 14 || len == 30)
			p[0] = 0xc1;	/* tagged */
		m->n += kiw_ref_fpdu(m->wire + m->n, m->start + m->n, p, len,
				     markers, true, NULL);
		m->total += len;
	}
}

/* A parser at the stream's start; data() copies, or (@page) via a page. */
static struct kiw_test_ulp *kiw_rx_many_ulp(struct kunit *test,
					    const struct kiw_rx_many *m,
					    bool markers, bool page)
{
	struct kiw_test_ulp *u = kiw_test_ulp_new(test, 16384, markers, true);

	u->rx.off = m->start;
	u->copy = page ? KIW_TEST_COPY_PAGE : KIW_TEST_COPY;
	return u;
}

/* @u took all of the stream: every ULPDU intact, no FPDU failed. */
static void kiw_rx_many_check(struct kunit *test, const struct kiw_test_ulp *u,
			      const struct kiw_rx_many *m)
{
	KUNIT_EXPECT_EQ(test, u->nr_ok, ARRAY_SIZE(kiw_rx_many_lens));
	KUNIT_EXPECT_EQ(test, u->nr_bad, 0);
	KUNIT_ASSERT_EQ(test, u->len, m->total);
	KUNIT_EXPECT_MEMEQ(test, u->buf, m->ulpdu, m->total);
	KUNIT_EXPECT_EQ(test, u->rx.off, m->start + m->n);
}

/*
 * The largest ULPDU any sender may post, 64768 octets (RFC 5044 section
 * 3), is taken whole; one octet more, or 0xffff, is an invalid frame,
 * refused at its ULPDU_Length: nothing of it reaches the upper layer, and
 * no CRC field is waited for. No overflow anywhere up to 0xffff.
 */
static void kiw_rx_max_len_test(struct kunit *test)
{
	static const u16 lens[] = { KIW_MPA_ULPDU_MAX, KIW_MPA_ULPDU_MAX + 1,
				    0xffff };
	unsigned int i, n, markers, crc;
	u8 *ulpdu, *wire;

	ulpdu = kunit_kzalloc(test, 0xffff, GFP_KERNEL);
	wire = kunit_kzalloc(test, 0xffff + 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	kiw_ref_send_hdr(ulpdu, 1);
	for (n = 18; n < 0xffff; n++)
		ulpdu[n] = n;
	for (i = 0; i < ARRAY_SIZE(lens) * 4; i++) {
		u16 len = lens[i / 4];
		struct kiw_test_ulp *u;

		markers = i & 1;
		crc = !!(i & 2);
		u = kiw_test_ulp_new(test, 0xffff, markers, crc);
		n = kiw_ref_fpdu(wire, 0, ulpdu, len, markers, crc, NULL);
		if (len <= KIW_MPA_ULPDU_MAX) {
			KUNIT_EXPECT_EQ(test, kiw_test_feed(u, wire, n, 1460), n);
			KUNIT_EXPECT_EQ(test, u->nr_ok, 1);
			KUNIT_EXPECT_EQ(test, u->ulpdu_len[0], len);
			KUNIT_ASSERT_EQ(test, u->len, len);
			KUNIT_EXPECT_MEMEQ(test, u->buf, ulpdu, len);
			continue;
		}
		/* Covers: MPA-FR-7 */
		KUNIT_EXPECT_EQ(test, kiw_test_feed(u, wire, n, 1460),
				(markers ? KIW_MPA_MARKER_SIZE : 0) +
				KIW_MPA_ULPDU_LEN_SIZE);
		KUNIT_EXPECT_EQ(test, u->verdict, KIW_FPDU_ERR_LEN);
		KUNIT_EXPECT_EQ(test, u->nr_hdr, 0);
		KUNIT_EXPECT_EQ(test, u->nr_data, 0);
		KUNIT_EXPECT_EQ(test, u->nr_ok, 0);
		KUNIT_EXPECT_EQ(test, kiw_fpdu_rx_error(&u->rx),
				KIW_FPDU_ERR_LEN);
	}
}

/*
 * Several FPDUs of assorted lengths back to back, in one chunk and in
 * 1-, 3- and 509-octet chunks, markers on and off, from an unaligned
 * stream offset near the 32-bit wrap.
 * Covers: MPA-AL-2, MPA-AL-3, MPA-MK-9, MPA-MK-13, MPA-MK-14, MPA-RX-4
 */
static void kiw_rx_many_test(struct kunit *test)
{
	static const unsigned int chunks[] = { 0, 1, 3, 509 };
	struct kiw_rx_many m = {};
	unsigned int c, markers;

	for (markers = 0; markers < 2; markers++) {
		kiw_rx_many_stream(test, &m, markers);
		for (c = 0; c < ARRAY_SIZE(chunks); c++) {
			struct kiw_test_ulp *u;

			u = kiw_rx_many_ulp(test, &m, markers, c % 2);
			KUNIT_EXPECT_EQ(test, kiw_test_feed(u, m.wire, m.n,
							    chunks[c]), m.n);
			kiw_rx_many_check(test, u, &m);
		}
	}
}

/*
 * After an error nothing more goes up (RFC 5044 section 8): a hdr()
 * error held to the CRC field, then valid FPDUs that are never parsed.
 * Covers: MPA-ERR-5, MPA-CRC-13
 */
static void kiw_rx_stop_test(struct kunit *test)
{
	const kiw_term_t ddp_err = KIW_TERM(KIW_TERM_LAYER_DDP,
					    KIW_DDP_ETYPE_UNTAGGED,
					    KIW_DDP_ECODE_UT_INVALID_QN);
	unsigned int i, n = 0, crc, bad_crc;
	u8 *ulpdu = kunit_kzalloc(test, 100, GFP_KERNEL);
	u8 *wire = kunit_kzalloc(test, 512, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	for (i = 0; i < 4; i++) {
		kiw_ref_send_hdr(ulpdu, i + 1);
		memset(ulpdu + 18, 0x11 * i, 80);
		n += kiw_ref_fpdu(wire + n, n, ulpdu, 98, false, true, NULL);
	}
	for (crc = 0; crc < 2; crc++)
		for (bad_crc = 0; bad_crc <= crc; bad_crc++) {
			struct kiw_test_ulp *u;

			u = kiw_test_ulp_new(test, 1024, false, crc);
			u->hdr_ret = ddp_err;
			u->hdr_fail_at = 1;	/* the second FPDU */
			if (bad_crc)
				wire[2 * 104 - 1] ^= 0x80;
			KUNIT_EXPECT_EQ(test, kiw_test_feed(u, wire, n, 7),
					crc ? 2 * 104 : 104 + 20);
			if (bad_crc)
				wire[2 * 104 - 1] ^= 0x80;
			KUNIT_EXPECT_EQ(test, u->nr_ok, 1);
			KUNIT_EXPECT_EQ(test, u->nr_bad, 1);
			KUNIT_EXPECT_EQ(test, u->nr_hdr, 2);
			/* The failed FPDU's payload never went up. */
			KUNIT_EXPECT_EQ(test, u->len, 98 + 18);
			KUNIT_EXPECT_EQ(test, u->verdict,
					bad_crc ? KIW_FPDU_ERR_CRC : ddp_err);
			KUNIT_EXPECT_EQ(test, u->rx.state, KIW_FPDU_RX_DEAD);
			/* More valid data: consumed by nobody. */
			KUNIT_EXPECT_EQ(test, kiw_test_feed(u, wire, n, 0), 0);
			KUNIT_EXPECT_EQ(test, u->nr_hdr, 2);
			KUNIT_EXPECT_EQ(test, u->nr_ok + u->nr_bad, 2);
		}
}

/*
 * data() failing half way through a piece: with CRC, a sound FPDU reports
 * data()'s error, a corrupt one the CRC error; without CRC, at once.
 */
static void kiw_rx_data_error_test(struct kunit *test)
{
	const kiw_term_t err = KIW_TERM(KIW_TERM_LAYER_DDP,
					KIW_DDP_ETYPE_TAGGED,
					KIW_DDP_ECODE_T_BASE_BOUNDS);
	const struct kiw_rx_vec *v = &kiw_rx_vecs[1];
	unsigned int crc, bad;
	u8 wire[52];

	for (crc = 0; crc < 2; crc++)
		for (bad = 0; bad <= crc; bad++) {
			struct kiw_test_ulp *u = kiw_rx_new(test, v, crc,
							    KIW_TEST_COPY);

			memcpy(wire, v->wire, v->len);
			wire[30] ^= bad;	/* payload, after the marker */
			u->data_ret = err;
			kiw_test_feed(u, wire, v->len, 0);
			KUNIT_EXPECT_EQ(test, u->nr_ok, 0);
			KUNIT_EXPECT_EQ(test, u->nr_bad, 1);
			/* Only the first piece went up, the rest did not. */
			KUNIT_EXPECT_EQ(test, u->nr_data, 1);
			KUNIT_EXPECT_EQ(test, u->verdict,
					bad ? KIW_FPDU_ERR_CRC : err);
		}
}

/*
 * The receive engine's loop (kiw_rx_actor()) over @wire, of which @arrived
 * octets are queued: check each FPDU ahead once it is all there, then let
 * the parser take it. *@taken: the octets taken so far. @flat: first try
 * the one-pass check (kiw_fpdu_rx_ahead_flat(), the skb being linear), as
 * kiw_rx_ahead() does; it must apply exactly when the FPDU is all there
 * and has no markers.
 */
static void kiw_rx_ahead_run(struct kunit *test, struct kiw_test_ulp *u,
			     struct sk_buff *skb, unsigned int arrived,
			     unsigned int *taken, bool flat)
{
	struct kiw_fpdu_rx copy;
	unsigned int room;
	bool done;
	int span;

	while (*taken < arrived) {
		room = kiw_fpdu_rx_room(&u->rx);
		if (!room) {
			span = kiw_fpdu_rx_span(&u->rx, skb->data + *taken,
						min_t(unsigned int,
						      arrived - *taken,
						      KIW_FPDU_RX_PEEK));
			KUNIT_ASSERT_GE(test, span, 0);
			done = flat &&
			       kiw_fpdu_rx_ahead_flat(&u->rx,
						      skb->data + *taken,
						      arrived - *taken);
			KUNIT_EXPECT_EQ(test, done,
					(bool)(flat && !u->rx.markers && span &&
					       arrived - *taken >=
					       (unsigned int)span));
			if (!done) {
				if (!span ||
				    arrived - *taken < (unsigned int)span)
					return;
				kiw_fpdu_rx_ahead_begin(&copy, &u->rx);
				/* all of it is there: the copy has a verdict */
				done = kiw_fpdu_rx_ahead_feed(&copy, skb,
							      *taken,
							      arrived - *taken);
				KUNIT_ASSERT_TRUE(test, done);
				KUNIT_EXPECT_EQ(test, copy.off,
						u->rx.off + span);
				kiw_fpdu_rx_ahead_commit(&u->rx, &copy);
			}
			room = kiw_fpdu_rx_room(&u->rx);
			KUNIT_ASSERT_EQ(test, room, (unsigned int)span);
		}
		room = min(room, arrived - *taken);
		kiw_fpdu_rx_feed(&u->rx, skb, *taken, room);
		*taken += room;
	}
}

/*
 * CRC on: nothing of an FPDU goes up (hdr(), data()) before all of it has
 * arrived and its CRC is checked; an FPDU whose CRC fails puts nothing
 * in the consumer's buffer, the FPDUs before it all of theirs. Markers
 * on and off, the stream arriving in pieces of 1, 3, 509 octets and at
 * once, a bad octet in the payload of FPDU 7, in a marker of FPDU 14
 * (without markers: none), or none; each FPDU checked by a parser copy,
 * or (without markers) in one pass where it is all there.
 * Covers: MPA-RX-1, MPA-CRC-13
 */
static void kiw_rx_ahead_test(struct kunit *test)
{
	static const u16 lens[] = { 18, 19, 20, 21, 30, 490, 491, 492, 493,
				    502, 600, 1100, 18, 4000 };
	static const unsigned int chunks[] = { 1, 3, 509, 16384 };
	unsigned int ends[ARRAY_SIZE(lens)], sums[ARRAY_SIZE(lens) + 1];
	unsigned int i, c, n, k, markers, bad, bi, taken, arrived, whole;
	struct sk_buff *skb;
	bool flat;
	u8 *wire, *ulpdu;

	wire = kunit_kzalloc(test, 16384, GFP_KERNEL);
	ulpdu = kunit_kzalloc(test, 16384, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	for (k = 0; k < 12; k++) {
		u32 start = 0xfffff000 + 0x1c4;

		flat = k / 6;
		markers = k / 3 % 2;
		bad = k % 3;

		n = 0;
		sums[0] = 0;
		for (i = 0; i < ARRAY_SIZE(lens); i++) {
			u8 *p = ulpdu + sums[i];

			kiw_ref_send_hdr(p, i + 1);
			if (lens[i] > 18)
				memset(p + 18, i, lens[i] - 18);
			n += kiw_ref_fpdu(wire + n, start + n, p, lens[i],
					  markers, true, NULL);
			ends[i] = n;
			sums[i + 1] = sums[i] + lens[i];
		}
		bi = bad == 1 ? 6 : 13;
		if (bad == 1)
			wire[ends[6] - 8] ^= 0x10;	/* FPDU 7's payload */
		if (bad == 2 && markers) {
			/* FPDUPTR of the first marker inside FPDU 14 */
			i = ends[12] + (-(start + ends[12]) & 0x1ff);
			KUNIT_ASSERT_LT(test, i + 4, ends[13]);
			wire[i + 3] ^= 0x04;
		}
		skb = kiw_test_skb(test, wire, n, n, 0, 0);
		for (c = 0; c < ARRAY_SIZE(chunks); c++) {
			struct kiw_test_ulp *u;

			u = kiw_test_ulp_new(test, 16384, markers, true);
			u->rx.off = start;
			u->copy = c % 2 ? KIW_TEST_COPY_PAGE : KIW_TEST_COPY;
			taken = 0;
			for (arrived = 0; arrived < n;) {
				arrived = min(arrived + chunks[c], n);
				kiw_rx_ahead_run(test, u, skb, arrived, &taken,
						 flat);
				for (whole = 0; whole < ARRAY_SIZE(lens) &&
				     ends[whole] <= arrived; whole++)
					;
				/* nothing of an FPDU not all there */
				KUNIT_ASSERT_LE(test, u->nr_hdr, whole);
				KUNIT_ASSERT_LE(test, u->len, sums[whole]);
			}
			if (bad == 0 || (bad == 2 && !markers)) {
				KUNIT_EXPECT_EQ(test, taken, n);
				KUNIT_EXPECT_EQ(test, u->nr_ok,
						ARRAY_SIZE(lens));
				KUNIT_ASSERT_EQ(test, u->len, sums[ARRAY_SIZE(lens)]);
				KUNIT_EXPECT_MEMEQ(test, u->buf, ulpdu, u->len);
				continue;
			}
			/* FPDU bi failed: only those before it went up */
			KUNIT_EXPECT_EQ(test, u->nr_ok, bi);
			KUNIT_EXPECT_EQ(test, u->nr_bad, 1);
			KUNIT_EXPECT_EQ(test, u->verdict, KIW_FPDU_ERR_CRC);
			KUNIT_EXPECT_EQ(test, u->nr_hdr, bi);
			KUNIT_ASSERT_EQ(test, u->len, sums[bi]);
			KUNIT_EXPECT_MEMEQ(test, u->buf, ulpdu, u->len);
			KUNIT_EXPECT_EQ(test, kiw_fpdu_rx_room(&u->rx),
					UINT_MAX);	/* the rest is dropped */
		}
	}
}

/*
 * Check ahead with a parser copy (begin, feed, commit) on @a, in one pass
 * (kiw_fpdu_rx_ahead_flat()) on @b, over the FPDU at the start of @skb
 * (linear, @n octets); then let each parser take it. Both must reach the
 * same verdict and give the upper layer the same.
 */
static void kiw_rx_flat_same(struct kunit *test, struct kiw_test_ulp *a,
			     struct kiw_test_ulp *b, struct sk_buff *skb,
			     unsigned int n)
{
	struct kiw_fpdu_rx copy;
	bool flat;
	int span;

	kiw_test_ulp_reset(a, false, true);
	kiw_test_ulp_reset(b, false, true);
	span = kiw_fpdu_rx_span(&a->rx, skb->data, n);
	flat = kiw_fpdu_rx_ahead_flat(&b->rx, skb->data, n);
	if (span <= 0 || (unsigned int)span > n ||
	    get_unaligned_be16(skb->data) > KIW_MPA_ULPDU_MAX) {
		/* not all there, or refused at its length: the copy's case */
		KUNIT_EXPECT_FALSE(test, flat);
		KUNIT_EXPECT_EQ(test, kiw_fpdu_rx_room(&b->rx), 0);
		return;
	}
	KUNIT_ASSERT_TRUE(test, flat);
	kiw_fpdu_rx_ahead_begin(&copy, &a->rx);
	KUNIT_ASSERT_TRUE(test, kiw_fpdu_rx_ahead_feed(&copy, skb, 0, n));
	kiw_fpdu_rx_ahead_commit(&a->rx, &copy);
	KUNIT_EXPECT_EQ(test, b->rx.ahead_end, a->rx.ahead_end);
	KUNIT_EXPECT_EQ(test, b->rx.ahead_bad, a->rx.ahead_bad);
	KUNIT_EXPECT_EQ(test, kiw_fpdu_rx_room(&b->rx),
			kiw_fpdu_rx_room(&a->rx));
	kiw_fpdu_rx_feed(&a->rx, skb, 0, span);
	kiw_fpdu_rx_feed(&b->rx, skb, 0, span);
	KUNIT_EXPECT_EQ(test, b->nr_hdr, a->nr_hdr);
	KUNIT_EXPECT_EQ(test, b->nr_data, a->nr_data);
	KUNIT_EXPECT_EQ(test, b->nr_ok, a->nr_ok);
	KUNIT_EXPECT_EQ(test, b->nr_bad, a->nr_bad);
	KUNIT_EXPECT_EQ(test, b->verdict, a->verdict);
	KUNIT_ASSERT_EQ(test, b->len, a->len);
	KUNIT_EXPECT_MEMEQ(test, b->buf, a->buf, a->len);
}

/*
 * The one-pass check reaches the parser copy's verdict, octet for octet:
 * FPDUs without markers (Sends of 18 to 1100 octets, padded or not, and
 * ULPDUs too short for their DDP header), each intact and with every one
 * of its bits flipped in turn (one in 7 above 64 octets), cut short by
 * up to 4 octets too: it applies to a whole FPDU and only then.
 * Covers: MPA-RX-1, MPA-CRC-13
 */
static void kiw_rx_ahead_flat_test(struct kunit *test)
{
	static const struct {
		u16 len;
		u8 ctrl;	/* 0: a Send header */
	} cases[] = {
		{ 18, 0 }, { 19, 0 }, { 21, 0 }, { 26, 0 }, { 200, 0 },
		{ 1100, 0 }, { 0, 0x41 }, { 1, 0xc1 }, { 13, 0xc1 },
		{ 17, 0x41 },
	};
	struct kiw_test_ulp *a = kiw_test_ulp_new(test, 2048, false, true);
	struct kiw_test_ulp *b = kiw_test_ulp_new(test, 2048, false, true);
	unsigned int i, bit, n, cut, step;
	struct sk_buff *skb;
	u8 *ulpdu, *wire;

	ulpdu = kunit_kzalloc(test, 2048, GFP_KERNEL);
	wire = kunit_kzalloc(test, 2048, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(ulpdu, 0x5a + i, cases[i].len);
		if (cases[i].ctrl)
			ulpdu[0] = cases[i].ctrl;
		else
			kiw_ref_send_hdr(ulpdu, i + 1);
		n = kiw_ref_fpdu(wire, 0, ulpdu, cases[i].len, false, true,
				 NULL);
		skb = kiw_test_skb(test, wire, n, n, 0, 0);
		for (cut = 0; cut <= 4; cut++)
			kiw_rx_flat_same(test, a, b, skb, n - cut);
		step = n > 64 ? 7 : 1;
		for (bit = 0; bit < n * 8; bit += step) {
			skb->data[bit / 8] ^= BIT(bit % 8);
			kiw_rx_flat_same(test, a, b, skb, n);
			skb->data[bit / 8] ^= BIT(bit % 8);
		}
	}
	/* Markers, or no CRC: not its case; the parser is left as it was. */
	kiw_test_ulp_reset(b, true, true);
	KUNIT_EXPECT_FALSE(test, kiw_fpdu_rx_ahead_flat(&b->rx, skb->data, n));
	KUNIT_EXPECT_FALSE(test, b->rx.ahead);
	kiw_test_ulp_reset(b, false, false);
	KUNIT_EXPECT_FALSE(test, kiw_fpdu_rx_ahead_flat(&b->rx, skb->data, n));
	KUNIT_EXPECT_FALSE(test, b->rx.ahead);
}

/*
 * Take the FPDU checked ahead at the start of @wire (@n octets) through
 * the flat window (kiw_fpdu_rx_flat_begin()) over @win, a copy of
 * @wire's octets @from to @from + @len, from @skb, whose octets outside
 * the window are @wire's; and compare with @ref, which took @wire from an
 * skb as it is.
 */
static void kiw_rx_window_same(struct kunit *test, struct kiw_test_ulp *ref,
			       struct kiw_test_ulp *u, struct sk_buff *skb,
			       const u8 *wire, unsigned int n,
			       unsigned int from, unsigned int len)
{
	u8 *win = kunit_kmalloc(test, len, GFP_KERNEL);
	int span;

	KUNIT_ASSERT_NOT_NULL(test, win);
	memcpy(win, wire + from, len);
	kiw_test_ulp_reset(u, false, true);
	u->copy = ref->copy;
	KUNIT_ASSERT_TRUE(test, kiw_fpdu_rx_ahead_flat(&u->rx, wire, n));
	span = u->rx.ahead_end;
	kiw_fpdu_rx_flat_begin(&u->rx, skb, from, win, len);
	KUNIT_EXPECT_EQ(test, kiw_fpdu_rx_feed(&u->rx, skb, 0, span), span);
	kiw_fpdu_rx_flat_end(&u->rx);
	KUNIT_EXPECT_NULL(test, u->rx.flat_skb);
	KUNIT_EXPECT_EQ(test, u->nr_hdr, ref->nr_hdr);
	KUNIT_EXPECT_EQ(test, u->nr_data, ref->nr_data);
	KUNIT_EXPECT_EQ(test, u->nr_ok, ref->nr_ok);
	KUNIT_EXPECT_EQ(test, u->nr_bad, ref->nr_bad);
	KUNIT_EXPECT_EQ(test, u->verdict, ref->verdict);
	KUNIT_ASSERT_EQ(test, u->len, ref->len);
	KUNIT_EXPECT_MEMEQ(test, u->buf, ref->buf, ref->len);
	kunit_kfree(test, win);
}

/*
 * The flat window: the parser reads the octets of an FPDU checked ahead
 * that lie in it from it, and the rest from the skb, to the same result
 * as from the skb alone. Sends of 18 to 1100 octets, each taken by a
 * data() that copies, that copies to a page, or that skips half; intact
 * or with a bad CRC; a window from the FPDU's third octet on, over an skb
 * whose octets there are garbage (nothing there may be read from the skb;
 * the ULPDU_Length, not in the window, is), and windows over the first
 * octets only, on the real skb.
 * Covers: MPA-RX-1
 */
static void kiw_rx_flat_window_test(struct kunit *test)
{
	static const u16 lens[] = { 18, 19, 21, 26, 200, 1100 };
	struct kiw_test_ulp *ref = kiw_test_ulp_new(test, 2048, false, true);
	struct kiw_test_ulp *u = kiw_test_ulp_new(test, 2048, false, true);
	unsigned int i, n, mode, bad, cut;
	struct sk_buff *skb, *junk;
	u8 *ulpdu, *wire;

	ulpdu = kunit_kzalloc(test, 2048, GFP_KERNEL);
	wire = kunit_kzalloc(test, 2048, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		memset(ulpdu, 0x30 + i, lens[i]);
		kiw_ref_send_hdr(ulpdu, i + 1);
		n = kiw_ref_fpdu(wire, 0, ulpdu, lens[i], false, true, NULL);
		for (bad = 0; bad < 2; bad++) {
			wire[n - 1] ^= bad;	/* the CRC field */
			skb = kiw_test_skb(test, wire, n, n, 0, 0);
			junk = kiw_test_skb(test, wire, n, n, 0, 0);
			memset(junk->data + 2, 0xa5, n - 2);
			for (mode = KIW_TEST_COPY; mode <= KIW_TEST_SKIP_HALF;
			     mode++) {
				kiw_test_ulp_reset(ref, false, true);
				ref->copy = mode;
				KUNIT_ASSERT_TRUE(test,
						  kiw_fpdu_rx_ahead_flat(&ref->rx,
									 wire, n));
				kiw_fpdu_rx_feed(&ref->rx, skb, 0, n);
				KUNIT_EXPECT_EQ(test, ref->nr_ok, !bad);
				KUNIT_EXPECT_EQ(test, ref->nr_bad, bad);
				kiw_rx_window_same(test, ref, u, junk, wire, n,
						   2, n - 2);
				for (cut = 1; cut < n; cut += cut < 8 ? 1 : 97)
					kiw_rx_window_same(test, ref, u, skb,
							   wire, n, 0, cut);
			}
			wire[n - 1] ^= bad;
		}
	}
}

KUNIT_DEFINE_ACTION_WRAPPER(kiw_rx_kfree_skb, kfree_skb, struct sk_buff *);

/*
 * An skb holding @data in one fragment of an order-2 compound page,
 * starting in its second page: a fragment that crosses page boundaries.
 */
static struct sk_buff *kiw_rx_compound_skb(struct kunit *test, const u8 *data,
					   unsigned int len)
{
	unsigned int at = PAGE_SIZE + 100;
	struct sk_buff *skb = alloc_skb(1, GFP_KERNEL);
	struct page *page;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kiw_rx_kfree_skb,
							skb), 0);
	KUNIT_ASSERT_LE(test, at + len, 4 * PAGE_SIZE);
	page = alloc_pages(GFP_KERNEL | __GFP_COMP, 2);
	KUNIT_ASSERT_NOT_NULL(test, page);
	memcpy(page_address(page) + at, data, len);
	skb_add_rx_frag(skb, 0, page, at, len, 4 * PAGE_SIZE);
	return skb;
}

/*
 * What the receive actor (kiw_rx.c) does with @len octets of @skb, CRC
 * on: an FPDU in one piece checked and taken by kiw_fpdu_rx_take_flat(),
 * any other checked ahead by a parser copy, then fed a piece at a time
 * (kiw_fpdu_rx_feed_pieces()), at most @chunk octets a call (0: no limit).
 * Return: how many FPDUs kiw_fpdu_rx_take_flat() took.
 */
static unsigned int kiw_rx_like_actor(struct kunit *test,
				      struct kiw_test_ulp *u,
				      const struct sk_buff *skb,
				      unsigned int len, unsigned int chunk)
{
	unsigned int off = 0, m, flat = 0;
	struct kiw_fpdu_rx copy;

	while (off < len && u->rx.state != KIW_FPDU_RX_DEAD) {
		unsigned int n = chunk ? min(chunk, len - off) : len - off;

		m = kiw_fpdu_rx_room(&u->rx);
		if (!m) {
			m = kiw_fpdu_rx_take_flat(&u->rx, skb, off, n);
			KUNIT_EXPECT_NULL(test, u->rx.flat_skb);
			if (m) {
				flat++;
				off += m;
				continue;
			}
			kiw_fpdu_rx_ahead_begin(&copy, &u->rx);
			KUNIT_ASSERT_TRUE(test,
					  kiw_fpdu_rx_ahead_feed(&copy, skb, off,
								 len - off));
			kiw_fpdu_rx_ahead_commit(&u->rx, &copy);
		}
		m = min(n, kiw_fpdu_rx_room(&u->rx));
		kiw_fpdu_rx_feed_pieces(&u->rx, skb, off, m);
		KUNIT_EXPECT_NULL(test, u->rx.flat_skb);
		off += m;
	}
	return flat;
}

/*
 * Taking a stream of FPDUs as the receive actor does (one piece of an skb
 * at a time as the flat window, FPDUs in one piece checked in one pass):
 * Sends and tagged segments of 14 to 4000 octets, with markers and
 * without, from skbs that are all fragments (one page each, or 100
 * octets each), linear part, fragments and frag_list, or one fragment
 * across the pages of a compound page; whole, or at most 1, 3 or 509
 * octets a call. Every ULPDU arrives intact, no FPDU fails; without
 * markers, every FPDU of the compound page is taken in one pass.
 * Covers: MPA-RX-1
 */
static void kiw_rx_pieces_test(struct kunit *test)
{
	static const unsigned int chunks[] = { 0, 1, 3, 509 };
	struct kiw_rx_many m = {};
	unsigned int c, lay, flat, markers;
	struct sk_buff *skb;

	for (markers = 0; markers < 2; markers++) {
		kiw_rx_many_stream(test, &m, markers);
		for (lay = 0; lay < 4; lay++) {
			if (lay == 0)
				skb = kiw_test_skb(test, m.wire, m.n, 0, 0, 0);
			else if (lay == 1)
				skb = kiw_test_skb(test, m.wire, m.n, 0, 100, 0);
			else if (lay == 2)
				skb = kiw_test_skb(test, m.wire, m.n, 600, 0,
						   777);
			else
				skb = kiw_rx_compound_skb(test, m.wire, m.n);
			for (c = 0; c < ARRAY_SIZE(chunks); c++) {
				struct kiw_test_ulp *u;

				u = kiw_rx_many_ulp(test, &m, markers, c % 2);
				flat = kiw_rx_like_actor(test, u, skb, m.n,
							 chunks[c]);
				kiw_rx_many_check(test, u, &m);
				if (markers)
					KUNIT_EXPECT_EQ(test, flat, 0);
				else if (lay == 3 && !chunks[c])
					KUNIT_EXPECT_EQ(test, flat,
							ARRAY_SIZE(kiw_rx_many_lens));
			}
		}
	}
}

/* Payload octets of kiw_rx_many_lens[@i]'s FPDU (see kiw_rx_many_stream()). */
static unsigned int kiw_rx_many_payload(unsigned int i)
{
	unsigned int len = kiw_rx_many_lens[i];
	unsigned int hdr = len == 14 || len == 30 ? 14 : 18;

	return len > hdr ? len - hdr : 0;
}

/*
 * With markers, the payload of an FPDU whole in the flat window goes up
 * in one data() call, the markers in it checked and skipped
 * (kiw_fpdu_rx_data_span()): CRC off, and CRC on (checked ahead), data()
 * copying or through a page. Fed without a window, the same stream takes
 * more calls (one per stretch between markers) to the same result.
 * A marker in the payload that does not point at its FPDU: the run falls
 * back to the octet-by-octet way, which places what precedes that marker
 * and fails there, as without a window.
 * Covers: MPA-IF-9, MPA-MK-2
 */
static void kiw_rx_marker_span_test(struct kunit *test)
{
	struct kiw_test_ulp *u, *ref;
	struct kiw_ref_marks mk;
	struct kiw_rx_many m = {};
	unsigned int i, crc, want = 0, n;
	struct sk_buff *skb;
	u8 *ulpdu, *wire;

	for (i = 0; i < ARRAY_SIZE(kiw_rx_many_lens); i++)
		want += kiw_rx_many_payload(i) > 0;
	kiw_rx_many_stream(test, &m, true);
	skb = kiw_rx_compound_skb(test, m.wire, m.n);
	for (crc = 0; crc < 2; crc++) {
		u = kiw_test_ulp_new(test, 16384, true, crc);
		u->rx.off = m.start;
		u->copy = crc ? KIW_TEST_COPY : KIW_TEST_COPY_PAGE;
		if (crc)
			kiw_rx_like_actor(test, u, skb, m.n, 0);
		else
			kiw_fpdu_rx_feed_pieces(&u->rx, skb, 0, m.n);
		kiw_rx_many_check(test, u, &m);
		KUNIT_EXPECT_EQ(test, u->nr_data, want);
		KUNIT_EXPECT_FALSE(test, u->rx.span);
	}
	ref = kiw_rx_many_ulp(test, &m, true, false);
	kiw_test_feed(ref, m.wire, m.n, 0);
	kiw_rx_many_check(test, ref, &m);
	KUNIT_EXPECT_GT(test, ref->nr_data, want);

	/* One FPDU of 3000 octets; its third marker points elsewhere. */
	ulpdu = kunit_kzalloc(test, 3000, GFP_KERNEL);
	wire = kunit_kzalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	kiw_ref_send_hdr(ulpdu, 1);
	for (i = 18; i < 3000; i++)
		ulpdu[i] = i * 7;
	n = kiw_ref_fpdu(wire, 0x1c4, ulpdu, 3000, true, false, &mk);
	KUNIT_ASSERT_GE(test, mk.nr, 3);
	put_unaligned_be16(mk.ptr[2] + 4, wire + mk.pos[2] + 2);
	skb = kiw_rx_compound_skb(test, wire, n);
	u = kiw_test_ulp_new(test, 4096, true, false);
	ref = kiw_test_ulp_new(test, 4096, true, false);
	u->rx.off = 0x1c4;
	ref->rx.off = 0x1c4;
	kiw_fpdu_rx_feed_pieces(&u->rx, skb, 0, n);
	kiw_test_feed(ref, wire, n, 0);
	KUNIT_EXPECT_EQ(test, u->nr_ok, 0);
	KUNIT_EXPECT_EQ(test, u->nr_bad, 1);
	KUNIT_EXPECT_EQ(test, u->verdict, KIW_FPDU_ERR_MARKER);
	KUNIT_EXPECT_EQ(test, u->rx.off, 0x1c4 + mk.pos[2] + 4);
	KUNIT_EXPECT_EQ(test, u->rx.off, ref->rx.off);
	KUNIT_EXPECT_EQ(test, u->nr_data, ref->nr_data);
	KUNIT_ASSERT_EQ(test, u->len, ref->len);
	KUNIT_EXPECT_MEMEQ(test, u->buf, ref->buf, u->len);
}

/* Without CRC there is nothing to check ahead: the parser takes all. */
static void kiw_rx_ahead_crc_off_test(struct kunit *test)
{
	struct kiw_test_ulp *u = kiw_test_ulp_new(test, 256, true, false);

	KUNIT_EXPECT_EQ(test, kiw_fpdu_rx_room(&u->rx), UINT_MAX);
	kiw_test_ulp_reset(u, false, true);
	KUNIT_EXPECT_EQ(test, kiw_fpdu_rx_room(&u->rx), 0);
}

static struct kunit_case kiw_fpdu_rx_cases[] = {
	KUNIT_CASE_PARAM(kiw_rx_vector_test, kiw_rx_vec_gen_params),
	KUNIT_CASE_PARAM(kiw_rx_split_test, kiw_rx_vec_gen_params),
	KUNIT_CASE_PARAM(kiw_rx_bitflip_test, kiw_rx_vec_gen_params),
	KUNIT_CASE_PARAM(kiw_rx_crc_off_test, kiw_rx_vec_gen_params),
	KUNIT_CASE(kiw_rx_bug_signature_test),
	KUNIT_CASE(kiw_rx_pad_test),
	KUNIT_CASE_PARAM(kiw_rx_marker_test, kiw_mk_gen_params),
	KUNIT_CASE(kiw_rx_short_test),
	KUNIT_CASE(kiw_rx_max_len_test),
	KUNIT_CASE(kiw_rx_many_test),
	KUNIT_CASE(kiw_rx_stop_test),
	KUNIT_CASE(kiw_rx_data_error_test),
	KUNIT_CASE(kiw_rx_ahead_test),
	KUNIT_CASE(kiw_rx_ahead_flat_test),
	KUNIT_CASE(kiw_rx_flat_window_test),
	KUNIT_CASE(kiw_rx_pieces_test),
	KUNIT_CASE(kiw_rx_marker_span_test),
	KUNIT_CASE(kiw_rx_ahead_crc_off_test),
	{}
};

static struct kunit_suite kiw_fpdu_rx_suite = {
	.name = "kiw_fpdu_rx",
	.test_cases = kiw_fpdu_rx_cases,
};

kunit_test_suite(kiw_fpdu_rx_suite);
