/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw device limits, all in one place. query_device and query_qp report
 * exactly these, and every verb that creates or sizes an object checks
 * against them, so what a consumer is told is what it gets.
 */
#ifndef KIW_LIMITS_H
#define KIW_LIMITS_H

#include <rdma/siw-abi.h>

enum kiw_limits {
	/* Objects per device. */
	KIW_MAX_QP = 16 * 1024,
	KIW_MAX_CQ = 16 * 1024,
	KIW_MAX_PD = 16 * 1024,
	KIW_MAX_SRQ = 4 * 1024,
	KIW_MAX_MR = 64 * 1024,
	KIW_MAX_UCONTEXT = 4 * 1024,

	/* Queue depths (work requests and completions). */
	KIW_MAX_QP_WR = 16 * 1024,
	KIW_MAX_SRQ_WR = 64 * 1024,
	KIW_MAX_CQE = 256 * 1024,

	/*
	 * Scatter/gather: the siw user ABI fixes the WQE layout at
	 * SIW_MAX_SGE entries. An RDMA Read names one sink STag on the wire,
	 * so its local sink is a single SGE (consumers register an MR).
	 */
	KIW_MAX_SGE = SIW_MAX_SGE,
	KIW_MAX_SGE_RD = 1,
	KIW_MAX_INLINE = SIW_MAX_INLINE,

	/* Outstanding RDMA Reads per QP, in each direction (ORD and IRD). */
	KIW_MAX_ORD = 128,
	KIW_MAX_IRD = 128,

	/* Pages in one fast-registration MR (IB_WR_REG_MR). */
	KIW_MAX_FRMR_PAGES = 4096,
};

/* An IEEE OUI-style vendor id: the ASCII octets "kiw". */
#define KIW_VENDOR_ID 0x6b6977
#define KIW_VENDOR_PART_ID 1
#define KIW_NODE_DESC "kiw software iWARP"

#endif /* KIW_LIMITS_H */
