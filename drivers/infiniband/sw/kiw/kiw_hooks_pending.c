// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Placeholders for the hooks the verbs objects call into the layers built
 * on them: the transmit engine (kiw_tx.h), the receive engine (kiw_rx.h)
 * and the connection manager (kiw_cm.h).
 *
 * This file is replaced (deleted) when the CM and the data path land:
 * each hook then lives in its layer's own file. Until then every hook
 * does nothing, which is harmless: no QP ever reaches RTS without the CM,
 * so there is no work to transmit, nothing to receive, and no connection
 * to close.
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

void kiw_tx_kick(struct kiw_qp *qp)
{
}

void kiw_rx_qp_init(struct kiw_qp *qp)
{
	qp->rx.msn_send = 1;
}

void kiw_rx_qp_release(struct kiw_qp *qp)
{
}

void kiw_cm_qp_close(struct kiw_qp *qp, bool abrupt)
{
}

struct kiw_qp *kiw_cm_sk_qp(const struct sock *sk)
{
	return NULL;
}

int kiw_llp_attach(struct kiw_qp *qp, const struct kiw_llp_params *params)
{
	return -EOPNOTSUPP;
}

void kiw_llp_detach(struct kiw_qp *qp)
{
}

void kiw_llp_drain(struct kiw_qp *qp)
{
}

int kiw_llp_tx_drain(struct kiw_qp *qp, unsigned long timeout)
{
	return 0;
}
