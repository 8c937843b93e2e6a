/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw's own copies of work requests: what the TX and RX work from once a
 * ring entry (libsiw's struct siw_sqe, siw_rqe) or a kernel consumer's
 * ib_send_wr/ib_recv_wr has been copied out and checked (kiw_wqe.c,
 * kiw_wq.c). Types only.
 */
#ifndef KIW_WQE_H
#define KIW_WQE_H

#include <linux/types.h>
#include <rdma/siw-abi.h>

#include "kiw_limits.h"

struct kiw_mr;

/* A send WR, copied out of the SQ ring and validated (kiw_sq_fetch()). */
struct kiw_sqe {
	u64 id;
	u32 pos;		/* its ring position */
	u8 opcode;		/* enum siw_opcode */
	u8 num_sge;		/* <= KIW_MAX_SGE; 0 for inline data */
	u16 flags;		/* SIW_WQE_* */
	/*
	 * WRITE, READ: the remote STag; SEND_REMOTE_INV: the STag the peer
	 * invalidates; INVAL_STAG: the local STag; REG_MR: the new key.
	 * READ_LOCAL_INV invalidates sge[0].lkey once the Read completes.
	 */
	u32 rkey;
	u64 raddr;		/* WRITE, READ: the remote TO */
	u32 length;		/* message octets: SGE sum or inline length */
	struct siw_sge sge[KIW_MAX_SGE];
	u8 inline_data[KIW_MAX_INLINE];	/* SIW_WQE_INLINE: the payload */
	struct kiw_mr *reg_mr;	/* REG_MR (kernel QPs only): the region */
	u32 access;		/* REG_MR: IB_ACCESS_* */
};

/* A receive WR, copied out of the RQ or SRQ ring (kiw_rq_fetch()). */
struct kiw_rqe {
	u64 id;
	u32 pos;		/* ring position (RQ) */
	u8 num_sge;
	bool from_srq;
	u32 length;		/* SGE sum: the buffer's capacity */
	struct siw_sge sge[KIW_MAX_SGE];
};

#endif /* KIW_WQE_H */
