// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: receive placement (kiw_rx_place.c) from real skbs with linear
 * data, page frags and a frag_list into regions of every kind, at odd
 * first-page offsets and TOs, with the segment handed over in pieces and
 * the region reference dropped between them (a run of the receive engine
 * ending inside an FPDU). Every octet must land where it belongs, none
 * outside (guard octets), and the CRC must cover exactly the payload.
 */
#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/slab.h>

#include "kiw_dp_test_util.h"
#include "kiw_rx.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define ACC_RW (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE)

struct kiw_place_case {
	const char *name;
	enum kiw_mr_kind kind;
	u8 page_shift;		/* FAST */
	u32 first;		/* region's offset in its first page */
	u32 at;			/* placement offset from the region's start */
	u32 len;
	unsigned int head, frag, tail;	/* skb layout */
	unsigned int piece;	/* octets per data() call */
};

static const struct kiw_place_case kiw_place_cases[] = {
	{ "user_1", KIW_MR_USER, 0, 0, 0, 1, 1, 0, 0, 1 },
	{ "user_odd_linear", KIW_MR_USER, 0, 0x123, 4093, 5000, 9999, 0, 0,
	  777 },
	{ "user_frags", KIW_MR_USER, 0, 4095, 1, 3 * 4096 + 7, 5, 700, 0,
	  1001 },
	{ "user_frag_list", KIW_MR_USER, 0, 1, 4094, 9000, 13, 1500, 3000,
	  4096 },
	{ "fast_4k_odd", KIW_MR_FAST, 12, 0x7ff, 3, 8191, 0, 999, 2000, 333 },
	{ "fast_512", KIW_MR_FAST, 9, 511, 1, 4000, 100, 400, 1000, 4000 },
	{ "dma_frag_list", KIW_MR_DMA, 0, 3, 5, 6000, 7, 1111, 2222, 1499 },
	{ "user_page_end", KIW_MR_USER, 0, 0, 4096 - 7, 7, 0, 3, 0, 2 },
};

static void kiw_place_desc(const struct kiw_place_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_place, kiw_place_cases, kiw_place_desc);

struct kiw_place_env {
	struct kiw_device *kdev;
	struct kiw_pd pd;
	struct kiw_pd other_pd;
	struct kiw_fpdu_rx rx;
	struct kiw_rx_place pl;
	u8 *data;
};

static struct kiw_place_env *kiw_place_env(struct kunit *test, u32 len,
					   u32 seed)
{
	struct kiw_place_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->kdev = kunit_kzalloc(test, sizeof(*e->kdev), GFP_KERNEL);
	e->data = kunit_kmalloc(test, max(len, 1U), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->kdev);
	KUNIT_ASSERT_NOT_NULL(test, e->data);
	xa_init(&e->kdev->mr_xa);
	for (i = 0; i < len; i++)
		e->data[i] = kiw_dp_pat(seed, i);
	/* A parser mid-FPDU with CRC on: only its CRC register matters. */
	kiw_fpdu_rx_init(&e->rx, NULL, false, true);
	kiw_place_init(&e->pl, e->kdev, &e->pd.base);
	return e;
}

/* Hand over [0, len) of @skb in pieces, dropping the reference between. */
static kiw_term_t kiw_place_pieces(struct kiw_place_env *e,
				   struct sk_buff *skb, u32 len, u32 piece)
{
	kiw_term_t t = KIW_TERM_NONE;
	u32 off, n;

	for (off = 0; off < len && !t; off += n) {
		n = min(piece, len - off);
		t = kiw_place_data(&e->pl, &e->rx, skb, off, n);
		if ((off / piece) & 1)
			kiw_place_put(&e->pl);
	}
	kiw_place_put(&e->pl);
	return t;
}

