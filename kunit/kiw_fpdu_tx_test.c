// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: FPDU transmit layout and builder against the reference model and
 * the RFC 5044 / VECTORS.txt dumps, the builder's output parsed back by the
 * receive parser, and the parser over skbs with page frags and frag_list.
 */
#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/unaligned.h>

#include "kiw_test_util.h"
#include "kiw_tx_batch.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static const u16 kiw_tx_lens[] = {
	0, 1, 2, 3, 4, 5, 17, 18, 19, 20, 21, 100, 489, 490, 491, 492, 493,
	494, 502, 504, 505, 506, 507, 508, 509, 510, 511, 512, 1020, 1460,
};

/* For the round trip at every offset: each length mod 4, near 0, 508, 1016. */
static const u16 kiw_rt_lens[] = {
	0, 1, 2, 3, 18, 19, 20, 21, 489, 490, 491, 492, 506, 507, 508, 509,
	1020, 1460,
};

static void kiw_tx_layout_check(struct kunit *test, struct kiw_ref_marks *mk,
				u8 *img, const u8 *ulpdu, u32 start,
				unsigned int len)
{
	struct kiw_fpdu_layout lay;
	unsigned int i, n;
	int rv;

	n = kiw_ref_fpdu(img, start, ulpdu, len, true, false, mk);
	rv = kiw_fpdu_layout(&lay, start, len, true);
	KUNIT_ASSERT_EQ(test, rv, 0);
	KUNIT_ASSERT_EQ(test, lay.wire_len, n);
	KUNIT_ASSERT_EQ(test, lay.nr_markers, mk->nr);
	KUNIT_ASSERT_EQ(test, lay.pad, kiw_mpa_pad(len));
	for (i = 0; i < mk->nr; i++) {
		KUNIT_ASSERT_EQ(test, kiw_fpdu_marker_pos(&lay, i), mk->pos[i]);
		KUNIT_ASSERT_EQ(test, kiw_fpdu_marker_ptr(&lay, i), mk->ptr[i]);
	}
	rv = kiw_fpdu_layout(&lay, start, len, false);
	KUNIT_ASSERT_EQ(test, rv, 0);
	KUNIT_ASSERT_EQ(test, lay.nr_markers, 0);
	KUNIT_ASSERT_EQ(test, lay.wire_len, 6 + len + lay.pad);
}

/*
 * The layout matches the reference model at every 4-aligned offset.
 * Covers: MPA-MK-4, MPA-MK-6, MPA-MK-8, MPA-MK-13, MPA-FR-3
 */
static void kiw_tx_layout_test(struct kunit *test)
{
	static const u32 bases[] = { 0, 0xfffffe00 };
	struct kiw_ref_marks *mk = kunit_kzalloc(test, sizeof(*mk), GFP_KERNEL);
	u8 *ulpdu = kunit_kzalloc(test, 65536, GFP_KERNEL);
	u8 *img = kunit_kzalloc(test, 70000, GFP_KERNEL);
	unsigned int b, s, l, n;

	KUNIT_ASSERT_NOT_NULL(test, mk);
	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_NULL(test, img);
	for (b = 0; b < ARRAY_SIZE(bases); b++)
		for (s = 0; s < 512; s += 4)
			for (l = 0; l < ARRAY_SIZE(kiw_tx_lens); l++) {
				kiw_tx_layout_check(test, mk, img, ulpdu,
						    bases[b] + s,
						    kiw_tx_lens[l]);
			}
	/* The largest FPDU, at every offset: within KIW_FPDU_MAX_MARKERS. */
	for (s = 0; s < 512; s += 4) {
		struct kiw_fpdu_layout lay;

		KUNIT_ASSERT_EQ(test, kiw_fpdu_layout(&lay, s, 64768, true), 0);
		KUNIT_ASSERT_LE(test, lay.nr_markers, KIW_FPDU_MAX_MARKERS);
		if (s % 128)
			continue;
		n = kiw_ref_fpdu(img, s, ulpdu, 64768, true, false, mk);
		KUNIT_ASSERT_EQ(test, lay.nr_markers, mk->nr);
		KUNIT_ASSERT_EQ(test, lay.wire_len, n);
	}
}

/*
 * The MULPDU at an offset: at least RFC 5044's, its FPDU within the EMSS,
 * 4 octets more when that would leave the segment short; with EMSS 1448
 * (a multiple of 4) every offset but those putting a marker in the
 * segment's last 4 octets fills it exactly.
 *
 * Covers: MPA-SZ-3
 */
