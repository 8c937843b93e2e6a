// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit helpers for the data path suites (see kiw_dp_test_util.h).
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "kiw_dp_test_util.h"
#include "kiw_stats.h"
#include "kiw_tx_batch.h"

static atomic_t kiw_dp_next_index = ATOMIC_INIT(0x1000);

/* ---- Regions ---- */

static void kiw_dp_region_free(void *p)
{
	struct kiw_dp_region *r = p;
	u64 i;

	xa_erase(&r->mr->kdev->mr_xa, kiw_stag_index(r->stag));
	if (r->pages)
		for (i = 0; i < DIV_ROUND_UP(r->bytes, PAGE_SIZE); i++)
			if (r->pages[i])
				__free_page(r->pages[i]);
	kfree(r->kva);
}

/* The backing octet of address @va (guard octets have va out of range). */
static u8 *kiw_dp_at(const struct kiw_dp_region *r, u64 b)
{
	if (r->kva)
		return r->kva + b;
	return (u8 *)page_address(r->pages[b >> PAGE_SHIFT]) +
	       (b & ~PAGE_MASK);
}

static int kiw_dp_region_pages(struct kunit *test, struct kiw_dp_region *r,
			       struct kiw_mr *mr, u8 page_shift)
{
	u32 n = DIV_ROUND_UP(r->bytes, PAGE_SIZE), i, per;

	r->pages = kunit_kcalloc(test, n, sizeof(*r->pages), GFP_KERNEL);
	if (!r->pages)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		r->pages[i] = alloc_page(GFP_KERNEL);
		if (!r->pages[i])
			return -ENOMEM;
		memset(page_address(r->pages[i]), KIW_DP_GUARD, PAGE_SIZE);
	}
	if (mr->kind == KIW_MR_USER) {
		mr->pages = r->pages;
		mr->npages = n;
		return 0;
	}
	/* FAST: a page list of kernel addresses of (1 << shift) octets. */
	per = PAGE_SIZE >> page_shift;
	mr->npages = n * per;
	mr->max_pages = mr->npages;
	mr->addrs = kunit_kcalloc(test, mr->npages, sizeof(u64), GFP_KERNEL);
	if (!mr->addrs)
		return -ENOMEM;
	for (i = 0; i < mr->npages; i++)
		mr->addrs[i] = (uintptr_t)page_address(r->pages[i / per]) +
			       ((i % per) << page_shift);
	mr->page_shift = page_shift;
	return 0;
}

/**
 * kiw_dp_region - a registered region in @kdev's STag table
 * @test: the test
 * @kdev: the device
 * @pd: its protection domain
 * @kind: KIW_MR_USER (page array), KIW_MR_FAST (page list of
 *	(1 << @page_shift)-octet pages) or KIW_MR_DMA (kernel addresses)
 * @first: offset of the first valid octet in the first page (FAST: below
 *	the MR's page size)
 * @len: valid octets
 * @access: IB_ACCESS_*
 * @page_shift: FAST only
 *
 * Every octet, valid or not, starts as KIW_DP_GUARD; at least 64 guard
 * octets follow the region.
 */
struct kiw_dp_region *kiw_dp_region(struct kunit *test,
				    struct kiw_device *kdev,
				    struct kiw_pd *pd, enum kiw_mr_kind kind,
				    u32 first, u64 len, u32 access,
				    u8 page_shift)
{
	struct kiw_dp_region *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct kiw_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	u32 index = atomic_inc_return(&kiw_dp_next_index);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	r->mr = mr;
	r->first = first;
	r->len = len;
	r->bytes = first + len + 64;
	mr->kdev = kdev;
	mr->kind = kind;
	mr->pd = pd;
	kref_init(&mr->ref);
	init_completion(&mr->released);
	kiw_mr_init_sync(mr);
	mr->valid = true;
	mr->access = access;
	r->stag = kiw_stag(index, 0x42);
	mr->stag = r->stag;
	if (kind == KIW_MR_DMA) {
		r->kva = kmalloc(r->bytes, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r->kva);
		memset(r->kva, KIW_DP_GUARD, r->bytes);
		r->iova = (uintptr_t)r->kva + first;
		mr->iova = 0;
		mr->length = U64_MAX;
	} else {
		KUNIT_ASSERT_EQ(test, kiw_dp_region_pages(test, r, mr,
							  page_shift), 0);
		r->iova = 0x7f1234560000ull + first;
		mr->iova = r->iova;
		mr->length = len;
		mr->offset = first;
	}
	KUNIT_ASSERT_EQ(test, xa_insert(&kdev->mr_xa, index, mr, GFP_KERNEL),
			0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							kiw_dp_region_free,
							r), 0);
	return r;
}

