// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the transmit and receive engines back to back, without sockets
 * (kiw_dp_test_util.c copies each TX batch out as TCP would and feeds it to
 * the peer's parser through fragmented skbs). Work requests are posted
 * with the verbs and completions polled from the CQs, so this covers
 * segmentation at and around MULPDU (0- and 1-octet messages included),
 * markers and CRC, reassembly, placement with odd offsets and SGEs,
 * completion order, ORD/IRD, MSN wrap, invalidation, and what a peer's
 * bad segment does (Terminate contents, nothing placed).
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "kiw_dp_test_util.h"
#include "kiw_mpa.h"
#include "kiw_tx_batch.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define ACC_ALL (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		 IB_ACCESS_REMOTE_READ)

static void kiw_eng_post(struct kunit *test, struct kiw_qp *qp, u64 id,
			 enum ib_wr_opcode op, struct ib_sge *sge, int n,
			 u32 rkey, u64 raddr)
{
	const struct ib_send_wr *bad;
	struct ib_rdma_wr w = {
		.wr = {
			.wr_id = id,
			.opcode = op,
			.sg_list = sge,
			.num_sge = n,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};

	if (op == IB_WR_SEND_WITH_INV)
		w.wr.ex.invalidate_rkey = rkey;
	KUNIT_ASSERT_EQ(test, kiw_post_send(&qp->base, &w.wr, &bad), 0);
}

static void kiw_eng_recv(struct kunit *test, struct kiw_qp *qp, u64 id,
			 struct ib_sge *sge, int n)
{
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = { .wr_id = id, .sg_list = sge, .num_sge = n };

	KUNIT_ASSERT_EQ(test, kiw_post_recv(&qp->base, &wr, &bad), 0);
}

/* Fill [iova, iova + len) of @r with the pattern of @seed. */
static void kiw_eng_fill(struct kiw_dp_region *r, u64 iova, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		kiw_dp_poke(r, iova + i, kiw_dp_pat(seed, i));
}

static u8 *kiw_eng_pattern(struct kunit *test, u32 len, u32 seed)
{
	u8 *p = kunit_kmalloc(test, max(len, 1U), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < len; i++)
		p[i] = kiw_dp_pat(seed, i);
	return p;
}

/* @n SGEs over [iova, iova + len) of @r, with odd lengths. */
static int kiw_eng_sges(struct kiw_dp_region *r, u64 iova, u32 len,
			struct ib_sge *sge, int n)
{
	u32 off = 0;
	int i;

	for (i = 0; i < n; i++) {
		u32 l = i == n - 1 ? len - off : min(len - off, len / n | 1);

		sge[i].addr = iova + off;
		sge[i].length = l;
		sge[i].lkey = r->stag;
		off += l;
	}
	return n;
}

struct kiw_eng_case {
	const char *name;
	u32 len;
	u32 mss;
	bool crc;
	bool markers;
	int nsge;
};

/* MULPDU for EMSS 1448 without markers is 1442: 1424 untagged octets. */
static const struct kiw_eng_case kiw_eng_cases[] = {
	{ "zero", 0, 1448, true, false, 1 },
	{ "one", 1, 1448, true, false, 1 },
	{ "seg_minus_1", 1423, 1448, true, false, 2 },
	{ "seg", 1424, 1448, true, false, 1 },
	{ "seg_plus_1", 1425, 1448, true, false, 3 },
	{ "three_segs", 3 * 1424, 1448, false, false, 6 },
	{ "markers_536", 1009, 536, true, true, 2 },
	{ "markers_9000", 20000, 9000, true, true, 4 },
	{ "mss_below_min", 300, 100, true, true, 1 },
	{ "big", 65536 + 3, 1448, true, true, 5 },
};

static void kiw_eng_desc(const struct kiw_eng_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_eng, kiw_eng_cases, kiw_eng_desc);

/*
 * Segments a message of @len takes with @hdr octets of DDP header, each
 * FPDU @more octets above the MULPDU.
 */
static u32 kiw_eng_nsegs(const struct kiw_eng_case *c, u32 hdr, u32 more)
{
	u32 per = kiw_mpa_mulpdu(c->mss, c->markers) + more - hdr;

	return max(1U, DIV_ROUND_UP(c->len, per));
}

/*
 * The segments @got: with markers, an FPDU may carry up to 8 octets above
 * the MULPDU, where fewer markers fall (kiw_fpdu_mulpdu_at()).
 */
static void kiw_eng_expect_nsegs(struct kunit *test,
				 const struct kiw_eng_case *c, u32 hdr, int got)
{
	KUNIT_EXPECT_LE(test, got, kiw_eng_nsegs(c, hdr, 0));
	KUNIT_EXPECT_GE(test, got,
			kiw_eng_nsegs(c, hdr, c->markers ? 8 : 0));
}

static void kiw_eng_expect_wc(struct kunit *test, struct kiw_dp_env *e,
			      int side, u64 id, enum ib_wc_opcode op,
			      enum ib_wc_status status, int byte_len)
{
	struct ib_wc wc = {};

	KUNIT_ASSERT_EQ(test, kiw_dp_poll(e, side, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, id);
	KUNIT_EXPECT_EQ(test, wc.opcode, op);
	KUNIT_EXPECT_EQ(test, wc.status, status);
	if (byte_len >= 0)
		KUNIT_EXPECT_EQ(test, wc.byte_len, byte_len);
}

/*
 * A Send of every length, CRC on or off, cut at the MULPDU: the receiver
 * checks QN, MSN and MO of every segment, places into the receive WR's
 * SGEs and completes once with the message's length; no CRC or header
 * octet reaches the buffer.
 * Covers: DDP-CF-2, DDP-UT-3, DDP-LLP-4, MPA-CRC-5
 */
static void kiw_eng_send_test(struct kunit *test)
{
	const struct kiw_eng_case *c = test->param_value;
	struct kiw_dp_env *e = kiw_dp_env(test, c->crc, c->markers, 4);
	u8 *data = kiw_eng_pattern(test, c->len, 7);
	struct kiw_dp_region *src, *dst;
	struct ib_sge sge[KIW_MAX_SGE], rsge[2];
	u32 half = c->len / 2 + 1;
	struct ib_wc wc;

	src = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0x321,
			    c->len + 1, ACC_ALL, 0);
	dst = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 7,
			    c->len + 100, ACC_ALL, 0);
	kiw_eng_fill(src, src->iova + 1, c->len, 7);
	/* The receive buffer: two SGEs, the first of odd length. */
	rsge[0] = (struct ib_sge){ dst->iova + 3, half, dst->stag };
	rsge[1] = (struct ib_sge){ dst->iova + 3 + half, c->len + 50,
				   dst->stag };
	kiw_eng_recv(test, e->qp[1], 77, rsge, 2);
	kiw_eng_post(test, e->qp[0], 55, IB_WR_SEND, sge,
		     kiw_eng_sges(src, src->iova + 1, c->len, sge, c->nsge),
		     0, 0);

	kiw_eng_expect_nsegs(test, c, sizeof(struct kiw_ddp_untagged_hdr),
			     kiw_dp_pump(test, e, 0, c->mss));
	kiw_eng_expect_wc(test, e, 0, 55, IB_WC_SEND, IB_WC_SUCCESS, -1);
	kiw_eng_expect_wc(test, e, 1, 77, IB_WC_RECV, IB_WC_SUCCESS, c->len);
	KUNIT_EXPECT_EQ(test, kiw_dp_cmp(dst, dst->iova + 3, data, c->len), -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(dst, dst->iova + 3, c->len), -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_poll(e, 0, &wc, 1), 0);
	KUNIT_EXPECT_EQ(test, kiw_dp_poll(e, 1, &wc, 1), 0);
	KUNIT_EXPECT_EQ(test, kiw_qp_state(e->qp[1]), KIW_QP_RTS);
}

/*
 * A Write lands at the STag and TO the WR named; the receiver checks
 * every segment for the same STag, a contiguous TO and an RDMAP octet
 * that continues the Write (RV 1, opcode Write).
 * Covers: DDP-CF-2, DDP-TG-2, DDP-TG-6
 */
static void kiw_eng_write_test(struct kunit *test)
{
	const struct kiw_eng_case *c = test->param_value;
	struct kiw_dp_env *e = kiw_dp_env(test, c->crc, c->markers, 4);
	u8 *data = kiw_eng_pattern(test, c->len, 3);
	struct kiw_dp_region *src, *dst;
	struct ib_sge sge[KIW_MAX_SGE];
	struct ib_wc wc;
	u64 to;

	src = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_FAST, 0x1ff,
			    c->len + 5, ACC_ALL, 12);
	dst = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 4095,
			    c->len + 9, ACC_ALL, 0);
	kiw_eng_fill(src, src->iova + 5, c->len, 3);
	to = dst->iova + 9;
	kiw_eng_post(test, e->qp[0], 56, IB_WR_RDMA_WRITE, sge,
		     kiw_eng_sges(src, src->iova + 5, c->len, sge, c->nsge),
		     dst->stag, to);

	kiw_eng_expect_nsegs(test, c, sizeof(struct kiw_ddp_tagged_hdr),
			     kiw_dp_pump(test, e, 0, c->mss));
	kiw_eng_expect_wc(test, e, 0, 56, IB_WC_RDMA_WRITE, IB_WC_SUCCESS, -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_poll(e, 1, &wc, 1), 0);
	KUNIT_EXPECT_EQ(test, kiw_dp_cmp(dst, to, data, c->len), -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(dst, to, c->len), -1);
	KUNIT_EXPECT_EQ(test, kiw_qp_state(e->qp[1]), KIW_QP_RTS);
}