static void kiw_tx_mulpdu_at_test(struct kunit *test)
{
	static const unsigned int emss[] = { 100, 536, 1448, 1460, 9000,
					     65495 };
	struct kiw_fpdu_layout lay;
	unsigned int e, s, u, base;

	for (e = 0; e < ARRAY_SIZE(emss); e++) {
		base = kiw_mpa_mulpdu(emss[e], true);
		for (s = 0; s < 1024; s += 4) {
			u = kiw_fpdu_mulpdu_at(emss[e], s);
			KUNIT_ASSERT_GE(test, u, base);
			KUNIT_ASSERT_LE(test, u, KIW_MPA_ULPDU_MAX);
			KUNIT_ASSERT_EQ(test, kiw_fpdu_layout(&lay, s, u, true),
					0);
			if (u > base)
				KUNIT_ASSERT_LE(test, lay.wire_len, emss[e]);
			if (emss[e] != 1448)
				continue;
			if ((s + 1444) % 512)
				KUNIT_EXPECT_EQ(test, lay.wire_len, 1448);
			else
				KUNIT_EXPECT_EQ(test, lay.wire_len, 1444);
		}
	}
	/* The smallest EMSS keeps the floor of 128 (FPDUs span segments). */
	KUNIT_EXPECT_EQ(test, kiw_fpdu_mulpdu_at(100, 0), 128);
}

