// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the receive path, fuzzed. Seeded random and mutated byte streams
 * go through exactly what the socket path runs: kiw_fpdu_rx_feed() with
 * the receive engine's callbacks (kiw_rx.c, kiw_rx_place.c) on a QP whose
 * regions live in a test device's STag table, one skb at a time (linear
 * part, page frags, frag_list), split at random points and fed in pieces
 * as tcp_read_sock() hands them to the actor.
 *
 * What is asserted, besides KASAN finding nothing:
 *   - nothing outside a region's valid range changes (guard octets), and
 *     the regions the peer may not write (read-only, other PD) never do;
 *   - the outcome does not depend on how the stream was split: the same
 *     parser error, Terminate error, QP state, completions and region
 *     contents, whether the stream came in one skb or in many pieces;
 *   - an unmutated stream is accepted whole (no error, every Send
 *     completes), and a corrupted one with CRC on ends in a CRC error.
 *
 * Every stream comes from a fixed seed (prandom), so a failure names the
 * seed that reproduces it. The pure parser is fuzzed the same way with a
 * recording upper layer (kiw_test_util.h).
 */
#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "kiw_dp_test_util.h"
#include "kiw_test_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define FZ_MAX		8192	/* octets of one stream */
#define FZ_MAX_FPDU	16
#define FZ_RECV		4	/* receive WRs posted */
#define FZ_RLEN		256	/* octets each */
#define FZ_MAX_WC	(FZ_RECV + 4)
#define FZ_STREAMS	4	/* streams per parameter */

/*
 * Parameters per case: 12 by default (48 streams through the engine, 192
 * through the parser; ~30 s under KASAN on an idle 2-vCPU guest); more
 * for a longer hunt: modprobe kiw_kunit fuzz_rounds=N (new seeds each).
 */
static unsigned int fuzz_rounds = 12;
module_param(fuzz_rounds, uint, 0444);
MODULE_PARM_DESC(fuzz_rounds, "kiw_fuzz: parameters per case (4 streams each)");

#define ACC_ALL (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		 IB_ACCESS_REMOTE_READ)

static u32 fz_rand(struct rnd_state *rs, u32 n)
{
	return n ? prandom_u32_state(rs) % n : 0;
}

/* The regions of one run; the same STags and addresses in every run. */
struct fz_mem {
	struct kiw_dp_env *e;
	struct kiw_dp_region *r0;	/* remote read/write */
	struct kiw_dp_region *r1;	/* remote read only */
	struct kiw_dp_region *rf;	/* read/write, but another PD */
	struct kiw_dp_region *rq;	/* the receive WRs' buffers */
};

/* A stream, and how it was made. */
struct fz_in {
	u8 *data;
	unsigned int len;
	bool crc, markers;
	bool mutated;		/* not the valid stream any more */
	bool hostile;		/* the valid stream breaks a rule itself */
	bool complete;		/* ends on an FPDU boundary */
	unsigned int sends;	/* Sends in the valid stream */
	unsigned int rreqs;	/* Read Requests in it */
	unsigned int fpdu_at[FZ_MAX_FPDU];	/* ULPDU_Length offsets */
	unsigned int nr_fpdu;
};

/* What a run left behind. */
struct fz_out {
	kiw_term_t err;			/* the parser's */
	kiw_term_t term;		/* the QP's (the Terminate) */
	enum kiw_qp_state state;
	unsigned int consumed;
	int nr_wc;
	struct ib_wc wc[FZ_MAX_WC];
	u32 sum_r0, sum_rq;		/* CRC32c of the valid ranges */
};

/* Give @r the STag @stag in its device's table (same across runs). */
static void fz_alias(struct kunit *test, struct kiw_dp_env *e,
		     struct kiw_dp_region *r, u32 stag)
{
	xa_erase(&e->kdev->mr_xa, kiw_stag_index(r->stag));
	r->stag = stag;
	r->mr->stag = stag;
	KUNIT_ASSERT_EQ(test, xa_insert(&e->kdev->mr_xa, kiw_stag_index(stag),
					r->mr, GFP_KERNEL), 0);
}

