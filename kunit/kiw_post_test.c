// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: kernel-consumer verbs on real kiw objects built in the test (no
 * device registration): post_send translation, SQ/RQ completion order,
 * full queues, a full SQ's next slot, malformed work requests, flushing
 * on error and posting after it, stale completions after a flush, CQ
 * arming for next and solicited completions, missed events, CQ overflow,
 * and fast registration with local and remote invalidation through the
 * STag table.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/mm.h>

#include <kiw/ddp.h>
#include <kiw/rdmap.h>

#include "kiw_cq.h"
#include "kiw_mem.h"
#include "kiw_qp.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct kiw_test_env {
	struct kiw_device *kdev;
	struct kiw_pd pd, other_pd;
	struct kiw_cq cq;
	struct kiw_qp qp;
	int comp_events;
	int cq_errors;
};

static void kiw_test_comp(struct ib_cq *cq, void *ctx)
{
	struct kiw_test_env *env = ctx;

	env->comp_events++;
}

static void kiw_test_cq_event(struct ib_event *ev, void *ctx)
{
	struct kiw_test_env *env = ctx;

	if (ev->event == IB_EVENT_CQ_ERR)
		env->cq_errors++;
}

static void kiw_test_cq_init(struct kunit *test, struct kiw_test_env *env,
			     u32 num)
{
	struct kiw_cq *cq = &env->cq;

	cq->base.device = &env->kdev->ibdev;
	cq->base.comp_handler = kiw_test_comp;
	cq->base.event_handler = kiw_test_cq_event;
	cq->base.cq_context = env;
	cq->num_cqe = num;
	cq->queue = kunit_kcalloc(test, num, sizeof(*cq->queue), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cq->queue);
	cq->notify = &cq->kernel_notify;
	spin_lock_init(&cq->lock);
}

/* The TX work post_send queues (it finds no socket and does nothing). */
static void kiw_test_qp_quiesce(void *p)
{
	struct kiw_qp *qp = p;

	kiw_tx_detach(qp);
	kiw_tx_qp_release(qp);
	kiw_rx_qp_release(qp);
}

/* A kernel QP with a 4-entry SQ and RQ on one CQ of @cqe entries. */
static struct kiw_test_env *kiw_test_env(struct kunit *test, u32 cqe)
{
	struct kiw_test_env *env;
	struct kiw_qp *qp;

	env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env);
	env->kdev = kunit_kzalloc(test, sizeof(*env->kdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env->kdev);
	xa_init(&env->kdev->mr_xa);
	kiw_test_cq_init(test, env, cqe);

	qp = &env->qp;
	qp->base.device = &env->kdev->ibdev;
	qp->base.qp_num = 42;
	qp->kdev = env->kdev;
	qp->pd = &env->pd;
	qp->scq = &env->cq;
	qp->rcq = &env->cq;
	kref_init(&qp->ref);
	init_completion(&qp->released);
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	qp->state = KIW_QP_IDLE;
	qp->max_send_sge = KIW_MAX_SGE;
	qp->max_recv_sge = KIW_MAX_SGE;
	qp->max_inline = KIW_MAX_INLINE;
	qp->sq.num = 4;
	qp->rq.num = 4;
	qp->sq.ring = kunit_kcalloc(test, 4, sizeof(struct siw_sqe),
				    GFP_KERNEL);
	qp->rq.ring = kunit_kcalloc(test, 4, sizeof(struct siw_rqe),
				    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->sq.ring);
	KUNIT_ASSERT_NOT_NULL(test, qp->rq.ring);
	kiw_tx_qp_init(qp);
	kiw_rx_qp_init(qp);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							kiw_test_qp_quiesce,
							qp), 0);
	return env;
}

static int kiw_test_poll(struct kiw_test_env *env, struct ib_wc *wc, int n)
{
	return kiw_poll_cq(&env->cq.base, n, wc);
}

static struct ib_wc *kiw_test_wcs(struct kunit *test, int n)
{
	struct ib_wc *wc = kunit_kcalloc(test, n, sizeof(*wc), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, wc);
	return wc;
}

static u8 kiw_test_buf[256];

static void kiw_test_send_wr(struct ib_rdma_wr *w, u64 id,
			     enum ib_wr_opcode op, struct ib_sge *sge, int n,
			     int flags)
{
	memset(w, 0, sizeof(*w));
	w->wr.wr_id = id;
	w->wr.opcode = op;
	w->wr.sg_list = sge;
	w->wr.num_sge = n;
	w->wr.send_flags = flags;
	w->remote_addr = 0x1000 + id;
	w->rkey = 0x4200 + id;
}

/*
 * No posting before the connection exists, nor once a graceful close
 * has begun (RFC 5041 section 6.2.1).
 * Covers: DDP-ST-3
 */
static void kiw_post_send_idle_test(struct kunit *test)
{
	struct kiw_test_env *env = kiw_test_env(test, 8);
	struct ib_sge sge = { .addr = 1, .length = 8, .lkey = 1 };
	const struct ib_send_wr *bad = NULL;
	struct ib_rdma_wr w;

	kiw_test_send_wr(&w, 1, IB_WR_SEND, &sge, 1, IB_SEND_SIGNALED);
	KUNIT_EXPECT_EQ(test, kiw_post_send(&env->qp.base, &w.wr, &bad),
			-ENOTCONN);
	KUNIT_EXPECT_PTR_EQ(test, bad, &w.wr);
	env->qp.state = KIW_QP_CLOSING;
	KUNIT_EXPECT_EQ(test, kiw_post_send(&env->qp.base, &w.wr, &bad),
			-ENOTCONN);
}

