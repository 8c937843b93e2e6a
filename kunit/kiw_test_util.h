/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * KUnit helpers shared by kiw's framing suites: an independent reference
 * model of the MPA FPDU wire image, skb builders (linear, page frags,
 * frag_list) and a recording upper layer for the receive parser.
 */
#ifndef KIW_TEST_UTIL_H
#define KIW_TEST_UTIL_H

#include <kunit/test.h>
#include <linux/skbuff.h>

#include "kiw_fpdu.h"
#include "kiw_mpa.h"

/*
 * Reference model: the wire image of one FPDU carrying @ulpdu (@len
 * octets) whose first octet is at stream offset @start, written octet by
 * octet into @out, with markers where (@start + position) % 512 == 0 and
 * the CRC computed in one go over the finished image. Returns the image's
 * length. Written from RFC 5044 sections 4.1-4.4 without kiw_fpdu_rx.c.
 */
struct kiw_ref_marks {
	unsigned int nr;
	u32 pos[KIW_FPDU_MAX_MARKERS + 1];	/* offsets in the image */
	u16 ptr[KIW_FPDU_MAX_MARKERS + 1];
};

unsigned int kiw_ref_fpdu(u8 *out, u32 start, const u8 *ulpdu,
			  unsigned int len, bool markers, bool crc,
			  struct kiw_ref_marks *mk);

/* A DDP/RDMAP Send header (untagged, last, QN 0, @msn, MO 0). */
void kiw_ref_send_hdr(u8 *hdr, u32 msn);

/*
 * An skb holding @data: @head octets linear, the rest in page frags of
 * @frag octets each (0: as few as fit), and the last @tail octets in a
 * frag_list skb (itself split linear/frag). Freed when the test ends.
 */
struct sk_buff *kiw_test_skb(struct kunit *test, const u8 *data,
			     unsigned int len, unsigned int head,
			     unsigned int frag, unsigned int tail);

/* A recording upper layer for the receive parser. */
#define KIW_TEST_MAX_FPDU 64

enum kiw_test_copy {
	KIW_TEST_COPY,		/* kiw_fpdu_rx_copy() */
	KIW_TEST_COPY_PAGE,	/* kiw_fpdu_rx_copy_page() through a page */
	KIW_TEST_SKIP_HALF,	/* copy the first half, skip the rest */
};

struct kiw_test_ulp {
	struct kiw_fpdu_rx rx;
	struct kunit *test;
	u8 *buf;		/* ULPDUs (header + payload) back to back */
	unsigned int cap;
	unsigned int len;
	struct page *page;	/* bounce page for KIW_TEST_COPY_PAGE */
	struct sk_buff *skb;	/* kiw_test_feed()'s, reused */
	unsigned int skb_cap;
	enum kiw_test_copy copy;
	kiw_term_t hdr_ret;	/* what hdr() answers */
	unsigned int hdr_fail_at; /* answer hdr_ret from this FPDU on */
	kiw_term_t data_ret;	/* data() takes half a piece, answers this */
	unsigned int nr_hdr;
	unsigned int nr_data;
	unsigned int nr_ok;	/* end() with KIW_TERM_NONE */
	unsigned int nr_bad;	/* end() with an error */
	kiw_term_t verdict;	/* the last error end() saw */
	u16 ulpdu_len[KIW_TEST_MAX_FPDU];
};

struct kiw_test_ulp *kiw_test_ulp_new(struct kunit *test, unsigned int cap,
				      bool markers, bool crc);

/* Back to a fresh parser at stream offset 0, counters cleared. */
void kiw_test_ulp_reset(struct kiw_test_ulp *u, bool markers, bool crc);

/*
 * Feed @len octets of @data in chunks of @chunk octets (0: all at once),
 * as (skb, offset, length) ranges of one linear skb, as tcp_read_sock()
 * does. Returns octets the parser consumed.
 */
unsigned int kiw_test_feed(struct kiw_test_ulp *u, const u8 *data,
			   unsigned int len, unsigned int chunk);

/* Byte vectors from ../shared/spec/VECTORS.txt and RFC 5044 Figs. 5, 6. */
extern const u8 kiw_vec_fig5[52];
extern const u8 kiw_vec_fig6[52];
extern const u8 kiw_vec_between[52];
extern const u8 kiw_vec_tagged[36];
extern const u8 kiw_vec_padded[28];

#endif /* KIW_TEST_UTIL_H */