/* Covers: MPA-IF-4, MPA-MK-6, MPA-FR-2 */
static void kiw_tx_layout_errors_test(struct kunit *test)
{
	struct kiw_fpdu_layout lay;

	KUNIT_EXPECT_EQ(test, kiw_fpdu_layout(&lay, 0, 64769, false),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, kiw_fpdu_layout(&lay, 2, 10, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiw_fpdu_layout(&lay, 2, 10, false), 0);
	/* Fig. 4: 16-octet ULPDU, marker after 10 of its octets: ptr 12. */
	KUNIT_ASSERT_EQ(test, kiw_fpdu_layout(&lay, 500, 16, true), 0);
	KUNIT_EXPECT_EQ(test, lay.nr_markers, 1);
	KUNIT_EXPECT_EQ(test, kiw_fpdu_marker_pos(&lay, 0), 12);
	KUNIT_EXPECT_EQ(test, kiw_fpdu_marker_ptr(&lay, 0), 12);
	KUNIT_EXPECT_EQ(test, lay.pad, 2);
}

/* Vectors out in wire order, joined. */
static unsigned int kiw_tx_join(u8 *dst, const struct bio_vec *bv, int nr)
{
	unsigned int total = 0, done, n;
	int i;

	for (i = 0; i < nr; i++)
		for (done = 0; done < bv[i].bv_len; done += n) {
			unsigned int off = bv[i].bv_offset + done;
			struct page *p = nth_page(bv[i].bv_page,
						  off >> PAGE_SHIFT);

			off = offset_in_page(off);
			n = min_t(unsigned int, bv[i].bv_len - done,
				  PAGE_SIZE - off);
			memcpy_from_page(dst + total, p, off, n);
			total += n;
		}
	return total;
}

struct kiw_tx_ctx {
	struct kiw_fpdu_tx *tx;
	struct kiw_mpa_marker *mk;	/* room for any FPDU's markers */
	struct bio_vec *out;
	u8 *hdr;		/* ULPDU_Length slot + header */
	u8 *pay;		/* payload, physically contiguous */
	u8 *img;		/* joined output */
	u8 *ref;		/* reference image */
	u8 *ulpdu;		/* header + payload */
	u8 *lin;		/* kiw_fpdu_build_linear()'s output */
};

static struct kiw_tx_ctx *kiw_tx_ctx(struct kunit *test)
{
	struct kiw_tx_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->tx = kunit_kzalloc(test, sizeof(*c->tx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->tx);
	c->mk = kunit_kcalloc(test, KIW_FPDU_MAX_MARKERS, sizeof(*c->mk),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->mk);
	c->out = kunit_kcalloc(test, KIW_FPDU_TX_MAX_VEC(4), sizeof(*c->out),
			       GFP_KERNEL);
	c->hdr = kunit_kzalloc(test, 64, GFP_KERNEL);
	c->pay = kunit_kzalloc(test, 70000, GFP_KERNEL);
	c->img = kunit_kzalloc(test, 70000, GFP_KERNEL);
	c->ref = kunit_kzalloc(test, 70000, GFP_KERNEL);
	c->ulpdu = kunit_kzalloc(test, 70000, GFP_KERNEL);
	c->lin = kunit_kzalloc(test, 70000, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, c->tx && c->out && c->hdr && c->pay &&
			  c->img && c->ref && c->ulpdu && c->lin);
	return c;
}

/*
 * Build one FPDU of @hlen header octets (at c->hdr + 2) and @plen payload
 * octets (c->pay) at @start, the payload given as up to four vectors: two
 * by page and offset (the second starting past its page), the rest as a
 * kernel address. Returns the joined wire length.
 */
static unsigned int kiw_tx_build(struct kunit *test, struct kiw_tx_ctx *c,
				 u32 start, unsigned int hlen,
				 unsigned int plen, bool markers, bool crc)
{
	struct kiw_fpdu_tx_desc d = {
		.start = start, .markers = markers, .crc = crc,
		.hdr = c->hdr, .hdr_len = hlen,
		.mk = c->mk, .mk_max = KIW_FPDU_MAX_MARKERS,
	};
	unsigned int cut1 = plen / 3, cut2 = plen / 3 * 2;
	struct bio_vec src[3];
	struct page *pg = virt_to_page(c->pay);
	unsigned int base = offset_in_page(c->pay);
	unsigned int n;
	u32 sent_crc;
	int nr;

	bvec_set_page(&src[0], pg, cut1, base);
	bvec_set_page(&src[1], pg, cut2 - cut1, base + cut1);
	bvec_set_virt(&src[2], c->pay + cut2, plen - cut2);
	d.src = src;
	d.nr_src = 3;
	nr = kiw_fpdu_build(c->tx, &d, c->out, KIW_FPDU_TX_MAX_VEC(3));
	KUNIT_ASSERT_GT(test, nr, 0);
	KUNIT_ASSERT_LE(test, nr, KIW_FPDU_TX_MAX_VEC(3));
	n = kiw_tx_join(c->img, c->out, nr);
	sent_crc = c->tx->crc;

	/* The linear builder writes the same octets, the same CRC. */
	memset(c->lin, 0xa5, n + 1);
	KUNIT_ASSERT_EQ(test, kiw_fpdu_build_linear(c->tx, &d, c->lin, n), n);
	KUNIT_ASSERT_EQ(test, memcmp(c->lin, c->img, n), 0);
	KUNIT_ASSERT_EQ(test, c->lin[n], 0xa5);
	KUNIT_ASSERT_EQ(test, c->tx->crc, sent_crc);
	KUNIT_ASSERT_EQ(test, kiw_fpdu_build_linear(c->tx, &d, c->lin, n - 1),
			-ENOSPC);
	return n;
}

/*
 * The builder reproduces RFC 5044 Figs. 5 and 6 and VECTORS.txt; without
 * CRC the field is still there, as zero.
 * Covers: MPA-FR-1, MPA-FR-4, MPA-FR-6, MPA-CRC-8, MPA-CRC-9, MPA-CRC-10
 * Covers: MPA-CRC-11, MPA-MK-1, MPA-MK-5, MPA-MK-7, MPA-MK-11, MPA-IF-1
 */
static void kiw_tx_vectors_test(struct kunit *test)
{
	static const struct {
		const u8 *wire;
		unsigned int len;
		u32 start;
		bool markers;
		u32 msn;
	} v[] = {
		{ kiw_vec_fig5, 52, 0, true, 1 },
		{ kiw_vec_fig6, 52, 0x1ec, true, 2 },
		{ kiw_vec_between, 52, 0x200, true, 2 },
	};
	struct kiw_tx_ctx *c = kiw_tx_ctx(test);
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		kiw_ref_send_hdr(c->hdr + 2, v[i].msn);
		memset(c->pay, 0, 24);
		n = kiw_tx_build(test, c, v[i].start, 18, 24, v[i].markers,
				 true);
		KUNIT_ASSERT_EQ(test, n, v[i].len);
		KUNIT_EXPECT_MEMEQ(test, c->img, v[i].wire, n);
		KUNIT_EXPECT_EQ(test, c->tx->crc,
				get_unaligned_le32(v[i].wire + n - 4));
	}
	/* Tagged RDMA Write, STag 0x1234, TO 0, 16 octets 00..0f. */
	memcpy(c->hdr + 2, kiw_vec_tagged + 2, 14);
	for (i = 0; i < 16; i++)
		c->pay[i] = i;
	n = kiw_tx_build(test, c, 0x777, 14, 16, false, true);
	KUNIT_ASSERT_EQ(test, n, 36);
	KUNIT_EXPECT_MEMEQ(test, c->img, kiw_vec_tagged, 36);
	/* Untagged Send, one octet: PAD 3. */
	kiw_ref_send_hdr(c->hdr + 2, 1);
	c->pay[0] = 0xaa;
	n = kiw_tx_build(test, c, 3, 18, 1, false, true);
	KUNIT_ASSERT_EQ(test, n, 28);
	KUNIT_EXPECT_MEMEQ(test, c->img, kiw_vec_padded, 28);
	/* CRC off: the field is sent as zero. */
	n = kiw_tx_build(test, c, 3, 18, 1, false, false);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(c->img + n - 4), 0);
}