static void kiw_eng_read_test(struct kunit *test)
{
	const struct kiw_eng_case *c = test->param_value;
	struct kiw_dp_env *e = kiw_dp_env(test, c->crc, c->markers, 4);
	u8 *data = kiw_eng_pattern(test, c->len, 11);
	struct kiw_dp_region *sink, *src;
	struct ib_sge sge;

	sink = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 13,
			     c->len + 2, ACC_ALL, 0);
	src = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_DMA, 5, c->len + 7,
			    ACC_ALL, 0);
	kiw_eng_fill(src, src->iova + 7, c->len, 11);
	sge = (struct ib_sge){ sink->iova + 1, c->len, sink->stag };
	kiw_eng_post(test, e->qp[0], 57, IB_WR_RDMA_READ, &sge, 1, src->stag,
		     src->iova + 7);

	KUNIT_EXPECT_EQ(test, kiw_dp_pump(test, e, 0, c->mss), 1);
	kiw_eng_expect_nsegs(test, c, sizeof(struct kiw_ddp_tagged_hdr),
			     kiw_dp_pump(test, e, 1, c->mss));
	kiw_eng_expect_wc(test, e, 0, 57, IB_WC_RDMA_READ, IB_WC_SUCCESS,
			  c->len);
	KUNIT_EXPECT_EQ(test, kiw_dp_cmp(sink, sink->iova + 1, data, c->len),
			-1);
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(sink, sink->iova + 1, c->len),
			-1);
	/* The IRD slot is free again, the ORQ empty. */
	KUNIT_EXPECT_EQ(test, kiw_rdq_used(&e->qp[1]->tx.irq_q), 0);
	KUNIT_EXPECT_EQ(test, kiw_rdq_head(&e->qp[0]->tx.orq_q), -1);
}

/*
 * A Send and a Write posted after a Read go on the wire at once, but
 * complete only after the Read, in SQ order.
 */
static void kiw_eng_order_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, true, false, 4);
	struct kiw_dp_region *a, *b;
	struct ib_sge sge, rsge;
	struct ib_wc wc;

	a = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 1, 8192,
			  ACC_ALL, 0);
	b = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 2, 8192,
			  ACC_ALL, 0);
	rsge = (struct ib_sge){ b->iova, 100, b->stag };
	kiw_eng_recv(test, e->qp[1], 90, &rsge, 1);
	sge = (struct ib_sge){ a->iova, 3000, a->stag };
	kiw_eng_post(test, e->qp[0], 1, IB_WR_RDMA_READ, &sge, 1, b->stag,
		     b->iova + 4096);
	sge = (struct ib_sge){ a->iova + 4000, 100, a->stag };
	kiw_eng_post(test, e->qp[0], 2, IB_WR_SEND, &sge, 1, 0, 0);
	kiw_eng_post(test, e->qp[0], 3, IB_WR_RDMA_WRITE, &sge, 1, b->stag,
		     b->iova + 200);

	KUNIT_EXPECT_EQ(test, kiw_dp_pump(test, e, 0, 1448), 3);
	/* The peer has the Send; here nothing may complete yet. */
	kiw_eng_expect_wc(test, e, 1, 90, IB_WC_RECV, IB_WC_SUCCESS, 100);
	KUNIT_EXPECT_EQ(test, kiw_dp_poll(e, 0, &wc, 1), 0);

	KUNIT_EXPECT_EQ(test, kiw_dp_pump(test, e, 1, 1448), 3);
	kiw_eng_expect_wc(test, e, 0, 1, IB_WC_RDMA_READ, IB_WC_SUCCESS, 3000);
	kiw_eng_expect_wc(test, e, 0, 2, IB_WC_SEND, IB_WC_SUCCESS, -1);
	kiw_eng_expect_wc(test, e, 0, 3, IB_WC_RDMA_WRITE, IB_WC_SUCCESS, -1);
}

/*
 * Many small Writes in one batch: their completions are reaped a few
 * records per locked section, and every one still reaches the CQ once,
 * in SQ order, with its data placed.
 */
