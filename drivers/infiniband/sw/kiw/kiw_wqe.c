// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw work request entries: ring sizes, and the checks and copies between
 * a ring's shared entries (written by libsiw, or by kiw for kernel
 * consumers) and kiw's own copies, which the data path then trusts. Pure:
 * no QP state, no locks (kiw_qp.h declares these).
 */
#include <linux/log2.h>
#include <linux/overflow.h>
#include <kunit/visibility.h>

#include "kiw_qp.h"
#include "kiw_ring.h"

/* Ring entries for @wr requested work requests: a power of two, >= 1. */
u32 kiw_wq_size(u32 wr)
{
	return roundup_pow_of_two(max(wr, 1u));
}
EXPORT_SYMBOL_IF_KUNIT(kiw_wq_size);

static bool kiw_sqe_opcode_ok(u8 opcode, bool kernel_qp)
{
	switch (opcode) {
	case SIW_OP_WRITE:
	case SIW_OP_READ:
	case SIW_OP_SEND:
	case SIW_OP_SEND_REMOTE_INV:
		return true;
	case SIW_OP_READ_LOCAL_INV:
	case SIW_OP_INVAL_STAG:
	case SIW_OP_REG_MR:
		return kernel_qp;	/* never from a user ring */
	default:
		return false;
	}
}

/* Sum of @n SGE lengths, or -EINVAL if a message could not carry it. */
static int kiw_sge_total(const struct siw_sge *sge, u32 n, u32 *total)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < n; i++)
		sum += sge[i].length;
	if (sum > U32_MAX)
		return -EINVAL;
	*total = sum;
	return 0;
}

static int kiw_sqe_check(const struct siw_sqe *e, bool kernel_qp, u32 max_sge,
			 u32 max_inline, struct kiw_sqe *sqe)
{
	bool inline_ok = e->opcode == SIW_OP_SEND ||
			 e->opcode == SIW_OP_SEND_REMOTE_INV ||
			 e->opcode == SIW_OP_WRITE;

	if (!kiw_sqe_opcode_ok(e->opcode, kernel_qp))
		return -EINVAL;
	sqe->opcode = e->opcode;
	sqe->rkey = e->rkey;
	sqe->raddr = e->raddr;
	sqe->num_sge = 0;
	sqe->length = 0;
	if (e->opcode == SIW_OP_REG_MR) {
		sqe->reg_mr = (struct kiw_mr *)(uintptr_t)e->base_mr;
		sqe->access = e->access;
		return sqe->reg_mr ? 0 : -EINVAL;
	}
	if (e->opcode == SIW_OP_INVAL_STAG)
		return 0;
	if (sqe->flags & SIW_WQE_INLINE) {
		if (!inline_ok || e->sge[0].length > max_inline)
			return -EINVAL;
		sqe->length = e->sge[0].length;
		memcpy(sqe->inline_data, &e->sge[1], sqe->length);
		return 0;
	}
	if (e->num_sge > max_sge)
		return -EINVAL;
	if ((e->opcode == SIW_OP_READ || e->opcode == SIW_OP_READ_LOCAL_INV) &&
	    e->num_sge > KIW_MAX_SGE_RD)
		return -EINVAL;
	if (e->opcode == SIW_OP_READ_LOCAL_INV && e->num_sge != 1)
		return -EINVAL;
	sqe->num_sge = e->num_sge;
	memcpy(sqe->sge, e->sge, e->num_sge * sizeof(e->sge[0]));
	return kiw_sge_total(sqe->sge, sqe->num_sge, &sqe->length);
}

/**
 * kiw_sqe_copy - copy an SQ ring entry into kernel memory and validate it
 * @slot: the ring entry (user space may be writing it right now)
 * @kernel_qp: the ring belongs to a kernel QP (kernel-only opcodes allowed)
 * @max_sge: the QP's SGE limit
 * @max_inline: the QP's inline data limit
 * @sqe: the copy; id and flags are set even when the entry is invalid
 *
 * The flags are read first, with acquire semantics: the producer stores
 * them last. Everything else is read once, into a local copy, and only the
 * copy is checked and used.
 *
 * Return: 0; -ENOENT if the entry is not posted; -EINVAL if it is malformed.
 */
int kiw_sqe_copy(const struct siw_sqe *slot, bool kernel_qp, u32 max_sge,
		 u32 max_inline, struct kiw_sqe *sqe)
{
	struct siw_sqe e;
	u16 flags;

	flags = kiw_ring_flags(slot);
	if (!(flags & SIW_WQE_VALID))
		return -ENOENT;
	memcpy(&e, slot, sizeof(e));
	sqe->id = e.id;
	sqe->flags = flags & (SIW_WQE_VALID | SIW_WQE_INLINE |
			      SIW_WQE_SIGNALLED | SIW_WQE_SOLICITED |
			      SIW_WQE_READ_FENCE);
	sqe->reg_mr = NULL;
	sqe->opcode = e.opcode;
	return kiw_sqe_check(&e, kernel_qp, min_t(u32, max_sge, KIW_MAX_SGE),
			     min_t(u32, max_inline, KIW_MAX_INLINE), sqe);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_sqe_copy);

/* As kiw_sqe_copy(), for an RQ or SRQ entry. */
int kiw_rqe_copy(const struct siw_rqe *slot, u32 max_sge, struct kiw_rqe *rqe)
{
	struct siw_rqe e;

	if (!kiw_ring_posted(slot))
		return -ENOENT;
	memcpy(&e, slot, sizeof(e));
	rqe->id = e.id;
	rqe->num_sge = 0;
	rqe->length = 0;
	if (e.num_sge > min_t(u32, max_sge, KIW_MAX_SGE))
		return -EINVAL;
	rqe->num_sge = e.num_sge;
	memcpy(rqe->sge, e.sge, e.num_sge * sizeof(e.sge[0]));
	return kiw_sge_total(rqe->sge, rqe->num_sge, &rqe->length);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rqe_copy);

enum ib_wc_opcode kiw_wc_opcode(u8 siw_opcode)
{
	switch (siw_opcode) {
	case SIW_OP_WRITE:
		return IB_WC_RDMA_WRITE;
	case SIW_OP_READ:
	case SIW_OP_READ_LOCAL_INV:
		return IB_WC_RDMA_READ;
	case SIW_OP_INVAL_STAG:
		return IB_WC_LOCAL_INV;
	case SIW_OP_REG_MR:
		return IB_WC_REG_MR;
	case SIW_OP_RECEIVE:
		return IB_WC_RECV;
	default:
		return IB_WC_SEND;
	}
}

/* Write one receive WR into a free RQ or SRQ entry. */
int kiw_rqe_from_wr(const struct ib_recv_wr *wr, u32 max_sge,
		    struct siw_rqe *slot)
{
	struct siw_rqe e = {};
	u64 total = 0;
	int i;

	if (kiw_ring_posted(slot))
		return -ENOMEM;		/* the queue is full */
	if (wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;
	e.id = wr->wr_id;
	e.num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		e.sge[i].laddr = wr->sg_list[i].addr;
		e.sge[i].length = wr->sg_list[i].length;
		e.sge[i].lkey = wr->sg_list[i].lkey;
		total += wr->sg_list[i].length;
	}
	if (total > U32_MAX)
		return -EINVAL;
	slot->id = e.id;
	slot->num_sge = e.num_sge;
	memcpy(slot->sge, e.sge, sizeof(e.sge));
	kiw_ring_publish(slot, SIW_WQE_VALID);
	return 0;
}
