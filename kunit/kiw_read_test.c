// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the RDMA Read queues (ORD and IRD limits, free-running positions
 * across the u32 wrap) and the send completion order: a work request
 * finished out of order waits for the ones before it, the first verdict
 * stands, and only the head is ever completed.
 */
#include <kunit/test.h>
#include <rdma/siw-abi.h>

#include "kiw_read.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct kiw_rdq_case {
	const char *name;
	u32 start;		/* put and get start here */
	u32 num;
	u32 max;
};

static const struct kiw_rdq_case kiw_rdq_cases[] = {
	{ "ord1", 0, 128, 1 },
	{ "ird_full", 0, 128, 128 },
	{ "wrap", 0xfffffffd, 8, 5 },
	{ "wrap_full", 0xffffffff, 4, 4 },
};

static void kiw_rdq_desc(const struct kiw_rdq_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_rdq, kiw_rdq_cases, kiw_rdq_desc);

/* Fill to the limit, refuse one more, drain in order: entry by entry. */
static void kiw_rdq_limit_test(struct kunit *test)
{
	const struct kiw_rdq_case *c = test->param_value;
	struct kiw_rdq q;
	u32 i, idx[128];

	kiw_rdq_init(&q, c->num, c->max);
	q.put = c->start;
	q.get = c->start;
	KUNIT_EXPECT_EQ(test, kiw_rdq_head(&q), -1);
	for (i = 0; i < c->max; i++) {
		KUNIT_ASSERT_TRUE(test, kiw_rdq_room(&q));
		KUNIT_EXPECT_EQ(test, kiw_rdq_free(&q), c->max - i);
		idx[i] = kiw_rdq_tail(&q);
		KUNIT_EXPECT_LT(test, idx[i], c->num);
		kiw_rdq_publish(&q);
		KUNIT_EXPECT_EQ(test, kiw_rdq_used(&q), i + 1);
	}
	/* ORD/IRD reached: a Read waits, a Read Request finds no buffer. */
	KUNIT_EXPECT_FALSE(test, kiw_rdq_room(&q));
	KUNIT_EXPECT_EQ(test, kiw_rdq_free(&q), 0);
	for (i = 0; i < c->max; i++) {
		KUNIT_ASSERT_EQ(test, kiw_rdq_head(&q), (int)idx[i]);
		kiw_rdq_pop(&q);
		KUNIT_EXPECT_TRUE(test, kiw_rdq_room(&q));
	}
	KUNIT_EXPECT_EQ(test, kiw_rdq_head(&q), -1);
	KUNIT_EXPECT_EQ(test, kiw_rdq_used(&q), 0);
	KUNIT_EXPECT_EQ(test, q.put, c->start + c->max);
}

/* IRD 0 (the peer may not read): no buffer at all. */
static void kiw_rdq_zero_test(struct kunit *test)
{
	struct kiw_rdq q;

	kiw_rdq_init(&q, 128, 0);
	KUNIT_EXPECT_FALSE(test, kiw_rdq_room(&q));
	KUNIT_EXPECT_EQ(test, kiw_rdq_free(&q), 0);
	KUNIT_EXPECT_EQ(test, kiw_rdq_head(&q), -1);
}