static void fz_mem_init(struct kunit *test, struct fz_mem *m, bool crc,
			bool markers, const struct fz_mem *like)
{
	struct kiw_dp_env *e = kiw_dp_env(test, crc, markers, 2);
	const struct ib_recv_wr *bad;
	int i;

	m->e = e;
	m->r0 = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0x123, 4000,
			      ACC_ALL, 0);
	m->r1 = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_FAST, 0x45, 1000,
			      IB_ACCESS_REMOTE_READ, 12);
	m->rf = kiw_dp_region(test, e->kdev, &e->other_pd, KIW_MR_USER, 7,
			      1000, ACC_ALL, 0);
	m->rq = kiw_dp_region(test, e->kdev, &e->pd, KIW_MR_USER, 0x31,
			      2 * FZ_RECV * FZ_RLEN, IB_ACCESS_LOCAL_WRITE, 0);
	if (like) {
		fz_alias(test, e, m->r0, like->r0->stag);
		fz_alias(test, e, m->r1, like->r1->stag);
		fz_alias(test, e, m->rf, like->rf->stag);
		fz_alias(test, e, m->rq, like->rq->stag);
	}
	/* Receive WR i: rq + 2 * i * FZ_RLEN, FZ_RLEN octets. */
	for (i = 0; i < FZ_RECV; i++) {
		struct ib_sge sge = { m->rq->iova + 2 * i * FZ_RLEN, FZ_RLEN,
				      m->rq->stag };
		struct ib_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					 .num_sge = 1 };

		KUNIT_ASSERT_EQ(test, kiw_post_recv(&e->qp[1]->base, &wr, &bad),
				0);
	}
}

/* ---- Streams ---- */

/* One message of the valid stream, as its ULPDU(s), appended. */
static void fz_msg(struct rnd_state *rs, const struct fz_mem *m,
		   struct fz_in *in, u32 *msn_send, u32 *msn_rreq)
{
	u8 u[18 + 300];
	struct kiw_ddp_tagged_hdr *t = (void *)u;
	struct kiw_ddp_untagged_hdr *h = (void *)u;
	struct kiw_rdmap_rreq rr = {};
	unsigned int len, i, kind = fz_rand(rs, 8), hdr;
	u32 off;

	if ((kind == 3 || kind == 4) && *msn_send > FZ_RECV)
		kind = 0;
	if (kind <= 2 || kind == 6) {
		/* A Write; kind 6 a hostile one (read-only, other PD). */
		const struct kiw_dp_region *r = kind == 6 ?
			(fz_rand(rs, 2) ? m->r1 : m->rf) : m->r0;

		len = 1 + fz_rand(rs, 300);
		off = fz_rand(rs, r->len - len);
		kiw_ddp_build_tagged(t, kiw_rdmap_ctrl(KIW_RDMAP_WRITE),
				     r->stag, r->iova + off, true);
		hdr = sizeof(*t);
		in->hostile |= kind == 6;
	} else if (kind <= 4) {
		len = fz_rand(rs, 100);
		kiw_ddp_build_untagged(h, kiw_rdmap_ctrl(KIW_RDMAP_SEND), 0,
				       KIW_DDP_QN_SEND, (*msn_send)++, 0, true);
		hdr = sizeof(*h);
		in->sends++;
	} else {
		rr.sink_stag = 0x99000000;
		rr.size = fz_rand(rs, 200);
		rr.src_stag = m->r1->stag;
		rr.src_to = m->r1->iova + fz_rand(rs, 800);
		kiw_ddp_build_untagged(h, kiw_rdmap_ctrl(KIW_RDMAP_READ_REQ), 0,
				       KIW_DDP_QN_READ_REQ, (*msn_rreq)++, 0,
				       true);
		kiw_rdmap_read_req_build((void *)(u + sizeof(*h)), &rr);
		hdr = sizeof(*h);
		len = sizeof(struct kiw_rdmap_read_req);
		in->rreqs++;
	}
	if (kind <= 4 || kind == 6)
		for (i = 0; i < len; i++)
			u[hdr + i] = prandom_u32_state(rs);
	if (in->nr_fpdu < FZ_MAX_FPDU)
		in->fpdu_at[in->nr_fpdu++] = in->len;
	in->len += kiw_ref_fpdu(in->data + in->len, in->len, u, hdr + len,
				in->markers, in->crc, NULL);
}