/* Work requests become ring entries the data path reads back intact. */
static void kiw_post_send_translate_test(struct kunit *test)
{
	struct kiw_test_env *env = kiw_test_env(test, 8);
	struct ib_sge sge[2] = {
		{ .addr = 0x1000, .length = 100, .lkey = 0x11 },
		{ .addr = 0x2000, .length = 28, .lkey = 0x12 },
	};
	struct ib_sge inl = { .addr = (uintptr_t)kiw_test_buf, .length = 80 };
	const struct ib_send_wr *bad = NULL;
	struct ib_rdma_wr w[4];
	struct ib_wc *wc = kiw_test_wcs(test, 8);
	struct kiw_sqe sqe;
	int i;

	memset(kiw_test_buf, 0x3c, sizeof(kiw_test_buf));
	env->qp.state = KIW_QP_RTS;
	kiw_test_send_wr(&w[0], 1, IB_WR_SEND, sge, 2, IB_SEND_SIGNALED);
	kiw_test_send_wr(&w[1], 2, IB_WR_RDMA_WRITE, &inl, 1, IB_SEND_INLINE);
	kiw_test_send_wr(&w[2], 3, IB_WR_RDMA_READ, sge, 1,
			 IB_SEND_SIGNALED | IB_SEND_FENCE);
	kiw_test_send_wr(&w[3], 4, IB_WR_SEND_WITH_INV, sge, 1,
			 IB_SEND_SIGNALED | IB_SEND_SOLICITED);
	w[3].wr.ex.invalidate_rkey = 0xdeadbe01;
	for (i = 0; i < 3; i++)
		w[i].wr.next = &w[i + 1].wr;
	KUNIT_ASSERT_EQ(test, kiw_post_send(&env->qp.base, &w[0].wr, &bad), 0);

	KUNIT_ASSERT_EQ(test, kiw_sq_fetch(&env->qp, 0, &sqe), 0);
	KUNIT_EXPECT_EQ(test, sqe.opcode, SIW_OP_SEND);
	KUNIT_EXPECT_EQ(test, sqe.length, 128u);
	KUNIT_EXPECT_EQ(test, sqe.sge[1].lkey, 0x12u);
	KUNIT_EXPECT_TRUE(test, sqe.flags & SIW_WQE_SIGNALLED);
	KUNIT_ASSERT_EQ(test, kiw_sq_complete(&env->qp, &sqe, IB_WC_SUCCESS,
					      128), 0);

	KUNIT_ASSERT_EQ(test, kiw_sq_fetch(&env->qp, 1, &sqe), 0);
	KUNIT_EXPECT_EQ(test, sqe.opcode, SIW_OP_WRITE);
	KUNIT_EXPECT_TRUE(test, sqe.flags & SIW_WQE_INLINE);
	KUNIT_EXPECT_FALSE(test, sqe.flags & SIW_WQE_SIGNALLED);
	KUNIT_EXPECT_EQ(test, sqe.length, 80u);
	KUNIT_EXPECT_MEMEQ(test, sqe.inline_data, kiw_test_buf, 80);
	KUNIT_EXPECT_EQ(test, sqe.raddr, 0x1002ull);
	KUNIT_EXPECT_EQ(test, sqe.rkey, 0x4202u);
	KUNIT_ASSERT_EQ(test, kiw_sq_complete(&env->qp, &sqe, IB_WC_SUCCESS,
					      80), 0);

	KUNIT_ASSERT_EQ(test, kiw_sq_fetch(&env->qp, 2, &sqe), 0);
	KUNIT_EXPECT_EQ(test, sqe.opcode, SIW_OP_READ);
	KUNIT_EXPECT_TRUE(test, sqe.flags & SIW_WQE_READ_FENCE);
	KUNIT_ASSERT_EQ(test, kiw_sq_complete(&env->qp, &sqe, IB_WC_SUCCESS,
					      100), 0);

	KUNIT_ASSERT_EQ(test, kiw_sq_fetch(&env->qp, 3, &sqe), 0);
	KUNIT_EXPECT_EQ(test, sqe.opcode, SIW_OP_SEND_REMOTE_INV);
	KUNIT_EXPECT_EQ(test, sqe.rkey, 0xdeadbe01u);
	KUNIT_EXPECT_TRUE(test, sqe.flags & SIW_WQE_SOLICITED);
	KUNIT_ASSERT_EQ(test, kiw_sq_complete(&env->qp, &sqe, IB_WC_SUCCESS,
					      100), 0);

	/* The unsignalled Write left no completion; the rest are in order. */
	KUNIT_ASSERT_EQ(test, kiw_test_poll(env, wc, 8), 3);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 1ull);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, wc[0].byte_len, 128u);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, &env->qp.base);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 3ull);
	KUNIT_EXPECT_EQ(test, wc[1].opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc[2].wr_id, 4ull);
	KUNIT_EXPECT_EQ(test, wc[2].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, kiw_sq_fetch(&env->qp, 4, &sqe), -ENOENT);
}

