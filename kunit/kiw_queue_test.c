// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: work queues and completion queues. The QP state machine (every
 * iWARP state against every IB state a consumer can ask for), the IB state
 * query_qp reports, queue sizing, copying hostile SQ/RQ entries out of a
 * ring written by user space, CQ arming and the siw values libsiw reads,
 * and the SRQ limit.
 */
#include <kunit/test.h>

#include "kiw_cq.h"
#include "kiw_qp.h"
#include "kiw_srq.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define BAD (-EINVAL)
#define ERR_FLUSH KIW_QP_ACT_FLUSH
#define ERR_ABORT (KIW_QP_ACT_FLUSH | KIW_QP_ACT_ABORT)
#define ERR_CLOSE (KIW_QP_ACT_FLUSH | KIW_QP_ACT_CLOSE)

struct kiw_transition_case {
	enum kiw_qp_state cur;
	enum ib_qp_state req;
	int ret;
	enum kiw_qp_state next;
	unsigned int actions;
	enum ib_qp_state idle;	/* the IB state of an IDLE QP */
};

static const struct kiw_transition_case kiw_transition_cases[] = {
	/* rdma_cm sets up an unconnected QP, in IB's order. */
	{ KIW_QP_IDLE, IB_QPS_RESET, 0, KIW_QP_IDLE, 0, IB_QPS_RESET },
	{ KIW_QP_IDLE, IB_QPS_INIT, 0, KIW_QP_IDLE, 0, IB_QPS_RESET },
	{ KIW_QP_IDLE, IB_QPS_RTR, BAD, KIW_QP_IDLE, 0, IB_QPS_RESET },
	{ KIW_QP_IDLE, IB_QPS_RESET, 0, KIW_QP_IDLE, 0, IB_QPS_INIT },
	{ KIW_QP_IDLE, IB_QPS_INIT, 0, KIW_QP_IDLE, 0, IB_QPS_INIT },
	{ KIW_QP_IDLE, IB_QPS_RTR, 0, KIW_QP_IDLE, 0, IB_QPS_INIT },
	{ KIW_QP_IDLE, IB_QPS_RESET, 0, KIW_QP_IDLE, 0, IB_QPS_RTR },
	{ KIW_QP_IDLE, IB_QPS_INIT, BAD, KIW_QP_IDLE, 0, IB_QPS_RTR },
	{ KIW_QP_IDLE, IB_QPS_RTR, BAD, KIW_QP_IDLE, 0, IB_QPS_RTR },
	{ KIW_QP_IDLE, IB_QPS_RTS, BAD, KIW_QP_IDLE, 0, IB_QPS_RTR },
	{ KIW_QP_IDLE, IB_QPS_SQD, BAD, KIW_QP_IDLE, 0, IB_QPS_RTR },
	{ KIW_QP_IDLE, IB_QPS_SQE, BAD, KIW_QP_IDLE, 0, IB_QPS_RTR },
	{ KIW_QP_IDLE, IB_QPS_ERR, 0, KIW_QP_ERROR, ERR_FLUSH, IB_QPS_INIT },
	/* Connected: iw_cm disconnects gracefully (SQD) or not (ERR). */
	{ KIW_QP_RTS, IB_QPS_RESET, BAD, KIW_QP_RTS, 0 },
	{ KIW_QP_RTS, IB_QPS_INIT, BAD, KIW_QP_RTS, 0 },
	{ KIW_QP_RTS, IB_QPS_RTR, BAD, KIW_QP_RTS, 0 },
	{ KIW_QP_RTS, IB_QPS_RTS, 0, KIW_QP_RTS, 0 },
	{ KIW_QP_RTS, IB_QPS_SQD, 0, KIW_QP_CLOSING, KIW_QP_ACT_CLOSE },
	{ KIW_QP_RTS, IB_QPS_SQE, BAD, KIW_QP_RTS, 0 },
	{ KIW_QP_RTS, IB_QPS_ERR, 0, KIW_QP_ERROR, ERR_ABORT },
	{ KIW_QP_CLOSING, IB_QPS_RESET, BAD, KIW_QP_CLOSING, 0 },
	{ KIW_QP_CLOSING, IB_QPS_INIT, BAD, KIW_QP_CLOSING, 0 },
	{ KIW_QP_CLOSING, IB_QPS_RTS, BAD, KIW_QP_CLOSING, 0 },
	{ KIW_QP_CLOSING, IB_QPS_SQD, 0, KIW_QP_CLOSING, 0 },
	/* ib_drain_qp() after rdma_disconnect(): the close stays graceful. */
	{ KIW_QP_CLOSING, IB_QPS_ERR, 0, KIW_QP_ERROR, ERR_CLOSE },
	{ KIW_QP_TERMINATE, IB_QPS_RESET, BAD, KIW_QP_TERMINATE, 0 },
	{ KIW_QP_TERMINATE, IB_QPS_RTS, BAD, KIW_QP_TERMINATE, 0 },
	{ KIW_QP_TERMINATE, IB_QPS_SQD, 0, KIW_QP_TERMINATE, 0 },
	{ KIW_QP_TERMINATE, IB_QPS_ERR, 0, KIW_QP_ERROR, ERR_ABORT },
	/* In error: flushing again is harmless; RESET makes it reusable. */
	{ KIW_QP_ERROR, IB_QPS_RESET, 0, KIW_QP_IDLE, 0 },
	{ KIW_QP_ERROR, IB_QPS_INIT, BAD, KIW_QP_ERROR, 0 },
	{ KIW_QP_ERROR, IB_QPS_RTR, BAD, KIW_QP_ERROR, 0 },
	{ KIW_QP_ERROR, IB_QPS_RTS, BAD, KIW_QP_ERROR, 0 },
	{ KIW_QP_ERROR, IB_QPS_SQD, 0, KIW_QP_ERROR, 0 },
	{ KIW_QP_ERROR, IB_QPS_ERR, 0, KIW_QP_ERROR, ERR_FLUSH },
	{ KIW_QP_IDLE, (enum ib_qp_state)42, BAD, KIW_QP_IDLE, 0 },
};

