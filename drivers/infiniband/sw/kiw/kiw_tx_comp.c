// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw transmit engine, the end of work requests (see kiw_tx.h): the SQ's
 * completion order (kiw_read.h), a batch's messages done, a Read
 * answered, a request failed locally or charged with the peer's
 * Terminate, and the details of the Terminate the TX sends next. Below
 * the messages (kiw_tx_msg.c) and the engine (kiw_tx.c), which both end
 * work requests; the RX too. It calls only the work queues and the state
 * machine below it.
 */
#include <kunit/visibility.h>

#include "kiw_qp.h"
#include "kiw_tx_batch.h"

#define KIW_TERM_LOCAL_CATASTROPHIC \
	KIW_TERM(KIW_TERM_LAYER_RDMAP, KIW_RDMAP_ETYPE_CATASTROPHIC, \
		 KIW_RDMAP_ECODE_CATASTROPHIC)

/* ---- Completions in SQ order ---- */

static void kiw_tx_complete(struct kiw_qp *qp, const struct kiw_txc_rec *rec,
			    u32 pos)
{
	struct kiw_sqe sqe = {
		.id = rec->id,
		.pos = pos,
		.opcode = rec->opcode,
		.flags = rec->flags,
	};

	if (kiw_sq_complete(qp, &sqe, rec->status, rec->bytes))
		kiw_qp_error(qp);	/* CQ overflow */
}

/*
 * libsiw rings the doorbell only when the last entry before the ones it
 * just wrote is no longer valid, i.e. when it thinks kiw has gone idle on
 * the SQ; kiw keeps entries valid until they complete. So whoever frees an
 * entry looks at the next one the TX has not taken: if it is posted, the
 * TX may never have been told. The barrier orders our free before that
 * look, as libsiw's C11 atomics order its store before its look at our
 * entry: one of the two sides sees the other's store.
 */
static void kiw_tx_sq_recheck(struct kiw_qp *qp, u32 tail)
{
	smp_mb();	/* pairs with libsiw's seq_cst store and load */
	if (kiw_sq_posted(qp, tail))
		kiw_tx_kick(qp);
}

/* Records a reaper takes out of the ring in one locked section. */
#define KIW_TX_REAP_BATCH	8

/*
 * kiw_tx_reap() entered with the TX lock held (taken with BHs off), so
 * that whoever just marked a record done completes it in the same locked
 * section; the lock is released on return.
 */
static void kiw_tx_reap_unlock(struct kiw_qp *qp)
	__releases(&qp->tx.lock)
{
	struct kiw_txc_rec rec[KIW_TX_REAP_BATCH];
	u32 pos[KIW_TX_REAP_BATCH];
	struct kiw_tx *tx = &qp->tx;
	unsigned int i, n;
	bool freed = false;
	u32 tail;

	lockdep_assert_held(&tx->lock);
	if (tx->reaping || !tx->txc.rec) {
		spin_unlock_bh(&tx->lock);
		return;
	}
	tx->reaping = true;
	for (;;) {
		for (n = 0; n < KIW_TX_REAP_BATCH; n++)
			if (!kiw_txc_pop(&tx->txc, &rec[n], &pos[n]))
				break;
		if (!n)
			break;
		spin_unlock_bh(&tx->lock);
		for (i = 0; i < n; i++)
			kiw_tx_complete(qp, &rec[i], pos[i]);
		freed = true;
		spin_lock_bh(&tx->lock);
	}
	tx->reaping = false;
	tail = tx->txc.tail;
	spin_unlock_bh(&tx->lock);
	if (freed && qp->user)
		kiw_tx_sq_recheck(qp, tail);
}

/**
 * kiw_tx_reap - complete the finished work requests at the SQ's head
 * @qp: the QP
 *
 * Called by whoever finished one (TX work, RX). Only one context writes
 * completions at a time, so that they reach the CQ in SQ order; another
 * one arriving meanwhile leaves its record to the one at work, which
 * looks again each time it retakes the lock. Records are taken out a few
 * at a time (in SQ order) and completed outside the lock.
 *
 * Context: process or softirq context, no kiw lock held.
 */
void kiw_tx_reap(struct kiw_qp *qp)
{
	spin_lock_bh(&qp->tx.lock);
	kiw_tx_reap_unlock(qp);
}

void kiw_tx_done(struct kiw_qp *qp, u32 pos, enum ib_wc_status status)
{
	struct kiw_tx *tx = &qp->tx;

	spin_lock_bh(&tx->lock);
	kiw_txc_done(&tx->txc, pos, status);
	spin_unlock_bh(&tx->lock);
}