/* The memory-management work requests kernel ULPs post (NFS, iSER, NVMe). */
static void kiw_post_send_memory_wr_test(struct kunit *test)
{
	struct kiw_test_env *env = kiw_test_env(test, 8);
	struct ib_sge sink = { .addr = 0x3000, .length = 512, .lkey = 0x777 };
	const struct ib_send_wr *bad = NULL;
	struct ib_wc *wc = kiw_test_wcs(test, 8);
	struct kiw_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	struct ib_reg_wr reg = {
		.wr = { .wr_id = 1, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.key = 0xabcdef42,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ,
	};
	struct ib_rdma_wr rd, inv;
	struct kiw_sqe sqe;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, mr);
	reg.mr = &mr->base;
	kiw_test_send_wr(&rd, 2, IB_WR_RDMA_READ_WITH_INV, &sink, 1,
			 IB_SEND_SIGNALED);
	kiw_test_send_wr(&inv, 3, IB_WR_LOCAL_INV, NULL, 0, IB_SEND_SIGNALED);
	inv.wr.ex.invalidate_rkey = 0xabcdef42;
	reg.wr.next = &rd.wr;
	rd.wr.next = &inv.wr;
	env->qp.state = KIW_QP_RTS;
	KUNIT_ASSERT_EQ(test, kiw_post_send(&env->qp.base, &reg.wr, &bad), 0);

	KUNIT_ASSERT_EQ(test, kiw_sq_fetch(&env->qp, 0, &sqe), 0);
	KUNIT_EXPECT_EQ(test, sqe.opcode, SIW_OP_REG_MR);
	KUNIT_EXPECT_PTR_EQ(test, sqe.reg_mr, mr);
	KUNIT_EXPECT_EQ(test, sqe.rkey, 0xabcdef42u);
	KUNIT_EXPECT_EQ(test, sqe.access, reg.access);
	KUNIT_ASSERT_EQ(test, kiw_sq_fetch(&env->qp, 1, &sqe), 0);
	KUNIT_EXPECT_EQ(test, sqe.opcode, SIW_OP_READ_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, sqe.sge[0].lkey, 0x777u);
	KUNIT_EXPECT_EQ(test, sqe.length, 512u);
	KUNIT_ASSERT_EQ(test, kiw_sq_fetch(&env->qp, 2, &sqe), 0);
	KUNIT_EXPECT_EQ(test, sqe.opcode, SIW_OP_INVAL_STAG);
	KUNIT_EXPECT_EQ(test, sqe.rkey, 0xabcdef42u);

	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, kiw_sq_fetch(&env->qp, i, &sqe), 0);
		KUNIT_ASSERT_EQ(test, kiw_sq_complete(&env->qp, &sqe,
						      IB_WC_SUCCESS, 0), 0);
	}
	KUNIT_ASSERT_EQ(test, kiw_test_poll(env, wc, 8), 3);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_REG_MR);
	KUNIT_EXPECT_EQ(test, wc[1].opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc[2].opcode, IB_WC_LOCAL_INV);
}

static void kiw_post_send_full_test(struct kunit *test)
{
	struct kiw_test_env *env = kiw_test_env(test, 8);
	const struct ib_send_wr *bad = NULL;
	struct ib_rdma_wr w[5];
	int i;

	env->qp.state = KIW_QP_RTS;
	for (i = 0; i < 5; i++) {
		kiw_test_send_wr(&w[i], i, IB_WR_SEND, NULL, 0, 0);
		w[i].wr.next = i < 4 ? &w[i + 1].wr : NULL;
	}
	KUNIT_EXPECT_EQ(test, kiw_post_send(&env->qp.base, &w[0].wr, &bad),
			-ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, bad, &w[4].wr);
}

/*
 * An SQ entry stays VALID until it completes. Once the TX has taken a
 * whole ring's worth, the next position's slot still holds the oldest WR,
 * in flight: it must not be taken again as new work. It was, when the TX
 * looked at that slot after the oldest WR's completion had been recorded
 * but before its slot was freed: a Read ran twice and the second
 * completion overflowed perftest's one-entry CQ (ib_read_lat, SQ and CQ
 * of one entry).
 */
static void kiw_sq_wrap_run(struct kunit *test, u32 num)
{
	struct kiw_test_env *env = kiw_test_env(test, 8);
	const struct ib_send_wr *bad = NULL;
	struct ib_wc *wc = kiw_test_wcs(test, 8);
	struct kiw_sqe sqe[5];
	struct ib_rdma_wr w;
	u32 i;

	env->qp.sq.num = num;
	env->qp.state = KIW_QP_RTS;
	for (i = 0; i < num; i++) {
		kiw_test_send_wr(&w, i, IB_WR_SEND, NULL, 0, IB_SEND_SIGNALED);
		KUNIT_ASSERT_EQ(test, kiw_post_send(&env->qp.base, &w.wr, &bad),
				0);
		KUNIT_ASSERT_EQ(test, kiw_sq_fetch(&env->qp, i, &sqe[i]), 0);
		KUNIT_ASSERT_EQ(test, sqe[i].id, (u64)i);
	}
	/* Every entry in flight: position num's slot holds WR 0. */
	KUNIT_EXPECT_FALSE(test, kiw_sq_posted(&env->qp, num));
	KUNIT_EXPECT_EQ(test, kiw_sq_fetch(&env->qp, num, &sqe[num]), -ENOENT);

	/* WR 0 completes: its slot is free, and nothing is posted there yet. */
	KUNIT_ASSERT_EQ(test, kiw_sq_complete(&env->qp, &sqe[0], IB_WC_SUCCESS,
					      0), 0);
	KUNIT_EXPECT_FALSE(test, kiw_sq_posted(&env->qp, num));
	KUNIT_EXPECT_EQ(test, kiw_sq_fetch(&env->qp, num, &sqe[num]), -ENOENT);

	/* The next WR goes into that slot and is taken once, as itself. */
	kiw_test_send_wr(&w, num, IB_WR_SEND, NULL, 0, IB_SEND_SIGNALED);
	KUNIT_ASSERT_EQ(test, kiw_post_send(&env->qp.base, &w.wr, &bad), 0);
	KUNIT_EXPECT_TRUE(test, kiw_sq_posted(&env->qp, num));
	KUNIT_ASSERT_EQ(test, kiw_sq_fetch(&env->qp, num, &sqe[num]), 0);
	KUNIT_EXPECT_EQ(test, sqe[num].id, (u64)num);
	KUNIT_EXPECT_FALSE(test, kiw_sq_posted(&env->qp, num + 1));
	KUNIT_EXPECT_EQ(test, kiw_sq_fetch(&env->qp, num + 1, &sqe[0]),
			-ENOENT);

	for (i = 1; i <= num; i++)
		KUNIT_ASSERT_EQ(test, kiw_sq_complete(&env->qp, &sqe[i],
						      IB_WC_SUCCESS, 0), 0);
	/* One completion per WR, in order: none twice, no overflow. */
	KUNIT_ASSERT_EQ(test, kiw_test_poll(env, wc, 8), num + 1);
	for (i = 0; i <= num; i++)
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, (u64)i);
	KUNIT_EXPECT_EQ(test, env->cq_errors, 0);
}

