/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw transmit engine: SQ work, Read Responses and Terminates to FPDUs.
 *
 * Stub: owned by the data path (kiw_tx.c), which replaces this with the
 * real transmit state. Until then the functions below are implemented by
 * kiw_hooks_pending.c and do nothing.
 */
#ifndef KIW_TX_H
#define KIW_TX_H

#include <linux/types.h>

struct kiw_qp;

/* Per-QP transmit state, embedded in struct kiw_qp. Owned by the data path. */
struct kiw_tx {
	u32 next;		/* SQ ring position of the next WQE to fetch */
};

/* Called by kiw_qp.c once the QP is set up, before it is published. */
void kiw_tx_qp_init(struct kiw_qp *qp);

/*
 * Called by kiw_qp.c when the QP's last reference is gone (destroy_qp),
 * before its rings are freed. Process context.
 */
void kiw_tx_qp_release(struct kiw_qp *qp);

/*
 * New work for the transmit side: the SQ has new WQEs (kernel post_send,
 * or libsiw's doorbell, an empty post_send on a user QP). Called from any
 * context with no kiw lock held; must not sleep. The TX engine takes its
 * own QP reference for queued work (kiw_qp_get()) and must drop it soon
 * after the QP leaves RTS/CLOSING/TERMINATE: destroy_qp waits for it.
 */
void kiw_tx_kick(struct kiw_qp *qp);

#endif /* KIW_TX_H */
