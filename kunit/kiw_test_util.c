// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit helpers shared by kiw's framing suites (see kiw_test_util.h).
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/highmem.h>
#include <linux/skbuff.h>
#include <linux/unaligned.h>

#include "kiw_test_util.h"

/* RFC 5044 Figure 5: marker, Send (QN 0, MSN 1, MO 0), 24 zero octets. */
const u8 kiw_vec_fig5[52] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x41, 0x43,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	[48] = 0x52, 0x23, 0x99, 0x83,
};

/* RFC 5044 Figure 6: at stream offset 0x1ec, MSN 2, marker at 0x200. */
const u8 kiw_vec_fig6[52] = {
	0x00, 0x2a, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14,
	[48] = 0x84, 0x92, 0x58, 0x98,
};

/* VECTORS.txt: the marker between FPDUs at 0x200 leads MSN 2's FPDU. */
const u8 kiw_vec_between[52] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x41, 0x43,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
	[48] = 0xcc, 0x08, 0x19, 0x9e,
};

/* VECTORS.txt: tagged RDMA Write, STag 0x1234, TO 0, 00..0f. */
const u8 kiw_vec_tagged[36] = {
	0x00, 0x1e, 0xc1, 0x40, 0x00, 0x00, 0x12, 0x34,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x8c, 0x55, 0xad, 0xe9,
};

/* VECTORS.txt: Send, MSN 1, one octet 0xaa: ULPDU_Length 19, PAD 3. */
const u8 kiw_vec_padded[28] = {
	0x00, 0x13, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0xaa, 0x00, 0x00, 0x00,
	0x7d, 0xfe, 0x34, 0x23,
};

void kiw_ref_send_hdr(u8 *hdr, u32 msn)
{
	memset(hdr, 0, 18);
	hdr[0] = 0x41;		/* untagged, last, DDP version 1 */
	hdr[1] = 0x43;		/* RDMAP version 1, Send */
	put_unaligned_be32(msn, hdr + 10);
}

static u8 kiw_ref_octet(unsigned int i, const u8 *ulpdu, unsigned int len)
{
	if (i == 0)
		return len >> 8;
	if (i == 1)
		return len & 0xff;
	if (i < 2 + len)
		return ulpdu[i - 2];
	return 0;		/* PAD */
}

unsigned int kiw_ref_fpdu(u8 *out, u32 start, const u8 *ulpdu,
			  unsigned int len, bool markers, bool crc,
			  struct kiw_ref_marks *mk)
{
	unsigned int pad = (4 - (2 + len) % 4) % 4;
	unsigned int body = 2 + len + pad;	/* octets before the CRC */
	unsigned int pos = 0, i = 0, len_pos = 0;
	u32 c;

	if (mk)
		mk->nr = 0;
	while (i < body + 4) {
		if (markers && (u32)(start + pos) % 512 == 0) {
			/* Leading the FPDU (nothing of it out yet): 0. */
			u16 ptr = i ? pos - len_pos : 0;

			out[pos] = 0;
			out[pos + 1] = 0;
			out[pos + 2] = ptr >> 8;
			out[pos + 3] = ptr & 0xff;
			if (mk && mk->nr < ARRAY_SIZE(mk->pos)) {
				mk->pos[mk->nr] = pos;
				mk->ptr[mk->nr] = ptr;
			}
			if (mk)
				mk->nr++;
			pos += 4;
			continue;
		}
		if (i == 0)
			len_pos = pos;
		out[pos++] = i < body ? kiw_ref_octet(i, ulpdu, len) : 0;
		i++;
	}
	c = crc ? ~crc32c(~0U, out, pos - 4) : 0;
	put_unaligned_le32(c, out + pos - 4);
	return pos;
}

KUNIT_DEFINE_ACTION_WRAPPER(kiw_test_kfree_skb, kfree_skb, struct sk_buff *);
KUNIT_DEFINE_ACTION_WRAPPER(kiw_test_free_page, __free_page, struct page *);

static void kiw_test_add_frags(struct kunit *test, struct sk_buff *skb,
			       const u8 *data, unsigned int len,
			       unsigned int frag)
{
	unsigned int most = PAGE_SIZE - 64;

	/* As small as asked, but within MAX_SKB_FRAGS pages. */
	if (!frag || frag > most)
		frag = most;
	if (DIV_ROUND_UP(len, frag) > MAX_SKB_FRAGS)
		frag = DIV_ROUND_UP(len, MAX_SKB_FRAGS);
	KUNIT_ASSERT_LE(test, frag, most);
	while (len) {
		int i = skb_shinfo(skb)->nr_frags;
		/* Vary the offset in the page: 0, 5, 10, ... octets. */
		unsigned int off = (i * 5) % 64;
		unsigned int n = min(frag, len);
		struct page *page;

		KUNIT_ASSERT_LT(test, i, MAX_SKB_FRAGS);
		page = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, page);
		memcpy_to_page(page, off, data, n);
		skb_add_rx_frag(skb, i, page, off, n, PAGE_SIZE);
		data += n;
		len -= n;
	}
}