static const char * const kiw_state_names[] = {
	"idle", "rts", "closing", "terminate", "error"
};

static void kiw_transition_desc(const struct kiw_transition_case *c,
				char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s_%d_to_ib_%d",
		 kiw_state_names[c->cur], c->idle, c->req);
}

KUNIT_ARRAY_PARAM(kiw_transition, kiw_transition_cases, kiw_transition_desc);

static void kiw_qp_transition_test(struct kunit *test)
{
	const struct kiw_transition_case *c = test->param_value;
	enum kiw_qp_state next = KIW_QP_STATE_COUNT;
	unsigned int actions = ~0u;
	int ret;

	ret = kiw_qp_transition(c->cur, c->idle, c->req, &next, &actions);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (ret)
		return;
	KUNIT_EXPECT_EQ(test, next, c->next);
	KUNIT_EXPECT_EQ(test, actions, c->actions);
}

static void kiw_qp_ib_state_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kiw_qp_ib_state(KIW_QP_IDLE, IB_QPS_RESET),
			IB_QPS_RESET);
	KUNIT_EXPECT_EQ(test, kiw_qp_ib_state(KIW_QP_IDLE, IB_QPS_INIT),
			IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, kiw_qp_ib_state(KIW_QP_IDLE, IB_QPS_RTR),
			IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, kiw_qp_ib_state(KIW_QP_RTS, IB_QPS_INIT),
			IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, kiw_qp_ib_state(KIW_QP_CLOSING, IB_QPS_INIT),
			IB_QPS_SQD);
	KUNIT_EXPECT_EQ(test, kiw_qp_ib_state(KIW_QP_TERMINATE, IB_QPS_INIT),
			IB_QPS_SQE);
	KUNIT_EXPECT_EQ(test, kiw_qp_ib_state(KIW_QP_ERROR, IB_QPS_INIT),
			IB_QPS_ERR);
}

static void kiw_queue_size_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kiw_wq_size(0), 1u);
	KUNIT_EXPECT_EQ(test, kiw_wq_size(1), 1u);
	KUNIT_EXPECT_EQ(test, kiw_wq_size(3), 4u);
	KUNIT_EXPECT_EQ(test, kiw_wq_size(1000), 1024u);
	KUNIT_EXPECT_EQ(test, kiw_wq_size(KIW_MAX_QP_WR), (u32)KIW_MAX_QP_WR);
	KUNIT_EXPECT_EQ(test, kiw_wq_size(KIW_MAX_SRQ_WR),
			(u32)KIW_MAX_SRQ_WR);
	KUNIT_EXPECT_EQ(test, kiw_cq_ring_size(0), 1u);
	KUNIT_EXPECT_EQ(test, kiw_cq_ring_size(129), 256u);
	KUNIT_EXPECT_EQ(test, kiw_cq_ring_size(KIW_MAX_CQE), (u32)KIW_MAX_CQE);
	/* The limits are powers of two, so rounding never exceeds them. */
	KUNIT_EXPECT_TRUE(test, is_power_of_2(KIW_MAX_QP_WR));
	KUNIT_EXPECT_TRUE(test, is_power_of_2(KIW_MAX_SRQ_WR));
	KUNIT_EXPECT_TRUE(test, is_power_of_2(KIW_MAX_CQE));
}