static struct kiw_txc *kiw_txc_new(struct kunit *test, u32 num, u32 pos)
{
	struct kiw_txc *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct kiw_txc_rec *rec = kunit_kcalloc(test, num, sizeof(*rec),
						GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	kiw_txc_init(c, rec, num, pos);
	return c;
}

/* Pop everything finished at the head; the ids, in the order popped. */
static unsigned int kiw_txc_drain(struct kunit *test, struct kiw_txc *c,
				  u64 *ids, unsigned int max)
{
	struct kiw_txc_rec rec;
	unsigned int n = 0;
	u32 pos, want = c->head;

	while (n < max && kiw_txc_pop(c, &rec, &pos)) {
		KUNIT_EXPECT_EQ(test, pos, want);
		want++;
		ids[n++] = rec.id;
	}
	return n;
}

/*
 * Send, Read, Send, LOCAL_INV: the second Send and the LOCAL_INV finish
 * first (they are on the wire, or ran), but complete only after the Read,
 * in SQ order.
 */
static void kiw_txc_order_test(struct kunit *test)
{
	struct kiw_txc *c = kiw_txc_new(test, 8, 0xfffffffe);
	u64 ids[8];

	KUNIT_ASSERT_NOT_NULL(test, kiw_txc_add(c, 10, SIW_OP_SEND, 0, 100,
						KIW_TXC_BUSY));
	KUNIT_ASSERT_NOT_NULL(test, kiw_txc_add(c, 11, SIW_OP_READ, 0, 4096,
						KIW_TXC_READ));
	KUNIT_ASSERT_NOT_NULL(test, kiw_txc_add(c, 12, SIW_OP_SEND, 0, 7,
						KIW_TXC_BUSY));
	KUNIT_ASSERT_NOT_NULL(test, kiw_txc_add(c, 13, SIW_OP_INVAL_STAG, 0, 0,
						KIW_TXC_BUSY));
	KUNIT_EXPECT_EQ(test, kiw_txc_drain(test, c, ids, 8), 0);

	KUNIT_EXPECT_EQ(test, kiw_txc_done(c, 0xfffffffe, IB_WC_SUCCESS), 0);
	KUNIT_ASSERT_EQ(test, kiw_txc_drain(test, c, ids, 8), 1);
	KUNIT_EXPECT_EQ(test, ids[0], 10);

	/* Positions wrap: 0xffffffff is the Read, 0 and 1 follow it. */
	KUNIT_EXPECT_EQ(test, kiw_txc_done(c, 0, IB_WC_SUCCESS), 0);
	KUNIT_EXPECT_EQ(test, kiw_txc_done(c, 1, IB_WC_SUCCESS), 0);
	KUNIT_EXPECT_EQ(test, kiw_txc_drain(test, c, ids, 8), 0);

	KUNIT_EXPECT_EQ(test, kiw_txc_done(c, 0xffffffff, IB_WC_SUCCESS), 0);
	KUNIT_ASSERT_EQ(test, kiw_txc_drain(test, c, ids, 8), 3);
	KUNIT_EXPECT_EQ(test, ids[0], 11);
	KUNIT_EXPECT_EQ(test, ids[1], 12);
	KUNIT_EXPECT_EQ(test, ids[2], 13);
	KUNIT_EXPECT_TRUE(test, kiw_txc_empty(c));
	/* Done and gone: a late mark finds nothing. */
	KUNIT_EXPECT_EQ(test, kiw_txc_done(c, 0, IB_WC_SUCCESS), -ENOENT);
	KUNIT_EXPECT_EQ(test, kiw_txc_done(c, 2, IB_WC_SUCCESS), -ENOENT);
}

/* A Terminate from the peer fails the oldest open one; that stands. */
static void kiw_txc_verdict_test(struct kunit *test)
{
	struct kiw_txc *c = kiw_txc_new(test, 4, 7);
	struct kiw_txc_rec rec;
	u32 pos;

	kiw_txc_add(c, 1, SIW_OP_SEND, SIW_WQE_SIGNALLED, 1, KIW_TXC_BUSY);
	kiw_txc_add(c, 2, SIW_OP_WRITE, 0, 2, KIW_TXC_BUSY);
	KUNIT_EXPECT_EQ(test, kiw_txc_done(c, 7, IB_WC_SUCCESS), 0);
	KUNIT_ASSERT_EQ(test, kiw_txc_oldest_open(c, &pos), 0);
	KUNIT_EXPECT_EQ(test, pos, 8);
	KUNIT_EXPECT_EQ(test, kiw_txc_done(c, pos, IB_WC_REM_ACCESS_ERR), 0);
	/* The TX finishes sending it afterwards: too late. */
	KUNIT_EXPECT_EQ(test, kiw_txc_done(c, 8, IB_WC_SUCCESS), -EALREADY);
	KUNIT_EXPECT_EQ(test, kiw_txc_oldest_open(c, &pos), -ENOENT);

	KUNIT_ASSERT_TRUE(test, kiw_txc_pop(c, &rec, &pos));
	KUNIT_EXPECT_EQ(test, rec.id, 1);
	KUNIT_EXPECT_EQ(test, rec.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, rec.flags, SIW_WQE_SIGNALLED);
	KUNIT_EXPECT_EQ(test, rec.bytes, 1);
	KUNIT_ASSERT_TRUE(test, kiw_txc_pop(c, &rec, &pos));
	KUNIT_EXPECT_EQ(test, rec.id, 2);
	KUNIT_EXPECT_EQ(test, rec.status, IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, rec.opcode, SIW_OP_WRITE);
	KUNIT_EXPECT_FALSE(test, kiw_txc_pop(c, &rec, &pos));
}

/* In flight is bounded: a full ring takes nothing more until the head goes. */
static void kiw_txc_full_test(struct kunit *test)
{
	struct kiw_txc *c = kiw_txc_new(test, 4, 0);
	struct kiw_txc_rec rec;
	u32 pos;
	int i;

	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_NOT_NULL(test, kiw_txc_add(c, i, SIW_OP_SEND, 0,
							0, KIW_TXC_BUSY));
	KUNIT_EXPECT_TRUE(test, kiw_txc_full(c));
	KUNIT_EXPECT_NULL(test, kiw_txc_add(c, 4, SIW_OP_SEND, 0, 0,
					    KIW_TXC_BUSY));
	KUNIT_EXPECT_EQ(test, kiw_txc_done(c, 3, IB_WC_SUCCESS), 0);
	KUNIT_EXPECT_FALSE(test, kiw_txc_pop(c, &rec, &pos));
	KUNIT_EXPECT_TRUE(test, kiw_txc_full(c));
	KUNIT_EXPECT_EQ(test, kiw_txc_done(c, 0, IB_WC_LOC_PROT_ERR), 0);
	KUNIT_ASSERT_TRUE(test, kiw_txc_pop(c, &rec, &pos));
	KUNIT_EXPECT_EQ(test, rec.status, IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_FALSE(test, kiw_txc_full(c));
	KUNIT_EXPECT_NOT_NULL(test, kiw_txc_add(c, 4, SIW_OP_SEND, 0, 0,
						KIW_TXC_BUSY));
	KUNIT_EXPECT_EQ(test, kiw_txc_done(c, 5, IB_WC_SUCCESS), -ENOENT);
}

static struct kunit_case kiw_read_cases[] = {
	KUNIT_CASE_PARAM(kiw_rdq_limit_test, kiw_rdq_gen_params),
	KUNIT_CASE(kiw_rdq_zero_test),
	KUNIT_CASE(kiw_txc_order_test),
	KUNIT_CASE(kiw_txc_verdict_test),
	KUNIT_CASE(kiw_txc_full_test),
	{}
};

static struct kunit_suite kiw_read_suite = {
	.name = "kiw_read",
	.test_cases = kiw_read_cases,
};

kunit_test_suite(kiw_read_suite);
