// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw RDMA Read queues and send completion order, pure (see kiw_read.h).
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "kiw_read.h"

/**
 * kiw_rdq_init - an empty ORQ or IRQ
 * @q: the ring
 * @num: entries allocated, a power of two
 * @max: entries that may be in use at once (ORD or IRD), <= @num
 */
void kiw_rdq_init(struct kiw_rdq *q, u32 num, u32 max)
{
	WARN_ON_ONCE(!is_power_of_2(num) || max > num);
	q->put = 0;
	q->get = 0;
	q->num = num;
	q->max = min(max, num);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_rdq_init);

/**
 * kiw_txc_init - no work request outstanding
 * @c: the completion ring
 * @rec: @num records
 * @num: a power of two
 * @pos: SQ position of the next work request (the SQ's oldest entry)
 */
void kiw_txc_init(struct kiw_txc *c, struct kiw_txc_rec *rec, u32 num,
		  u32 pos)
{
	WARN_ON_ONCE(!is_power_of_2(num));
	c->rec = rec;
	c->num = num;
	c->head = pos;
	c->tail = pos;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txc_init);

bool kiw_txc_full(const struct kiw_txc *c)
{
	return c->tail - c->head >= c->num;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txc_full);

bool kiw_txc_empty(const struct kiw_txc *c)
{
	return c->tail == c->head;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txc_empty);

/**
 * kiw_txc_add - record the work request at SQ position @c->tail
 * @c: the completion ring, not full
 * @id: its wr_id
 * @opcode: its siw opcode
 * @flags: its SIW_WQE_* flags
 * @bytes: the byte_len its completion reports (its message length)
 * @state: KIW_TXC_BUSY, or KIW_TXC_READ for an RDMA Read
 *
 * Return: the record (its status and bytes are set when it is done), or
 * NULL if the ring is full.
 */
struct kiw_txc_rec *kiw_txc_add(struct kiw_txc *c, u64 id, u8 opcode,
				u16 flags, u32 bytes, enum kiw_txc_state state)
{
	struct kiw_txc_rec *r;

	if (kiw_txc_full(c))
		return NULL;
	r = &c->rec[c->tail & (c->num - 1)];
	r->id = id;
	r->opcode = opcode;
	r->flags = flags;
	r->state = state;
	r->status = IB_WC_SUCCESS;
	r->bytes = bytes;
	c->tail++;
	return r;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txc_add);

/**
 * kiw_txc_done - the work request at @pos is finished
 * @c: the completion ring
 * @pos: its SQ position
 * @status: its completion status
 *
 * The first verdict stands: a work request a peer's Terminate was charged
 * to stays failed even if the TX finishes sending it afterwards.
 *
 * Return: 0, -EALREADY if it was done already, or -ENOENT if @pos has no
 * record (already completed, or never taken).
 */
int kiw_txc_done(struct kiw_txc *c, u32 pos, enum ib_wc_status status)
{
	struct kiw_txc_rec *r;

	if (pos - c->head >= c->tail - c->head)
		return -ENOENT;
	r = &c->rec[pos & (c->num - 1)];
	if (r->state == KIW_TXC_DONE)
		return -EALREADY;
	r->state = KIW_TXC_DONE;
	r->status = status;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txc_done);

/**
 * kiw_txc_pop - take the oldest record if it is done
 * @c: the completion ring
 * @rec: a copy of it
 * @pos: its SQ position
 *
 * Return: true if a record was taken; false if the ring is empty or its
 * oldest work request is not finished (everything after it waits).
 */
bool kiw_txc_pop(struct kiw_txc *c, struct kiw_txc_rec *rec, u32 *pos)
{
	struct kiw_txc_rec *r;

	if (kiw_txc_empty(c))
		return false;
	r = &c->rec[c->head & (c->num - 1)];
	if (r->state != KIW_TXC_DONE)
		return false;
	*rec = *r;
	*pos = c->head++;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txc_pop);

/**
 * kiw_txc_oldest_open - the oldest work request not finished yet
 * @c: the completion ring
 * @pos: its SQ position
 *
 * The one a Terminate from the peer is charged to when it does not say
 * better (see kiw_rx.c).
 *
 * Return: 0, or -ENOENT if every recorded work request is done.
 */
int kiw_txc_oldest_open(const struct kiw_txc *c, u32 *pos)
{
	u32 p;

	for (p = c->head; p != c->tail; p++) {
		if (c->rec[p & (c->num - 1)].state != KIW_TXC_DONE) {
			*pos = p;
			return 0;
		}
	}
	return -ENOENT;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txc_oldest_open);