/*
 * Builder output equals the reference image and parses back through the
 * receive parser, for every 4-aligned offset against the marker grid,
 * assorted lengths, markers and CRC on and off.
 * Covers: MPA-MCR-4, MPA-MK-4, MPA-MK-14, MPA-FR-3, MPA-FR-4
 */
static void kiw_tx_roundtrip_test(struct kunit *test)
{
	struct kiw_tx_ctx *c = kiw_tx_ctx(test);
	struct kiw_test_ulp *u = kiw_test_ulp_new(test, 4096, false, false);
	unsigned int s, l, mode, n, m, i;

	for (i = 0; i < 70000; i++)
		c->pay[i] = i * 7 + (i >> 8);
	kiw_ref_send_hdr(c->hdr + 2, 9);
	memcpy(c->ulpdu, c->hdr + 2, 18);
	memcpy(c->ulpdu + 18, c->pay, 4000);
	for (mode = 0; mode < 4; mode++)
		for (s = 0; s < 512; s += 4) {
			bool markers = mode & 1, crc = mode & 2;
			/* Near the wrap: some FPDUs cross 2^32. */
			u32 start = 0xfffffe00 + s;

			/*
			 * Every offset with markers and CRC; markers without
			 * CRC (the same marker logic) every 64 octets; without
			 * markers the offset does not matter.
			 */
			if ((!markers && s > 4) || (markers && !crc && s % 64))
				continue;
			for (l = 0; l < ARRAY_SIZE(kiw_rt_lens); l++) {
				unsigned int plen = kiw_rt_lens[l];

				n = kiw_tx_build(test, c, start, 18, plen,
						 markers, crc);
				m = kiw_ref_fpdu(c->ref, start, c->ulpdu,
						 18 + plen, markers, crc, NULL);
				KUNIT_ASSERT_EQ(test, m, n);
				KUNIT_ASSERT_EQ(test, memcmp(c->img, c->ref, n),
						0);
				/* Parsed back at every 16th offset. */
				if (s % 16)
					continue;
				kiw_test_ulp_reset(u, markers, crc);
				u->rx.off = start;
				m = kiw_test_feed(u, c->img, n, s % 61 + 7);
				KUNIT_ASSERT_EQ(test, m, n);
				KUNIT_ASSERT_EQ(test, u->nr_ok, 1);
				KUNIT_ASSERT_EQ(test, u->len, 18 + plen);
				KUNIT_ASSERT_EQ(test, memcmp(u->buf, c->ulpdu,
							     18 + plen), 0);
			}
		}
}

/*
 * The largest ULPDUs, and a stream of them across the 32-bit wrap.
 * Covers: MPA-MK-8, MPA-MK-14
 */