static void kiw_eng_reap_many_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, false, false, 2);
	const int n = 21;
	struct kiw_dp_region *a, *b;
	u8 *data = kiw_eng_pattern(test, 8 * n, 33);
	struct ib_sge sge;
	struct ib_wc wc;
	int i;

	a = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 1, 4096,
			  ACC_ALL, 0);
	b = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 2, 4096,
			  ACC_ALL, 0);
	kiw_eng_fill(a, a->iova, 8 * n, 33);
	for (i = 0; i < n; i++) {
		sge = (struct ib_sge){ a->iova + 8 * i, 8, a->stag };
		kiw_eng_post(test, e->qp[0], 100 + i, IB_WR_RDMA_WRITE, &sge, 1,
			     b->stag, b->iova + 8 * i);
	}
	KUNIT_EXPECT_EQ(test, kiw_dp_pump(test, e, 0, 1448), n);
	for (i = 0; i < n; i++)
		kiw_eng_expect_wc(test, e, 0, 100 + i, IB_WC_RDMA_WRITE,
				  IB_WC_SUCCESS, -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_poll(e, 0, &wc, 1), 0);
	KUNIT_EXPECT_EQ(test, kiw_dp_cmp(b, b->iova, data, 8 * n), -1);
	KUNIT_EXPECT_EQ(test, kiw_qp_state(e->qp[1]), KIW_QP_RTS);
}

/* ORD 2: the third and fourth Read wait until answers come back. */
static void kiw_eng_ord_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, false, false, 2);
	struct kiw_dp_region *a, *b;
	struct ib_sge sge[4];
	int i;

	a = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 4096,
			  ACC_ALL, 0);
	b = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 4096,
			  ACC_ALL, 0);
	for (i = 0; i < 4; i++) {
		sge[i] = (struct ib_sge){ a->iova + i * 1000, 1000, a->stag };
		kiw_eng_post(test, e->qp[0], i, IB_WR_RDMA_READ, &sge[i], 1,
			     b->stag, b->iova + i * 1000);
	}
	KUNIT_EXPECT_EQ(test, kiw_dp_pump(test, e, 0, 1448), 2);
	KUNIT_EXPECT_EQ(test, kiw_rdq_used(&e->qp[0]->tx.orq_q), 2);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(e->qp[0]->tx.orq_wait));
	KUNIT_EXPECT_EQ(test, kiw_dp_pump(test, e, 1, 1448), 2);
	KUNIT_EXPECT_EQ(test, kiw_dp_pump(test, e, 0, 1448), 2);
	KUNIT_EXPECT_EQ(test, kiw_dp_pump(test, e, 1, 1448), 2);
	for (i = 0; i < 4; i++)
		kiw_eng_expect_wc(test, e, 0, i, IB_WC_RDMA_READ,
				  IB_WC_SUCCESS, 1000);
}

/* The Terminate side @side sent, as the peer received it in e->wire. */
static u32 kiw_eng_term_ctrl(struct kiw_dp_env *e, const u8 **ddp_hdr)
{
	/* Markers off: ULPDU_Length, DDP header (QN 2), Terminate header. */
	const u8 *h = e->wire + KIW_MPA_ULPDU_LEN_SIZE;

	*ddp_hdr = h + sizeof(struct kiw_ddp_untagged_hdr) + 6;
	return get_unaligned_be32(h + sizeof(struct kiw_ddp_untagged_hdr));
}

/* A peer asks for more Reads than our IRD: 2/0x02, no buffer. */
static void kiw_eng_ird_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, true, false, 2);
	struct kiw_dp_region *a, *b;
	struct ib_sge sge;
	const u8 *dh;
	struct ib_wc wc;
	u32 ctrl;
	int i;

	a = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 4096,
			  ACC_ALL, 0);
	b = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 4096,
			  ACC_ALL, 0);
	e->qp[0]->tx.orq_q.max = 3;	/* a peer that ignores our IRD */
	for (i = 0; i < 3; i++) {
		sge = (struct ib_sge){ a->iova + i * 100, 100, a->stag };
		kiw_eng_post(test, e->qp[0], i, IB_WR_RDMA_READ, &sge, 1,
			     b->stag, b->iova);
	}
	kiw_dp_pump(test, e, 0, 1448);
	KUNIT_ASSERT_EQ(test, kiw_qp_state(e->qp[1]), KIW_QP_TERMINATE);
	KUNIT_EXPECT_EQ(test, e->last_event[1], IB_EVENT_QP_REQ_ERR);
	KUNIT_ASSERT_GT(test, kiw_dp_pump_term(test, e, 1), 0);
	ctrl = kiw_eng_term_ctrl(e, &dh);
	KUNIT_EXPECT_EQ(test, ctrl & ~KIW_TERM_CTRL_RSVD,
			(u32)kiw_term_ctrl(KIW_TERM(KIW_TERM_LAYER_DDP,
					   KIW_DDP_ETYPE_UNTAGGED,
					   KIW_DDP_ECODE_UT_INVALID_MSN_NOBUF)) |
			KIW_TERM_CTRL_M | KIW_TERM_CTRL_D);
	/* The offending header: untagged, QN 1, MSN 3. */
	KUNIT_EXPECT_EQ(test, dh[0], 0x41);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(dh + 6), 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(dh + 10), 3);
	/* The requester: the oldest Read fails, the rest flush. */
	KUNIT_EXPECT_EQ(test, kiw_qp_state(e->qp[0]), KIW_QP_ERROR);
	kiw_eng_expect_wc(test, e, 0, 0, IB_WC_RDMA_READ,
			  IB_WC_REM_INV_REQ_ERR, -1);
	kiw_eng_expect_wc(test, e, 0, 1, IB_WC_RDMA_READ, IB_WC_WR_FLUSH_ERR,
			  -1);
	kiw_eng_expect_wc(test, e, 0, 2, IB_WC_RDMA_READ, IB_WC_WR_FLUSH_ERR,
			  -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_poll(e, 0, &wc, 1), 0);
}

/*
 * IRD 1, two Reads back to back: the response to the first reaches the
 * requester, which sends the second request, and that request reaches
 * the responder while its batch with the response is still "in
 * sendmsg()" (veth delivers inside it). The IRD slot must be free by
 * then: the second Read is answered, nothing terminates.
 */
static void kiw_eng_ird_reuse_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, true, false, 1);
	u8 *data = kiw_eng_pattern(test, 200, 21);
	struct kiw_dp_region *sink, *src;
	struct ib_sge sge;
	unsigned int len, n;
	int i;

	sink = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 4096,
			     ACC_ALL, 0);
	src = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 4096,
			    ACC_ALL, 0);
	kiw_eng_fill(src, src->iova, 200, 21);
	for (i = 0; i < 2; i++) {
		sge = (struct ib_sge){ sink->iova + i * 1000, 100, sink->stag };
		kiw_eng_post(test, e->qp[0], i, IB_WR_RDMA_READ, &sge, 1,
			     src->stag, src->iova + i * 100);
	}
	/* ORD 1: one Read Request goes, the other waits. */
	KUNIT_ASSERT_EQ(test, kiw_dp_pump(test, e, 0, 1448), 1);
	len = kiw_dp_step_held(test, e, 1, 1448, &n);
	KUNIT_ASSERT_EQ(test, n, 1U);
	KUNIT_EXPECT_EQ(test, kiw_rdq_used(&e->qp[1]->tx.irq_q), 0);
	kiw_dp_feed(test, e, 0, e->wire, len);
	KUNIT_ASSERT_EQ(test, kiw_dp_pump(test, e, 0, 1448), 1);
	KUNIT_EXPECT_EQ(test, kiw_qp_state(e->qp[1]), KIW_QP_RTS);
	kiw_tx_batch_done(e->qp[1]);
	KUNIT_EXPECT_EQ(test, kiw_dp_pump(test, e, 1, 1448), 1);
	kiw_eng_expect_wc(test, e, 0, 0, IB_WC_RDMA_READ, IB_WC_SUCCESS, 100);
	kiw_eng_expect_wc(test, e, 0, 1, IB_WC_RDMA_READ, IB_WC_SUCCESS, 100);
	KUNIT_EXPECT_EQ(test, kiw_dp_cmp(sink, sink->iova, data, 100), -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_cmp(sink, sink->iova + 1000, data + 100,
					 100), -1);
	KUNIT_EXPECT_EQ(test, kiw_qp_state(e->qp[0]), KIW_QP_RTS);
	KUNIT_EXPECT_EQ(test, kiw_qp_state(e->qp[1]), KIW_QP_RTS);
}

