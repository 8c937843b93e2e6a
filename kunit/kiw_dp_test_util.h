/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * KUnit helpers for the data path suites: memory regions of every kind
 * in a test device's STag table (with odd first-page offsets and guard
 * octets around them), fragmented skbs freed at once, and two connected
 * QPs whose engines run without sockets: the TX's batches are copied out
 * and fed to the peer's receive parser.
 */
#ifndef KIW_DP_TEST_UTIL_H
#define KIW_DP_TEST_UTIL_H

#include <kunit/test.h>
#include <linux/skbuff.h>

#include "kiw_cq.h"
#include "kiw_llp.h"
#include "kiw_mem.h"
#include "kiw_qp.h"

/* Octets every test region is filled with before a test writes into it. */
#define KIW_DP_GUARD 0x5a

struct kiw_dp_region {
	struct kiw_mr *mr;
	u32 stag;
	u64 iova;		/* first valid address */
	u64 len;		/* valid octets */
	/* The memory behind, guard octets included: @bytes octets. */
	struct page **pages;	/* KIW_MR_USER / FAST: one per PAGE_SIZE */
	u8 *kva;		/* KIW_MR_DMA: a kernel buffer */
	u32 first;		/* offset of iova in pages[0] (or kva) */
	u64 bytes;
};

struct kiw_dp_region *kiw_dp_region(struct kunit *test,
				    struct kiw_device *kdev,
				    struct kiw_pd *pd, enum kiw_mr_kind kind,
				    u32 first, u64 len, u32 access,
				    u8 page_shift);
u8 kiw_dp_peek(const struct kiw_dp_region *r, u64 va);
void kiw_dp_poke(struct kiw_dp_region *r, u64 va, u8 v);
/* Octets of [va, va + len) of @r that differ from @data; -1 if none. */
s64 kiw_dp_cmp(const struct kiw_dp_region *r, u64 va, const u8 *data,
	       u64 len);
/* Guard octets outside [va, va + len) that changed; -1 if none. */
s64 kiw_dp_guard_hit(const struct kiw_dp_region *r, u64 va, u64 len);

/* The octet at index @i of a test pattern seeded with @seed. */
static inline u8 kiw_dp_pat(u32 seed, u64 i)
{
	return (u8)(i * 131 + seed + (i >> 8) * 7);
}

/*
 * An skb holding @data: the first @head octets linear, the rest in page
 * frags of at most @frag octets (starting at odd page offsets), the last
 * @tail of them in a frag_list skb. Not freed by KUnit: kfree_skb().
 */
struct sk_buff *kiw_dp_skb(struct kunit *test, const u8 *data,
			   unsigned int len, unsigned int head,
			   unsigned int frag, unsigned int tail);

struct kiw_dp_env {
	struct kiw_device *kdev;
	struct kiw_pd pd;
	struct kiw_pd other_pd;
	struct kiw_cq cq[2];
	struct kiw_qp *qp[2];
	int events[2];
	enum ib_event_type last_event[2];
	u8 *wire;		/* one batch, copied out */
	unsigned int nr_fpdu;	/* FPDUs pumped so far */
	unsigned int max_wire;	/* longest FPDU seen on the wire */
	unsigned int skb_layout;	/* how kiw_dp_pump() splits */
};

struct kiw_dp_env *kiw_dp_env(struct kunit *test, bool crc, bool markers,
			      u32 ord_ird);
void kiw_dp_feed(struct kunit *test, struct kiw_dp_env *e, int to,
		 const u8 *data, unsigned int len);
unsigned int kiw_dp_step(struct kunit *test, struct kiw_dp_env *e, int from,
			 unsigned int mss, unsigned int *nr);
unsigned int kiw_dp_step_held(struct kunit *test, struct kiw_dp_env *e,
			      int from, unsigned int mss, unsigned int *nr);
int kiw_dp_pump(struct kunit *test, struct kiw_dp_env *e, int from,
		unsigned int mss);
int kiw_dp_pump_term(struct kunit *test, struct kiw_dp_env *e, int from);
int kiw_dp_poll(struct kiw_dp_env *e, int side, struct ib_wc *wc, int n);

#endif /* KIW_DP_TEST_UTIL_H */
