/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw transmit engine: SQ work, Read Responses, Terminates and the RFC
 * 6581 RTR message to FPDUs on the socket (kiw_tx.c), through a batch of
 * FPDUs per sendmsg() (kiw_tx_batch.c).
 *
 * Context. One work item per QP on the module's unbound workqueue
 * (kiw_tx_wq); work is queued by kiw_tx_kick(): post_send, the RX (a Read
 * Request to answer, a Read completed, the first FPDU received, an error
 * to report), sk_write_space, and the state changes of kiw_qp.c. A run
 * sends at most KIW_TX_BUDGET batches, then queues itself again so that
 * other QPs get their turn. libsiw's doorbell (a user QP) runs the engine
 * itself, in the poster's system call, for at most two batches, and
 * kicks the work for the rest, or when a run is going on already
 * (kiw_tx_doorbell()). Every field below not marked otherwise belongs to
 * the holder of @run_lock: the work item or a doorbell.
 *
 * Order on the wire, each time the work looks for the next FPDU:
 *   1. what a previous batch left in the spill buffer (the rest of a
 *      partly sent FPDU: its octets must go out exactly as announced);
 *   2. the Terminate, once the QP is in TERMINATE; then kiw_qp_error();
 *   3. nothing while the responder waits for the initiator's first FPDU;
 *   4. the initiator's RTR message;
 *   5. Read Responses and SQ messages, alternating message by message.
 *
 * Graceful close: in CLOSING the TX goes on until everything posted
 * before, and every Read Response owed, is in TCP's hands; each run that
 * then finds nothing left reports KIW_QP_REPORT_DRAINED (kiw_qp_report()),
 * and the CM sends its FIN (kiw_llp.h).
 */
#ifndef KIW_TX_H
#define KIW_TX_H

#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "kiw_ddp.h"
#include "kiw_mpa.h"
#include "kiw_read.h"
#include "kiw_wqe.h"

struct kiw_llp_params;
struct kiw_qp;
struct kiw_txb;

/* What the message being cut into segments is. */
enum kiw_txm_kind {
	KIW_TXM_NONE,
	KIW_TXM_SQ,		/* the SQ work request in kiw_tx.sqe */
	KIW_TXM_RRESP,		/* the Read Response to the IRQ's head */
	KIW_TXM_RTR,		/* RFC 6581 ready-to-receive */
};

/* Where a message's payload comes from. */
enum kiw_txm_src {
	KIW_TXS_NONE,		/* zero-length */
	KIW_TXS_SGL,		/* kiw_tx.sqe's SGEs (lkeys) */
	KIW_TXS_INLINE,		/* kiw_tx.sqe's inline data */
	KIW_TXS_RREQ,		/* a Read Request header built from @rr */
	KIW_TXS_SOURCE,		/* a Read source: @rr.src_stag, @rr.src_to */
};

struct kiw_txm {
	enum kiw_txm_kind kind;
	enum kiw_txm_src src;
	u8 rdmap_ctrl;
	bool tagged;
	u32 stag;		/* tagged: sink STag */
	u64 to;			/* tagged: TO of the message's first octet */
	u32 qn;			/* untagged */
	u32 msn;
	u32 ulp_word;		/* Send with Invalidate: the STag */
	u32 sq_pos;		/* KIW_TXM_SQ: its SQ position */
	struct kiw_rdmap_rreq rr;	/* KIW_TXS_RREQ, KIW_TXS_SOURCE */
	struct kiw_ddp_segmenter seg;
	/* KIW_TXS_SGL: the next octet's SGE and offset in it */
	u8 sge;
	u32 sge_off;
};

/* Per-QP transmit state, embedded in struct kiw_qp. */
struct kiw_tx {
	struct work_struct work;
	/*
	 * Held by whoever sends: the work item, or libsiw's doorbell in the
	 * poster's system call (kiw_tx_doorbell()). The fields below that
	 * "belong to the work item" belong to the holder of this lock.
	 */
	struct mutex run_lock;

	/*
	 * The attached socket: set by kiw_llp_attach() before the callbacks
	 * are switched, cleared by kiw_llp_detach() after the work item was
	 * cancelled, both under @run_lock. A run reads it once.
	 */
	struct socket *sock;
	bool stop;		/* detaching: the work must not send (WRITE_ONCE) */

	/* The connection, fixed from attach to detach. */
	bool crc;
	bool markers;
	enum kiw_rtr rtr;	/* initiator: the RTR still to send */
	/* The responder sends nothing until the RX clears this (WRITE_ONCE). */
	bool hold;
	bool term_sent;		/* the Terminate is in TCP's hands */