struct kiw_eng_bad {
	const char *name;
	int what;		/* which STag/TO the Write uses */
	kiw_term_t term;
	enum ib_event_type event;
};

enum { BAD_STAG, BAD_PD, BAD_RO, BAD_BOUNDS, BAD_WRAP, BAD_BELOW };

#define DDP_T(c) KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_TAGGED, c)

static const struct kiw_eng_bad kiw_eng_bads[] = {
	{ "invalid_stag", BAD_STAG, DDP_T(KIW_DDP_ECODE_T_INVALID_STAG),
	  IB_EVENT_QP_ACCESS_ERR },
	{ "other_pd", BAD_PD, DDP_T(KIW_DDP_ECODE_T_STAG_NOT_ASSOC),
	  IB_EVENT_QP_ACCESS_ERR },
	/* Covers: DDP-SEC-10 */
	{ "read_only", BAD_RO, KIW_TERM(KIW_TERM_LAYER_RDMAP,
					KIW_RDMAP_ETYPE_REMOTE_PROT,
					KIW_RDMAP_ECODE_ACCESS_RIGHTS),
	  IB_EVENT_QP_ACCESS_ERR },
	{ "bounds", BAD_BOUNDS, DDP_T(KIW_DDP_ECODE_T_BASE_BOUNDS),
	  IB_EVENT_QP_ACCESS_ERR },
	{ "to_wrap", BAD_WRAP, DDP_T(KIW_DDP_ECODE_T_TO_WRAP),
	  IB_EVENT_QP_ACCESS_ERR },
	{ "below_base", BAD_BELOW, DDP_T(KIW_DDP_ECODE_T_BASE_BOUNDS),
	  IB_EVENT_QP_ACCESS_ERR },
};

static void kiw_eng_bad_desc(const struct kiw_eng_bad *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_eng_bad, kiw_eng_bads, kiw_eng_bad_desc);

/*
 * A Write the peer may not do: the Terminate says exactly why and carries
 * the offending DDP header, not one octet is placed, the QP reports the
 * event and stops; the writer sees the Terminate and goes to ERROR. The
 * writer's WR completed once handed to the LLP, though the sink refused
 * the Write.
 * Covers: DDP-ERR-14, DDP-DLV-1
 */
static void kiw_eng_bad_write_test(struct kunit *test)
{
	const struct kiw_eng_bad *c = test->param_value;
	struct kiw_dp_env *e = kiw_dp_env(test, true, false, 4);
	struct kiw_dp_region *src, *dst, *ro, *other, *hit;
	u8 *data = kiw_eng_pattern(test, 3000, 21);
	struct ib_sge sge;
	u32 stag, ctrl, written = 0;
	const u8 *dh;
	u64 to;

	src = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 3000,
			    ACC_ALL, 0);
	kiw_eng_fill(src, src->iova, 3000, 21);
	dst = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 100, 2000,
			    ACC_ALL, 0);
	ro = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 4000,
			   IB_ACCESS_REMOTE_READ, 0);
	other = kiw_dp_region(test, e->kdev, &e->other_pd, KIW_MR_USER, 0,
			      4000, ACC_ALL, 0);
	stag = dst->stag;
	to = dst->iova;
	hit = dst;
	switch (c->what) {
	case BAD_STAG:
		stag = kiw_stag(kiw_stag_index(dst->stag), 0x43);
		break;
	case BAD_PD:
		stag = other->stag;
		to = other->iova;
		hit = other;
		break;
	case BAD_RO:
		stag = ro->stag;
		to = ro->iova;
		hit = ro;
		break;
	case BAD_BOUNDS:
		written = 1428;		/* the second segment overruns */
		break;
	case BAD_WRAP:
		to = ~0ull - 100;
		break;
	case BAD_BELOW:
		to = dst->iova - 1;
		break;
	}
	sge = (struct ib_sge){ src->iova, 3000, src->stag };
	kiw_eng_post(test, e->qp[0], 5, IB_WR_RDMA_WRITE, &sge, 1, stag, to);
	kiw_dp_pump(test, e, 0, 1448);

	KUNIT_ASSERT_EQ(test, kiw_qp_state(e->qp[1]), KIW_QP_TERMINATE);
	KUNIT_EXPECT_EQ(test, e->last_event[1], c->event);
	/* Not one octet beyond the segments that passed (DDP-ERR-12). */
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(hit, hit->iova, written), -1);
	if (written)
		KUNIT_EXPECT_EQ(test, kiw_dp_cmp(hit, hit->iova, data, written),
				-1);
	KUNIT_ASSERT_GT(test, kiw_dp_pump_term(test, e, 1), 0);
	ctrl = kiw_eng_term_ctrl(e, &dh);
	KUNIT_EXPECT_EQ(test, ctrl & ~KIW_TERM_CTRL_RSVD,
			kiw_term_ctrl(c->term) | KIW_TERM_CTRL_M |
			KIW_TERM_CTRL_D);
	KUNIT_EXPECT_EQ(test, dh[0], 0x81);	/* tagged, not last */
	KUNIT_EXPECT_EQ(test, dh[1], 0x40);	/* RDMA Write */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(dh + 2), stag);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(dh + 6), to + written);
	/* The Write completed before the Terminate came (RFC 5041 5.4). */
	kiw_eng_expect_wc(test, e, 0, 5, IB_WC_RDMA_WRITE, IB_WC_SUCCESS, -1);
	KUNIT_EXPECT_EQ(test, kiw_qp_state(e->qp[0]), KIW_QP_ERROR);
	KUNIT_EXPECT_EQ(test, e->last_event[0], IB_EVENT_QP_ACCESS_ERR);
}

/*
 * A Send whose SGEs the sender may not read: kiw_tx_check_first() checks
 * a message of several SGEs or FPDUs before it starts, and leaves a
 * one-SGE, one-FPDU message to the check that gathers it; either way not
 * one FPDU of it goes out, the WR fails with a local protection error and
 * the QP terminates.
 */
struct kiw_eng_lbad {
	const char *name;
	u32 len;	/* the message */
	u32 have;	/* what the region holds from the first SGE on */
	bool bad_key;	/* the last SGE's key is wrong */
	int nsge;
};