u8 kiw_dp_peek(const struct kiw_dp_region *r, u64 va)
{
	return *kiw_dp_at(r, r->first + (va - r->iova));
}

void kiw_dp_poke(struct kiw_dp_region *r, u64 va, u8 v)
{
	*kiw_dp_at(r, r->first + (va - r->iova)) = v;
}

s64 kiw_dp_cmp(const struct kiw_dp_region *r, u64 va, const u8 *data,
	       u64 len)
{
	u64 i;

	for (i = 0; i < len; i++)
		if (kiw_dp_peek(r, va + i) != data[i])
			return i;
	return -1;
}

s64 kiw_dp_guard_hit(const struct kiw_dp_region *r, u64 va, u64 len)
{
	u64 lo = r->first + (va - r->iova), b;

	for (b = 0; b < r->bytes; b++) {
		if (b >= lo && b < lo + len)
			continue;
		if (*kiw_dp_at(r, b) != KIW_DP_GUARD)
			return b;
	}
	return -1;
}

/* ---- skbs ---- */

static struct sk_buff *kiw_dp_skb_one(const u8 *data, unsigned int len,
				      unsigned int head, unsigned int frag)
{
	struct sk_buff *skb = alloc_skb(max(head, 1U), GFP_KERNEL);
	unsigned int most = PAGE_SIZE - 64;

	if (!skb)
		return NULL;
	skb_put_data(skb, data, head);
	data += head;
	len -= head;
	if (!frag || frag > most)
		frag = most;
	if (DIV_ROUND_UP(len, frag) > MAX_SKB_FRAGS)
		frag = DIV_ROUND_UP(len, MAX_SKB_FRAGS);
	while (len) {
		int i = skb_shinfo(skb)->nr_frags;
		unsigned int off = (i * 5) % 64 + 1, n = min(frag, len);
		struct page *page = alloc_page(GFP_KERNEL);

		if (!page || i == MAX_SKB_FRAGS || off + n > PAGE_SIZE) {
			if (page)
				__free_page(page);
			kfree_skb(skb);
			return NULL;
		}
		memcpy_to_page(page, off, data, n);
		skb_add_rx_frag(skb, i, page, off, n, PAGE_SIZE);
		data += n;
		len -= n;
	}
	return skb;
}

struct sk_buff *kiw_dp_skb(struct kunit *test, const u8 *data,
			   unsigned int len, unsigned int head,
			   unsigned int frag, unsigned int tail)
{
	struct sk_buff *skb, *child;

	head = min(head, len);
	tail = min(tail, len - head);
	skb = kiw_dp_skb_one(data, len - tail, head, frag);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	if (!tail)
		return skb;
	child = kiw_dp_skb_one(data + len - tail, tail, tail / 2, frag);
	if (!child)
		kfree_skb(skb);
	KUNIT_ASSERT_NOT_NULL(test, child);
	skb_shinfo(skb)->frag_list = child;
	skb->len += child->len;
	skb->data_len += child->len;
	skb->truesize += child->truesize;
	return skb;
}

/* ---- Two connected QPs ---- */

static void kiw_dp_event(struct ib_event *ev, void *ctx)
{
	struct kiw_dp_env *e = ctx;
	int side = ev->element.qp == &e->qp[1]->base;

	e->events[side]++;
	e->last_event[side] = ev->event;
}

static void kiw_dp_qp_free(void *p)
{
	struct kiw_qp *qp = p;

	kiw_tx_detach(qp);
	kiw_tx_qp_release(qp);
	kiw_rx_qp_release(qp);
}

static struct kiw_qp *kiw_dp_qp(struct kunit *test, struct kiw_dp_env *e,
				int side, bool crc, bool markers, u32 ord_ird)
{
	struct kiw_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	struct kiw_llp_params p = {
		.initiator = !side,
		.mpa_rev = 1,
		.crc = crc,
		.tx_markers = markers,
		.rx_markers = markers,
		.ird = ord_ird,
		.ord = ord_ird,
	};

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->base.device = &e->kdev->ibdev;
	qp->base.qp_num = 100 + side;
	qp->base.event_handler = kiw_dp_event;
	qp->base.qp_context = e;
	qp->kdev = e->kdev;
	qp->pd = &e->pd;
	qp->scq = &e->cq[side];
	qp->rcq = &e->cq[side];
	kref_init(&qp->ref);
	init_completion(&qp->released);
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	qp->state = KIW_QP_RTS;
	qp->access = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	qp->max_send_sge = KIW_MAX_SGE;
	qp->max_recv_sge = KIW_MAX_SGE;
	qp->max_inline = KIW_MAX_INLINE;
	qp->sq.num = 64;
	qp->rq.num = 64;
	qp->sq.ring = kunit_kcalloc(test, 64, sizeof(struct siw_sqe),
				    GFP_KERNEL);
	qp->rq.ring = kunit_kcalloc(test, 64, sizeof(struct siw_rqe),
				    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->sq.ring);
	KUNIT_ASSERT_NOT_NULL(test, qp->rq.ring);
	kiw_tx_qp_init(qp);
	kiw_rx_qp_init(qp);
	KUNIT_ASSERT_EQ(test, kiw_tx_attach(qp, &p), 0);
	KUNIT_ASSERT_EQ(test, kiw_rx_attach(qp, &p), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kiw_dp_qp_free,
							qp), 0);
	return qp;
}

