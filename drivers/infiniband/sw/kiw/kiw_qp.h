/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw queue pairs: the object, its work queues, and the iWARP QP state
 * machine (RDMAC verbs: IDLE, RTS, CLOSING, TERMINATE, ERROR) as IB
 * consumers see it.
 *
 * Work queues. The SQ and RQ are rings of struct siw_sqe / siw_rqe. For a
 * user QP they are mapped into the process and libsiw writes them: an
 * entry is posted when its flags word gets SIW_WQE_VALID (its last store),
 * and it stays VALID, owned by kiw, until kiw completes it. A kernel QP
 * uses the same rings, filled by kiw_post_send()/kiw_post_recv(). Ring
 * positions are free-running u32 counters; entry = pos & (num - 1).
 *
 *   get   oldest entry not yet completed (kiw_wq.lock; the TX reads the
 *         SQ's without it, kiw_sq_fetch())
 *   put   kernel QPs: next entry post_* fills (kiw_wq.lock)
 *   tx.next / the RX's current receive: owned by the data path
 *
 * The data path never reads a ring entry twice: kiw_sq_fetch() and
 * kiw_rq_fetch() copy it into a struct kiw_sqe / kiw_rqe and validate the
 * copy (opcode, SGE count, lengths); the copy is what it works from, and
 * what it hands back to kiw_sq_complete()/kiw_rq_complete(). Completions
 * are written in ring order; a completion for an entry that a flush has
 * already completed is ignored, so the data path need not race with
 * flushing.
 *
 * States and what moves them:
 *
 *   IDLE      created; modify to RESET/INIT/RTR keeps it here (rdma_cm),
 *             in IB's order; query_qp reports the IB state last asked for
 *   RTS       the CM, when MPA completes: kiw_qp_llp_established()
 *   CLOSING   modify to SQD (iw_cm graceful disconnect): the QP reports
 *             KIW_QP_REPORT_CLOSE to the CM
 *   TERMINATE the data path found an error: kiw_qp_terminate(); the TX
 *             sends the Terminate, then the CM closes abortively
 *   ERROR     modify to ERR (iw_cm abortive disconnect, ib_drain_qp; from
 *             CLOSING the close stays graceful), a
 *             received Terminate (kiw_qp_peer_terminate()), or the LLP
 *             closed (kiw_qp_llp_closed()); every outstanding WR is
 *             flushed (IB_WC_WR_FLUSH_ERR, in order), and WRs posted
 *             later complete the same way at once.
 *
 * Lifetime: a QP is counted (kref). The verbs object holds one reference,
 * iw_cm holds one between iw_add_ref and iw_rem_ref, the CM endpoint and
 * queued TX work hold theirs; destroy_qp drops the verbs reference and
 * waits for the others, because the RDMA core frees the memory as soon as
 * destroy_qp returns.
 */
#ifndef KIW_QP_H
#define KIW_QP_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>
#include <kiw/rdmap.h>

#include "kiw.h"
#include "kiw_cq.h"
#include "kiw_ring.h"
#include "kiw_sock.h"
#include "kiw_rx.h"
#include "kiw_tx.h"
#include "kiw_wqe.h"

struct kiw_cep;
struct kiw_srq;
struct kiw_mr;

enum kiw_qp_state {
	KIW_QP_IDLE,
	KIW_QP_RTS,
	KIW_QP_CLOSING,
	KIW_QP_TERMINATE,
	KIW_QP_ERROR,
	KIW_QP_STATE_COUNT
};

/* What a state change asks of the other layers (a bit mask). */
enum kiw_qp_action {
	KIW_QP_ACT_NONE = 0,
	KIW_QP_ACT_CLOSE = 1 << 0,	/* graceful close of the connection */
	KIW_QP_ACT_ABORT = 1 << 1,	/* abortive close of the connection */
	KIW_QP_ACT_FLUSH = 1 << 2,	/* flush all outstanding work */
};

/* One work queue (SQ or RQ) ring. */
struct kiw_wq {
	/*
	 * Protects get, put and kiw's writes to ring entries' flags
	 * (completing an entry frees it). Taken with interrupts off: posts
	 * come from any context, completions from softirq and process
	 * context. Nests outside kiw_cq.lock.
	 */
	spinlock_t lock;
	u32 get;
	u32 put;
	u32 num;		/* entries, a power of two */
	void *ring;		/* struct siw_sqe[] or struct siw_rqe[] */
	struct rdma_user_mmap_entry *entry;
};

/*
 * What the data path reports to the connection owning the QP's socket.
 * The CM consumes these as events (its hook only posts them); the data
 * path never calls into the CM.
 */
enum kiw_qp_report {
	/*
	 * Close gracefully: once the SQ has drained, a FIN (modify to SQD).
	 * The TX answers with KIW_QP_REPORT_DRAINED.
	 */
	KIW_QP_REPORT_CLOSE,
	/*
	 * Close abortively (modify to ERR, a Terminate, destroy_qp): a RST,
	 * or after a Terminate we sent, a FIN behind it. Also aborts a
	 * connection attempt the QP is bound to. destroy_qp reports this,
	 * then waits for every QP reference, including iw_cm's, which iw_cm
	 * drops only at IW_CM_EVENT_CLOSE: so the CM ends an abortive close
	 * with IW_CM_EVENT_CLOSE promptly, without waiting for the peer.
	 */
	KIW_QP_REPORT_ABORT,
	/* The TX has nothing left to send: a graceful close may go on. */
	KIW_QP_REPORT_DRAINED,
};

struct kiw_qp {
	struct ib_qp base;
	struct kiw_device *kdev;
	struct kiw_pd *pd;
	struct kiw_cq *scq;
	struct kiw_cq *rcq;
	struct kiw_srq *srq;		/* or NULL: the QP has its own RQ */
	bool user;			/* rings written by libsiw */

	struct kref ref;
	struct completion released;	/* the last reference is gone */

	/*
	 * Protects state, idle_ib_state, term, cep, report and the
	 * attributes set by modify_qp (access, ord, ird). Taken with
	 * interrupts off: state changes come from the RX softirq, the TX
	 * work, the CM and verbs. Nothing else is taken under it but what
	 * @report does (it only posts); kiw_tx_kick() is called after it is
	 * released.
	 */
	spinlock_t state_lock;
	enum kiw_qp_state state;
	enum ib_qp_state idle_ib_state;	/* RESET, INIT or RTR, while IDLE */
	kiw_term_t term;		/* first local error, for the Terminate */
	struct kiw_cep *cep;		/* owned by the CM */
	/* The CM's, set with @cep: it takes kiw_qp_report()'s reports. */
	void (*report)(struct kiw_cep *cep, enum kiw_qp_report what);
	u32 access;			/* IB_ACCESS_* modify_qp set */
	u32 ord;			/* outbound RDMA Reads, <= KIW_MAX_ORD */
	u32 ird;			/* inbound RDMA Reads, <= KIW_MAX_IRD */

	/* Fixed at creation: what query_qp reports and posts are held to. */
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline;
	bool sq_sig_all;

	struct kiw_wq sq;
	struct kiw_wq rq;
	/* The receive WR taken from the SRQ for the current message. */
	struct kiw_rqe srq_wqe;		/* under rq.lock */
	bool srq_wqe_active;		/* under rq.lock */

	struct kiw_tx tx;		/* owned by the data path (kiw_tx.h) */
	struct kiw_rx rx;		/* owned by the data path (kiw_rx.h) */
	/* The CM's callbacks, while the data path has the socket (kiw_llp.c). */
	struct kiw_sock_cbs llp_saved;
};

static inline struct kiw_qp *to_kiw_qp(struct ib_qp *qp)
{
	return container_of(qp, struct kiw_qp, base);
}

static inline enum kiw_qp_state kiw_qp_state(const struct kiw_qp *qp)
{
	return READ_ONCE(qp->state);
}

/* Pure (KUnit) */
int kiw_qp_transition(enum kiw_qp_state cur, enum ib_qp_state idle,
		      enum ib_qp_state req, enum kiw_qp_state *next,
		      unsigned int *actions);
enum ib_qp_state kiw_qp_ib_state(enum kiw_qp_state state,
				 enum ib_qp_state idle_ib_state);

/* Work request entries (kiw_wqe.c, pure; KUnit) */
u32 kiw_wq_size(u32 wr);
int kiw_sqe_copy(const struct siw_sqe *slot, bool kernel_qp, u32 max_sge,
		 u32 max_inline, struct kiw_sqe *sqe);
int kiw_rqe_copy(const struct siw_rqe *slot, u32 max_sge,
		 struct kiw_rqe *rqe);
int kiw_rqe_from_wr(const struct ib_recv_wr *wr, u32 max_sge,
		    struct siw_rqe *slot);
enum ib_wc_opcode kiw_wc_opcode(u8 siw_opcode);

/* References (iw_cm's add_ref/rem_ref, the CM endpoint, TX work). */
void kiw_qp_get(struct kiw_qp *qp);
void kiw_qp_put(struct kiw_qp *qp);
struct kiw_qp *kiw_qp_from_num(struct kiw_device *kdev, u32 qpn);

/* Events and state changes from the CM and the data path; never sleep. */
void kiw_qp_event(struct kiw_qp *qp, enum ib_event_type type);
int kiw_qp_llp_established(struct kiw_qp *qp);
void kiw_qp_llp_closed(struct kiw_qp *qp, bool error);
void kiw_qp_terminate(struct kiw_qp *qp, kiw_term_t term,
		      enum ib_event_type event);
void kiw_qp_peer_terminate(struct kiw_qp *qp, enum ib_event_type event);
void kiw_qp_error(struct kiw_qp *qp);
void kiw_qp_report(struct kiw_qp *qp, enum kiw_qp_report what);

/*
 * Work queues for the data path (kiw_wq.c). Never sleep; never change the
 * QP's state.
 *
 * kiw_sq_posted() is a WR posted at SQ position @pos, not yet taken?
 *                 False while @pos's slot still holds the WR a ring
 *                 before it (a full SQ: that one is in flight).
 * kiw_sq_fetch()  copy and validate the SQ entry at @pos: 0; -ENOENT if
 *                 nothing is posted there (as kiw_sq_posted()); -EINVAL
 *                 if the entry is malformed: @sqe has its id and pos,
 *                 complete it with IB_WC_LOC_QP_OP_ERR and move the QP
 *                 to error.
 * kiw_sq_complete() complete the oldest SQ WR (@sqe->pos must be sq.get):
 *                 a CQE if signalled or failed, then its entry is freed.
 *                 -ENOSPC: the CQ overflowed; the caller moves the QP to
 *                 error (kiw_qp_error()).
 * kiw_rq_fetch()  the receive WR for the next incoming Send: the RQ head
 *                 (left in the ring until completed) or one taken from
 *                 the SRQ; -ENOENT if none is posted, -EINVAL as above
 *                 (complete with IB_WC_LOC_LEN_ERR).
 * kiw_rq_complete() complete it; @wc carries status, byte_len, solicited,
 *                 and invalidated/inval_stag for a Send with Invalidate
 *                 (wr_id, opcode and qp are filled in here). -ENOSPC as
 *                 for kiw_sq_complete().
 *
 * When the data path detects an error it calls kiw_qp_terminate(): the QP
 * enters TERMINATE, the consumer gets @event, and the TX is kicked; the TX
 * sends one Terminate carrying qp->term, then calls kiw_qp_error(), which
 * flushes and asks the CM for an abortive close.
 */
bool kiw_sq_posted(struct kiw_qp *qp, u32 pos);
int kiw_sq_fetch(struct kiw_qp *qp, u32 pos, struct kiw_sqe *sqe);
int kiw_sq_complete(struct kiw_qp *qp, const struct kiw_sqe *sqe,
		    enum ib_wc_status status, u32 bytes);
int kiw_rq_fetch(struct kiw_qp *qp, struct kiw_rqe *rqe);
int kiw_rq_complete(struct kiw_qp *qp, const struct kiw_rqe *rqe,
		    struct kiw_wc *wc);

/* Verbs (kiw_qp_verbs.c; modify_qp: kiw_qp.c; posting: kiw_post.c) */
int kiw_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata);
int kiw_destroy_qp(struct ib_qp *qp, struct ib_udata *udata);
int kiw_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int kiw_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int kiw_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int kiw_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);
void kiw_iw_add_ref(struct ib_qp *qp);
void kiw_iw_rem_ref(struct ib_qp *qp);
struct ib_qp *kiw_iw_get_qp(struct ib_device *ibdev, int qpn);