/* What a mutation did, for the failure message. */
static const char *const fz_mut_names[] = {
	"none", "none", "bitflip", "overwrite", "insert", "delete",
	"ulpdu_len", "random", "truncate",
};

static unsigned int fz_mutate(struct rnd_state *rs, struct fz_in *in)
{
	unsigned int what = fz_rand(rs, ARRAY_SIZE(fz_mut_names));
	unsigned int i, n, at = fz_rand(rs, in->len);

	switch (what) {
	case 2:
		for (n = 1 + fz_rand(rs, 4), i = 0; i < n; i++) {
			at = fz_rand(rs, in->len);
			in->data[at] ^= 1 << fz_rand(rs, 8);
		}
		break;
	case 3:
		n = 1 + fz_rand(rs, min(in->len - at, 16U));
		for (i = 0; i < n; i++)
			in->data[at + i] = prandom_u32_state(rs);
		break;
	case 4:
		n = 1 + fz_rand(rs, 8);
		memmove(in->data + at + n, in->data + at, in->len - at);
		for (i = 0; i < n; i++)
			in->data[at + i] = prandom_u32_state(rs);
		in->len += n;
		break;
	case 5:
		n = 1 + fz_rand(rs, min(in->len - at, 8U));
		memmove(in->data + at, in->data + at + n, in->len - at - n);
		in->len -= n;
		break;
	case 6:
		/* Any ULPDU_Length, framing and all (MPA-FR-7). */
		at = in->fpdu_at[fz_rand(rs, in->nr_fpdu)] +
		     (in->markers && !(in->fpdu_at[0] % 512) ? 4 : 0);
		put_unaligned_be16(prandom_u32_state(rs), in->data + at);
		break;
	case 7:
		in->len = 1 + fz_rand(rs, 2048);
		for (i = 0; i < in->len; i++)
			in->data[i] = prandom_u32_state(rs);
		/* Half of them look like a short FPDU at first. */
		if (fz_rand(rs, 2))
			put_unaligned_be16(fz_rand(rs, 64), in->data);
		break;
	case 8:
		in->len = 1 + fz_rand(rs, in->len - 1);
		in->complete = false;
		break;
	default:
		return what;
	}
	in->mutated = what != 8;
	return what;
}

/* The connection a stream from @seed runs on: CRC and markers. */
static void fz_params(struct rnd_state *rs, u64 seed, struct fz_in *in)
{
	prandom_seed_state(rs, seed);
	in->crc = fz_rand(rs, 4) != 0;
	in->markers = fz_rand(rs, 2);
}

/* A valid stream of 1-6 messages from @seed, then maybe one mutation. */
static unsigned int fz_stream(u64 seed, const struct fz_mem *m,
			      struct fz_in *in)
{
	struct rnd_state rs;
	u32 msn_send = 1, msn_rreq = 1;
	unsigned int n, i;

	fz_params(&rs, seed, in);
	in->len = 0;
	in->hostile = false;
	in->rreqs = 0;
	in->nr_fpdu = 0;
	in->sends = 0;
	in->mutated = false;
	in->complete = true;
	n = 1 + fz_rand(&rs, 6);
	for (i = 0; i < n; i++)
		fz_msg(&rs, m, in, &msn_send, &msn_rreq);
	return fz_mutate(&rs, in);
}

/* ---- Running a stream ---- */

/*
 * Feed @in to side 1 in pieces. @split 0: one skb, fed at once; else
 * pieces of random length, each its own skb of a random layout, each fed
 * in one or two calls, as tcp_read_sock() would with a budget. After an
 * error the rest is not fed (kiw_rx_actor() drops it).
 */
