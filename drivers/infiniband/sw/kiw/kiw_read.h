/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw RDMA Read queues and send completion order: the bookkeeping the
 * transmit engine (kiw_tx.c) and the receive engine (kiw_rx.c) share.
 *
 * ORQ  outbound RDMA Reads: the TX adds an entry when it puts a Read
 *      Request out (before sendmsg(), since the answer may be received
 *      before sendmsg() returns), the RX takes the oldest one when the last
 *      segment of its Read Response has arrived (RFC 5040 section 5.5:
 *      responses come in request order). At most ORD entries.
 * IRQ  inbound RDMA Reads: the RX adds a validated Read Request, the TX
 *      sends its Read Response and then takes it. At most IRD entries; a
 *      Read Request beyond IRD is refused by the DDP check (no buffer).
 *
 * Each is a single-producer, single-consumer ring of free-running u32
 * positions: the producer fills an entry, then publishes it by moving
 * @put with a release store; the consumer reads @put with acquire, uses
 * the entry, then frees it by moving @get with a release store. The RX
 * side is serialized by the socket lock, the TX side by its work item, so
 * each end has one writer and no lock is needed.
 *
 * TXC  send completion order. Every SQ work request the TX takes gets a
 *      record, at the SQ position it came from; records are completed in
 *      SQ order only. A work request is done when its last FPDU is handed
 *      to TCP (Sends, Writes), when it has run (local operations), or when
 *      the last segment of its Read Response arrived (Reads, marked by the
 *      RX). So a Send posted after a Read completes after that Read, as
 *      verbs require, although it may be on the wire long before. Both
 *      engines mark records, under kiw_tx.lock; whoever finds the head done
 *      completes it (kiw_tx_reap()).
 *
 * The helpers here are pure (no locks, no sockets) so that KUnit can
 * drive the accounting through every wrap and limit.
 */
#ifndef KIW_READ_H
#define KIW_READ_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <kiw/rdmap.h>

#include "kiw_rdmap.h"

/* ---- ORQ and IRQ entries ---- */

/* An RDMA Read we asked for. */
struct kiw_orqe {
	struct kiw_rdmap_rreq rr;	/* as sent: sink STag/TO, size */
	u32 sq_pos;			/* the Read's SQ position (not for RTR) */
	bool rtr;			/* RFC 6581 RTR: no work request */
	bool inv;			/* READ_WITH_INV: invalidate the sink */
};

/* An RDMA Read the peer asked for. */
struct kiw_irqe {
	u8 raw[sizeof(struct kiw_rdmap_read_req)];	/* as received */
	struct kiw_rdmap_rreq rr;	/* parsed and checked */
	u32 msn;			/* its MSN on QN 1, for a Terminate */
};

/* One SPSC ring (ORQ or IRQ); @num is a power of two >= @max. */
struct kiw_rdq {
	u32 put;		/* producer; read with acquire by the consumer */
	u32 get;		/* consumer; read with acquire by the producer */
	u32 num;
	u32 max;		/* ORD or IRD negotiated for the connection */
};

void kiw_rdq_init(struct kiw_rdq *q, u32 num, u32 max);

/* Entries in use, as the producer sees it (@get may move under it). */
static inline u32 kiw_rdq_used(const struct kiw_rdq *q)
{
	/* acquire: the consumer is done with what it freed */
	return q->put - smp_load_acquire(&q->get);
}

/* Producer: may another entry be added (ORD/IRD not reached)? */
static inline bool kiw_rdq_room(const struct kiw_rdq *q)
{
	return kiw_rdq_used(q) < q->max;
}

/* Free entries, counting the one the producer may be filling (RX). */
static inline u32 kiw_rdq_free(const struct kiw_rdq *q)
{
	return q->max - kiw_rdq_used(q);
}

/* Producer: the index of the entry to fill next. */
static inline u32 kiw_rdq_tail(const struct kiw_rdq *q)
{
	return q->put & (q->num - 1);
}

/* Producer: publish the entry at kiw_rdq_tail(). */
static inline void kiw_rdq_publish(struct kiw_rdq *q)
{
	/* release: the entry is written before it is seen */
	smp_store_release(&q->put, q->put + 1);
}

/* Consumer: the oldest entry's index, or -1 if the ring is empty. */
static inline int kiw_rdq_head(const struct kiw_rdq *q)
{
	/* acquire: pairs with kiw_rdq_publish() */
	if (smp_load_acquire(&q->put) == q->get)
		return -1;
	return q->get & (q->num - 1);
}

/*
 * Consumer: the index of the entry @n after the oldest, or -1 if there is
 * none (a consumer that starts on entries before it frees them).
 */
static inline int kiw_rdq_peek(const struct kiw_rdq *q, u32 n)
{
	/* acquire: pairs with kiw_rdq_publish() */
	if (smp_load_acquire(&q->put) - q->get <= n)
		return -1;
	return (q->get + n) & (q->num - 1);
}

/* Consumer: free the oldest entry. */
static inline void kiw_rdq_pop(struct kiw_rdq *q)
{
	/* release: done with the entry before the producer reuses it */
	smp_store_release(&q->get, q->get + 1);
}

/* ---- Send completion order ---- */

enum kiw_txc_state {
	KIW_TXC_BUSY,		/* being sent or run */
	KIW_TXC_READ,		/* Read Request out, response not complete */
	KIW_TXC_DONE,		/* status and bytes known */
};

struct kiw_txc_rec {
	u64 id;
	u32 bytes;		/* byte_len of the completion */
	u16 flags;		/* SIW_WQE_* */
	u8 opcode;		/* enum siw_opcode */
	u8 state;		/* enum kiw_txc_state */
	enum ib_wc_status status;
};

/*
 * Records for SQ positions [head, tail), record of position p at
 * rec[p & (num - 1)]. tail is the next position the TX takes.
 */
struct kiw_txc {
	struct kiw_txc_rec *rec;
	u32 num;		/* a power of two */
	u32 head;
	u32 tail;
};

void kiw_txc_init(struct kiw_txc *c, struct kiw_txc_rec *rec, u32 num,
		  u32 pos);
bool kiw_txc_full(const struct kiw_txc *c);
bool kiw_txc_empty(const struct kiw_txc *c);
struct kiw_txc_rec *kiw_txc_add(struct kiw_txc *c, u64 id, u8 opcode,
				u16 flags, u32 bytes, enum kiw_txc_state state);
int kiw_txc_done(struct kiw_txc *c, u32 pos, enum ib_wc_status status);
bool kiw_txc_pop(struct kiw_txc *c, struct kiw_txc_rec *rec, u32 *pos);
int kiw_txc_oldest_open(const struct kiw_txc *c, u32 *pos);

#endif /* KIW_READ_H */