/* Flushing (kiw_wq.c), for the state machine and posting. */
void kiw_sq_flush_locked(struct kiw_qp *qp, bool *notify);
void kiw_rq_flush_locked(struct kiw_qp *qp, bool *notify);
int kiw_wq_flush_one(struct kiw_qp *qp, struct kiw_cq *cq, u64 wr_id,
		     enum ib_wc_opcode opcode, bool *notify);

/*
 * Hand the SQ's oldest entry, @slot, back to its poster and move @get past
 * it: the free before @get moves (kiw_sq_fetch() relies on it). Under
 * sq.lock.
 */
static inline void kiw_sq_retire(struct kiw_qp *qp, struct siw_sqe *slot)
{
	lockdep_assert_held(&qp->sq.lock);
	kiw_ring_free(slot);
	/* release: the slot is free before @get says so */
	smp_store_release(&qp->sq.get, qp->sq.get + 1);
}

/*
 * The data path's workqueue (kiw_qp.c), made at module init: the TX work
 * items, and the RX work beyond a softirq's budget (kiw_rx.h).
 */
extern struct workqueue_struct *kiw_tx_wq;
int kiw_qp_wq_init(void);
void kiw_qp_wq_exit(void);

/**
 * kiw_tx_kick - new work for the transmit side
 * @qp: the QP; the caller holds a reference
 *
 * The SQ has new WQEs (kernel post_send, or libsiw's doorbell, an empty
 * post_send on a user QP), or the TX has something else to send or to
 * report (a state change, a Read Response, a freed ORQ entry). Queues the
 * QP's TX work item (kiw_tx.c), which takes its own QP reference for
 * queued work and must drop it soon after the QP leaves
 * RTS/CLOSING/TERMINATE: destroy_qp waits for it. An inline so that the
 * layers below the TX (the state machine) can kick it without calling up.
 *
 * Context: any, with no kiw lock held; does not sleep.
 */
static inline void kiw_tx_kick(struct kiw_qp *qp)
{
	/* The caller holds a reference, so this one never is the last. */
	kiw_qp_get(qp);
	if (!queue_work(kiw_tx_wq, &qp->tx.work))
		kiw_qp_put(qp);
}

#endif /* KIW_QP_H */