static const struct kiw_eng_lbad kiw_eng_lbads[] = {
	{ "one_fpdu_key", 8, 8, true, 1 },
	{ "one_fpdu_bounds", 8, 7, false, 1 },
	{ "full_fpdu_bounds", 1424, 1423, false, 1 },
	{ "two_fpdus_bounds", 1425, 1424, false, 1 },
	{ "big_bounds", 5000, 4999, false, 1 },
	{ "second_sge_key", 8, 8, true, 2 },
	{ "second_sge_bounds", 3000, 2999, false, 2 },
};

static void kiw_eng_lbad_desc(const struct kiw_eng_lbad *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_eng_lbad, kiw_eng_lbads, kiw_eng_lbad_desc);

static void kiw_eng_bad_sge_test(struct kunit *test)
{
	const struct kiw_eng_lbad *c = test->param_value;
	struct kiw_dp_env *e = kiw_dp_env(test, true, false, 4);
	struct kiw_dp_region *src, *dst;
	struct ib_sge sge[2], rsge;
	struct ib_wc wc;
	int n;

	src = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0x10,
			    c->have, ACC_ALL, 0);
	kiw_eng_fill(src, src->iova, c->have, 9);
	dst = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0,
			    c->len + 100, ACC_ALL, 0);
	rsge = (struct ib_sge){ dst->iova, c->len + 100, dst->stag };
	kiw_eng_recv(test, e->qp[1], 78, &rsge, 1);
	n = kiw_eng_sges(src, src->iova, c->len, sge, c->nsge);
	if (c->bad_key)
		sge[n - 1].lkey = kiw_stag(kiw_stag_index(src->stag),
					   (src->stag & 0xff) ^ 0x5a);
	kiw_eng_post(test, e->qp[0], 57, IB_WR_SEND, sge, n, 0, 0);

	KUNIT_EXPECT_EQ(test, kiw_dp_pump(test, e, 0, 1448), 0);
	kiw_eng_expect_wc(test, e, 0, 57, IB_WC_SEND, IB_WC_LOC_PROT_ERR, -1);
	KUNIT_EXPECT_EQ(test, kiw_qp_state(e->qp[0]), KIW_QP_TERMINATE);
	/* The peer saw nothing but the Terminate. */
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(dst, dst->iova, 0), -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_poll(e, 1, &wc, 1), 0);
	KUNIT_EXPECT_EQ(test, e->events[1], 0);
	KUNIT_ASSERT_GT(test, kiw_dp_pump_term(test, e, 0), 0);
	KUNIT_EXPECT_EQ(test, kiw_qp_state(e->qp[0]), KIW_QP_ERROR);
	KUNIT_EXPECT_NE(test, kiw_qp_state(e->qp[1]), KIW_QP_RTS);
}

/*
 * A corrupted octet in the payload: the FPDU is never good (LLP, CRC),
 * the receive WR it was filling fails, nothing is delivered.
 */
static void kiw_eng_crc_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, true, false, 4);
	struct kiw_dp_region *src, *dst;
	struct ib_sge sge, rsge;
	unsigned int len, n;
	struct ib_wc wc;

	src = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 500,
			    ACC_ALL, 0);
	dst = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 500,
			    ACC_ALL, 0);
	rsge = (struct ib_sge){ dst->iova, 500, dst->stag };
	kiw_eng_recv(test, e->qp[1], 8, &rsge, 1);
	sge = (struct ib_sge){ src->iova, 500, src->stag };
	kiw_eng_post(test, e->qp[0], 9, IB_WR_SEND, &sge, 1, 0, 0);
	len = kiw_dp_step(test, e, 0, 1448, &n);
	KUNIT_ASSERT_EQ(test, n, 1);
	e->wire[100] ^= 0x10;
	kiw_dp_feed(test, e, 1, e->wire, len);
	KUNIT_ASSERT_EQ(test, kiw_qp_state(e->qp[1]), KIW_QP_TERMINATE);
	KUNIT_EXPECT_EQ(test, e->qp[1]->term,
			KIW_TERM(KIW_TERM_LAYER_LLP, KIW_LLP_ETYPE_MPA,
				 KIW_LLP_ECODE_CRC));
	KUNIT_ASSERT_EQ(test, kiw_dp_poll(e, 1, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 8);
	KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
}

/*
 * Zero-length Write and Read name no memory: STag and TO are never
 * checked (RFC 5041 5.2), whatever they hold; a zero-length Send still
 * takes a receive WR. Each message is one FPDU.
 * Covers: DDP-SR-4, DDP-SR-6
 */
static void kiw_eng_zero_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, true, true, 4);
	struct kiw_dp_region *b;
	struct ib_sge rsge;

	b = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 64, ACC_ALL,
			  0);
	rsge = (struct ib_sge){ b->iova, 64, b->stag };
	kiw_eng_recv(test, e->qp[1], 40, &rsge, 1);
	kiw_eng_post(test, e->qp[0], 41, IB_WR_RDMA_WRITE, NULL, 0, 0,
		     ~0ull - 3);
	kiw_eng_post(test, e->qp[0], 42, IB_WR_RDMA_READ, NULL, 0, 0xdead,
		     ~0ull);
	kiw_eng_post(test, e->qp[0], 43, IB_WR_SEND, NULL, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, kiw_dp_pump(test, e, 0, 1448), 3);
	KUNIT_EXPECT_EQ(test, kiw_dp_pump(test, e, 1, 1448), 1);
	kiw_eng_expect_wc(test, e, 1, 40, IB_WC_RECV, IB_WC_SUCCESS, 0);
	kiw_eng_expect_wc(test, e, 0, 41, IB_WC_RDMA_WRITE, IB_WC_SUCCESS, -1);
	kiw_eng_expect_wc(test, e, 0, 42, IB_WC_RDMA_READ, IB_WC_SUCCESS, 0);
	kiw_eng_expect_wc(test, e, 0, 43, IB_WC_SEND, IB_WC_SUCCESS, -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(b, b->iova, 0), -1);
	KUNIT_EXPECT_EQ(test, kiw_qp_state(e->qp[1]), KIW_QP_RTS);
}

/* MSN 0xffffffff is followed by 0 (RFC 5041 4.3), on both sides. */
static void kiw_eng_msn_wrap_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, true, false, 4);
	struct kiw_dp_region *a, *b;
	struct ib_sge sge, rsge;
	int i;

	a = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 64, ACC_ALL,
			  0);
	b = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 64, ACC_ALL,
			  0);
	e->qp[0]->tx.msn[KIW_DDP_QN_SEND] = 0xffffffff;
	e->qp[1]->rx.ddp.q[KIW_DDP_QN_SEND].msn = 0xffffffff;
	for (i = 0; i < 3; i++) {
		rsge = (struct ib_sge){ b->iova + i * 10, 10, b->stag };
		kiw_eng_recv(test, e->qp[1], i, &rsge, 1);
		sge = (struct ib_sge){ a->iova, 10, a->stag };
		kiw_eng_post(test, e->qp[0], i, IB_WR_SEND, &sge, 1, 0, 0);
	}
	KUNIT_EXPECT_EQ(test, kiw_dp_pump(test, e, 0, 1448), 3);
	for (i = 0; i < 3; i++)
		kiw_eng_expect_wc(test, e, 1, i, IB_WC_RECV, IB_WC_SUCCESS,
				  10);
	KUNIT_EXPECT_EQ(test, e->qp[1]->rx.ddp.q[KIW_DDP_QN_SEND].msn, 2);
}

