/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw receive engine: FPDUs from the socket, placement, completions.
 *
 * Stub: owned by the data path (kiw_rx.c), which replaces this with the
 * real receive state. Until then the functions below are implemented by
 * kiw_hooks_pending.c and do nothing.
 */
#ifndef KIW_RX_H
#define KIW_RX_H

#include <linux/types.h>

struct kiw_qp;

/* Per-QP receive state, embedded in struct kiw_qp. Owned by the data path. */
struct kiw_rx {
	u32 msn_send;		/* next expected MSN on QN 0 */
};

/* As kiw_tx_qp_init() / kiw_tx_qp_release(), for the receive state. */
void kiw_rx_qp_init(struct kiw_qp *qp);
void kiw_rx_qp_release(struct kiw_qp *qp);

#endif /* KIW_RX_H */