static void kiw_tx_large_test(struct kunit *test)
{
	static const unsigned int plens[] = { 4096, 8982, 64750 };
	struct kiw_tx_ctx *c = kiw_tx_ctx(test);
	struct kiw_test_ulp *u = kiw_test_ulp_new(test, 70000, false, false);
	unsigned int mode, p, n, m, i;

	for (i = 0; i < 70000; i++)
		c->pay[i] = i ^ (i >> 9);
	kiw_ref_send_hdr(c->hdr + 2, 3);
	memcpy(c->ulpdu, c->hdr + 2, 18);
	memcpy(c->ulpdu + 18, c->pay, 64750);
	for (mode = 0; mode < 4; mode++)
		for (p = 0; p < ARRAY_SIZE(plens); p++) {
			bool markers = mode & 1, crc = mode & 2;
			u32 start = 0xffffffc0 - 512 * p;

			n = kiw_tx_build(test, c, start, 18, plens[p], markers,
					 crc);
			m = kiw_ref_fpdu(c->ref, start, c->ulpdu, 18 + plens[p],
					 markers, crc, NULL);
			KUNIT_ASSERT_EQ(test, m, n);
			KUNIT_ASSERT_EQ(test, memcmp(c->img, c->ref, n), 0);
			kiw_test_ulp_reset(u, markers, crc);
			u->rx.off = start;
			KUNIT_ASSERT_EQ(test, kiw_test_feed(u, c->img, n, 1448),
					n);
			KUNIT_EXPECT_EQ(test, u->nr_ok, 1);
			KUNIT_EXPECT_EQ(test, memcmp(u->buf, c->ulpdu,
						     18 + plens[p]), 0);
		}
}

/* Covers: MPA-IF-4 */
static void kiw_tx_errors_test(struct kunit *test)
{
	struct kiw_tx_ctx *c = kiw_tx_ctx(test);
	struct bio_vec src;
	struct kiw_fpdu_tx_desc d = {
		.start = 0, .markers = true, .crc = true, .hdr = c->hdr,
		.hdr_len = 18, .src = &src, .nr_src = 1,
		.mk = c->mk, .mk_max = KIW_FPDU_MAX_MARKERS,
	};
	int nr;

	bvec_set_virt(&src, c->pay, 64768 - 18);
	nr = kiw_fpdu_build(c->tx, &d, c->out, KIW_FPDU_TX_MAX_VEC(1));
	KUNIT_EXPECT_GT(test, nr, 0);
	KUNIT_EXPECT_EQ(test, kiw_fpdu_build(c->tx, &d, c->out, nr), nr);
	KUNIT_EXPECT_EQ(test, kiw_fpdu_build(c->tx, &d, c->out, nr - 1),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, kiw_fpdu_build(c->tx, &d, c->out, 0), -ENOSPC);
	/* Marker room for one fewer than the FPDU needs: refused whole. */
	d.mk_max = c->tx->lay.nr_markers - 1;
	KUNIT_EXPECT_EQ(test, kiw_fpdu_build(c->tx, &d, c->out, nr), -ENOSPC);
	KUNIT_EXPECT_EQ(test, kiw_fpdu_build_linear(c->tx, &d, c->lin, 70000),
			-ENOSPC);
	/* No room at all: fine without markers. */
	d.mk_max = 0;
	d.markers = false;
	KUNIT_EXPECT_GT(test, kiw_fpdu_build(c->tx, &d, c->out, nr), 0);
	d.markers = true;
	d.mk_max = KIW_FPDU_MAX_MARKERS;
	bvec_set_virt(&src, c->pay, 64768 - 17);
	KUNIT_EXPECT_EQ(test, kiw_fpdu_build(c->tx, &d, c->out, 300),
			-EMSGSIZE);
	bvec_set_virt(&src, c->pay, 100);
	d.start = 6;
	KUNIT_EXPECT_EQ(test, kiw_fpdu_build(c->tx, &d, c->out, 300), -EINVAL);
}

/* skb shapes: linear head, frag size, frag_list tail (kiw_test_skb()). */
static const unsigned int kiw_skb_shapes[][3] = {
	{ 4096, 0, 0 }, { 0, 0, 0 }, { 1, 1, 0 }, { 3, 7, 0 }, { 50, 333, 0 },
	{ 0, 100, 300 }, { 11, 64, 173 }, { 0, 0, 1 }, { 5, 1000, 2 },
};

/*
 * The parser's skb reads (kiw_fpdu_rx_copy(), kiw_fpdu_rx_skip(), CRC
 * running) over every part of an skb, against a flat copy.
 */