/*
 * Send with Invalidate: the receiver's fast-registration region is
 * invalid afterwards and the completion says which; a region the peer
 * may not invalidate terminates (0x1/0x09) and fails the receive WR.
 * The STag travels in the untagged RsvdULP and reaches the consumer.
 * Covers: DDP-UT-2, DDP-DLV-4
 */
static void kiw_eng_send_inv_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, true, false, 4);
	struct kiw_dp_region *a, *b, *fr, *user;
	struct ib_sge sge, rsge;
	struct ib_wc wc = {};

	a = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 64, ACC_ALL,
			  0);
	b = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 64, ACC_ALL,
			  0);
	fr = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_FAST, 0, 4096,
			   ACC_ALL, 12);
	user = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 64,
			     ACC_ALL, 0);
	rsge = (struct ib_sge){ b->iova, 32, b->stag };
	kiw_eng_recv(test, e->qp[1], 1, &rsge, 1);
	kiw_eng_recv(test, e->qp[1], 2, &rsge, 1);
	sge = (struct ib_sge){ a->iova, 32, a->stag };
	kiw_eng_post(test, e->qp[0], 1, IB_WR_SEND_WITH_INV, &sge, 1,
		     fr->stag, 0);
	kiw_eng_post(test, e->qp[0], 2, IB_WR_SEND_WITH_INV, &sge, 1,
		     user->stag, 0);
	kiw_dp_pump(test, e, 0, 1448);
	KUNIT_ASSERT_EQ(test, kiw_dp_poll(e, 1, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, fr->stag);
	KUNIT_EXPECT_FALSE(test, fr->mr->valid);
	/* A region registered by reg_user_mr is never the peer's to revoke. */
	KUNIT_ASSERT_EQ(test, kiw_dp_poll(e, 1, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_REM_INV_REQ_ERR);
	KUNIT_EXPECT_EQ(test, e->qp[1]->term,
			KIW_TERM(KIW_TERM_LAYER_RDMAP,
				 KIW_RDMAP_ETYPE_REMOTE_PROT,
				 KIW_RDMAP_ECODE_CANNOT_INVALIDATE));
	KUNIT_EXPECT_TRUE(test, user->mr->valid);
}

/*
 * A source in 512-octet pages and a 64 KiB MSS: one FPDU would need more
 * page vectors than a batch has, so segments are cut shorter; the data
 * still arrives whole and in order.
 */
static void kiw_eng_trim_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, true, true, 4);
	const u32 len = 100000;
	u8 *data = kiw_eng_pattern(test, len, 17);
	struct kiw_dp_region *a, *b;
	struct ib_sge sge;

	a = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_FAST, 301, len,
			  ACC_ALL, 9);
	b = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, len, ACC_ALL,
			  0);
	kiw_eng_fill(a, a->iova, len, 17);
	sge = (struct ib_sge){ a->iova, len, a->stag };
	kiw_eng_post(test, e->qp[0], 3, IB_WR_RDMA_WRITE, &sge, 1, b->stag,
		     b->iova);
	/* Untrimmed, two FPDUs of 64754 octets would do. */
	KUNIT_EXPECT_GE(test, kiw_dp_pump(test, e, 0, 65483),
			DIV_ROUND_UP(len, KIW_TXB_SRC * 512));
	KUNIT_EXPECT_LE(test, e->max_wire, KIW_TXB_SRC * 512 + 256);
	KUNIT_EXPECT_GT(test, e->max_wire, 8192);
	kiw_eng_expect_wc(test, e, 0, 3, IB_WC_RDMA_WRITE, IB_WC_SUCCESS, -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_cmp(b, b->iova, data, len), -1);
}

/*
 * Local operations run in SQ order with the rest: LOCAL_INV completes in
 * its place, and a Read with local invalidate leaves its sink invalid.
 */
static void kiw_eng_local_inv_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, true, false, 4);
	struct kiw_dp_region *sink, *fr, *src;
	const struct ib_send_wr *bad;
	struct ib_send_wr inv = {
		.wr_id = 2,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_sge sge;

	sink = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_FAST, 0, 4096,
			     ACC_ALL, 12);
	fr = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_FAST, 0, 4096,
			   ACC_ALL, 12);
	src = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 4096,
			    ACC_ALL, 0);
	sge = (struct ib_sge){ sink->iova, 100, sink->stag };
	kiw_eng_post(test, e->qp[0], 1, IB_WR_RDMA_READ_WITH_INV, &sge, 1,
		     src->stag, src->iova);
	inv.ex.invalidate_rkey = fr->stag;
	KUNIT_ASSERT_EQ(test, kiw_post_send(&e->qp[0]->base, &inv, &bad), 0);
	kiw_dp_pump(test, e, 0, 1448);
	KUNIT_EXPECT_FALSE(test, fr->mr->valid);	/* ran at once */
	KUNIT_EXPECT_TRUE(test, sink->mr->valid);	/* not yet */
	kiw_dp_pump(test, e, 1, 1448);
	kiw_eng_expect_wc(test, e, 0, 1, IB_WC_RDMA_READ, IB_WC_SUCCESS, 100);
	kiw_eng_expect_wc(test, e, 0, 2, IB_WC_LOCAL_INV, IB_WC_SUCCESS, -1);
	KUNIT_EXPECT_FALSE(test, sink->mr->valid);
}

/*
 * The spill buffer a connection starts with holds its largest FPDU for
 * every EMSS up to the peer's MSS (the TX clamps its EMSS there), with
 * and without markers, and never less than a Terminate needs; ORQ and
 * IRQ are sized to the negotiated ORD and IRD.
 */
static void kiw_eng_sizes_test(struct kunit *test)
{
	static const u32 maxes[] = { 1, 128, 536, 1448, 1460, 8948, 65483,
				     65535, 70000 };
	unsigned int i, mss, ulpdu, wire, worst;
	bool m;

	for (m = false; ; m = true) {
		/* the largest FPDU of any EMSS up to @mss, as kiw_tx_mss() */
		worst = 0;
		for (mss = 1, i = 0; mss <= 70000; mss++) {
			ulpdu = kiw_mpa_mulpdu(mss, m) +
				KIW_MPA_FPDU_OVERHEAD + 3;
			wire = ulpdu + (m ? KIW_MPA_MARKER_SIZE *
				(DIV_ROUND_UP(ulpdu, KIW_MPA_MARKER_INTERVAL -
					      KIW_MPA_MARKER_SIZE) + 1) : 0);
			worst = max(worst, wire);
			if (mss != maxes[i])
				continue;
			KUNIT_EXPECT_LE_MSG(test, worst,
					    kiw_tx_spill_size(mss, m),
					    "mss %u markers %d", mss, m);
			i++;
		}
		KUNIT_EXPECT_EQ(test, i, ARRAY_SIZE(maxes));
		KUNIT_EXPECT_LE(test, worst, kiw_tx_spill_size(U32_MAX, m));
		KUNIT_EXPECT_LE(test, kiw_tx_spill_size(U32_MAX, m),
				KIW_TXB_BYTES);
		KUNIT_EXPECT_GE(test, kiw_tx_spill_size(1, m),
				KIW_TXB_SPILL_MIN);
		if (m)
			break;
	}
	/* A 1460-octet MSS: a 2 KiB buffer, not 64 KiB. */
	KUNIT_EXPECT_LE(test, kiw_tx_spill_size(1460, false), 2048U);
	KUNIT_EXPECT_EQ(test, kiw_tx_rdq_size(0), 4U);
	KUNIT_EXPECT_EQ(test, kiw_tx_rdq_size(1), 4U);
	KUNIT_EXPECT_EQ(test, kiw_tx_rdq_size(5), 8U);
	KUNIT_EXPECT_EQ(test, kiw_tx_rdq_size(KIW_MAX_ORD), (u32)KIW_MAX_ORD);
}