static void fz_feed(struct kunit *test, struct fz_mem *m,
		    const struct fz_in *in, u64 split, struct fz_out *out)
{
	struct kiw_qp *qp = m->e->qp[1];
	struct rnd_state rs;
	unsigned int off = 0;

	prandom_seed_state(&rs, split);
	while (off < in->len && !qp->rx.stopped) {
		unsigned int n = in->len - off, cut;
		struct sk_buff *skb;

		if (split)
			n = 1 + fz_rand(&rs, min(n, fz_rand(&rs, 2) ? 8U :
						  1500U));
		skb = kiw_dp_skb(test, in->data + off, n, fz_rand(&rs, n + 1),
				 1 + fz_rand(&rs, 700),
				 fz_rand(&rs, 2) ? fz_rand(&rs, n + 1) : 0);
		cut = split ? fz_rand(&rs, n + 1) : n;
		out->consumed += kiw_fpdu_rx_feed(&qp->rx.fpdu, skb, 0, cut);
		if (cut < n && !qp->rx.stopped)
			out->consumed += kiw_fpdu_rx_feed(&qp->rx.fpdu, skb,
							  cut, n - cut);
		/* A run of the engine ends: no region stays referenced. */
		kiw_place_put(&qp->rx.place);
		kfree_skb(skb);
		off += n;
	}
}

static u32 fz_sum(const struct kiw_dp_region *r)
{
	u32 c = 0;
	u64 i;

	for (i = 0; i < r->len; i++) {
		u8 b = kiw_dp_peek(r, r->iova + i);

		c = crc32c(c, &b, 1);
	}
	return c;
}

static void fz_run(struct kunit *test, struct fz_mem *m,
		   const struct fz_in *in, u64 split, struct fz_out *out)
{
	struct kiw_qp *qp = m->e->qp[1];

	memset(out, 0, sizeof(*out));
	fz_feed(test, m, in, split, out);
	out->err = kiw_fpdu_rx_error(&qp->rx.fpdu);
	out->term = qp->term;
	out->state = kiw_qp_state(qp);
	out->nr_wc = kiw_dp_poll(m->e, 1, out->wc, FZ_MAX_WC);
	out->sum_r0 = fz_sum(m->r0);
	out->sum_rq = fz_sum(m->rq);
	/* Nothing outside a valid range, nothing where no peer may write. */
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(m->r0, m->r0->iova, m->r0->len),
			-1);
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(m->rq, m->rq->iova, m->rq->len),
			-1);
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(m->r1, m->r1->iova, 0), -1);
	KUNIT_EXPECT_EQ(test, kiw_dp_guard_hit(m->rf, m->rf->iova, 0), -1);
}

static void fz_expect_same(struct kunit *test, const struct fz_out *a,
			   const struct fz_out *b, u64 seed)
{
	int i;

	KUNIT_EXPECT_EQ_MSG(test, a->err, b->err, "seed %llu", seed);
	KUNIT_EXPECT_EQ_MSG(test, a->term, b->term, "seed %llu", seed);
	KUNIT_EXPECT_EQ_MSG(test, a->state, b->state, "seed %llu", seed);
	KUNIT_EXPECT_EQ_MSG(test, a->consumed, b->consumed, "seed %llu", seed);
	KUNIT_EXPECT_EQ_MSG(test, a->sum_r0, b->sum_r0, "seed %llu", seed);
	KUNIT_EXPECT_EQ_MSG(test, a->sum_rq, b->sum_rq, "seed %llu", seed);
	KUNIT_ASSERT_EQ_MSG(test, a->nr_wc, b->nr_wc, "seed %llu", seed);
	for (i = 0; i < a->nr_wc; i++) {
		KUNIT_EXPECT_EQ(test, a->wc[i].wr_id, b->wc[i].wr_id);
		KUNIT_EXPECT_EQ(test, a->wc[i].status, b->wc[i].status);
		KUNIT_EXPECT_EQ(test, a->wc[i].opcode, b->wc[i].opcode);
		KUNIT_EXPECT_EQ(test, a->wc[i].byte_len, b->wc[i].byte_len);
	}
}

static void fz_gen_desc(const void *p, char *desc);