/* SQ entries as user space might leave them in a ring. */

enum { SQE_NOT_POSTED, SQE_OK };

struct kiw_sqe_case {
	const char *name;
	bool kernel_qp;
	u16 flags;
	u8 opcode;
	u8 num_sge;
	u32 len0, len1;
	int ret;
	u32 length;
};

#define V SIW_WQE_VALID
#define INL SIW_WQE_INLINE

static const struct kiw_sqe_case kiw_sqe_cases[] = {
	{ "not_posted", false, 0, SIW_OP_SEND, 1, 10, 0, -ENOENT, 0 },
	{ "send", false, V, SIW_OP_SEND, 2, 10, 20, 0, 30 },
	{ "send_no_sge", false, V, SIW_OP_SEND, 0, 0, 0, 0, 0 },
	{ "write_max_sge", false, V, SIW_OP_WRITE, KIW_MAX_SGE, 1, 1, 0,
	  KIW_MAX_SGE },
	{ "too_many_sge", false, V, SIW_OP_SEND, KIW_MAX_SGE + 1, 1, 1,
	  -EINVAL, 0 },
	{ "num_sge_255", false, V, SIW_OP_SEND, 255, 1, 1, -EINVAL, 0 },
	{ "length_over_4g", false, V, SIW_OP_SEND, 2, 0x80000000u,
	  0x80000000u, -EINVAL, 0 },
	{ "length_4g_minus_1", false, V, SIW_OP_SEND, 2, 0x80000000u,
	  0x7fffffffu, 0, U32_MAX },
	{ "read_one_sge", false, V, SIW_OP_READ, 1, 64, 0, 0, 64 },
	{ "read_two_sge", false, V, SIW_OP_READ, 2, 64, 64, -EINVAL, 0 },
	{ "unknown_opcode", false, V, 200, 1, 1, 0, -EINVAL, 0 },
	{ "send_with_imm", false, V, SIW_OP_SEND_WITH_IMM, 1, 1, 0, -EINVAL,
	  0 },
	{ "atomic", false, V, SIW_OP_FETCH_AND_ADD, 1, 8, 0, -EINVAL, 0 },
	{ "receive_opcode", false, V, SIW_OP_RECEIVE, 1, 8, 0, -EINVAL, 0 },
	{ "user_reg_mr", false, V, SIW_OP_REG_MR, 0, 0, 0, -EINVAL, 0 },
	{ "user_local_inv", false, V, SIW_OP_INVAL_STAG, 0, 0, 0, -EINVAL,
	  0 },
	{ "user_read_inv", false, V, SIW_OP_READ_LOCAL_INV, 1, 8, 0, -EINVAL,
	  0 },
	{ "kernel_local_inv", true, V, SIW_OP_INVAL_STAG, 0, 0, 0, 0, 0 },
	{ "kernel_read_inv", true, V, SIW_OP_READ_LOCAL_INV, 1, 8, 0, 0, 8 },
	{ "kernel_read_inv_no_sge", true, V, SIW_OP_READ_LOCAL_INV, 0, 0, 0,
	  -EINVAL, 0 },
	{ "inline_max", false, V | INL, SIW_OP_SEND, 1, KIW_MAX_INLINE, 0, 0,
	  KIW_MAX_INLINE },
	{ "inline_too_long", false, V | INL, SIW_OP_SEND, 1,
	  KIW_MAX_INLINE + 1, 0, -EINVAL, 0 },
	{ "inline_huge", false, V | INL, SIW_OP_WRITE, 1, U32_MAX, 0, -EINVAL,
	  0 },
	{ "inline_read", false, V | INL, SIW_OP_READ, 1, 8, 0, -EINVAL, 0 },
};

static void kiw_sqe_case_desc(const struct kiw_sqe_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_sqe, kiw_sqe_cases, kiw_sqe_case_desc);