static void kiw_sq_wrap_test(struct kunit *test)
{
	kiw_sq_wrap_run(test, 1);	/* perftest's latency tests */
	kiw_sq_wrap_run(test, 4);
}

struct kiw_bad_wr_case {
	const char *name;
	enum ib_wr_opcode opcode;
	int num_sge;
	u32 len0, len1;
	int flags;
};

static const struct kiw_bad_wr_case kiw_bad_wr_cases[] = {
	{ "too_many_sges", IB_WR_SEND, KIW_MAX_SGE + 1, 1, 1, 0 },
	{ "negative_sges", IB_WR_SEND, -1, 1, 1, 0 },
	{ "read_two_sges", IB_WR_RDMA_READ, 2, 1, 1, 0 },
	{ "read_inv_no_sge", IB_WR_RDMA_READ_WITH_INV, 0, 0, 0, 0 },
	{ "read_inline", IB_WR_RDMA_READ, 1, 1, 0, IB_SEND_INLINE },
	{ "atomic", IB_WR_ATOMIC_CMP_AND_SWP, 1, 8, 0, 0 },
	{ "send_with_imm", IB_WR_SEND_WITH_IMM, 1, 8, 0, 0 },
	{ "write_with_imm", IB_WR_RDMA_WRITE_WITH_IMM, 1, 8, 0, 0 },
	/* Covers: DDP-SR-2 */
	{ "over_4g", IB_WR_SEND, 2, 0x80000000u, 0x80000000u, 0 },
	{ "inline_too_long", IB_WR_SEND, 2, 60, 21, IB_SEND_INLINE },
	{ "ip_csum_flag", IB_WR_SEND, 1, 8, 0, IB_SEND_IP_CSUM },
};

static void kiw_bad_wr_desc(const struct kiw_bad_wr_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_bad_wr, kiw_bad_wr_cases, kiw_bad_wr_desc);

/* A malformed WR is refused at post time and leaves the SQ untouched. */
static void kiw_post_send_bad_test(struct kunit *test)
{
	const struct kiw_bad_wr_case *c = test->param_value;
	struct kiw_test_env *env = kiw_test_env(test, 8);
	struct ib_sge sge[KIW_MAX_SGE + 1] = {};
	const struct ib_send_wr *bad = NULL;
	struct ib_rdma_wr w;
	struct kiw_sqe sqe;
	int i;

	for (i = 0; i < ARRAY_SIZE(sge); i++) {
		sge[i].addr = (uintptr_t)kiw_test_buf;
		sge[i].length = i ? c->len1 : c->len0;
	}
	env->qp.state = KIW_QP_RTS;
	kiw_test_send_wr(&w, 9, c->opcode, sge, c->num_sge, c->flags);
	KUNIT_EXPECT_EQ(test, kiw_post_send(&env->qp.base, &w.wr, &bad),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &w.wr);
	KUNIT_EXPECT_EQ(test, kiw_sq_fetch(&env->qp, 0, &sqe), -ENOENT);
}

/*
 * On error every outstanding WR completes with a flush error in order, a
 * late completion of a flushed WR is ignored, and WRs posted afterwards
 * complete at once (ib_drain_qp depends on it).
 * Covers: DDP-LLP-3
 */
static void kiw_flush_test(struct kunit *test)
{
	struct kiw_test_env *env = kiw_test_env(test, 16);
	const struct ib_send_wr *bad = NULL;
	const struct ib_recv_wr *rbad = NULL;
	struct ib_recv_wr r[2] = {};
	struct ib_rdma_wr w[3];
	struct kiw_sqe sqe0, sqe1;
	struct kiw_rqe rqe;
	struct kiw_wc kwc = { .status = IB_WC_SUCCESS, .byte_len = 5 };
	struct ib_wc *wc = kiw_test_wcs(test, 16);
	int i, n;

	env->qp.state = KIW_QP_RTS;
	for (i = 0; i < 3; i++) {
		kiw_test_send_wr(&w[i], 10 + i, i == 1 ? IB_WR_RDMA_WRITE :
				 IB_WR_SEND, NULL, 0, IB_SEND_SIGNALED);
		w[i].wr.next = i < 2 ? &w[i + 1].wr : NULL;
	}
	KUNIT_ASSERT_EQ(test, kiw_post_send(&env->qp.base, &w[0].wr, &bad), 0);
	r[0].wr_id = 20;
	r[0].next = &r[1];
	r[1].wr_id = 21;
	KUNIT_ASSERT_EQ(test, kiw_post_recv(&env->qp.base, r, &rbad), 0);

	/* The data path has the first two SQ WRs and the first receive. */
	KUNIT_ASSERT_EQ(test, kiw_sq_fetch(&env->qp, 0, &sqe0), 0);
	KUNIT_ASSERT_EQ(test, kiw_sq_fetch(&env->qp, 1, &sqe1), 0);
	KUNIT_ASSERT_EQ(test, kiw_sq_complete(&env->qp, &sqe0, IB_WC_SUCCESS,
					      0), 0);
	KUNIT_ASSERT_EQ(test, kiw_rq_fetch(&env->qp, &rqe), 0);
	KUNIT_EXPECT_EQ(test, rqe.id, 20ull);

	kiw_qp_error(&env->qp);
	KUNIT_EXPECT_EQ(test, kiw_qp_state(&env->qp), KIW_QP_ERROR);
	/* Too late: already flushed. */
	KUNIT_EXPECT_EQ(test, kiw_sq_complete(&env->qp, &sqe1, IB_WC_SUCCESS,
					      0), 0);
	KUNIT_EXPECT_EQ(test, kiw_rq_complete(&env->qp, &rqe, &kwc), 0);
	KUNIT_EXPECT_EQ(test, kiw_rq_fetch(&env->qp, &rqe), -ENOENT);

	/* Posted after the error. */
	kiw_test_send_wr(&w[0], 30, IB_WR_RDMA_READ, NULL, 0, 0);
	KUNIT_EXPECT_EQ(test, kiw_post_send(&env->qp.base, &w[0].wr, &bad), 0);
	r[0].wr_id = 31;
	r[0].next = NULL;
	KUNIT_EXPECT_EQ(test, kiw_post_recv(&env->qp.base, r, &rbad), 0);

	n = kiw_test_poll(env, wc, 16);
	KUNIT_ASSERT_EQ(test, n, 7);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 10ull);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	{
		static const u64 ids[] = { 11, 12, 20, 21, 30, 31 };
		static const enum ib_wc_opcode ops[] = {
			IB_WC_RDMA_WRITE, IB_WC_SEND, IB_WC_RECV, IB_WC_RECV,
			IB_WC_RDMA_READ, IB_WC_RECV
		};

		for (i = 0; i < 6; i++) {
			KUNIT_EXPECT_EQ(test, wc[i + 1].wr_id, ids[i]);
			KUNIT_EXPECT_EQ(test, wc[i + 1].opcode, ops[i]);
			KUNIT_EXPECT_EQ(test, wc[i + 1].status,
					IB_WC_WR_FLUSH_ERR);
		}
	}
}

