// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw transmit engine (see kiw_tx.h for its context and order): the work
 * item, the SQ work requests (Send, Write, Read, local operations), Read
 * Responses, the RTR and the Terminate. Messages are started and cut in
 * kiw_tx_msg.c; work requests end (completion order, failures) in
 * kiw_tx_comp.c.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <kunit/visibility.h>

#include "kiw_llp.h"
#include "kiw_mem.h"
#include "kiw_mpa.h"
#include "kiw_qp.h"
#include "kiw_ring.h"
#include "kiw_stats.h"
#include "kiw_trace.h"
#include "kiw_tx_batch.h"

/* Batches one run sends before it lets other QPs' work run. */
#define KIW_TX_BUDGET	16
/*
 * Batches libsiw's doorbell sends itself, in the poster's system call,
 * before it leaves the rest to the work: one small message, or a batch
 * and the next, go out without a wakeup and two context switches.
 */
#define KIW_TX_DOORBELL_BUDGET	2
/* Work requests in flight (sent or running, not yet completed). */
#define KIW_TXC_MAX	256

static_assert(!(KIW_MAX_ORD & (KIW_MAX_ORD - 1)) &&
	      !(KIW_MAX_IRD & (KIW_MAX_IRD - 1)));

static void kiw_tx_work(struct work_struct *work);

void kiw_tx_qp_init(struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;

	INIT_WORK(&tx->work, kiw_tx_work);
	mutex_init(&tx->run_lock);
	spin_lock_init(&tx->lock);
	tx->cur.kind = KIW_TXM_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_tx_qp_init);

/* The last reference is gone: no work is queued or running. */
void kiw_tx_qp_release(struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;

	kiw_txb_free(tx->b);
	kfree(tx->txc_rec);
	kfree(tx->orq);
	kfree(tx->irq);
	tx->b = NULL;
	tx->txc_rec = NULL;
	tx->orq = NULL;
	tx->irq = NULL;
	tx->orq_num = 0;
	tx->irq_num = 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_tx_qp_release);

/* Wire octets of an FPDU of at most @mulpdu payload octets. */
static unsigned int kiw_tx_fpdu_wire(unsigned int mulpdu, bool markers)
{
	unsigned int ulpdu = mulpdu + KIW_MPA_FPDU_OVERHEAD + 3;

	return ulpdu + (markers ? KIW_MPA_MARKER_SIZE *
			(DIV_ROUND_UP(ulpdu, KIW_MPA_MARKER_INTERVAL -
				      KIW_MPA_MARKER_SIZE) + 1) : 0);
}

/**
 * kiw_tx_spill_size - the spill buffer a connection starts with
 * @mss_max: the largest EMSS the connection can have (the peer's MSS)
 * @markers: whether our FPDUs carry markers
 *
 * Its largest FPDU: kiw_mpa_mulpdu() of any EMSS up to @mss_max is at
 * most @mss_max less the FPDU's overhead (or the smallest MULPDU).
 */
unsigned int kiw_tx_spill_size(u32 mss_max, bool markers)
{
	unsigned int mulpdu;

	mulpdu = clamp_t(long, (long)mss_max - KIW_MPA_FPDU_OVERHEAD,
			 KIW_MPA_MULPDU_MIN, KIW_MPA_MULPDU_MAX);
	return max_t(unsigned int, kiw_tx_fpdu_wire(mulpdu, markers),
		     KIW_TXB_SPILL_MIN);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_tx_spill_size);

/* ORQ or IRQ entries for a negotiated ORD or IRD (at least 4, see below). */
u32 kiw_tx_rdq_size(u32 ord_ird)
{
	return roundup_pow_of_two(max(ord_ird, 4U));
}
EXPORT_SYMBOL_IF_KUNIT(kiw_tx_rdq_size);

/*
 * Reallocate @*ring for @num entries of @size unless it has @*have
 * already (a QP reused after RESET keeps what it has).
 */
static int kiw_tx_ring(void **ring, u32 *have, u32 num, size_t size)
{
	if (*ring && *have >= num)
		return 0;
	kfree(*ring);
	*ring = kcalloc(num, size, GFP_KERNEL);
	*have = *ring ? num : 0;
	return *ring ? 0 : -ENOMEM;
}