/* A connection's ORQ and IRQ have the entries its ORD and IRD need. */
static void kiw_eng_rdq_alloc_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, false, false, 2);
	struct kiw_tx *tx = &e->qp[0]->tx;

	KUNIT_EXPECT_EQ(test, tx->orq_num, 4U);
	KUNIT_EXPECT_EQ(test, tx->irq_num, 4U);
	KUNIT_EXPECT_EQ(test, tx->orq_q.num, 4U);
	KUNIT_EXPECT_EQ(test, tx->orq_q.max, 2U);
	KUNIT_EXPECT_EQ(test, tx->irq_q.max, 2U);
	e = kiw_dp_env(test, false, false, KIW_MAX_ORD);
	tx = &e->qp[1]->tx;
	KUNIT_EXPECT_EQ(test, tx->orq_num, (u32)KIW_MAX_ORD);
	KUNIT_EXPECT_EQ(test, tx->irq_q.num, (u32)KIW_MAX_IRD);
	KUNIT_EXPECT_EQ(test, tx->irq_q.max, (u32)KIW_MAX_IRD);
}

/*
 * kiw_txb_reserve(): the spill buffer only grows, never while it holds
 * octets, and a batch never takes more than it holds (its first FPDU
 * always).
 */
static void kiw_eng_reserve_test(struct kunit *test)
{
	struct kiw_txb *b = kiw_txb_alloc(1, 0);

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, b->spill_cap, KIW_TXB_SPILL_MIN);
	KUNIT_EXPECT_EQ(test, kiw_txb_reserve(b, 100, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, b->spill_cap, KIW_TXB_SPILL_MIN);
	kiw_txb_begin(b, 1 << 20, 0);
	KUNIT_EXPECT_EQ(test, b->limit, KIW_TXB_SPILL_MIN);
	KUNIT_EXPECT_TRUE(test, kiw_txb_room(b, 4000));	/* the first */
	b->spill_len = 10;
	KUNIT_EXPECT_EQ(test, kiw_txb_reserve(b, 5000, GFP_KERNEL), -EBUSY);
	KUNIT_EXPECT_EQ(test, b->spill_cap, KIW_TXB_SPILL_MIN);
	b->spill_len = 0;
	KUNIT_EXPECT_EQ(test, kiw_txb_reserve(b, 5000, GFP_KERNEL), 0);
	KUNIT_EXPECT_GE(test, b->spill_cap, 5000U);
	KUNIT_EXPECT_EQ(test, kiw_txb_reserve(b, 1 << 20, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, b->spill_cap, KIW_TXB_BYTES);
	kiw_txb_free(b);
}

/*
 * A batch has room only for the framing its connection negotiated: no
 * vectors with CRC (its FPDUs are staged), marker room only with
 * markers; the batch fits a 4 KiB allocation in the shapes without
 * markers (16 KiB before), its FPDU array a 2 KiB one without CRC (4 KiB
 * while each FPDU pointed at its marker room) and one slot with CRC (its
 * FPDUs are staged one after the other). A reused QP gets a batch of its
 * new shape.
 */
static void kiw_eng_batch_shape_test(struct kunit *test)
{
	static const unsigned int shapes[] = {
		0, KIW_TXB_ZCOPY, KIW_TXB_MARKERS,
		KIW_TXB_ZCOPY | KIW_TXB_MARKERS,
	};
	struct kiw_dp_env *e = kiw_dp_env(test, true, false, 4);
	struct kiw_qp *qp = e->qp[0];
	struct kiw_llp_params p = { .initiator = true, .mpa_rev = 1,
				    .ird = 4, .ord = 4 };
	struct kiw_txb *b;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(shapes); i++) {
		b = kiw_txb_alloc(1, shapes[i]);
		KUNIT_ASSERT_NOT_NULL(test, b);
		KUNIT_EXPECT_EQ(test, b->flags, shapes[i]);
		KUNIT_EXPECT_EQ(test, !!b->vec_max,
				!!(shapes[i] & KIW_TXB_ZCOPY));
		KUNIT_EXPECT_EQ(test, !!b->mk, !!(shapes[i] & KIW_TXB_MARKERS));
		KUNIT_EXPECT_EQ(test, kiw_txb_mk_max(b),
				shapes[i] & KIW_TXB_MARKERS ?
				KIW_FPDU_MAX_MARKERS : 0);
		if (!(shapes[i] & KIW_TXB_MARKERS))
			KUNIT_EXPECT_LE(test, struct_size(b, vec, b->vec_max),
					(size_t)4096);
		KUNIT_EXPECT_LE(test, kmalloc_size_roundup(KIW_TXB_FPDUS *
						       sizeof(*b->fpdu)),
				(size_t)2048);
		/* With CRC one FPDU slot, all FPDUs of the batch reuse it. */
		KUNIT_EXPECT_EQ(test, kiw_txb_nr_slots(shapes[i]),
				shapes[i] & KIW_TXB_ZCOPY ? KIW_TXB_FPDUS : 1U);
		KUNIT_EXPECT_LE(test, ksize(b->fpdu),
				kmalloc_size_roundup(kiw_txb_nr_slots(shapes[i]) *
						     sizeof(*b->fpdu)));
		KUNIT_EXPECT_PTR_EQ(test, kiw_txb_slot(b, KIW_TXB_FPDUS - 1),
				    shapes[i] & KIW_TXB_ZCOPY ?
				    b->fpdu + KIW_TXB_FPDUS - 1 : b->fpdu);
		/* One FPDU in: a second fits while its worst case does. */
		b->nr_fpdu = 1;
		b->limit = KIW_TXB_BYTES;
		b->nr_vec = b->vec_max - b->fpdu_vecs;
		KUNIT_EXPECT_TRUE(test, kiw_txb_room(b, 100));
		if (b->vec_max) {
			b->nr_vec++;
			KUNIT_EXPECT_FALSE(test, kiw_txb_room(b, 100));
		}
		b->nr_fpdu = 0;
		b->nr_vec = 0;
		kiw_txb_free(b);
	}

	KUNIT_EXPECT_EQ(test, qp->tx.b->flags, 0U);	/* CRC, no markers */
	kiw_tx_detach(qp);
	p.tx_markers = true;
	KUNIT_ASSERT_EQ(test, kiw_tx_attach(qp, &p), 0);
	KUNIT_EXPECT_EQ(test, qp->tx.b->flags, KIW_TXB_ZCOPY | KIW_TXB_MARKERS);
	kiw_tx_detach(qp);
	p.crc = true;
	p.tx_markers = false;
	KUNIT_ASSERT_EQ(test, kiw_tx_attach(qp, &p), 0);
	KUNIT_EXPECT_EQ(test, qp->tx.b->flags, 0U);
}