static const void *fz_gen_params(const void *prev, char *desc)
{
	uintptr_t i = (uintptr_t)prev + 1;

	if (i > fuzz_rounds)
		return NULL;
	fz_gen_desc((const void *)i, desc);
	return (const void *)i;
}

static void fz_gen_desc(const void *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "seeds_%lu",
		 (unsigned long)(uintptr_t)p * FZ_STREAMS);
}

/*
 * Streams through the receive engine: whole, then split at random, on
 * fresh QPs with the same STags. Covers: MPA-AL-3, MPA-SEC-4, DDP-SEC-1,
 * MPA-FR-7, MPA-FR-8
 */
static void kiw_fuzz_engine_test(struct kunit *test)
{
	u64 base = (uintptr_t)test->param_value * FZ_STREAMS;
	struct fz_in *in = kunit_kzalloc(test, sizeof(*in), GFP_KERNEL);
	struct fz_out *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct fz_out *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct fz_mem ma, mb;
	unsigned int k, what;

	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	in->data = kunit_kzalloc(test, FZ_MAX + 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in->data);
	for (k = 0; k < FZ_STREAMS; k++) {
		u64 seed = base + k;

		struct rnd_state rs;

		/* The stream's parameters first: the QPs depend on them. */
		fz_params(&rs, seed, in);
		fz_mem_init(test, &ma, in->crc, in->markers, NULL);
		what = fz_stream(seed, &ma, in);
		fz_mem_init(test, &mb, in->crc, in->markers, &ma);
		fz_run(test, &ma, in, 0, a);
		fz_run(test, &mb, in, seed * 7919 + 1, b);
		kunit_info(test, "seed %llu: %s, crc %d markers %d, %u octets: err %05x term %05x, %d wc\n",
			   seed, fz_mut_names[what], in->crc, in->markers,
			   in->len, a->err, a->term, a->nr_wc);
		fz_expect_same(test, a, b, seed);
		if (!in->mutated && in->complete && !a->term) {
			/* A valid stream is taken whole. */
			KUNIT_EXPECT_EQ(test, a->consumed, in->len);
			KUNIT_EXPECT_EQ(test, a->nr_wc, in->sends);
			KUNIT_EXPECT_EQ(test, a->state, KIW_QP_RTS);
		}
		/* With CRC on, a corrupted FPDU fails its CRC, whatever else. */
		if (in->mutated && in->crc && a->err && !in->hostile &&
		    in->rreqs <= 2)
			KUNIT_EXPECT_TRUE_MSG(test, a->err == KIW_FPDU_ERR_CRC,
					      "seed %llu: err %05x", seed,
					      a->err);
	}
}

/* ---- The parser alone ---- */

/*
 * A stream of 1-8 FPDUs with random ULPDUs (any length 0-600, any first
 * octets), then maybe mutated, parsed with the recording upper layer:
 * once whole, once in 1-octet calls, once through fragmented skbs in
 * random pieces. The three runs must agree on everything the parser
 * reports. Covers: MPA-FR-7, MPA-FR-8, MPA-RX-4, MPA-AL-3
 */
static void fz_parse(struct kunit *test, struct kiw_test_ulp *u,
		     const struct fz_in *in, unsigned int how, u64 seed)
{
	struct rnd_state rs;
	unsigned int off = 0, n;
	struct sk_buff *skb;

	kiw_test_ulp_reset(u, in->markers, in->crc);
	if (how < 2) {
		kiw_test_feed(u, in->data, in->len, how);
		return;
	}
	prandom_seed_state(&rs, seed);
	while (off < in->len && u->rx.state != KIW_FPDU_RX_DEAD) {
		n = 1 + fz_rand(&rs, in->len - off);
		skb = kiw_dp_skb(test, in->data + off, n, fz_rand(&rs, n + 1),
				 1 + fz_rand(&rs, 300), fz_rand(&rs, n + 1));
		kiw_fpdu_rx_feed(&u->rx, skb, 0, n);
		kfree_skb(skb);
		off += n;
	}
}