static void kiw_skb_helpers_test(struct kunit *test)
{
	u8 *data = kunit_kzalloc(test, 400, GFP_KERNEL);
	u8 *got = kunit_kzalloc(test, 400, GFP_KERNEL);
	struct kiw_fpdu_rx rx;
	unsigned int sh, off, len;
	int rv;

	KUNIT_ASSERT_NOT_NULL(test, data);
	KUNIT_ASSERT_NOT_NULL(test, got);
	kiw_fpdu_rx_init(&rx, NULL, false, true);
	for (off = 0; off < 400; off++)
		data[off] = off * 31 + 1;
	for (sh = 0; sh < ARRAY_SIZE(kiw_skb_shapes); sh++) {
		struct sk_buff *skb = kiw_test_skb(test, data, 400,
						   kiw_skb_shapes[sh][0],
						   kiw_skb_shapes[sh][1],
						   kiw_skb_shapes[sh][2]);

		KUNIT_ASSERT_EQ(test, skb->len, 400);
		for (off = 0; off < 400; off += 9)
			for (len = 0; off + len <= 400; len += 13) {
				u32 want = kiw_crc_update(5, data + off, len);

				memset(got, 0, 400);
				rx.crc = 5;
				rx.acct = 0;
				rv = kiw_fpdu_rx_copy(&rx, skb, off, got, len);
				KUNIT_ASSERT_EQ(test, rv, 0);
				rv = memcmp(got, data + off, len);
				KUNIT_ASSERT_EQ(test, rv, 0);
				KUNIT_ASSERT_EQ(test, rx.crc, want);
				KUNIT_ASSERT_EQ(test, rx.acct, len);
				rx.crc = 5;
				rv = kiw_fpdu_rx_skip(&rx, skb, off, len);
				KUNIT_ASSERT_EQ(test, rv, 0);
				KUNIT_ASSERT_EQ(test, rx.crc, want);
			}
		KUNIT_EXPECT_EQ(test, kiw_fpdu_rx_skip(&rx, skb, 1, 400),
				-EFAULT);
	}
}

/*
 * A stream of FPDUs from the builder, in skbs of every shape, fed whole
 * and in chunks that cross linear, frag and frag_list boundaries, with
 * each copy helper.
 */
static void kiw_rx_skb_test(struct kunit *test)
{
	static const u16 plens[] = { 0, 1, 100, 493, 1000, 2, 700 };
	struct kiw_tx_ctx *c = kiw_tx_ctx(test);
	u8 *stream = kunit_kzalloc(test, 8192, GFP_KERNEL);
	unsigned int i, n = 0, total = 0, sh, mode;
	u32 start = 0xfffffc44;

	KUNIT_ASSERT_NOT_NULL(test, stream);
	for (i = 0; i < ARRAY_SIZE(plens); i++) {
		memset(c->pay, 0x30 + i, plens[i]);
		kiw_ref_send_hdr(c->hdr + 2, i + 1);
		n += kiw_tx_build(test, c, start + n, 18, plens[i], true, true);
		memcpy(stream + n - c->tx->lay.wire_len, c->img,
		       c->tx->lay.wire_len);
		memcpy(c->ulpdu + total, c->hdr + 2, 18);
		memcpy(c->ulpdu + total + 18, c->pay, plens[i]);
		total += 18 + plens[i];
	}
	for (sh = 0; sh < ARRAY_SIZE(kiw_skb_shapes); sh++)
		for (mode = 0; mode < 2; mode++) {
			struct sk_buff *skb = kiw_test_skb(test, stream, n,
					kiw_skb_shapes[sh][0],
					kiw_skb_shapes[sh][1],
					kiw_skb_shapes[sh][2]);
			struct kiw_test_ulp *u;
			unsigned int off, step = mode ? 97 : n;

			u = kiw_test_ulp_new(test, 8192, true, true);
			u->rx.off = start;
			u->copy = sh % 2 ? KIW_TEST_COPY_PAGE : KIW_TEST_COPY;
			for (off = 0; off < n; off += step) {
				unsigned int len = min(step, n - off);
				unsigned int got;

				got = kiw_fpdu_rx_feed(&u->rx, skb, off, len);
				KUNIT_ASSERT_EQ(test, got, len);
			}
			KUNIT_EXPECT_EQ(test, u->nr_ok, ARRAY_SIZE(plens));
			KUNIT_EXPECT_EQ(test, u->nr_bad, 0);
			KUNIT_ASSERT_EQ(test, u->len, total);
			KUNIT_EXPECT_EQ(test, memcmp(u->buf, c->ulpdu, total),
					0);
		}
}