/*
 * Under load the spill buffer grows: a 20000-octet Send with CRC (every
 * FPDU staged) from a QP whose 1 KiB buffer holds one FPDU goes out in
 * batches of 1, 2, 4, 8 and then 16 KiB (the buffer doubles each time a
 * batch stops at its size with the message not done); the data
 * arrives intact and no FPDU is larger than the peer's MSS allows.
 */
static void kiw_eng_spill_grow_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, true, false, 4);
	struct kiw_tx *tx = &e->qp[0]->tx;
	u32 len = 20000;
	u8 *data = kiw_eng_pattern(test, len, 5);
	struct kiw_dp_region *src, *dst;
	struct ib_sge sge, rsge;
	unsigned int n, w, first;

	/* As kiw_tx_attach() sizes it for a peer's MSS of 1000. */
	tx->mss_max = 1000;
	kvfree(tx->b->spill);
	tx->b->spill = NULL;
	KUNIT_ASSERT_EQ(test, kiw_txb_reserve(tx->b,
					      kiw_tx_spill_size(1000, false),
					      GFP_KERNEL), 0);
	KUNIT_ASSERT_LT(test, tx->b->spill_cap, 2100U);
	src = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, len,
			    ACC_ALL, 0);
	dst = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, len,
			    ACC_ALL, 0);
	kiw_eng_fill(src, src->iova, len, 5);
	rsge = (struct ib_sge){ dst->iova, len, dst->stag };
	kiw_eng_recv(test, e->qp[1], 1, &rsge, 1);
	sge = (struct ib_sge){ src->iova, len, src->stag };
	kiw_eng_post(test, e->qp[0], 2, IB_WR_SEND, &sge, 1, 0, 0);

	w = kiw_dp_step(test, e, 0, 1448, &n);	/* EMSS clamped to 1000 */
	KUNIT_ASSERT_GT(test, w, 0U);
	KUNIT_EXPECT_LE(test, n, 2U);
	KUNIT_EXPECT_LE(test, w, tx->b->spill_cap);
	KUNIT_EXPECT_TRUE(test, tx->b->grow);
	first = tx->b->spill_cap;
	kiw_dp_feed(test, e, 1, e->wire, w);
	w = kiw_dp_step(test, e, 0, 1448, &n);
	KUNIT_EXPECT_EQ(test, tx->b->spill_cap, 2 * first);
	KUNIT_EXPECT_GE(test, n, 2U);
	kiw_dp_feed(test, e, 1, e->wire, w);
	kiw_dp_pump(test, e, 0, 1448);
	/* 1 + 2 + 4 + 8 KiB sent, the rest in 16 KiB batches */
	KUNIT_EXPECT_EQ(test, tx->b->spill_cap, 16 * first);
	KUNIT_EXPECT_LE(test, e->max_wire, kiw_tx_spill_size(1000, false));
	kiw_eng_expect_wc(test, e, 0, 2, IB_WC_SEND, IB_WC_SUCCESS, -1);
	kiw_eng_expect_wc(test, e, 1, 1, IB_WC_RECV, IB_WC_SUCCESS, len);
	KUNIT_EXPECT_EQ(test, kiw_dp_cmp(dst, dst->iova, data, len), -1);
}

/*
 * At attach the TX runs only with something to send: not for an empty
 * SQ, for a WQE posted before the socket was there, never while the
 * responder holds its FPDUs.
 */
static void kiw_eng_wanted_test(struct kunit *test)
{
	struct kiw_dp_env *e = kiw_dp_env(test, false, false, 4);
	struct kiw_dp_region *src;
	struct ib_sge sge;

	KUNIT_EXPECT_FALSE(test, kiw_tx_wanted(e->qp[0]));
	KUNIT_EXPECT_FALSE(test, kiw_tx_wanted(e->qp[1]));
	src = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0, 64,
			    ACC_ALL, 0);
	sge = (struct ib_sge){ src->iova, 64, src->stag };
	kiw_eng_post(test, e->qp[0], 3, IB_WR_RDMA_WRITE, &sge, 1,
		     src->stag, src->iova);
	KUNIT_EXPECT_TRUE(test, kiw_tx_wanted(e->qp[0]));
	WRITE_ONCE(e->qp[0]->tx.hold, true);
	KUNIT_EXPECT_FALSE(test, kiw_tx_wanted(e->qp[0]));
	WRITE_ONCE(e->qp[0]->tx.hold, false);
	e->qp[1]->tx.rtr = KIW_RTR_WRITE;
	KUNIT_EXPECT_TRUE(test, kiw_tx_wanted(e->qp[1]));
	e->qp[1]->tx.rtr = KIW_RTR_NONE;
	kiw_dp_pump(test, e, 0, 1448);
	kiw_eng_expect_wc(test, e, 0, 3, IB_WC_RDMA_WRITE, IB_WC_SUCCESS, -1);
	KUNIT_EXPECT_FALSE(test, kiw_tx_wanted(e->qp[0]));
}

static struct kunit_case kiw_engine_cases[] = {
	KUNIT_CASE_PARAM(kiw_eng_send_test, kiw_eng_gen_params),
	KUNIT_CASE_PARAM(kiw_eng_write_test, kiw_eng_gen_params),
	KUNIT_CASE_PARAM(kiw_eng_read_test, kiw_eng_gen_params),
	KUNIT_CASE(kiw_eng_order_test),
	KUNIT_CASE(kiw_eng_reap_many_test),
	KUNIT_CASE(kiw_eng_ord_test),
	KUNIT_CASE(kiw_eng_ird_test),
	KUNIT_CASE(kiw_eng_ird_reuse_test),
	KUNIT_CASE_PARAM(kiw_eng_bad_write_test, kiw_eng_bad_gen_params),
	KUNIT_CASE_PARAM(kiw_eng_bad_sge_test, kiw_eng_lbad_gen_params),
	KUNIT_CASE(kiw_eng_crc_test),
	KUNIT_CASE(kiw_eng_zero_test),
	KUNIT_CASE(kiw_eng_msn_wrap_test),
	KUNIT_CASE(kiw_eng_send_inv_test),
	KUNIT_CASE(kiw_eng_trim_test),
	KUNIT_CASE(kiw_eng_local_inv_test),
	KUNIT_CASE(kiw_eng_sizes_test),
	KUNIT_CASE(kiw_eng_rdq_alloc_test),
	KUNIT_CASE(kiw_eng_reserve_test),
	KUNIT_CASE(kiw_eng_batch_shape_test),
	KUNIT_CASE(kiw_eng_spill_grow_test),
	KUNIT_CASE(kiw_eng_wanted_test),
	{}
};

static struct kunit_suite kiw_engine_suite = {
	.name = "kiw_engine",
	.test_cases = kiw_engine_cases,
};

kunit_test_suite(kiw_engine_suite);