static void kiw_dp_cq_init(struct kunit *test, struct kiw_dp_env *e,
			   struct kiw_cq *cq)
{
	cq->base.device = &e->kdev->ibdev;
	cq->num_cqe = 256;
	cq->queue = kunit_kcalloc(test, 256, sizeof(*cq->queue), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cq->queue);
	cq->notify = &cq->kernel_notify;
	spin_lock_init(&cq->lock);
}

/* The engines count what they send and receive (kiw_stats.h). */
static void kiw_dp_stats_fini(void *kdev)
{
	kiw_stats_fini(kdev);
}

/**
 * kiw_dp_env - two QPs connected to each other, in RTS
 * @test: the test
 * @crc: CRC32c on
 * @markers: markers in both directions
 * @ord_ird: ORD and IRD of both
 */
struct kiw_dp_env *kiw_dp_env(struct kunit *test, bool crc, bool markers,
			      u32 ord_ird)
{
	struct kiw_dp_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->kdev = kunit_kzalloc(test, sizeof(*e->kdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->kdev);
	xa_init(&e->kdev->mr_xa);
	KUNIT_ASSERT_EQ(test, kiw_stats_init(e->kdev), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kiw_dp_stats_fini,
							e->kdev), 0);
	e->wire = kunit_kmalloc(test, KIW_TXB_BYTES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->wire);
	kiw_dp_cq_init(test, e, &e->cq[0]);
	kiw_dp_cq_init(test, e, &e->cq[1]);
	e->qp[0] = kiw_dp_qp(test, e, 0, crc, markers, ord_ird);
	e->qp[1] = kiw_dp_qp(test, e, 1, crc, markers, ord_ird);
	return e;
}

/**
 * kiw_dp_feed - feed octets to side @to's receive parser
 * @test: the test
 * @e: the QPs
 * @to: 0 or 1
 * @data: the octets, as on the wire
 * @len: how many
 *
 * They come in one skb (linear, page frags, or with a frag_list, in
 * turn), over two runs of the receive engine split at an odd octet.
 */
void kiw_dp_feed(struct kunit *test, struct kiw_dp_env *e, int to,
		 const u8 *data, unsigned int len)
{
	static const unsigned int layout[][3] = {
		{ 65536, 0, 0 },	/* all linear */
		{ 3, 1000, 0 },		/* page frags */
		{ 17, 333, 4000 },	/* frags and a frag_list skb */
	};
	const unsigned int *l = layout[e->skb_layout++ % ARRAY_SIZE(layout)];
	struct kiw_qp *qp = e->qp[to];
	struct sk_buff *skb = kiw_dp_skb(test, data, len, l[0], l[1], l[2]);
	unsigned int split = len > 2 ? (len * 5 / 7) | 1 : len;

	if (kiw_fpdu_rx_feed(&qp->rx.fpdu, skb, 0, split) == split)
		kiw_fpdu_rx_feed(&qp->rx.fpdu, skb, split, len - split);
	kiw_place_put(&qp->rx.place);
	kfree_skb(skb);
}

/*
 * Walk the batch's FPDUs in its wire image (e->wire), by their
 * ULPDU_Length and layout: each fits the segment size, they end where
 * the batch does, and the longest is kept. With CRC a batch keeps the
 * layout of its last FPDU only (kiw_txb_slot()), so the image is what
 * tells.
 */
static void kiw_dp_check_fpdus(struct kunit *test, struct kiw_dp_env *e,
			       struct kiw_qp *qp, unsigned int mss)
{
	const struct kiw_fpdu_layout *last = &kiw_txb_last(qp->tx.b)->ftx.lay;
	unsigned int bytes = qp->tx.b->bytes, off = 0, n = 0, ulpdu_len;
	bool markers = qp->tx.markers;
	u32 at = last->start + last->wire_len - bytes;
	struct kiw_fpdu_layout lay;