/* Payload copied only in part, the rest skipped: the CRC still holds. */
static void kiw_rx_skip_test(struct kunit *test)
{
	struct kiw_tx_ctx *c = kiw_tx_ctx(test);
	struct kiw_test_ulp *u;
	unsigned int n;

	memset(c->pay, 0x77, 1200);
	kiw_ref_send_hdr(c->hdr + 2, 1);
	n = kiw_tx_build(test, c, 0, 18, 1200, true, true);
	u = kiw_test_ulp_new(test, 4096, true, true);
	u->copy = KIW_TEST_SKIP_HALF;
	KUNIT_EXPECT_EQ(test, kiw_test_feed(u, c->img, n, 300), n);
	KUNIT_EXPECT_EQ(test, u->nr_ok, 1);
	KUNIT_EXPECT_EQ(test, u->nr_bad, 0);
	/* And a corrupt payload octet in a skipped part is still caught. */
	c->img[n - 10] ^= 1;
	u = kiw_test_ulp_new(test, 4096, true, true);
	u->copy = KIW_TEST_SKIP_HALF;
	kiw_test_feed(u, c->img, n, 300);
	KUNIT_EXPECT_EQ(test, u->verdict, KIW_FPDU_ERR_CRC);
}

/*
 * A marker right before the CRC field (MPA-CRC-9): FPDU at 488 with 22
 * ULPDU octets, so that 24 octets precede the marker at 512. The marker
 * is covered by the CRC: change its RESERVED octets and the CRC fails.
 * Covers: MPA-CRC-9, MPA-MK-11, MPA-MK-13
 */
static void kiw_tx_marker_before_crc_test(struct kunit *test)
{
	struct kiw_tx_ctx *c = kiw_tx_ctx(test);
	struct kiw_test_ulp *u;
	unsigned int n, i;

	kiw_ref_send_hdr(c->hdr + 2, 4);
	memcpy(c->pay, "wxyz", 4);
	n = kiw_tx_build(test, c, 488, 18, 4, true, true);
	KUNIT_ASSERT_EQ(test, n, 32);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(c->img + 24), 24);
	memcpy(c->ulpdu, c->hdr + 2, 18);
	memcpy(c->ulpdu + 18, "wxyz", 4);
	KUNIT_ASSERT_EQ(test, kiw_ref_fpdu(c->ref, 488, c->ulpdu, 22, true,
					   true, NULL), n);
	KUNIT_EXPECT_MEMEQ(test, c->img, c->ref, n);
	for (i = 0; i < 3; i++) {
		u = kiw_test_ulp_new(test, 64, true, true);
		u->rx.off = 488;
		c->img[24 + i] ^= i;	/* 0: as sent; 1, 2: RESERVED */
		kiw_test_feed(u, c->img, n, 0);
		c->img[24 + i] ^= i;
		KUNIT_EXPECT_EQ(test, u->nr_ok, i ? 0 : 1);
		KUNIT_EXPECT_EQ(test, u->verdict,
				i ? KIW_FPDU_ERR_CRC : KIW_TERM_NONE);
	}
}

/*
 * One batch FPDU of @len payload octets from @page, with or without CRC;
 * the payload's owner then overwrites it before TCP copies the batch.
 * Returns the octets TCP would copy, in @img.
 */
static unsigned int kiw_txb_overwritten(struct kunit *test, struct page *page,
					unsigned int len, bool crc, u8 *img)
{
	struct kiw_txb *b = kiw_txb_alloc(KIW_TXB_BYTES, KIW_TXB_ZCOPY);
	struct iov_iter it;
	struct kvec kv;
	unsigned int n;
	int wire;

	KUNIT_ASSERT_NOT_NULL(test, b);
	kiw_txb_begin(b, KIW_TXB_BYTES, 0);
	kiw_ref_send_hdr(kiw_txb_hdr(b), 1);
	memset(page_address(page), 0x5a, len);
	bvec_set_page(&b->src[0], page, len, 0);
	b->nr_src = 1;
	wire = kiw_txb_add(b, 0, false, crc, 18);
	KUNIT_ASSERT_GT(test, wire, 0);
	KUNIT_EXPECT_EQ(test, b->staged, crc);
	memset(page_address(page), 0xc3, len);	/* the owner writes */
	kiw_txb_iter(b, &it, &kv);
	n = copy_from_iter(img, b->bytes, &it);
	KUNIT_EXPECT_EQ(test, n, (unsigned int)wire);
	kiw_txb_free(b);
	return n;
}