	/* Stream and segmentation. */
	u32 off;		/* stream offset of the next octet (markers) */
	u32 mss;		/* the EMSS @mulpdu was derived from */
	u32 mss_max;		/* the peer's MSS: bounds @mss (spill size) */
	unsigned int mulpdu;
	unsigned int fpdu_max;	/* wire octets of an FPDU of @mulpdu */
	u32 msn[KIW_DDP_QN_COUNT];	/* next MSN per queue */
	struct kiw_sqe sqe;	/* the SQ work request of @cur, copied */
	struct kiw_txc_rec *txc_rec;	/* @txc's records */
	struct kiw_txm cur;
	bool prefer_irq;	/* alternate Read Responses and SQ messages */
	struct kiw_txb *b;	/* FPDUs being put out (kiw_tx_batch.c) */

	/*
	 * RDMA Reads (kiw_read.h). ORQ: produced here, consumed by the RX;
	 * IRQ: produced by the RX, consumed here. @orq_wait: the work is
	 * waiting for the ORQ (ORD reached, or a fence): the RX kicks it
	 * when it frees an entry.
	 */
	struct kiw_orqe *orq;
	struct kiw_rdq orq_q;
	struct kiw_irqe *irq;
	struct kiw_rdq irq_q;
	u32 orq_num;		/* entries allocated (kiw_tx_attach()) */
	u32 irq_num;
	u32 irq_started;	/* the IRQ entry being answered (0 or 1) */
	bool orq_wait;

	/*
	 * Protects txc and reaping (send completion order, kiw_read.h) and
	 * the Terminate details below. Taken with BH off: the TX work and
	 * the RX (softirq or process context) both mark and complete.
	 * Nothing is taken under it; completions are written after it is
	 * released.
	 */
	spinlock_t lock;
	struct kiw_txc txc;
	bool reaping;		/* one context writes completions at a time */
	/* The first error's offending headers, for its Terminate. */
	kiw_term_t term;
	u8 term_hdr[KIW_DDP_HDR_MAX_LEN + sizeof(struct kiw_rdmap_read_req)];
	u8 term_hdr_len;
	u16 term_seg_len;
};

/* Called by create_qp once the QP is set up, before it is published. */
void kiw_tx_qp_init(struct kiw_qp *qp);

/*
 * Called by destroy_qp (kiw_qp_verbs.c) when the QP's last reference is
 * gone, before its rings are freed. Process context.
 */
void kiw_tx_qp_release(struct kiw_qp *qp);

/* kiw_tx_kick(): an inline in kiw_qp.h, for the layers below the TX. */

/*
 * libsiw's doorbell on a user QP in RTS: sends from the caller's system
 * call what it can at once, or kicks the work. Process context, may
 * sleep; no kiw lock held.
 */
void kiw_tx_doorbell(struct kiw_qp *qp);

/* kiw_tx.c, for kiw_llp.c */
int kiw_tx_attach(struct kiw_qp *qp, const struct kiw_llp_params *p);
bool kiw_tx_wanted(struct kiw_qp *qp);
void kiw_tx_detach(struct kiw_qp *qp);

/*
 * kiw_tx_comp.c: the end of work requests, for the engine (kiw_tx.c), the
 * messages (kiw_tx_msg.c) and the RX.
 */
void kiw_tx_read_done(struct kiw_qp *qp, const struct kiw_orqe *orqe,
		      enum ib_wc_status status);
void kiw_tx_charge(struct kiw_qp *qp, enum ib_wc_status status);
void kiw_tx_reap(struct kiw_qp *qp);
void kiw_tx_terminate(struct kiw_qp *qp, kiw_term_t term,
		      enum ib_event_type event, const void *hdr,
		      unsigned int hdr_len, u16 seg_len);
void kiw_tx_done(struct kiw_qp *qp, u32 pos, enum ib_wc_status status);
void kiw_tx_wqe_fail(struct kiw_qp *qp, u32 pos, enum ib_wc_status status);
void kiw_tx_batch_done(struct kiw_qp *qp);

/* Sizes of the per-connection state (kiw_tx_attach()). */
unsigned int kiw_tx_spill_size(u32 mss_max, bool markers);
u32 kiw_tx_rdq_size(u32 ord_ird);

/*
 * The engine without the socket (KUnit drives it so, with
 * kiw_tx_batch_done() above).
 */
unsigned int kiw_tx_fill(struct kiw_qp *qp, u32 mss, int space);
int kiw_tx_build_term(struct kiw_qp *qp);

/* kiw_tx_msg.c, for kiw_tx.c: the next message, and its segments. */
bool kiw_tx_next_msg(struct kiw_qp *qp);
int kiw_tx_seg(struct kiw_qp *qp);
void kiw_tx_seg_trim(struct kiw_ddp_segmenter *s, struct kiw_ddp_seg *seg,
		     u32 len);

#endif /* KIW_TX_H */