static void kiw_fuzz_parser_test(struct kunit *test)
{
	u64 base = 100000 + (uintptr_t)test->param_value * FZ_STREAMS * 4;
	struct fz_in *in = kunit_kzalloc(test, sizeof(*in), GFP_KERNEL);
	struct kiw_test_ulp *u[3];
	u8 *ulpdu = kunit_kmalloc(test, 600, GFP_KERNEL);
	unsigned int k, i, j, n, len, what, good;
	struct rnd_state rs;

	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	in->data = kunit_kzalloc(test, FZ_MAX + 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in->data);
	for (i = 0; i < 3; i++)
		u[i] = kiw_test_ulp_new(test, 2 * FZ_MAX, false, true);
	for (k = 0; k < 4 * FZ_STREAMS; k++) {
		u64 seed = base + k;

		fz_params(&rs, seed, in);
		in->len = 0;
		in->nr_fpdu = 0;
		n = 1 + fz_rand(&rs, 8);
		good = n;
		for (i = 0; i < n; i++) {
			len = fz_rand(&rs, fz_rand(&rs, 2) ? 24 : 600);
			for (j = 0; j < len; j++)
				ulpdu[j] = prandom_u32_state(&rs);
			/* Mostly plausible control octets. */
			if (len && fz_rand(&rs, 4))
				ulpdu[0] = fz_rand(&rs, 2) ? 0xc1 : 0x41;
			if (good == n && (!len || len < kiw_ddp_hdr_len(ulpdu[0])))
				good = i;
			if (in->nr_fpdu < FZ_MAX_FPDU)
				in->fpdu_at[in->nr_fpdu++] = in->len;
			in->len += kiw_ref_fpdu(in->data + in->len, in->len,
						ulpdu, len, in->markers,
						in->crc, NULL);
		}
		what = fz_mutate(&rs, in);
		fz_parse(test, u[0], in, 0, 0);
		fz_parse(test, u[1], in, 1, 0);
		fz_parse(test, u[2], in, 2, seed);
		for (i = 1; i < 3; i++) {
			KUNIT_EXPECT_EQ_MSG(test, u[0]->nr_ok, u[i]->nr_ok,
					    "seed %llu %s run %u", seed,
					    fz_mut_names[what], i);
			KUNIT_EXPECT_EQ(test, u[0]->nr_bad, u[i]->nr_bad);
			KUNIT_EXPECT_EQ(test, u[0]->verdict, u[i]->verdict);
			KUNIT_EXPECT_EQ(test, u[0]->nr_hdr, u[i]->nr_hdr);
			KUNIT_EXPECT_EQ(test, u[0]->rx.err, u[i]->rx.err);
			KUNIT_EXPECT_EQ(test, u[0]->rx.off, u[i]->rx.off);
			KUNIT_EXPECT_EQ(test, u[0]->rx.state, u[i]->rx.state);
			KUNIT_ASSERT_EQ(test, u[0]->len, u[i]->len);
			KUNIT_EXPECT_MEMEQ(test, u[0]->buf, u[i]->buf,
					   u[0]->len);
		}
		/* An error stops the parser for good; none without one. */
		KUNIT_EXPECT_EQ(test, u[0]->nr_bad, u[0]->rx.err ? 1U : 0U);
		if (!in->mutated && in->complete) {
			/*
			 * Unmutated: every FPDU up to the first one shorter
			 * than its DDP header is good, and that one fails.
			 */
			KUNIT_EXPECT_EQ(test, u[0]->nr_ok, good);
			KUNIT_EXPECT_EQ(test, u[0]->rx.err, good < n ?
					KIW_FPDU_ERR_SHORT : KIW_TERM_NONE);
			if (good == n)
				KUNIT_EXPECT_EQ(test, u[0]->rx.off, in->len);
		}
	}
}

static struct kunit_case kiw_fuzz_cases[] = {
	KUNIT_CASE_PARAM(kiw_fuzz_engine_test, fz_gen_params),
	KUNIT_CASE_PARAM(kiw_fuzz_parser_test, fz_gen_params),
	{}
};

static struct kunit_suite kiw_fuzz_suite = {
	.name = "kiw_fuzz",
	.test_cases = kiw_fuzz_cases,
};

kunit_test_suite(kiw_fuzz_suite);