static void kiw_recv_test(struct kunit *test)
{
	struct kiw_test_env *env = kiw_test_env(test, 8);
	struct ib_sge sge = { .addr = 0x5000, .length = 64, .lkey = 7 };
	struct ib_recv_wr r = { .wr_id = 5, .sg_list = &sge, .num_sge = 1 };
	struct kiw_wc kwc = {
		.status = IB_WC_SUCCESS,
		.byte_len = 33,
		.invalidated = true,
		.inval_stag = 0x12345678,
	};
	const struct ib_recv_wr *bad = NULL;
	struct kiw_rqe rqe;
	struct ib_wc wc;

	/* Receives may be posted before the connection exists. */
	KUNIT_ASSERT_EQ(test, kiw_post_recv(&env->qp.base, &r, &bad), 0);
	KUNIT_ASSERT_EQ(test, kiw_rq_fetch(&env->qp, &rqe), 0);
	KUNIT_EXPECT_EQ(test, rqe.length, 64u);
	KUNIT_EXPECT_EQ(test, rqe.sge[0].lkey, 7u);
	KUNIT_ASSERT_EQ(test, kiw_rq_complete(&env->qp, &rqe, &kwc), 0);
	KUNIT_ASSERT_EQ(test, kiw_test_poll(env, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 5ull);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 33u);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, 0x12345678u);
	KUNIT_EXPECT_EQ(test, kiw_rq_fetch(&env->qp, &rqe), -ENOENT);

	r.num_sge = KIW_MAX_SGE + 1;
	KUNIT_EXPECT_EQ(test, kiw_post_recv(&env->qp.base, &r, &bad), -EINVAL);
}

static void kiw_test_add(struct kiw_test_env *env, enum ib_wc_status status,
			 bool solicited)
{
	struct kiw_wc wc = {
		.status = status,
		.solicited = solicited,
		.qp = &env->qp.base,
	};
	bool notify = false;

	kiw_cq_add(&env->cq, &wc, &notify);
	if (notify)
		kiw_cq_notify(&env->cq);
}

static void kiw_cq_arm_test(struct kunit *test)
{
	struct kiw_test_env *env = kiw_test_env(test, 16);
	struct ib_cq *cq = &env->cq.base;
	struct ib_wc *wc = kiw_test_wcs(test, 16);

	kiw_test_add(env, IB_WC_SUCCESS, false);
	KUNIT_EXPECT_EQ(test, env->comp_events, 0);	/* not armed */
	KUNIT_EXPECT_EQ(test, kiw_req_notify_cq(cq, IB_CQ_NEXT_COMP |
						IB_CQ_REPORT_MISSED_EVENTS), 1);
	kiw_test_add(env, IB_WC_SUCCESS, false);
	KUNIT_EXPECT_EQ(test, env->comp_events, 1);
	kiw_test_add(env, IB_WC_SUCCESS, false);
	KUNIT_EXPECT_EQ(test, env->comp_events, 1);	/* disarmed */

	kiw_req_notify_cq(cq, IB_CQ_SOLICITED);
	kiw_test_add(env, IB_WC_SUCCESS, false);
	KUNIT_EXPECT_EQ(test, env->comp_events, 1);
	kiw_test_add(env, IB_WC_SUCCESS, true);
	KUNIT_EXPECT_EQ(test, env->comp_events, 2);
	kiw_req_notify_cq(cq, IB_CQ_SOLICITED);
	kiw_test_add(env, IB_WC_REM_ACCESS_ERR, false);
	KUNIT_EXPECT_EQ(test, env->comp_events, 3);	/* errors count */

	KUNIT_EXPECT_EQ(test, kiw_test_poll(env, wc, 16), 6);
	KUNIT_EXPECT_EQ(test, kiw_req_notify_cq(cq, IB_CQ_NEXT_COMP |
						IB_CQ_REPORT_MISSED_EVENTS), 0);
}

