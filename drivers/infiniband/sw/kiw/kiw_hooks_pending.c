// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Placeholders for the data path's hooks: those the verbs objects call
 * (kiw_tx.h, kiw_rx.h) and those the connection manager calls (kiw_llp.h).
 *
 * This file is deleted when the data path lands: each hook then lives in
 * kiw_tx.c or kiw_rx.c. Until then connections are established but move
 * no data: nothing is transmitted or received.
 */
#include "kiw_llp.h"
#include "kiw_qp.h"

void kiw_tx_qp_init(struct kiw_qp *qp)
{
	qp->tx.next = 0;
}

void kiw_tx_qp_release(struct kiw_qp *qp)
{
}

/*
 * No transmit engine: nothing is ever in flight, so a graceful close finds
 * the SQ drained at once (kiw_llp.h).
 */
void kiw_tx_kick(struct kiw_qp *qp)
{
	if (kiw_qp_state(qp) == KIW_QP_CLOSING)
		kiw_cm_tx_drained(qp);
}

void kiw_rx_qp_init(struct kiw_qp *qp)
{
	qp->rx.msn_send = 1;
}

void kiw_rx_qp_release(struct kiw_qp *qp)
{
}

int kiw_llp_attach(struct kiw_qp *qp, const struct kiw_llp_params *params)
{
	return 0;
}

void kiw_llp_detach(struct kiw_qp *qp)
{
}

void kiw_llp_drain(struct kiw_qp *qp)
{
}
