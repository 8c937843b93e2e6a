// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw tracepoints (kiw_trace.h): the events are defined here, and so is
 * what they read of kiw's objects, so that the header needs no more than
 * the prototypes.
 */
#include <linux/unaligned.h>

#include "kiw_cep.h"
#include "kiw_qp.h"
#include "kiw_tx_batch.h"

static const char *kiw_trace_cep_dev(const struct kiw_cep *cep)
{
	return dev_name(&cep->kdev->ibdev.dev);
}

static const char *kiw_trace_cep_event(int ev)
{
	return kiw_cep_event_name(ev);
}

static const char *kiw_trace_cep_state(int state)
{
	return kiw_cep_state_name(state);
}

static int kiw_trace_cep_now(const struct kiw_cep *cep)
{
	return cep->state;
}

static bool kiw_trace_cep_active(const struct kiw_cep *cep)
{
	return cep->active;
}

static void kiw_trace_cep_addrs(const struct kiw_cep *cep, u8 *local,
				u8 *remote)
{
	memcpy(local, &cep->local, sizeof(struct sockaddr_in6));
	memcpy(remote, &cep->remote, sizeof(struct sockaddr_in6));
}

static void kiw_trace_mpa_assign(const struct kiw_cep *cep,
				 const struct kiw_llp_params *p, u32 *qpn,
				 bool *initiator, u8 *rev, bool *crc,
				 bool *tx_markers, bool *rx_markers, u32 *ird,
				 u32 *ord, u8 *rtr, bool *hold_tx, u8 *remote)
{
	*qpn = cep->llp.qp ? cep->llp.qp->base.qp_num : 0;
	*initiator = p->initiator;
	*rev = p->mpa_rev;
	*crc = p->crc;
	*tx_markers = p->tx_markers;
	*rx_markers = p->rx_markers;
	*ird = p->ird;
	*ord = p->ord;
	*rtr = p->rtr;
	*hold_tx = p->hold_tx_until_rx;
	memcpy(remote, &cep->remote, sizeof(struct sockaddr_in6));
}

static const char *kiw_trace_qp_dev(const struct kiw_qp *qp)
{
	return dev_name(&qp->kdev->ibdev.dev);
}

static u32 kiw_trace_qpn(const struct kiw_qp *qp)
{
	return qp->base.qp_num;
}

/* A DDP header's fields; what @len octets of it do not hold stays 0. */
static void kiw_trace_ddp(const u8 *h, unsigned int len, u8 *ddp_ctrl,
			  u8 *rdmap_ctrl, u32 *stag_qn, u32 *msn, u64 *to_mo)
{
	*ddp_ctrl = 0;
	*rdmap_ctrl = 0;
	*stag_qn = 0;
	*msn = 0;
	*to_mo = 0;
	if (len < 2)
		return;
	*ddp_ctrl = h[0];
	*rdmap_ctrl = h[1];
	if (len < kiw_ddp_hdr_len(h[0]))
		return;
	if (kiw_ddp_is_tagged(h[0])) {
		const struct kiw_ddp_tagged_hdr *t = (const void *)h;

		*stag_qn = get_unaligned_be32(&t->stag);
		*to_mo = get_unaligned_be64(&t->to);
	} else {
		const struct kiw_ddp_untagged_hdr *u = (const void *)h;

		*stag_qn = get_unaligned_be32(&u->qn);
		*msn = get_unaligned_be32(&u->msn);
		*to_mo = get_unaligned_be32(&u->mo);
	}
}

/*
 * A sent FPDU, the one kiw_txb_add() just added to @b; or, @b NULL, the
 * received @f the parser ends (end()), with as much of its header as it has.
 */
static void kiw_trace_fpdu(const struct kiw_txb *b, const struct kiw_fpdu_rx *f,
			   u32 *off, u16 *ulpdu, u8 *ddp_ctrl, u8 *rdmap_ctrl,
			   u32 *stag_qn, u32 *msn, u64 *to_mo)
{
	const struct kiw_txb_fpdu *t;
	unsigned int have;

	if (b) {
		t = kiw_txb_last(b);
		*off = t->ftx.lay.start;
		*ulpdu = t->ftx.lay.ulpdu_len;
		kiw_trace_ddp(t->hdr + KIW_MPA_ULPDU_LEN_SIZE, *ulpdu,
			      ddp_ctrl, rdmap_ctrl, stag_qn, msn, to_mo);
		return;
	}
	have = f->hdr_len ? min(f->hdr_len, f->ulpdu_len) : 0;
	*off = f->fpdu_off;
	*ulpdu = f->ulpdu_len;
	kiw_trace_ddp(f->hdr, have, ddp_ctrl, rdmap_ctrl, stag_qn, msn, to_mo);
}

#define CREATE_TRACE_POINTS
#include "kiw_trace.h"