/* kiw_tx_done() and kiw_tx_reap() in one locked section. */
static void kiw_tx_done_reap(struct kiw_qp *qp, u32 pos,
			     enum ib_wc_status status)
{
	spin_lock_bh(&qp->tx.lock);
	kiw_txc_done(&qp->tx.txc, pos, status);
	kiw_tx_reap_unlock(qp);
}

/**
 * kiw_tx_read_done - the RX placed the last segment of a Read Response
 * @qp: the QP
 * @orqe: the ORQ entry it answered (the RX pops it after this)
 * @status: the Read's completion status
 */
void kiw_tx_read_done(struct kiw_qp *qp, const struct kiw_orqe *orqe,
		      enum ib_wc_status status)
{
	if (orqe->rtr)
		return;
	kiw_tx_done_reap(qp, orqe->sq_pos, status);
}

/**
 * kiw_tx_charge - a Terminate from the peer: fail the oldest open request
 * @qp: the QP
 * @status: the status kiw_term_report() gives it
 *
 * The rest are flushed when the QP enters ERROR right after.
 */
void kiw_tx_charge(struct kiw_qp *qp, enum ib_wc_status status)
{
	struct kiw_tx *tx = &qp->tx;
	u32 pos;

	spin_lock_bh(&tx->lock);
	if (tx->txc.rec && !kiw_txc_oldest_open(&tx->txc, &pos))
		kiw_txc_done(&tx->txc, pos, status);
	kiw_tx_reap_unlock(qp);
}

/**
 * kiw_tx_terminate - the data path found an error: terminate the stream
 * @qp: the QP
 * @term: the error for the Terminate message
 * @event: the QP's async event
 * @hdr: the offending segment's DDP header, and its Read Request header
 *	for a Read Request, as received (or rebuilt); NULL if none
 * @hdr_len: octets at @hdr
 * @seg_len: the offending segment's ULPDU_Length
 *
 * Only the first error counts (kiw_qp_terminate()); its headers are kept
 * for the Terminate the TX sends next.
 *
 * Context: any but hard interrupt; no kiw lock held.
 */
void kiw_tx_terminate(struct kiw_qp *qp, kiw_term_t term,
		      enum ib_event_type event, const void *hdr,
		      unsigned int hdr_len, u16 seg_len)
{
	struct kiw_tx *tx = &qp->tx;

	ibdev_warn_ratelimited(&qp->kdev->ibdev,
			       "QP %u: terminating: layer %u type %u code 0x%02x\n",
			       qp->base.qp_num, kiw_term_layer(term),
			       kiw_term_etype(term), kiw_term_ecode(term));
	if (hdr)
		ibdev_dbg(&qp->kdev->ibdev, "QP %u: offending header %*ph\n",
			  qp->base.qp_num, (int)min(hdr_len, 46U), hdr);
	spin_lock_bh(&tx->lock);
	if (!tx->term) {
		tx->term = term;
		tx->term_hdr_len = hdr ? min_t(unsigned int, hdr_len,
					       sizeof(tx->term_hdr)) : 0;
		memcpy(tx->term_hdr, hdr, tx->term_hdr_len);
		tx->term_seg_len = seg_len;
	}
	spin_unlock_bh(&tx->lock);
	kiw_qp_terminate(qp, term, event);
}

/* A work request failed locally: it completes with @status, the QP ends. */
void kiw_tx_wqe_fail(struct kiw_qp *qp, u32 pos, enum ib_wc_status status)
{
	ibdev_dbg(&qp->kdev->ibdev, "QP %u: SQ entry %u failed: %s\n",
		  qp->base.qp_num, pos, ib_wc_status_msg(status));
	kiw_tx_done_reap(qp, pos, status);
	kiw_tx_terminate(qp, KIW_TERM_LOCAL_CATASTROPHIC, IB_EVENT_QP_FATAL,
			 NULL, 0, 0);
}

/*
 * The batch is in TCP's hands: the messages that ended in it are done,
 * and completed, in one locked section.
 */
void kiw_tx_batch_done(struct kiw_qp *qp)
{
	struct kiw_txb *b = qp->tx.b;
	unsigned int i;

	spin_lock_bh(&qp->tx.lock);
	for (i = 0; i < b->nr_end; i++)
		kiw_txc_done(&qp->tx.txc, b->end[i].pos, IB_WC_SUCCESS);
	b->nr_end = 0;
	kiw_tx_reap_unlock(qp);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_tx_batch_done);
