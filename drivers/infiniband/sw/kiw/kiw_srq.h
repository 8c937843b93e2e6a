/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw shared receive queues.
 *
 * An SRQ is a ring of struct siw_rqe, mapped into the process for a user
 * SRQ (libsiw posts into it) and filled by kiw_post_srq_recv() for a
 * kernel one. Unlike a QP's RQ, an SRQ entry is taken out of the ring as
 * soon as a QP starts a message with it (kiw_srq_fetch()): the QP keeps
 * the copy (kiw_qp.srq_wqe) and completes or flushes it itself.
 *
 * Limit event: when armed (modify_srq with IB_SRQ_LIMIT, limit > 0), the
 * first fetch that leaves fewer than limit entries posted raises
 * IB_EVENT_SRQ_LIMIT_REACHED once and disarms the SRQ.
 */
#ifndef KIW_SRQ_H
#define KIW_SRQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "kiw.h"

struct kiw_rqe;

struct kiw_srq {
	struct ib_srq base;
	bool user;
	u32 num;			/* ring entries, a power of two */
	u32 max_sge;

	/*
	 * Protects get, put, limit and armed, and kiw's writes to ring
	 * entries' flags. Taken with interrupts off (the RX softirq fetches,
	 * posts come from any context).
	 */
	spinlock_t lock;
	u32 get;			/* next entry to take */
	u32 put;			/* kernel SRQ: next entry to fill */
	u32 limit;
	bool armed;
	struct siw_rqe *ring;
	struct rdma_user_mmap_entry *entry;
};

static inline struct kiw_srq *to_kiw_srq(struct ib_srq *srq)
{
	return container_of(srq, struct kiw_srq, base);
}

/* Pure (KUnit): fewer than @limit entries posted from @get on? */
bool kiw_srq_below_limit(const struct siw_rqe *ring, u32 num, u32 get,
			 u32 limit);

/*
 * Take the next posted entry for a QP's incoming Send: 0 with @rqe filled,
 * -ENOENT if none is posted, -EINVAL if the entry was malformed (it is
 * consumed; @rqe has its id for an error completion). Sets *@limit when
 * this took the SRQ below its armed limit: the caller then calls
 * kiw_srq_limit_event() once it holds no lock. Never sleeps.
 */
int kiw_srq_fetch(struct kiw_srq *srq, struct kiw_rqe *rqe, bool *limit);
void kiw_srq_limit_event(struct kiw_srq *srq);

/* Verbs */
int kiw_create_srq(struct ib_srq *srq, struct ib_srq_init_attr *attr,
		   struct ib_udata *udata);
int kiw_modify_srq(struct ib_srq *srq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int kiw_query_srq(struct ib_srq *srq, struct ib_srq_attr *attr);
int kiw_destroy_srq(struct ib_srq *srq, struct ib_udata *udata);
int kiw_post_srq_recv(struct ib_srq *srq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);

#endif /* KIW_SRQ_H */