/* A tagged segment lands at TO, exactly, through any skb layout. */
static void kiw_place_tagged_test(struct kunit *test)
{
	const struct kiw_place_case *c = test->param_value;
	struct kiw_place_env *e = kiw_place_env(test, c->len, c->first);
	struct kiw_dp_region *r;
	struct sk_buff *skb;
	u64 to;

	r = kiw_dp_region(test, e->kdev, &e->pd, c->kind, c->first,
			  c->at + c->len + 3, ACC_RW, c->page_shift);
	to = r->iova + c->at;
	skb = kiw_dp_skb(test, e->data, c->len, c->head, c->frag, c->tail);
	KUNIT_ASSERT_EQ(test, kiw_place_tagged(&e->pl, r->stag, to, c->len,
					       KIW_STAG_SINK), KIW_TERM_NONE);
	KUNIT_EXPECT_EQ(test, kiw_place_pieces(e, skb, c->len, c->piece),
			KIW_TERM_NONE);
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, e->pl.left, 0);
	KUNIT_EXPECT_EQ(test, kiw_dp_cmp(r, to, e->data, c->len), -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(r, to, c->len), -1);
	KUNIT_EXPECT_EQ(test, e->rx.crc, crc32c(~0U, e->data, c->len));
	/* Every octet accounted for the parser exactly once. */
	KUNIT_EXPECT_EQ(test, e->rx.acct, c->len);
	KUNIT_EXPECT_NULL(test, e->pl.mr);
}

/*
 * An untagged segment lands in a receive WR's SGEs from its MO on: three
 * SGEs in two regions at odd addresses, a zero-length SGE between them.
 */
static void kiw_place_sgl_test(struct kunit *test)
{
	const struct kiw_place_case *c = test->param_value;
	struct kiw_place_env *e = kiw_place_env(test, c->len, 99);
	struct kiw_dp_region *r1, *r2;
	struct kiw_rqe *rqe = kunit_kzalloc(test, sizeof(*rqe), GFP_KERNEL);
	u32 l0 = 5, l2 = 701, l3 = c->len + 17, mo = c->at % 700;
	struct sk_buff *skb;
	u8 *all;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, rqe);
	r1 = kiw_dp_region(test, e->kdev, &e->pd, c->kind, c->first,
			   l0 + l2 + 10, IB_ACCESS_LOCAL_WRITE, c->page_shift);
	r2 = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 3, l3,
			   IB_ACCESS_LOCAL_WRITE, 0);
	rqe->num_sge = 4;
	rqe->sge[0] = (struct siw_sge){ r1->iova + 1, l0, r1->stag };
	rqe->sge[1] = (struct siw_sge){ r2->iova, 0, r2->stag };
	rqe->sge[2] = (struct siw_sge){ r1->iova + 1 + l0 + 3, l2, r1->stag };
	rqe->sge[3] = (struct siw_sge){ r2->iova, l3, r2->stag };
	rqe->length = l0 + l2 + l3;
	skb = kiw_dp_skb(test, e->data, c->len, c->head, c->frag, c->tail);
	KUNIT_ASSERT_EQ(test, kiw_place_sgl(&e->pl, rqe, mo, c->len),
			KIW_TERM_NONE);
	KUNIT_EXPECT_EQ(test, kiw_place_pieces(e, skb, c->len, c->piece),
			KIW_TERM_NONE);
	kfree_skb(skb);

	/* The message as the SGEs hold it, compared from MO on. */
	all = kunit_kzalloc(test, rqe->length, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, all);
	for (i = 0; i < l0; i++)
		all[i] = kiw_dp_peek(r1, r1->iova + 1 + i);
	for (i = 0; i < l2; i++)
		all[l0 + i] = kiw_dp_peek(r1, r1->iova + 4 + l0 + i);
	for (i = 0; i < l3; i++)
		all[l0 + l2 + i] = kiw_dp_peek(r2, r2->iova + i);
	KUNIT_EXPECT_MEMEQ(test, all + mo, e->data, c->len);
	for (i = 0; i < mo; i++)
		KUNIT_EXPECT_EQ_MSG(test, all[i], KIW_DP_GUARD, "octet %u", i);
	for (i = mo + c->len; i < rqe->length; i++)
		KUNIT_EXPECT_EQ_MSG(test, all[i], KIW_DP_GUARD, "octet %u", i);
	/* The gap between SGE 0 and 2 and the octets around are untouched. */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, kiw_dp_peek(r1, r1->iova + 1 + l0 + i),
				KIW_DP_GUARD);
	KUNIT_EXPECT_EQ(test, kiw_dp_peek(r1, r1->iova), KIW_DP_GUARD);
	KUNIT_EXPECT_EQ(test, e->rx.crc, crc32c(~0U, e->data, c->len));
}

/*
 * RFC 5041 8.3.1 item 6: a region invalidated while a segment is being
 * placed (between two runs) is not written any more: the next piece gets
 * "invalid STag" and not one more octet lands.
 * Covers: DDP-SEC-11
 */