/*
 * The connection's send state, sized to what it negotiated: the batch's
 * vectors only without CRC and its marker room only with markers
 * (@shape), the spill buffer to its largest FPDU (it grows under load,
 * kiw_tx_batch.h), the
 * ORQ and IRQ to its ORD and IRD (at least 4 entries: no smaller
 * allocation is worth a reallocation when the QP is reused), the
 * completion records to the SQ.
 */
static int kiw_tx_alloc(struct kiw_qp *qp, unsigned int spill,
			unsigned int shape, u32 ord, u32 ird)
{
	struct kiw_tx *tx = &qp->tx;
	void *orq = tx->orq, *irq = tx->irq;
	int ret = 0;

	/* A reused QP's batch may be shaped for other framing. */
	if (tx->b && tx->b->flags != shape) {
		kiw_txb_free(tx->b);
		tx->b = NULL;
	}
	if (!tx->b) {
		tx->b = kiw_txb_alloc(spill, shape);
		if (!tx->b)
			ret = -ENOMEM;
	} else {
		/* What the last connection left is void (attach resets it). */
		tx->b->spill_len = 0;
		tx->b->spill_off = 0;
		ret = kiw_txb_reserve(tx->b, spill, GFP_KERNEL);
	}
	if (!ret && !tx->txc_rec) {
		tx->txc_rec = kcalloc(min_t(u32, qp->sq.num, KIW_TXC_MAX),
				      sizeof(*tx->txc_rec), GFP_KERNEL);
		if (!tx->txc_rec)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = kiw_tx_ring(&orq, &tx->orq_num, kiw_tx_rdq_size(ord),
				  sizeof(*tx->orq));
	tx->orq = orq;
	if (!ret)
		ret = kiw_tx_ring(&irq, &tx->irq_num, kiw_tx_rdq_size(ird),
				  sizeof(*tx->irq));
	tx->irq = irq;
	if (ret)
		kiw_tx_qp_release(qp);
	return ret;
}

/**
 * kiw_tx_attach - set up the transmit state for a new connection
 * @qp: the QP, not attached (no TX work touches the state)
 * @p: the negotiated connection
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int kiw_tx_attach(struct kiw_qp *qp, const struct kiw_llp_params *p)
{
	struct kiw_tx *tx = &qp->tx;
	u32 ord = min_t(u32, p->ord, KIW_MAX_ORD);
	u32 ird = min_t(u32, p->ird, KIW_MAX_IRD);
	u32 mss_max = U32_MAX;	/* no socket: KUnit's engine */
	unsigned long flags;
	u32 pos, i;
	int ret;

	/* TCP's EMSS never exceeds the MSS the peer announced. */
	if (p->sock)
		mss_max = READ_ONCE(tcp_sk(p->sock->sk)->rx_opt.mss_clamp);
	ret = kiw_tx_alloc(qp, kiw_tx_spill_size(mss_max, p->tx_markers),
			   (p->crc ? 0 : KIW_TXB_ZCOPY) |
			   (p->tx_markers ? KIW_TXB_MARKERS : 0), ord, ird);
	if (ret)
		return ret;
	/* A doorbell may look meanwhile: it sees all of this, or no socket. */
	mutex_lock(&tx->run_lock);
	tx->b->spill_len = 0;
	tx->b->spill_off = 0;
	tx->crc = p->crc;
	tx->markers = p->tx_markers;
	tx->rtr = p->initiator ? p->rtr : KIW_RTR_NONE;
	tx->hold = !p->initiator &&
		   (p->hold_tx_until_rx || p->rtr != KIW_RTR_NONE);
	tx->term_sent = false;
	tx->off = 0;
	tx->mss = 0;
	tx->mss_max = mss_max;
	for (i = 0; i < KIW_DDP_QN_COUNT; i++)
		tx->msn[i] = KIW_DDP_MSN_FIRST;
	memset(&tx->cur, 0, sizeof(tx->cur));
	tx->cur.kind = KIW_TXM_NONE;
	tx->prefer_irq = false;
	kiw_rdq_init(&tx->orq_q, tx->orq_num, ord);
	kiw_rdq_init(&tx->irq_q, tx->irq_num, ird);
	tx->irq_started = 0;
	tx->orq_wait = false;

	/* Completions carry on from the SQ's oldest entry. */
	spin_lock_irqsave(&qp->sq.lock, flags);
	pos = qp->sq.get;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	spin_lock_bh(&tx->lock);
	kiw_txc_init(&tx->txc, tx->txc_rec,
		     min_t(u32, qp->sq.num, KIW_TXC_MAX), pos);
	tx->reaping = false;
	tx->term = KIW_TERM_NONE;
	tx->term_hdr_len = 0;
	spin_unlock_bh(&tx->lock);

	ibdev_dbg(&qp->kdev->ibdev,
		  "QP %u: attach: %s rev %u crc %d markers tx %d rx %d ird %u ord %u rtr %d hold %d\n",
		  qp->base.qp_num, p->initiator ? "initiator" : "responder",
		  p->mpa_rev, p->crc, p->tx_markers, p->rx_markers, p->ird,
		  p->ord, p->rtr, tx->hold);
	WRITE_ONCE(tx->stop, false);
	WRITE_ONCE(tx->sock, p->sock);
	mutex_unlock(&tx->run_lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_tx_attach);

/**
 * kiw_tx_wanted - has a newly attached connection anything to send?
 * @qp: the QP, just attached
 *
 * The RTR, or work requests posted before the socket was there (their
 * kicks found no socket: a run that took @run_lock before
 * kiw_tx_attach() did had its WQEs written before, and one after it sees
 * the socket). Whatever comes later kicks the TX itself: post_send and
 * the doorbell, the RX (a Read Request, the responder's first FPDU
 * received, an error), the close.
 *
 * Return: true if the TX work should run now.
 */
bool kiw_tx_wanted(struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;
	bool want;
	u32 tail;

	if (READ_ONCE(tx->hold))
		return false;	/* the RX kicks as it clears it */
	mutex_lock(&tx->run_lock);
	want = tx->rtr != KIW_RTR_NONE || tx->cur.kind != KIW_TXM_NONE ||
	       tx->b->spill_len;
	mutex_unlock(&tx->run_lock);
	spin_lock_bh(&tx->lock);
	tail = tx->txc.tail;
	spin_unlock_bh(&tx->lock);
	return want || kiw_sq_posted(qp, tail);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_tx_wanted);

/*
 * Stop the TX for good on this connection: no run sends on the socket
 * once this returns. A kick that comes later queues a run that finds
 * @stop and leaves.
 */
void kiw_tx_detach(struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;

	WRITE_ONCE(tx->stop, true);
	if (cancel_work_sync(&tx->work))
		kiw_qp_put(qp);		/* the cancelled run's reference */
	/* A doorbell's run that began before @stop ends before this. */
	mutex_lock(&tx->run_lock);
	WRITE_ONCE(tx->sock, NULL);
	mutex_unlock(&tx->run_lock);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_tx_detach);

/* The EMSS now, and the MULPDU it allows (RFC 5044 4.5, MPA-SZ-5). */
static void kiw_tx_mss(struct kiw_tx *tx, u32 mss)
{
	/* The spill buffer was sized for it (kiw_tx_spill_size()). */
	mss = min(mss, tx->mss_max);
	if (mss == tx->mss && tx->mulpdu)
		return;
	tx->mss = mss;
	tx->mulpdu = kiw_mpa_mulpdu(mss, tx->markers);
	tx->fpdu_max = kiw_tx_fpdu_wire(tx->mulpdu, tx->markers);
	/* Segments already cut stay as they are (RFC 5041 section 3). */
	if (tx->cur.kind != KIW_TXM_NONE)
		kiw_ddp_seg_set_mulpdu(&tx->cur.seg, tx->mulpdu);
}

/*
 * Room in the socket? If not, ask for sk_write_space and look again, as
 * tcp_poll() does, so that the wakeup cannot be missed.
 */
static bool kiw_tx_writeable(struct sock *sk)
{
	if (sk_stream_is_writeable(sk))
		return true;
	set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
	/* the flag is visible before we look again (tcp_check_space()) */
	smp_mb__after_atomic();
	return sk_stream_is_writeable(sk);
}

/**
 * kiw_tx_fill - fill a batch with the FPDUs that go next
 * @qp: the QP
 * @mss: the socket's EMSS now (MULPDU follows it)
 * @space: octets the socket can take now
 *
 * Return: the number of FPDUs in the batch; 0 if there is nothing to send
 * (or only local operations ran).
 */
unsigned int kiw_tx_fill(struct kiw_qp *qp, u32 mss, int space)
{
	struct kiw_tx *tx = &qp->tx;

	kiw_tx_mss(tx, mss);
	kiw_txb_begin(tx->b, max(space, 0), mss);
	while (kiw_txb_room(tx->b, tx->fpdu_max)) {
		if (tx->cur.kind == KIW_TXM_NONE && !kiw_tx_next_msg(qp))
			break;
		if (kiw_tx_seg(qp))
			break;
	}
	if (tx->cur.kind != KIW_TXM_NONE)
		kiw_txb_stopped_short(tx->b, tx->fpdu_max);
	/*
	 * A message that failed in its first FPDU (a region invalidated
	 * since the SQ's check) may hold region references, and there is no
	 * batch to send that would drop them: drop them now.
	 */
	if (!tx->b->nr_fpdu)
		kiw_txb_put_refs(tx->b);
	return tx->b->nr_fpdu;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_tx_fill);

/* Send the batch; then what ended in it is done. */
static int kiw_tx_commit(struct kiw_qp *qp, struct socket *sock)
{
	int ret;

	ret = kiw_txb_send(qp->tx.b, sock, qp->tx.cur.kind != KIW_TXM_NONE);
	if (!ret)
		kiw_tx_batch_done(qp);
	return ret;
}

/**
 * kiw_tx_build_term - put the Terminate for qp->term in an empty batch
 * @qp: the QP, in TERMINATE
 *
 * The headers kiw_tx_terminate() kept go in if they belong to this error
 * (another layer may have terminated the QP first).
 *
 * Return: 0, or a negative errno (a bug).
 */
int kiw_tx_build_term(struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;
	struct kiw_txb *b = tx->b;
	u8 hdr[sizeof(tx->term_hdr)];
	unsigned int hdr_len = 0, len;
	unsigned long flags;
	kiw_term_t term;
	u16 seg_len = 0;
	u8 *h;
	int n;

	spin_lock_irqsave(&qp->state_lock, flags);
	term = qp->term;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	spin_lock_bh(&tx->lock);
	if (tx->term == term) {
		hdr_len = tx->term_hdr_len;
		memcpy(hdr, tx->term_hdr, hdr_len);
		seg_len = tx->term_seg_len;
	}
	spin_unlock_bh(&tx->lock);

	kiw_txb_begin(b, KIW_TXB_BYTES, tx->mss);
	h = kiw_txb_hdr(b);
	kiw_ddp_build_untagged((struct kiw_ddp_untagged_hdr *)h,
			       kiw_rdmap_ctrl(KIW_RDMAP_TERMINATE), 0,
			       KIW_DDP_QN_TERMINATE,
			       tx->msn[KIW_DDP_QN_TERMINATE]++, 0, true);
	len = kiw_rdmap_term_build((struct kiw_rdmap_term *)
				   (h + KIW_DDP_HDR_MAX_LEN), term,
				   hdr_len ? hdr : NULL, hdr_len, seg_len);
	n = kiw_txb_add(b, tx->off, tx->markers, tx->crc,
			KIW_DDP_HDR_MAX_LEN + len);
	if (n < 0)
		return n;
	tx->off += n;
	kiw_stats_tx_fpdu(qp->kdev, b);
	kiw_stats_term(qp->kdev, term, true);
	trace_kiw_fpdu_tx(qp, b, NULL, 0);
	trace_kiw_term_tx(qp, term);
	tx->term_sent = true;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_tx_build_term);

/* The connection is gone under us: the QP cannot go on. */
static int kiw_tx_broken(struct kiw_qp *qp, int err)
{
	ibdev_dbg(&qp->kdev->ibdev, "QP %u: send failed: %d\n",
		  qp->base.qp_num, err);
	kiw_qp_error(qp);
	return 0;
}

/*
 * Nothing left to send (kiw_tx_fill() found no message): is that because
 * everything posted is out, or because the SQ waits (ORD, fence, too many
 * in flight)? Only the TX work asks, between batches.
 */
static bool kiw_tx_drained(struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;

	if (tx->cur.kind != KIW_TXM_NONE || tx->b->spill_len ||
	    kiw_rdq_head(&tx->irq_q) >= 0)
		return false;	/* a Read Response still to send or in flight */
	return !kiw_sq_posted(qp, tx->txc.tail);
}

/*
 * ERROR: nothing more goes out; the flush completed the SQ. A graceful
 * close still in progress (modify to ERR while CLOSING) may now send its
 * FIN, unless TCP holds only part of a batch: the peer would find an
 * FPDU cut short, so that close ends abortively. The CM takes either
 * report only while it waits for one.
 */
static void kiw_tx_halt(struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;

	kiw_qp_report(qp, tx->b->spill_len ? KIW_QP_REPORT_ABORT :
					     KIW_QP_REPORT_DRAINED);
	tx->cur.kind = KIW_TXM_NONE;
	tx->b->spill_len = 0;
	tx->b->spill_off = 0;
	kiw_txb_put_refs(tx->b);
	spin_lock_bh(&tx->lock);
	tx->txc.head = tx->txc.tail;
	spin_unlock_bh(&tx->lock);
}

/*
 * One run: at most @budget batches. Return: -EAGAIN when the budget ran
 * out with work left, 0 when there is nothing to do until the next kick.
 * The caller holds @run_lock.
 */
static int kiw_tx_run(struct kiw_qp *qp, unsigned int budget)
{
	struct kiw_tx *tx = &qp->tx;
	enum kiw_qp_state state;
	struct socket *sock;
	int ret;

	lockdep_assert_held(&tx->run_lock);
	sock = READ_ONCE(tx->sock);
	if (READ_ONCE(tx->stop) || !sock)
		return 0;
	for (;;) {
		state = kiw_qp_state(qp);
		if (state == KIW_QP_ERROR) {
			kiw_tx_halt(qp);
			return 0;
		}
		ret = kiw_txb_push_spill(tx->b, sock);
		if (ret == -EAGAIN)
			return 0;	/* sk_write_space kicks us */
		if (ret)
			return kiw_tx_broken(qp, ret);
		if (state == KIW_QP_TERMINATE) {
			if (!tx->term_sent) {
				ret = kiw_tx_build_term(qp);
				if (!ret)
					ret = kiw_txb_send(tx->b, sock, false);
				if (ret)
					return kiw_tx_broken(qp, ret);
				continue;	/* push what TCP left */
			}
			kiw_tx_reap(qp);
			kiw_qp_error(qp);	/* flush, then the CM aborts */
			return 0;
		}
		if (state == KIW_QP_IDLE || READ_ONCE(tx->hold))
			return 0;
		if (!budget--)
			return -EAGAIN;
		if (!kiw_tx_writeable(sock->sk))
			return 0;
		if (!kiw_tx_fill(qp, READ_ONCE(tcp_sk(sock->sk)->mss_cache),
				 sk_stream_wspace(sock->sk))) {
			kiw_tx_reap(qp);	/* local operations */
			if (state == KIW_QP_CLOSING && kiw_tx_drained(qp))
				kiw_qp_report(qp, KIW_QP_REPORT_DRAINED);
			return 0;
		}
		ret = kiw_tx_commit(qp, sock);
		if (ret)
			return kiw_tx_broken(qp, ret);
	}
}

static void kiw_tx_work(struct work_struct *work)
{
	struct kiw_tx *tx = container_of(work, struct kiw_tx, work);
	struct kiw_qp *qp = container_of(tx, struct kiw_qp, tx);
	int ret;

	mutex_lock(&tx->run_lock);
	ret = kiw_tx_run(qp, KIW_TX_BUDGET);
	mutex_unlock(&tx->run_lock);
	if (ret == -EAGAIN && queue_work(kiw_tx_wq, work))
		return;			/* the reference goes with it */
	kiw_qp_put(qp);
}

/**
 * kiw_tx_doorbell - libsiw rang the doorbell: send from the caller
 * @qp: a user QP
 *
 * The poster's system call sends what it posted itself, unless a run is
 * going on (the work, or another thread's doorbell): then the work is
 * queued, and runs once that one is done. With busy-polling ping-pong
 * peers, handing the message to a worker costs a wakeup, two context
 * switches and, when the worker last ran on the other CPU, an IPI, on
 * every message (on this path, one of each per half round trip).
 *
 * Context: process context (the ib_uverbs system call), may sleep; no
 * kiw lock held.
 */
void kiw_tx_doorbell(struct kiw_qp *qp)
{
	struct kiw_tx *tx = &qp->tx;
	int ret;

	might_sleep();
	if (!mutex_trylock(&tx->run_lock)) {
		kiw_tx_kick(qp);	/* after the run that holds it */
		return;
	}
	ret = kiw_tx_run(qp, KIW_TX_DOORBELL_BUDGET);
	mutex_unlock(&tx->run_lock);
	if (ret == -EAGAIN)
		kiw_tx_kick(qp);
}
