/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw connection manager: iw_cm hooks and the connection endpoint.
 *
 * Stub: owned by the CM (kiw_cm.c), which defines struct kiw_cep and
 * replaces this file. Until then kiw_cm_qp_close() is implemented by
 * kiw_hooks_pending.c and does nothing.
 */
#ifndef KIW_CM_H
#define KIW_CM_H

#include <linux/types.h>

struct kiw_qp;

/* The connection endpoint a QP is bound to (qp->cep). Owned by the CM. */
struct kiw_cep;

/*
 * The QP asks for its connection to be closed: gracefully (@abrupt false:
 * after the SQ has drained, a FIN; modify to SQD) or abortively (@abrupt
 * true: after any pending Terminate is sent, a RST; modify to ERR, a
 * Terminate, destroy_qp). Called from any context with no kiw lock held;
 * must not sleep (defer the socket work). When the connection is gone the
 * CM calls kiw_qp_llp_closed() and drops its QP reference.
 *
 * destroy_qp calls this (abruptly) and then waits for every QP reference,
 * including iw_cm's, which iw_cm drops only when it gets IW_CM_EVENT_CLOSE
 * (or when the cm_id is destroyed). So an abortive close must end in
 * IW_CM_EVENT_CLOSE to iw_cm, promptly and without waiting for the peer.
 */
void kiw_cm_qp_close(struct kiw_qp *qp, bool abrupt);

#endif /* KIW_CM_H */
