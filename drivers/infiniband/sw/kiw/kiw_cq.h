/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw completion queues.
 *
 * A CQ is a ring of struct siw_cqe (include/uapi/rdma/siw-abi.h). For a user
 * CQ the ring, followed by struct siw_cq_ctrl, is mapped into the process:
 * libsiw polls it itself, clears an entry's SIW_WQE_VALID flag when it has
 * taken it, and arms the CQ by writing SIW_NOTIFY_* into the ctrl word. A
 * kernel CQ uses the same ring, polled by kiw_poll_cq(), and keeps the IB
 * opcode and status in its entries; a user CQ's entries hold siw values.
 *
 * The data path completes work with kiw_cq_complete(); QPs call it through
 * their queue helpers (kiw_qp.h), which also keep completions in order.
 */
#ifndef KIW_CQ_H
#define KIW_CQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "kiw.h"

struct kiw_cq {
	struct ib_cq base;
	u32 num_cqe;			/* ring entries, a power of two */
	bool user;

	/*
	 * Protects the producer index and the ring entries kiw writes, the
	 * kernel consumer index, and the kernel CQ's notify flags. Taken
	 * with interrupts off: completions come from softirq (RX) and
	 * process context (TX, flush), polls from any context.
	 */
	spinlock_t lock;
	u32 put;			/* next entry to fill */
	u32 get;			/* kernel CQ: next entry to poll */
	struct siw_cqe *queue;
	/* The arming word: after the ring (user) or kernel_notify. */
	struct siw_cq_ctrl *notify;
	struct siw_cq_ctrl kernel_notify;
	/* What kiw_cq_notify() has to tell the consumer. */
	bool comp_due;
	bool overflowed;

	struct rdma_user_mmap_entry *entry;
};

static inline struct kiw_cq *to_kiw_cq(struct ib_cq *cq)
{
	return container_of(cq, struct kiw_cq, base);
}

/* One completion, as the data path describes it. */
struct kiw_wc {
	u64 wr_id;
	enum ib_wc_opcode opcode;
	enum ib_wc_status status;
	u32 byte_len;
	u32 qp_num;
	struct ib_qp *qp;
	bool solicited;			/* a Send with Solicited Event */
	bool invalidated;		/* @inval_stag was remotely invalidated */
	u32 inval_stag;
};

/* Pure (KUnit): CQ arming and overflow. */
bool kiw_cq_notify_due(u32 notify_flags, bool solicited);
bool kiw_cq_slot_free(const struct siw_cqe *cqe);
u32 kiw_cq_ring_size(u32 cqe);
u8 kiw_siw_opcode(enum ib_wc_opcode opcode);
u16 kiw_siw_wc_status(enum ib_wc_status status);

/**
 * kiw_cq_add - add one completion to @cq
 * @cq: the CQ
 * @wc: the completion
 * @notify: set to true if the consumer has to be told (the CQ was armed
 *	    for this completion, or it overflowed); left alone otherwise
 *
 * A full ring is a CQ overflow: the entry is lost, the consumer will get
 * IB_EVENT_CQ_ERR, and -ENOSPC tells the caller to put the QP into the
 * error state. Callers complete under their own locks and call
 * kiw_cq_notify() once they have released them, since the consumer's
 * handlers may post new work.
 *
 * Context: any; does not sleep.
 */
int kiw_cq_add(struct kiw_cq *cq, const struct kiw_wc *wc, bool *notify);

/* Run the consumer's handlers that are due. No kiw lock may be held. */
void kiw_cq_notify(struct kiw_cq *cq);

/* kiw_cq_add() and, if due, kiw_cq_notify(). */
int kiw_cq_complete(struct kiw_cq *cq, const struct kiw_wc *wc);

/* Verbs */
int kiw_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs);
int kiw_destroy_cq(struct ib_cq *cq, struct ib_udata *udata);
int kiw_poll_cq(struct ib_cq *cq, int num_entries, struct ib_wc *wc);
int kiw_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags);

#endif /* KIW_CQ_H */