static void kiw_sqe_copy_test(struct kunit *test)
{
	const struct kiw_sqe_case *c = test->param_value;
	struct siw_sqe *slot;
	struct kiw_sqe sqe;
	int i, ret;

	slot = kunit_kzalloc(test, sizeof(*slot), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, slot);
	slot->id = 0xfeedface12345678ull;
	slot->flags = c->flags | SIW_WQE_COMPLETED | 0x8000;
	slot->opcode = c->opcode;
	slot->num_sge = c->num_sge;
	slot->rkey = 0xabcdef01;
	slot->raddr = 0x1122334455667788ull;
	for (i = 0; i < SIW_MAX_SGE; i++)
		slot->sge[i].length = i ? c->len1 : c->len0;
	if (c->flags & INL) {
		memset(&slot->sge[1], 0xa7, KIW_MAX_INLINE);
		slot->sge[0].length = c->len0;
	}

	memset(&sqe, 0x5a, sizeof(sqe));
	ret = kiw_sqe_copy(slot, c->kernel_qp, KIW_MAX_SGE, KIW_MAX_INLINE,
			   &sqe);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (ret == -ENOENT)
		return;
	/* Even a rejected entry can be completed in error by its id. */
	KUNIT_EXPECT_EQ(test, sqe.id, 0xfeedface12345678ull);
	KUNIT_EXPECT_FALSE(test, sqe.flags & (SIW_WQE_COMPLETED | 0x8000));
	if (ret)
		return;
	KUNIT_EXPECT_EQ(test, sqe.opcode, c->opcode);
	KUNIT_EXPECT_EQ(test, sqe.length, c->length);
	KUNIT_EXPECT_LE(test, sqe.num_sge, KIW_MAX_SGE);
	if (c->flags & INL) {
		KUNIT_EXPECT_EQ(test, sqe.num_sge, 0);
		KUNIT_EXPECT_EQ(test, sqe.inline_data[0], 0xa7);
		KUNIT_EXPECT_EQ(test, sqe.inline_data[c->length - 1], 0xa7);
	}
	if (c->opcode == SIW_OP_WRITE || c->opcode == SIW_OP_READ) {
		KUNIT_EXPECT_EQ(test, sqe.rkey, 0xabcdef01u);
		KUNIT_EXPECT_EQ(test, sqe.raddr, 0x1122334455667788ull);
	}
}

/* A QP's own SGE limit is enforced below the ABI's. */
static void kiw_sqe_copy_qp_limit_test(struct kunit *test)
{
	struct siw_sqe slot = {
		.flags = SIW_WQE_VALID,
		.opcode = SIW_OP_SEND,
		.num_sge = 3,
	};
	struct kiw_sqe sqe;

	KUNIT_EXPECT_EQ(test, kiw_sqe_copy(&slot, false, 2, 0, &sqe), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiw_sqe_copy(&slot, false, 3, 0, &sqe), 0);
	slot.flags |= SIW_WQE_INLINE;
	slot.sge[0].length = 10;
	KUNIT_EXPECT_EQ(test, kiw_sqe_copy(&slot, false, 3, 9, &sqe), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiw_sqe_copy(&slot, false, 3, 10, &sqe), 0);
}

static void kiw_rqe_copy_test(struct kunit *test)
{
	struct siw_rqe slot = {
		.id = 77,
		.num_sge = 2,
		.sge = { { .length = 100 }, { .length = 28 } },
	};
	struct kiw_rqe rqe;

	KUNIT_EXPECT_EQ(test, kiw_rqe_copy(&slot, KIW_MAX_SGE, &rqe), -ENOENT);
	slot.flags = SIW_WQE_VALID;
	KUNIT_EXPECT_EQ(test, kiw_rqe_copy(&slot, KIW_MAX_SGE, &rqe), 0);
	KUNIT_EXPECT_EQ(test, rqe.id, 77ull);
	KUNIT_EXPECT_EQ(test, rqe.length, 128u);
	KUNIT_EXPECT_EQ(test, kiw_rqe_copy(&slot, 1, &rqe), -EINVAL);
	KUNIT_EXPECT_EQ(test, rqe.id, 77ull);
	slot.num_sge = 200;
	KUNIT_EXPECT_EQ(test, kiw_rqe_copy(&slot, KIW_MAX_SGE, &rqe), -EINVAL);
	slot.num_sge = 2;
	slot.sge[1].length = U32_MAX;
	KUNIT_EXPECT_EQ(test, kiw_rqe_copy(&slot, KIW_MAX_SGE, &rqe), -EINVAL);
}

/* CQ arming: libsiw writes SOLICITED or SOLICITED | NEXT_COMPLETION. */
static void kiw_cq_notify_test(struct kunit *test)
{
	const u32 sol = SIW_NOTIFY_SOLICITED;
	const u32 next = SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION;

	KUNIT_EXPECT_FALSE(test, kiw_cq_notify_due(SIW_NOTIFY_NOT, false));
	KUNIT_EXPECT_FALSE(test, kiw_cq_notify_due(SIW_NOTIFY_NOT, true));
	KUNIT_EXPECT_FALSE(test, kiw_cq_notify_due(sol, false));
	KUNIT_EXPECT_TRUE(test, kiw_cq_notify_due(sol, true));
	KUNIT_EXPECT_TRUE(test, kiw_cq_notify_due(next, false));
	KUNIT_EXPECT_TRUE(test, kiw_cq_notify_due(next, true));
	KUNIT_EXPECT_TRUE(test, kiw_cq_notify_due(SIW_NOTIFY_NEXT_COMPLETION,
						  false));
	/* MISSED_EVENTS alone arms nothing. */
	KUNIT_EXPECT_FALSE(test, kiw_cq_notify_due(SIW_NOTIFY_MISSED_EVENTS,
						   true));
}