static void kiw_cq_overflow_test(struct kunit *test)
{
	struct kiw_test_env *env = kiw_test_env(test, 2);
	struct kiw_wc kwc = { .wr_id = 1, .status = IB_WC_SUCCESS };
	bool notify = false;
	struct ib_wc wc;

	KUNIT_EXPECT_EQ(test, kiw_cq_add(&env->cq, &kwc, &notify), 0);
	KUNIT_EXPECT_EQ(test, kiw_cq_add(&env->cq, &kwc, &notify), 0);
	KUNIT_EXPECT_EQ(test, env->cq_errors, 0);
	KUNIT_EXPECT_EQ(test, kiw_cq_add(&env->cq, &kwc, &notify), -ENOSPC);
	KUNIT_EXPECT_TRUE(test, notify);
	KUNIT_EXPECT_EQ(test, env->cq_errors, 0);	/* not under a lock */
	kiw_cq_notify(&env->cq);
	KUNIT_EXPECT_EQ(test, env->cq_errors, 1);
	KUNIT_EXPECT_EQ(test, env->comp_events, 0);	/* never armed */
	KUNIT_EXPECT_EQ(test, kiw_test_poll(env, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, kiw_cq_add(&env->cq, &kwc, &notify), 0);
}

/* Fast registration and invalidation through the STag table. */

#define FR_INDEX 0x1234

static void kiw_test_mr_erase(void *p)
{
	struct kiw_mr *mr = p;

	xa_erase(&mr->kdev->mr_xa, FR_INDEX);
	kiw_mr_put(mr);
}

static struct kiw_mr *kiw_test_frmr(struct kunit *test,
				    struct kiw_test_env *env)
{
	struct kiw_mr *mr;
	int i;

	mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	mr->addrs = kunit_kcalloc(test, 4, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mr->addrs);
	for (i = 0; i < 4; i++) {
		void *page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, page);
		mr->addrs[i] = (uintptr_t)page;
	}
	mr->kdev = env->kdev;
	mr->kind = KIW_MR_FAST;
	mr->pd = &env->pd;
	kref_init(&mr->ref);
	init_completion(&mr->released);
	kiw_mr_init_sync(mr);
	mr->stag = kiw_stag(FR_INDEX, 0x10);
	mr->max_pages = 4;
	mr->npages = 3;
	mr->base.page_size = PAGE_SIZE;
	mr->base.iova = 0x7000100;
	mr->base.length = 2 * PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, xa_insert(&env->kdev->mr_xa, FR_INDEX, mr,
					GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							kiw_test_mr_erase,
							mr), 0);
	return mr;
}

static kiw_term_t kiw_test_write(struct kiw_test_env *env,
				 const struct kiw_pd *pd, u32 stag, u64 to,
				 u32 len)
{
	struct kiw_mr_map map;
	struct kiw_mr *mr;
	kiw_term_t term;

	term = kiw_mr_get_tagged(env->kdev, &pd->base, stag,
				 IB_ACCESS_REMOTE_WRITE, to, len,
				 KIW_STAG_SINK, &mr, &map);
	if (mr)
		kiw_mr_put(mr);
	return term;
}

/*
 * Fast registration sets an STag's validity, TO range, access rights and
 * its association with streams: the QPs of the PD it is registered in,
 * and no other (DDP 1/0x02 for a stream of another PD). Remote and local
 * invalidation revoke validity and association together, and from then
 * on the peer's Writes are refused on every stream; a new registration
 * sets them again. (The association is by PD: kiw has no memory windows
 * to bind an STag to one QP, DDP-SEC-2.)
 * Covers: DDP-SEC-5, DDP-SEC-10
 */