static void kiw_place_revoke_test(struct kunit *test)
{
	struct kiw_place_env *e = kiw_place_env(test, 3000, 5);
	struct kiw_dp_region *r;
	unsigned long flags;
	struct sk_buff *skb;

	r = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 10, 3000,
			  ACC_RW, 0);
	skb = kiw_dp_skb(test, e->data, 3000, 100, 500, 0);
	KUNIT_ASSERT_EQ(test, kiw_place_tagged(&e->pl, r->stag, r->iova, 3000,
					       KIW_STAG_SINK), KIW_TERM_NONE);
	KUNIT_EXPECT_EQ(test, kiw_place_data(&e->pl, &e->rx, skb, 0, 1000),
			KIW_TERM_NONE);
	kiw_place_put(&e->pl);
	spin_lock_irqsave(&r->mr->lock, flags);
	r->mr->valid = false;
	spin_unlock_irqrestore(&r->mr->lock, flags);
	KUNIT_EXPECT_EQ(test, kiw_place_data(&e->pl, &e->rx, skb, 1000, 2000),
			KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_TAGGED,
				 KIW_DDP_ECODE_T_INVALID_STAG));
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, kiw_dp_cmp(r, r->iova, e->data, 1000), -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(r, r->iova, 1000), -1);
	KUNIT_EXPECT_NULL(test, e->pl.mr);
}

/*
 * Whatever the check refuses, nothing at all is written (DDP-SEC-1); a
 * Write to a region without remote write access is refused.
 * Covers: DDP-SEC-10
 */
static void kiw_place_refused_test(struct kunit *test)
{
	struct kiw_place_env *e = kiw_place_env(test, 64, 1);
	struct kiw_dp_region *r, *ro, *other;

	r = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 64, ACC_RW, 0);
	ro = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 64,
			   IB_ACCESS_REMOTE_READ, 0);
	other = kiw_dp_region(test, e->kdev, &e->other_pd, KIW_MR_USER, 0, 64,
			      ACC_RW, 0);
	KUNIT_EXPECT_EQ(test, kiw_place_tagged(&e->pl, r->stag + 1, r->iova,
					       1, KIW_STAG_SINK),
			KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_TAGGED,
				 KIW_DDP_ECODE_T_INVALID_STAG));
	KUNIT_EXPECT_EQ(test, kiw_place_tagged(&e->pl, r->stag, r->iova + 1,
					       64, KIW_STAG_SINK),
			KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_TAGGED,
				 KIW_DDP_ECODE_T_BASE_BOUNDS));
	KUNIT_EXPECT_EQ(test, kiw_place_tagged(&e->pl, r->stag, ~0ull - 2, 8,
					       KIW_STAG_SINK),
			KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_TAGGED,
				 KIW_DDP_ECODE_T_TO_WRAP));
	KUNIT_EXPECT_EQ(test, kiw_place_tagged(&e->pl, ro->stag, ro->iova, 8,
					       KIW_STAG_SINK),
			KIW_TERM(KIW_TERM_LAYER_RDMAP,
				 KIW_RDMAP_ETYPE_REMOTE_PROT,
				 KIW_RDMAP_ECODE_ACCESS_RIGHTS));
	KUNIT_EXPECT_EQ(test, kiw_place_tagged(&e->pl, other->stag,
					       other->iova, 8, KIW_STAG_SINK),
			KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_TAGGED,
				 KIW_DDP_ECODE_T_STAG_NOT_ASSOC));
	/* Zero length: never checked (RFC 5041 5.2), nothing to place. */
	KUNIT_EXPECT_EQ(test, kiw_place_tagged(&e->pl, 0, ~0ull, 0,
					       KIW_STAG_SINK), KIW_TERM_NONE);
	KUNIT_EXPECT_EQ(test, e->pl.kind, KIW_PLACE_NONE);
	kiw_place_put(&e->pl);
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(r, r->iova, 0), -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(ro, ro->iova, 0), -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(other, other->iova, 0), -1);
}

static struct kunit_case kiw_place_test_cases[] = {
	KUNIT_CASE_PARAM(kiw_place_tagged_test, kiw_place_gen_params),
	KUNIT_CASE_PARAM(kiw_place_sgl_test, kiw_place_gen_params),
	KUNIT_CASE(kiw_place_revoke_test),
	KUNIT_CASE(kiw_place_refused_test),
	{}
};

static struct kunit_suite kiw_place_suite = {
	.name = "kiw_place",
	.test_cases = kiw_place_test_cases,
};

kunit_test_suite(kiw_place_suite);