/*
 * With CRC, the octets TCP copies are the ones the CRC covers, even when
 * the payload changes between framing and sendmsg() (the batch stages
 * them); without CRC the batch points into the payload itself.
 */
static void kiw_txb_stage_test(struct kunit *test)
{
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned int len = 1000, n, i;
	struct kiw_test_ulp *u;
	u8 *img;

	KUNIT_ASSERT_NOT_NULL(test, page);
	img = kunit_kzalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, img);

	n = kiw_txb_overwritten(test, page, len, true, img);
	for (i = 0; i < len && img[20 + i] == 0x5a; i++)
		;
	KUNIT_EXPECT_EQ(test, i, len);		/* as it was framed */
	u = kiw_test_ulp_new(test, 2048, false, true);
	kiw_test_feed(u, img, n, 0);
	KUNIT_EXPECT_EQ(test, u->nr_ok, 1);
	KUNIT_EXPECT_EQ(test, u->verdict, KIW_TERM_NONE);

	n = kiw_txb_overwritten(test, page, len, false, img);
	for (i = 0; i < len && img[20 + i] == 0xc3; i++)
		;
	KUNIT_EXPECT_EQ(test, i, len);		/* the pages themselves */
	u = kiw_test_ulp_new(test, 2048, false, false);
	kiw_test_feed(u, img, n, 0);
	KUNIT_EXPECT_EQ(test, u->nr_ok, 1);
	__free_page(page);
}

/*
 * Where a batch's sendmsg() calls end with MSG_EOR: before an FPDU that
 * does not fit in what is left of the segment TCP fills, after one longer
 * than the EMSS, nowhere else; nowhere without an EMSS.
 * Covers: MPA-AL-1
 */
static void kiw_tx_seg_plan_test(struct kunit *test)
{
	static const struct {
		unsigned int mss, len, cut;
	} steps[] = {
		{ 1448, 1448, 0 }, { 1448, 1448, 0 },	/* full segments */
		{ 1448, 1296, 0 },			/* a message's last */
		{ 1448, 1448, KIW_SEG_CUT_BEFORE },	/* the next one's */
		{ 1448, 700, 0 }, { 1448, 748, 0 },	/* two fill one */
		{ 1448, 40, 0 }, { 1448, 1408, 0 },
		{ 1448, 100, 0 }, { 1448, 1349, KIW_SEG_CUT_BEFORE },
		{ 1448, 2000, KIW_SEG_CUT_BEFORE | KIW_SEG_CUT_AFTER },
		{ 1448, 3000, KIW_SEG_CUT_AFTER },	/* EMSS shrank */
		{ 1448, 1448, 0 },
		{ 0, 100, 0 }, { 0, 1448, 0 }, { 0, 5000, 0 },
	};
	struct kiw_seg_plan p;
	unsigned int i;

	kiw_seg_plan_init(&p, steps[0].mss);
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		if (p.mss != steps[i].mss)
			kiw_seg_plan_init(&p, steps[i].mss);
		KUNIT_EXPECT_EQ_MSG(test, kiw_seg_plan_next(&p, steps[i].len),
				    steps[i].cut, "step %u", i);
	}
}

static struct kunit_case kiw_fpdu_tx_cases[] = {
	KUNIT_CASE(kiw_tx_layout_test),
	KUNIT_CASE(kiw_tx_layout_errors_test),
	KUNIT_CASE(kiw_tx_mulpdu_at_test),
	KUNIT_CASE(kiw_tx_vectors_test),
	KUNIT_CASE(kiw_tx_roundtrip_test),
	KUNIT_CASE(kiw_tx_large_test),
	KUNIT_CASE(kiw_tx_errors_test),
	KUNIT_CASE(kiw_tx_marker_before_crc_test),
	KUNIT_CASE(kiw_txb_stage_test),
	KUNIT_CASE(kiw_tx_seg_plan_test),
	KUNIT_CASE(kiw_skb_helpers_test),
	KUNIT_CASE(kiw_rx_skb_test),
	KUNIT_CASE(kiw_rx_skip_test),
	{}
};

static struct kunit_suite kiw_fpdu_tx_suite = {
	.name = "kiw_fpdu_tx",
	.test_cases = kiw_fpdu_tx_cases,
};

kunit_test_suite(kiw_fpdu_tx_suite);