static void kiw_fast_reg_test(struct kunit *test)
{
	struct kiw_test_env *env = kiw_test_env(test, 4);
	struct kiw_mr *mr = kiw_test_frmr(test, env);
	const u32 acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	const u32 old = kiw_stag(FR_INDEX, 0x10);
	const u32 stag = kiw_stag(FR_INDEX, 0x11);
	const u32 again = kiw_stag(FR_INDEX, 0x12);
	const kiw_term_t invalid = KIW_TERM(KIW_TERM_LAYER_DDP,
					    KIW_DDP_ETYPE_TAGGED,
					    KIW_DDP_ECODE_T_INVALID_STAG);
	const kiw_term_t not_assoc = KIW_TERM(KIW_TERM_LAYER_DDP,
					      KIW_DDP_ETYPE_TAGGED,
					      KIW_DDP_ECODE_T_STAG_NOT_ASSOC);

	/* Not registered yet: the peer cannot use it. */
	KUNIT_EXPECT_EQ(test, kiw_test_write(env, &env->pd, old, 0x7000100, 1),
			invalid);
	KUNIT_EXPECT_EQ(test, kiw_mr_fast_register(mr, &env->other_pd.base,
						   stag, acc),
			IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_EQ(test, kiw_mr_fast_register(mr, &env->pd.base,
						   kiw_stag(FR_INDEX + 1, 1),
						   acc), IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_EQ(test, kiw_mr_fast_register(mr, &env->pd.base, stag,
						   IB_ACCESS_REMOTE_WRITE),
			IB_WC_LOC_PROT_ERR);
	KUNIT_ASSERT_EQ(test, kiw_mr_fast_register(mr, &env->pd.base, stag,
						   acc), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, kiw_mr_fast_register(mr, &env->pd.base, stag,
						   acc), IB_WC_LOC_QP_OP_ERR);

	KUNIT_EXPECT_EQ(test, kiw_test_write(env, &env->pd, stag,
					     0x7000100, 2 * PAGE_SIZE),
			KIW_TERM_NONE);
	KUNIT_EXPECT_EQ(test, kiw_test_write(env, &env->pd, stag,
					     0x7000100, 2 * PAGE_SIZE + 1),
			KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_TAGGED,
				 KIW_DDP_ECODE_T_BASE_BOUNDS));
	KUNIT_EXPECT_EQ(test, kiw_test_write(env, &env->pd, old, 0x7000100, 1),
			invalid);
	/* Associated with the streams of its PD only. */
	KUNIT_EXPECT_EQ(test, kiw_test_write(env, &env->other_pd, stag,
					     0x7000100, 1), not_assoc);

	/* A peer on another PD may not invalidate it; one on this PD may. */
	KUNIT_EXPECT_EQ(test, kiw_mr_invalidate_remote(env->kdev,
						       &env->other_pd.base,
						       stag),
			KIW_TERM(KIW_TERM_LAYER_RDMAP,
				 KIW_RDMAP_ETYPE_REMOTE_PROT,
				 KIW_RDMAP_ECODE_CANNOT_INVALIDATE));
	KUNIT_EXPECT_EQ(test, kiw_mr_invalidate_remote(env->kdev, &env->pd.base,
						       old),
			KIW_TERM(KIW_TERM_LAYER_RDMAP,
				 KIW_RDMAP_ETYPE_REMOTE_OP,
				 KIW_RDMAP_ECODE_CANNOT_INVALIDATE));
	KUNIT_EXPECT_EQ(test, kiw_mr_invalidate_remote(env->kdev, &env->pd.base,
						       stag), KIW_TERM_NONE);
	/* Revoked: no stream of any PD may use it. */
	KUNIT_EXPECT_EQ(test, kiw_test_write(env, &env->pd, stag, 0x7000100, 1),
			invalid);
	KUNIT_EXPECT_EQ(test, kiw_test_write(env, &env->other_pd, stag,
					     0x7000100, 1), invalid);
	/* Invalid again is fine; an unknown STag is not. */
	KUNIT_EXPECT_EQ(test, kiw_mr_invalidate_local(env->kdev, &env->pd.base,
						      stag), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, kiw_mr_invalidate_local(env->kdev, &env->pd.base,
						      kiw_stag(FR_INDEX + 7, 0)),
			IB_WC_LOC_PROT_ERR);
	/* Re-registration after invalidation sets validity and association. */
	KUNIT_ASSERT_EQ(test, kiw_mr_fast_register(mr, &env->pd.base, again,
						   acc), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, kiw_test_write(env, &env->pd, again, 0x7000100,
					     1), KIW_TERM_NONE);
	KUNIT_EXPECT_EQ(test, kiw_test_write(env, &env->other_pd, again,
					     0x7000100, 1), not_assoc);
	KUNIT_EXPECT_EQ(test, kiw_test_write(env, &env->pd, stag, 0x7000100, 1),
			invalid);
}

/* kiw_mr_check_local() gives kiw_mr_get_local()'s verdict, and keeps nothing. */
static void kiw_expect_check_local(struct kunit *test,
				   struct kiw_test_env *env, struct kiw_mr *mr,
				   const struct kiw_pd *pd, u32 lkey, u32 access,
				   u64 addr, u32 len, enum ib_wc_status want)
{
	unsigned int refs = kref_read(&mr->ref);
	enum ib_wc_status status;
	struct kiw_mr_map map;
	struct kiw_mr *got;

	KUNIT_EXPECT_EQ(test, kiw_mr_check_local(env->kdev, &pd->base, lkey,
						 access, addr, len), want);
	KUNIT_EXPECT_EQ(test, kref_read(&mr->ref), refs);
	status = kiw_mr_get_local(env->kdev, &pd->base, lkey, access, addr, len,
				  &got, &map);
	KUNIT_EXPECT_EQ(test, status, want);
	if (got)
		kiw_mr_put(got);
}

/*
 * The SQ's check of a Send's or Write's SGEs before any octet goes looks
 * at the region without a reference: the same verdicts as the lookup that
 * moves the octets, for every reason a local access is refused.
 */
static void kiw_check_local_test(struct kunit *test)
{
	struct kiw_test_env *env = kiw_test_env(test, 4);
	struct kiw_mr *mr = kiw_test_frmr(test, env);
	const u32 acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	const u32 stag = kiw_stag(FR_INDEX, 0x11);
	const u64 va = 0x7000100;

	/* Not registered yet. */
	kiw_expect_check_local(test, env, mr, &env->pd, stag, 0, va, 8,
			       IB_WC_LOC_PROT_ERR);
	KUNIT_ASSERT_EQ(test, kiw_mr_fast_register(mr, &env->pd.base, stag,
						   acc), IB_WC_SUCCESS);
	kiw_expect_check_local(test, env, mr, &env->pd, stag, 0, va, 8,
			       IB_WC_SUCCESS);
	kiw_expect_check_local(test, env, mr, &env->pd, stag,
			       IB_ACCESS_LOCAL_WRITE, va, 2 * PAGE_SIZE,
			       IB_WC_SUCCESS);
	/* Bounds, key, PD, an unknown index. */
	kiw_expect_check_local(test, env, mr, &env->pd, stag, 0, va - 1, 8,
			       IB_WC_LOC_PROT_ERR);
	kiw_expect_check_local(test, env, mr, &env->pd, stag, 0, va,
			       2 * PAGE_SIZE + 1, IB_WC_LOC_PROT_ERR);
	kiw_expect_check_local(test, env, mr, &env->pd,
			       kiw_stag(FR_INDEX, 0x12), 0, va, 8,
			       IB_WC_LOC_PROT_ERR);
	kiw_expect_check_local(test, env, mr, &env->other_pd, stag, 0, va, 8,
			       IB_WC_LOC_PROT_ERR);
	kiw_expect_check_local(test, env, mr, &env->pd,
			       kiw_stag(FR_INDEX + 7, 0x11), 0, va, 8,
			       IB_WC_LOC_PROT_ERR);
	/* An empty SGE names no memory. */
	kiw_expect_check_local(test, env, mr, &env->pd,
			       kiw_stag(FR_INDEX + 7, 0x11), 0, va, 0,
			       IB_WC_SUCCESS);
	/* Invalidated: refused at once. */
	KUNIT_ASSERT_EQ(test, kiw_mr_invalidate_local(env->kdev, &env->pd.base,
						      stag), IB_WC_SUCCESS);
	kiw_expect_check_local(test, env, mr, &env->pd, stag, 0, va, 8,
			       IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_EQ(test, kref_read(&mr->ref), 1U);
}

/* Two registrations the writer alternates between, never mixed. */
#define SNAP_ACC_A	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE)
#define SNAP_ACC_B	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ)
#define SNAP_IOVA_A	0x7000100ull
#define SNAP_IOVA_B	0x7000200ull

struct kiw_snap_writer {
	struct kiw_test_env *env;
	struct kiw_mr *mr;
	unsigned long cycles;
	bool failed;
};

static int kiw_snap_writer_fn(void *data)
{
	struct kiw_snap_writer *w = data;
	struct kiw_mr *mr = w->mr;
	const struct ib_pd *pd = &w->env->pd.base;
	u32 stag = kiw_stag(FR_INDEX, 0x10);

	while (!kthread_should_stop()) {
		bool a = w->cycles & 1;

		if (kiw_mr_invalidate_local(w->env->kdev, pd, stag) !=
		    IB_WC_SUCCESS)
			w->failed = true;
		mr->base.iova = a ? SNAP_IOVA_A : SNAP_IOVA_B;
		mr->base.length = a ? 2 * PAGE_SIZE : PAGE_SIZE;
		stag = kiw_stag(FR_INDEX, a ? 0xa1 : 0xb2);
		if (kiw_mr_fast_register(mr, pd, stag,
					 a ? SNAP_ACC_A : SNAP_ACC_B) !=
		    IB_WC_SUCCESS)
			w->failed = true;
		w->cycles++;
		cond_resched();
	}
	return 0;
}

static bool kiw_snap_is(const struct kiw_mr_map *map, u8 key, u32 acc,
			u64 iova, u64 len)
{
	return map->stag == kiw_stag(FR_INDEX, key) && map->access == acc &&
	       map->iova == iova && map->length == len;
}

/*
 * kiw_mr_snapshot() reads a region without its lock while another CPU
 * fast-registers and invalidates it: every snapshot is one whole
 * registration (key, rights, TO range together), never parts of two, as
 * the seqcount retry guarantees.
 */
static void kiw_mr_snapshot_race_test(struct kunit *test)
{
	struct kiw_test_env *env = kiw_test_env(test, 4);
	struct kiw_snap_writer w = { .env = env };
	unsigned long seen_a = 0, seen_b = 0, torn = 0, reads = 0;
	unsigned long deadline = jiffies + 5 * HZ;
	struct task_struct *t;
	struct kiw_mr_map map;

	w.mr = kiw_test_frmr(test, env);
	KUNIT_ASSERT_EQ(test, kiw_mr_fast_register(w.mr, &env->pd.base,
						   kiw_stag(FR_INDEX, 0x10),
						   SNAP_ACC_A), IB_WC_SUCCESS);
	t = kthread_run(kiw_snap_writer_fn, &w, "kiw-snap-test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	while ((seen_a < 100 || seen_b < 100 || reads < 10000) &&
	       time_before(jiffies, deadline)) {
		kiw_mr_snapshot(w.mr, &map);
		reads++;
		if (!map.valid)
			continue;
		if (kiw_snap_is(&map, 0xa1, SNAP_ACC_A, SNAP_IOVA_A,
				2 * PAGE_SIZE))
			seen_a++;
		else if (kiw_snap_is(&map, 0xb2, SNAP_ACC_B, SNAP_IOVA_B,
				     PAGE_SIZE))
			seen_b++;
		else if (!kiw_snap_is(&map, 0x10, SNAP_ACC_A, 0x7000100,
				      2 * PAGE_SIZE))
			torn++;
		cond_resched();
	}
	kthread_stop(t);
	kunit_info(test, "%lu snapshots, %lu + %lu whole, writer %lu cycles\n",
		   reads, seen_a, seen_b, w.cycles);
	KUNIT_EXPECT_FALSE(test, w.failed);
	KUNIT_EXPECT_EQ(test, torn, 0UL);
	/* Both registrations were seen: the reader ran against the writer. */
	KUNIT_EXPECT_GT(test, seen_a, 0UL);
	KUNIT_EXPECT_GT(test, seen_b, 0UL);
}

static struct kunit_case kiw_post_test_cases[] = {
	KUNIT_CASE(kiw_post_send_idle_test),
	KUNIT_CASE(kiw_post_send_translate_test),
	KUNIT_CASE(kiw_post_send_memory_wr_test),
	KUNIT_CASE(kiw_post_send_full_test),
	KUNIT_CASE(kiw_sq_wrap_test),
	KUNIT_CASE_PARAM(kiw_post_send_bad_test, kiw_bad_wr_gen_params),
	KUNIT_CASE(kiw_flush_test),
	KUNIT_CASE(kiw_recv_test),
	KUNIT_CASE(kiw_cq_arm_test),
	KUNIT_CASE(kiw_cq_overflow_test),
	KUNIT_CASE(kiw_fast_reg_test),
	KUNIT_CASE(kiw_check_local_test),
	KUNIT_CASE(kiw_mr_snapshot_race_test),
	{}
};

static struct kunit_suite kiw_post_test_suite = {
	.name = "kiw_post",
	.test_cases = kiw_post_test_cases,
};

kunit_test_suite(kiw_post_test_suite);