static void kiw_cq_slot_test(struct kunit *test)
{
	struct siw_cqe cqe = {};

	KUNIT_EXPECT_TRUE(test, kiw_cq_slot_free(&cqe));
	cqe.flags = SIW_WQE_VALID;
	KUNIT_EXPECT_FALSE(test, kiw_cq_slot_free(&cqe));
	cqe.flags = SIW_WQE_SOLICITED;
	KUNIT_EXPECT_TRUE(test, kiw_cq_slot_free(&cqe));
}

/* libsiw indexes tables with these: every value must be in range. */
static void kiw_cq_siw_values_test(struct kunit *test)
{
	int s;

	for (s = IB_WC_SUCCESS; s <= IB_WC_GENERAL_ERR + 8; s++)
		KUNIT_EXPECT_LT(test, kiw_siw_wc_status(s), SIW_NUM_WC_STATUS);
	KUNIT_EXPECT_EQ(test, kiw_siw_wc_status(IB_WC_WR_FLUSH_ERR),
			SIW_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, kiw_siw_wc_status(IB_WC_REM_ACCESS_ERR),
			SIW_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, kiw_siw_wc_status(IB_WC_FATAL_ERR),
			SIW_WC_GENERAL_ERR);
	KUNIT_EXPECT_EQ(test, kiw_siw_opcode(IB_WC_RECV), SIW_OP_RECEIVE);
	KUNIT_EXPECT_EQ(test, kiw_siw_opcode(IB_WC_RDMA_READ), SIW_OP_READ);
	KUNIT_EXPECT_EQ(test, kiw_siw_opcode(IB_WC_RDMA_WRITE), SIW_OP_WRITE);
	KUNIT_EXPECT_EQ(test, kiw_siw_opcode(IB_WC_SEND), SIW_OP_SEND);
}

/* SRQ limit: an SRQ of 8 with @posted entries posted from @get on. */
static void kiw_srq_limit_test(struct kunit *test)
{
	struct siw_rqe ring[8] = {};
	u32 get = 6, posted = 3, i;

	for (i = 0; i < posted; i++)
		ring[(get + i) & 7].flags = SIW_WQE_VALID;
	KUNIT_EXPECT_FALSE(test, kiw_srq_below_limit(ring, 8, get, 0));
	KUNIT_EXPECT_FALSE(test, kiw_srq_below_limit(ring, 8, get, 1));
	KUNIT_EXPECT_FALSE(test, kiw_srq_below_limit(ring, 8, get, 3));
	KUNIT_EXPECT_TRUE(test, kiw_srq_below_limit(ring, 8, get, 4));
	KUNIT_EXPECT_TRUE(test, kiw_srq_below_limit(ring, 8, get, 8));
	KUNIT_EXPECT_TRUE(test, kiw_srq_below_limit(ring, 8, get, 9));
	/* Empty: any armed limit is reached. */
	KUNIT_EXPECT_TRUE(test, kiw_srq_below_limit(ring, 8, get + posted, 1));
}

static struct kunit_case kiw_queue_test_cases[] = {
	KUNIT_CASE_PARAM(kiw_qp_transition_test, kiw_transition_gen_params),
	KUNIT_CASE(kiw_qp_ib_state_test),
	KUNIT_CASE(kiw_queue_size_test),
	KUNIT_CASE_PARAM(kiw_sqe_copy_test, kiw_sqe_gen_params),
	KUNIT_CASE(kiw_sqe_copy_qp_limit_test),
	KUNIT_CASE(kiw_rqe_copy_test),
	KUNIT_CASE(kiw_cq_notify_test),
	KUNIT_CASE(kiw_cq_slot_test),
	KUNIT_CASE(kiw_cq_siw_values_test),
	KUNIT_CASE(kiw_srq_limit_test),
	{}
};

static struct kunit_suite kiw_queue_test_suite = {
	.name = "kiw_queue",
	.test_cases = kiw_queue_test_cases,
};

kunit_test_suite(kiw_queue_test_suite);