static struct sk_buff *kiw_test_skb_one(struct kunit *test, const u8 *data,
					unsigned int len, unsigned int head,
					unsigned int frag)
{
	struct sk_buff *skb = alloc_skb(max(head, 1U), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put_data(skb, data, head);
	kiw_test_add_frags(test, skb, data + head, len - head, frag);
	return skb;
}

struct sk_buff *kiw_test_skb(struct kunit *test, const u8 *data,
			     unsigned int len, unsigned int head,
			     unsigned int frag, unsigned int tail)
{
	struct sk_buff *skb, *child;
	int rv;

	head = min(head, len);
	tail = min(tail, len - head);
	skb = kiw_test_skb_one(test, data, len - tail, head, frag);
	rv = kunit_add_action_or_reset(test, kiw_test_kfree_skb, skb);
	KUNIT_ASSERT_EQ(test, rv, 0);
	if (!tail)
		return skb;

	/* The frag_list child: half linear, half in frags. */
	child = kiw_test_skb_one(test, data + len - tail, tail, tail / 2,
				 frag);
	skb_shinfo(skb)->frag_list = child;
	skb->len += child->len;
	skb->data_len += child->len;
	skb->truesize += child->truesize;
	return skb;
}

static kiw_term_t kiw_test_hdr(struct kiw_fpdu_rx *rx, const u8 *hdr,
			       unsigned int hdr_len, unsigned int ulpdu_len)
{
	struct kiw_test_ulp *u = container_of(rx, struct kiw_test_ulp, rx);

	if (u->nr_hdr < KIW_TEST_MAX_FPDU)
		u->ulpdu_len[u->nr_hdr] = ulpdu_len;
	u->nr_hdr++;
	KUNIT_EXPECT_LE(u->test, u->len + hdr_len, u->cap);
	if (u->len + hdr_len <= u->cap) {
		memcpy(u->buf + u->len, hdr, hdr_len);
		u->len += hdr_len;
	}
	if (u->hdr_ret && u->nr_hdr > u->hdr_fail_at)
		return u->hdr_ret;
	return KIW_TERM_NONE;
}

static kiw_term_t kiw_test_data(struct kiw_fpdu_rx *rx,
				const struct sk_buff *skb, unsigned int off,
				unsigned int len)
{
	struct kiw_test_ulp *u = container_of(rx, struct kiw_test_ulp, rx);
	unsigned int n, done = 0;

	u->nr_data++;
	if (u->data_ret) {
		kiw_fpdu_rx_copy(rx, skb, off, u->buf + u->len, len / 2);
		return u->data_ret;
	}
	if (u->copy == KIW_TEST_SKIP_HALF) {
		n = len / 2;
		kiw_fpdu_rx_copy(rx, skb, off, u->buf + u->len, n);
		memset(u->buf + u->len + n, 0xee, len - n);
		kiw_fpdu_rx_skip(rx, skb, off + n, len - n);
		u->len += len;
		return KIW_TERM_NONE;
	}
	if (u->len + len > u->cap)
		return KIW_FPDU_ERR_LOCAL;
	if (u->copy == KIW_TEST_COPY) {
		kiw_fpdu_rx_copy(rx, skb, off, u->buf + u->len, len);
		u->len += len;
		return KIW_TERM_NONE;
	}
	/* Through a page, at an offset that moves, crossing its end. */
	while (done < len) {
		unsigned int pg_off = (u->len * 7) % PAGE_SIZE;

		n = min_t(unsigned int, len - done, PAGE_SIZE - pg_off);
		kiw_fpdu_rx_copy_page(rx, skb, off + done, u->page, pg_off, n);
		memcpy_from_page(u->buf + u->len, u->page, pg_off, n);
		u->len += n;
		done += n;
	}
	return KIW_TERM_NONE;
}

static void kiw_test_end(struct kiw_fpdu_rx *rx, kiw_term_t verdict)
{
	struct kiw_test_ulp *u = container_of(rx, struct kiw_test_ulp, rx);

	if (verdict) {
		u->nr_bad++;
		u->verdict = verdict;
	} else {
		u->nr_ok++;
	}
}

static const struct kiw_fpdu_rx_ops kiw_test_ops = {
	.hdr = kiw_test_hdr,
	.data = kiw_test_data,
	.end = kiw_test_end,
};

static void kiw_test_ulp_free(void *p)
{
	struct kiw_test_ulp *u = p;

	kfree_skb(u->skb);
}

struct kiw_test_ulp *kiw_test_ulp_new(struct kunit *test, unsigned int cap,
				      bool markers, bool crc)
{
	struct kiw_test_ulp *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, u);
	u->test = test;
	u->cap = cap;
	u->buf = kunit_kzalloc(test, cap ?: 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, u->buf);
	u->page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, u->page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kiw_test_free_page,
							u->page), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kiw_test_ulp_free,
							u), 0);
	kiw_test_ulp_reset(u, markers, crc);
	return u;
}

void kiw_test_ulp_reset(struct kiw_test_ulp *u, bool markers, bool crc)
{
	u->len = 0;
	u->copy = KIW_TEST_COPY;
	u->hdr_ret = KIW_TERM_NONE;
	u->hdr_fail_at = 0;
	u->data_ret = KIW_TERM_NONE;
	u->nr_hdr = 0;
	u->nr_data = 0;
	u->nr_ok = 0;
	u->nr_bad = 0;
	u->verdict = KIW_TERM_NONE;
	kiw_fpdu_rx_init(&u->rx, &kiw_test_ops, markers, crc);
}

unsigned int kiw_test_feed(struct kiw_test_ulp *u, const u8 *data,
			   unsigned int len, unsigned int chunk)
{
	unsigned int off, n, done = 0;

	if (!len)
		return 0;
	if (u->skb_cap < len) {
		kfree_skb(u->skb);
		u->skb = alloc_skb(len, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(u->test, u->skb);
		u->skb_cap = len;
	}
	skb_trim(u->skb, 0);
	skb_put_data(u->skb, data, len);
	for (off = 0; off < len; off += n) {
		n = chunk ? min(chunk, len - off) : len - off;
		done += kiw_fpdu_rx_feed(&u->rx, u->skb, off, n);
	}
	return done;
}