	while (off + KIW_MPA_MARKER_SIZE + KIW_MPA_ULPDU_LEN_SIZE <= bytes) {
		/* A marker may lead the FPDU: the length follows it. */
		KUNIT_ASSERT_EQ(test, kiw_fpdu_layout(&lay, at, 0, markers), 0);
		ulpdu_len = get_unaligned_be16(e->wire + off + lay.lead);
		KUNIT_ASSERT_EQ(test,
				kiw_fpdu_layout(&lay, at, ulpdu_len, markers), 0);
		e->max_wire = max(e->max_wire, lay.wire_len);
		KUNIT_EXPECT_LE(test, lay.wire_len, max(mss, 160U));
		off += lay.wire_len;
		at += lay.wire_len;
		n++;
	}
	KUNIT_EXPECT_EQ(test, off, bytes);
	KUNIT_EXPECT_EQ(test, n, qp->tx.b->nr_fpdu);
}

/* Copy the batch's vectors out, as TCP does. */
static unsigned int kiw_dp_take(struct kunit *test, struct kiw_dp_env *e,
				struct kiw_qp *qp, unsigned int mss)
{
	struct kiw_txb *b = qp->tx.b;
	struct iov_iter it;
	struct kvec kv;

	e->nr_fpdu += b->nr_fpdu;
	kiw_txb_iter(b, &it, &kv);
	KUNIT_EXPECT_EQ(test, copy_from_iter(e->wire, b->bytes, &it),
			b->bytes);
	kiw_dp_check_fpdus(test, e, qp, mss);
	kiw_txb_put_refs(b);
	return b->bytes;
}

/**
 * kiw_dp_step - one batch from side @from, copied to e->wire
 * @test: the test
 * @e: the QPs
 * @from: 0 or 1
 * @mss: the EMSS the TX segments for
 * @nr: set to the FPDUs in it
 *
 * Return: the octets in e->wire, 0 if there was nothing to send.
 */
unsigned int kiw_dp_step(struct kunit *test, struct kiw_dp_env *e, int from,
			 unsigned int mss, unsigned int *nr)
{
	unsigned int len = kiw_dp_step_held(test, e, from, mss, nr);

	if (len)
		kiw_tx_batch_done(e->qp[from]);
	return len;
}

/*
 * As kiw_dp_step(), but the batch stays "inside sendmsg()": the caller
 * calls kiw_tx_batch_done() when it chooses, as a TX work whose batch the
 * peer answered before sendmsg() returned would.
 */
unsigned int kiw_dp_step_held(struct kunit *test, struct kiw_dp_env *e,
			      int from, unsigned int mss, unsigned int *nr)
{
	struct kiw_qp *a = e->qp[from];
	enum kiw_qp_state s = kiw_qp_state(a);

	*nr = 0;
	if (s != KIW_QP_RTS && s != KIW_QP_CLOSING)
		return 0;
	*nr = kiw_tx_fill(a, mss, 1 << 20);
	if (!*nr)
		return 0;
	return kiw_dp_take(test, e, a, mss);
}

/**
 * kiw_dp_pump - move everything side @from has to send to the other side
 * @test: the test
 * @e: the QPs
 * @from: 0 or 1
 * @mss: the EMSS the TX segments for
 *
 * Return: the FPDUs moved.
 */
int kiw_dp_pump(struct kunit *test, struct kiw_dp_env *e, int from,
		unsigned int mss)
{
	unsigned int n, len, batches = 0;
	int total = 0;

	while ((len = kiw_dp_step(test, e, from, mss, &n))) {
		kiw_dp_feed(test, e, !from, e->wire, len);
		total += n;
		/* No test moves 16 MiB: a TX that never stops is a bug. */
		KUNIT_ASSERT_LT(test, ++batches, 256U);
	}
	return total;
}

/* Side @from is terminating: its Terminate goes to the other side. */
int kiw_dp_pump_term(struct kunit *test, struct kiw_dp_env *e, int from)
{
	struct kiw_qp *a = e->qp[from];
	unsigned int len;

	if (kiw_qp_state(a) != KIW_QP_TERMINATE)
		return -EINVAL;
	KUNIT_ASSERT_EQ(test, kiw_tx_build_term(a), 0);
	len = kiw_dp_take(test, e, a, 1 << 16);
	kiw_dp_feed(test, e, !from, e->wire, len);
	kiw_qp_error(a);	/* as the TX does once it is out */
	return len;
}

int kiw_dp_poll(struct kiw_dp_env *e, int side, struct ib_wc *wc, int n)
{
	return kiw_poll_cq(&e->cq[side].base, n, wc);
}
