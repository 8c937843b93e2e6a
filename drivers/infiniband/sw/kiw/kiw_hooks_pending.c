// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Placeholders for the connection manager's hooks (kiw_cm.h, kiw_llp.h)
 * until it lands; the data path's own (kiw_tx.h, kiw_rx.h, kiw_llp.h) are
 * in kiw_tx.c, kiw_rx.c and kiw_llp.c.
 *
 * This file is deleted when the CM lands. Until then every hook does
 * nothing, which is harmless: no QP is ever attached without the CM, so
 * there is no connection to close and no socket to find a QP for.
 */
#include "kiw_llp.h"
#include "kiw_qp.h"

void kiw_cm_qp_close(struct kiw_qp *qp, bool abrupt)
{
}

struct kiw_qp *kiw_llp_sk_qp(const struct sock *sk)
{
	return NULL;
}

void kiw_cm_tx_drained(struct kiw_qp *qp)
{
}
