// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw transmit batches (see kiw_tx_batch.h): FPDUs framed as vectors over
 * the payload pages, or staged in the spill buffer when they carry a CRC,
 * one sendmsg() per batch, and the spill buffer for what TCP did not take.
 */
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <kunit/visibility.h>

#include "kiw_tx_batch.h"

/*
 * A batch without vectors (CRC: staged FPDUs) is one 2 KiB allocation,
 * with one FPDU slot apart; without CRC the FPDUs' headers and trailers
 * are a 2 KiB allocation of their own.
 */
static_assert(sizeof(struct kiw_txb) <= 2048);
static_assert(KIW_TXB_FPDUS * sizeof(struct kiw_txb_fpdu) <= 2048);

/**
 * kiw_txb_alloc - a batch and its spill buffer
 * @spill: the spill buffer's size (see kiw_tx_batch.h), at least
 *	KIW_TXB_SPILL_MIN, at most KIW_TXB_BYTES
 * @flags: KIW_TXB_ZCOPY for a connection without CRC, KIW_TXB_MARKERS
 *	for one that sends markers: the batch has room for those only
 */
struct kiw_txb *kiw_txb_alloc(unsigned int spill, unsigned int flags)
{
	unsigned int mk = flags & KIW_TXB_MARKERS ? KIW_FPDU_MAX_MARKERS : 0;
	unsigned int slots = kiw_txb_nr_slots(flags);
	unsigned int fpdu_vecs = 0, vec_max = 0;
	struct kiw_txb *b;

	if (flags & KIW_TXB_ZCOPY) {
		fpdu_vecs = KIW_FPDU_TX_VECS(KIW_TXB_SRC, mk);
		vec_max = fpdu_vecs + KIW_TXB_FPDUS *
			  (mk ? KIW_TXB_VECS_FPDU_MK : KIW_TXB_VECS_FPDU);
	}
	b = kvzalloc(struct_size(b, vec, vec_max), GFP_KERNEL);
	if (!b)
		return NULL;
	b->flags = flags;
	b->fpdu_vecs = fpdu_vecs;
	b->vec_max = vec_max;
	/* The vectors point into these: kmalloc, not vmalloc. */
	b->fpdu = kcalloc(slots, sizeof(*b->fpdu), GFP_KERNEL);
	if (mk)
		b->mk = kcalloc(slots * mk, sizeof(*b->mk), GFP_KERNEL);
	if (!b->fpdu || (mk && !b->mk) ||
	    kiw_txb_reserve(b, spill, GFP_KERNEL)) {
		kiw_txb_free(b);
		return NULL;
	}
	return b;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_alloc);

void kiw_txb_free(struct kiw_txb *b)
{
	if (!b)
		return;
	kiw_txb_put_refs(b);
	kfree(b->fpdu);
	kfree(b->mk);
	kvfree(b->spill);
	kvfree(b);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_free);

/**
 * kiw_txb_reserve - a spill buffer of at least @size octets
 * @b: the batch; its spill buffer must be empty to be replaced
 * @size: octets wanted (clamped to [KIW_TXB_SPILL_MIN, KIW_TXB_BYTES])
 * @gfp: the allocation's flags
 *
 * The buffer only grows; on failure the old one stays.
 *
 * Return: 0, -EBUSY (the buffer holds octets), or -ENOMEM.
 */
int kiw_txb_reserve(struct kiw_txb *b, unsigned int size, gfp_t gfp)
{
	u8 *p;

	size = clamp_t(unsigned int, size, KIW_TXB_SPILL_MIN, KIW_TXB_BYTES);
	if (b->spill && size <= b->spill_cap)
		return 0;
	if (b->spill_len)
		return -EBUSY;
	/* What kmalloc would give anyway is usable. */
	if (size < KIW_TXB_BYTES)
		size = min_t(unsigned int, kmalloc_size_roundup(size),
			     KIW_TXB_BYTES);
	p = kvmalloc(size, gfp);
	if (!p)
		return -ENOMEM;
	kvfree(b->spill);
	b->spill = p;
	b->spill_cap = size;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_reserve);

/**
 * kiw_txb_stopped_short - did the spill buffer's size stop the batch?
 * @b: the batch, just filled
 * @next: what kiw_txb_room() was asked for last
 *
 * Called when the batch was left with a message still being cut: if the
 * socket offered more than the spill buffer holds and the next FPDU did
 * not fit for that reason, the next batch tries a larger buffer.
 */
void kiw_txb_stopped_short(struct kiw_txb *b, unsigned int next)
{
	if (b->limit < b->want && b->bytes + next > b->limit)
		b->grow = true;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_stopped_short);

/**
 * kiw_txb_begin - start an empty batch
 * @b: the batch; its spill buffer must be empty
 * @limit: octets the batch should stay within (the socket's free space);
 *	the first FPDU is always taken, at most the spill buffer's size in
 *	all (see kiw_tx_batch.h: it may grow here first)
 * @mss: the EMSS TCP cuts segments at (0: only the batch's end is a cut)
 */
void kiw_txb_begin(struct kiw_txb *b, unsigned int limit, unsigned int mss)
{
	WARN_ON_ONCE(b->nr_ref || b->spill_len);
	b->want = min_t(unsigned int, limit, KIW_TXB_BYTES);
	/*
	 * Under load: a larger buffer if memory is at hand. No I/O: this
	 * may run for a storage consumer's writeback; no retries, no
	 * warning: failing only keeps batches at the size they have.
	 */
	if (b->grow && b->want > b->spill_cap)
		kiw_txb_reserve(b, b->spill_cap * 2,
				GFP_NOIO | __GFP_NORETRY | __GFP_NOWARN);
	b->grow = false;
	b->nr_fpdu = 0;
	b->nr_vec = 0;
	b->nr_src = 0;
	b->nr_end = 0;
	b->bytes = 0;
	b->staged = false;
	b->limit = min(b->want, b->spill_cap);
	b->nr_cut = 0;
	kiw_seg_plan_init(&b->plan, mss);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_begin);

/**
 * kiw_txb_room - can another FPDU go into the batch?
 * @b: the batch
 * @next: the most octets the next FPDU can take on the wire
 *
 * Room is counted for the worst case (every vector, every region a work
 * request can name), so that an FPDU, once started, always fits.
 */
bool kiw_txb_room(const struct kiw_txb *b, unsigned int next)
{
	if (!b->nr_fpdu)
		return true;
	return b->nr_fpdu < KIW_TXB_FPDUS &&
	       b->bytes + next <= b->limit &&
	       b->nr_vec + b->fpdu_vecs <= b->vec_max &&
	       b->nr_ref + KIW_MAX_SGE <= KIW_TXB_REFS;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_room);

/* Drop the region references: the batch is in TCP's hands or discarded. */
void kiw_txb_put_refs(struct kiw_txb *b)
{
	while (b->nr_ref) {
		struct kiw_txb_ref *r = &b->ref[--b->nr_ref];

		kiw_mr_put(r->mr);
		r->mr = NULL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_put_refs);

/* Forget the payload vectors gathered for the current FPDU. */
void kiw_txb_src_reset(struct kiw_txb *b)
{
	b->nr_src = 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_src_reset);

/*
 * Page vectors for [@va, @va + @len) of a checked region; stops early when
 * the FPDU's vectors run out. Return: the octets described, or -EFAULT if
 * the region's memory cannot be walked (a page array shorter than its
 * length, or a kernel address outside the direct map).
 */
static int kiw_txb_map(struct kiw_txb *b, const struct kiw_mr_map *map,
		       u64 va, u32 len)
{
	struct kiw_mem_chunk ch;
	struct kiw_mem_iter it;

	kiw_mem_iter_init(&it, map, va, len);
	while (b->nr_src < KIW_TXB_SRC && kiw_mem_iter_next(&it, len, &ch))
		bvec_set_page(&b->src[b->nr_src++], ch.page, ch.len, ch.offset);
	if (kiw_mem_iter_left(&it) && b->nr_src < KIW_TXB_SRC)
		return -EFAULT;
	return len - kiw_mem_iter_left(&it);
}

/* The last region taken, if it is @key's and of the same kind. */
static struct kiw_txb_ref *kiw_txb_last_ref(struct kiw_txb *b, u32 key,
					    bool remote)
{
	struct kiw_txb_ref *r;

	if (!b->nr_ref)
		return NULL;
	r = &b->ref[b->nr_ref - 1];
	return r->key == key && r->remote == remote ? r : NULL;
}

static struct kiw_txb_ref *kiw_txb_new_ref(struct kiw_txb *b, u32 key,
					   bool remote)
{
	struct kiw_txb_ref *r;

	if (WARN_ON_ONCE(b->nr_ref == KIW_TXB_REFS))
		return NULL;
	r = &b->ref[b->nr_ref];
	r->key = key;
	r->remote = remote;
	return r;
}

/**
 * kiw_txb_src_local - add payload from a local SGE to the current FPDU
 * @b: the batch
 * @kdev: the device (STag table)
 * @pd: the QP's protection domain
 * @sge: the SGE (a copy in kernel memory)
 * @off: offset in the SGE
 * @len: octets wanted, > 0, within the SGE
 * @status: set on failure: IB_WC_LOC_PROT_ERR (the lkey does not allow
 *	it) or IB_WC_LOC_QP_OP_ERR (the memory cannot be walked)
 *
 * The region is looked up and checked (kiw_mr_get_local()), or, if the
 * batch's last region is the same lkey, checked on its snapshot again.
 *
 * Return: the octets added (fewer than @len when the FPDU's vectors ran
 * out), or a negative errno with @status set.
 */
int kiw_txb_src_local(struct kiw_txb *b, struct kiw_device *kdev,
		      const struct ib_pd *pd, const struct siw_sge *sge,
		      u32 off, u32 len, enum ib_wc_status *status)
{
	u64 va = sge->laddr + off;
	struct kiw_txb_ref *r = kiw_txb_last_ref(b, sge->lkey, false);
	int n;

	if (!r || kiw_sge_check(&r->map, sge->lkey, pd, 0, va, len)) {
		r = kiw_txb_new_ref(b, sge->lkey, false);
		if (!r) {
			*status = IB_WC_LOC_QP_OP_ERR;
			return -ENOSPC;
		}
		*status = kiw_mr_get_local(kdev, pd, sge->lkey, 0, va, len,
					   &r->mr, &r->map);
		if (*status != IB_WC_SUCCESS)
			return -EACCES;
		b->nr_ref++;
	}
	n = kiw_txb_map(b, &r->map, va, len);
	if (n < 0)
		*status = IB_WC_LOC_QP_OP_ERR;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_src_local);

/**
 * kiw_txb_src_tagged - add payload from an RDMA Read's data source
 * @b: the batch
 * @kdev: the device
 * @pd: the QP's protection domain
 * @stag: the source STag the peer named
 * @to: the TO of the first octet
 * @len: octets wanted, > 0
 * @term: set on failure: the Terminate error (remote read rights, bounds,
 *	validity, checked again now, since the region may have changed
 *	since the Read Request was accepted)
 *
 * Return: the octets added, or a negative errno with @term set.
 */
int kiw_txb_src_tagged(struct kiw_txb *b, struct kiw_device *kdev,
		       const struct ib_pd *pd, u32 stag, u64 to, u32 len,
		       kiw_term_t *term)
{
	struct kiw_txb_ref *r = kiw_txb_last_ref(b, stag, true);
	int n;

	if (!r || kiw_stag_check(&r->map, stag, pd, IB_ACCESS_REMOTE_READ, to,
				 len, KIW_STAG_SOURCE)) {
		r = kiw_txb_new_ref(b, stag, true);
		if (!r) {
			*term = KIW_TERM(KIW_TERM_LAYER_RDMAP,
					 KIW_RDMAP_ETYPE_CATASTROPHIC,
					 KIW_RDMAP_ECODE_CATASTROPHIC);
			return -ENOSPC;
		}
		*term = kiw_mr_get_tagged(kdev, pd, stag, IB_ACCESS_REMOTE_READ,
					  to, len, KIW_STAG_SOURCE, &r->mr,
					  &r->map);
		if (*term)
			return -EACCES;
		b->nr_ref++;
	}
	n = kiw_txb_map(b, &r->map, to, len);
	if (n < 0)
		*term = KIW_TERM(KIW_TERM_LAYER_RDMAP,
				 KIW_RDMAP_ETYPE_CATASTROPHIC,
				 KIW_RDMAP_ECODE_CATASTROPHIC);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_src_tagged);

/* A sendmsg() ends at batch offset @at (not at the start or end). */
static void kiw_txb_cut(struct kiw_txb *b, u32 at)
{
	if (!at || (b->nr_cut && b->cut[b->nr_cut - 1] >= at))
		return;
	if (!WARN_ON_ONCE(b->nr_cut == ARRAY_SIZE(b->cut)))
		b->cut[b->nr_cut++] = at;
}

/**
 * kiw_txb_add - frame the current FPDU and add it to the batch
 * @b: the batch
 * @start: the FPDU's stream offset (for markers)
 * @markers: put markers in
 * @crc: compute the CRC
 * @hdr_len: octets written at kiw_txb_hdr() (DDP header, and the RDMAP
 *	header or inline data that follows it)
 *
 * The payload is the vectors gathered since the last kiw_txb_add().
 *
 * Return: the FPDU's length on the wire, or a negative errno (a bug: room
 * was checked with kiw_txb_room(), and the batch shaped for @markers and
 * @crc by kiw_txb_alloc(); a builder without the room refuses, -ENOSPC).
 */
int kiw_txb_add(struct kiw_txb *b, u32 start, bool markers, bool crc,
		unsigned int hdr_len)
{
	struct kiw_txb_fpdu *f = kiw_txb_slot(b, b->nr_fpdu);
	unsigned int mk_max = kiw_txb_mk_max(b);
	struct kiw_fpdu_tx_desc d = {
		.start = start,
		.markers = markers,
		.crc = crc,
		.hdr = f->hdr,
		.hdr_len = hdr_len,
		.src = b->src,
		.nr_src = b->nr_src,
		.mk = b->mk ? b->mk + (f - b->fpdu) * mk_max : NULL,
		.mk_max = mk_max,
	};
	unsigned int cut;
	int n;

	if (WARN_ON_ONCE(b->nr_fpdu == KIW_TXB_FPDUS))
		return -ENOSPC;
	/*
	 * CRC is negotiated per connection: a batch is all one kind, and
	 * only a batch shaped for vectors has a slot for each FPDU.
	 */
	if (WARN_ON_ONCE((b->nr_fpdu && b->staged != crc) ||
			 (!crc && !(b->flags & KIW_TXB_ZCOPY))))
		return -EINVAL;
	if (crc) {
		n = kiw_fpdu_build_linear(&f->ftx, &d, b->spill + b->bytes,
					  b->spill_cap - b->bytes);
		if (WARN_ON_ONCE(n < 0))
			return n;
		b->staged = true;
	} else {
		n = kiw_fpdu_build(&f->ftx, &d, b->vec + b->nr_vec,
				   b->vec_max - b->nr_vec);
		if (WARN_ON_ONCE(n < 0))
			return n;
		b->nr_vec += n;
	}
	cut = kiw_seg_plan_next(&b->plan, f->ftx.lay.wire_len);
	if (cut & KIW_SEG_CUT_BEFORE)
		kiw_txb_cut(b, b->bytes);
	b->nr_fpdu++;
	b->nr_src = 0;
	b->bytes += f->ftx.lay.wire_len;
	if (cut & KIW_SEG_CUT_AFTER)
		kiw_txb_cut(b, b->bytes);
	return f->ftx.lay.wire_len;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_add);

/* The message whose last FPDU was just added is done once the batch is. */
void kiw_txb_end_msg(struct kiw_txb *b, u32 pos)
{
	if (WARN_ON_ONCE(b->nr_end == KIW_TXB_FPDUS))
		return;
	b->end[b->nr_end].pos = pos;
	b->nr_end++;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_end_msg);

static int kiw_txb_sendmsg(struct socket *sock, struct msghdr *msg)
{
	msg->msg_flags |= MSG_DONTWAIT | MSG_NOSIGNAL;
	return sock_sendmsg(sock, msg);
}

/**
 * kiw_txb_iter - the batch's octets as a source iterator
 * @b: the batch
 * @it: set up over the vectors, or over the staged FPDUs
 * @kv: room for the staged FPDUs' vector; must live as long as @it
 */
void kiw_txb_iter(struct kiw_txb *b, struct iov_iter *it, struct kvec *kv)
{
	if (b->staged) {
		kv->iov_base = b->spill;
		kv->iov_len = b->bytes;
		iov_iter_kvec(it, ITER_SOURCE, kv, 1, b->bytes);
	} else {
		iov_iter_bvec(it, ITER_SOURCE, b->vec, b->nr_vec, b->bytes);
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_iter);

/*
 * Send what is left of @msg's iterator up to offset @end of an iterator
 * that started at offset @at, in runs ending at the cuts with MSG_EOR.
 * Return: the octets TCP took, or the socket's error if it took none.
 */
static int kiw_txb_send_runs(struct kiw_txb *b, struct socket *sock,
			     struct msghdr *msg, u32 at, u32 end, bool more)
{
	unsigned int i = 0;
	int done = 0;

	while (at < end) {
		size_t left = msg_data_left(msg);
		u32 to = end;
		int sent;

		while (i < b->nr_cut && b->cut[i] <= at)
			i++;
		if (i < b->nr_cut && b->cut[i] < end)
			to = b->cut[i];
		msg->msg_flags = MSG_EOR;
		if (to < end || more)
			msg->msg_flags |= MSG_MORE;
		iov_iter_truncate(&msg->msg_iter, to - at);
		sent = kiw_txb_sendmsg(sock, msg);
		iov_iter_reexpand(&msg->msg_iter, left - max(sent, 0));
		if (sent < 0)
			return done ? done : sent;
		done += sent;
		at += sent;
		if (at < to)
			break;		/* TCP is full */
	}
	return done;
}

/**
 * kiw_txb_send - hand the batch to TCP
 * @b: the batch
 * @sock: the connection's socket
 * @more: more FPDUs follow at once (MSG_MORE on the last run)
 *
 * The batch goes out in runs (see kiw_tx_batch.h), each ending with
 * MSG_EOR. Whatever TCP does not take now is copied into the spill
 * buffer, so that on return the batch's FPDUs are committed (RFC 5044
 * Appendix A.1: once accepted, an FPDU is sent or the connection fails)
 * and its regions' references are dropped.
 *
 * Return: 0, or the socket's error (the connection is broken).
 */
int kiw_txb_send(struct kiw_txb *b, struct socket *sock, bool more)
{
	struct msghdr msg = {};
	unsigned int i, n = 0;
	u32 base = 0;
	struct kvec kv;
	int sent;

	kiw_txb_iter(b, &msg.msg_iter, &kv);
	sent = kiw_txb_send_runs(b, sock, &msg, 0, b->bytes, more);
	if (sent == -EAGAIN)
		sent = 0;
	if (sent >= 0 && sent < b->bytes && b->staged) {
		/* The rest is in the spill buffer already. */
		b->spill_len = b->bytes;
		b->spill_off = sent;
	} else if (sent >= 0 && sent < b->bytes) {
		/* msg_iter stands at the first octet TCP did not take. */
		b->spill_len = copy_from_iter(b->spill, b->bytes - sent,
					      &msg.msg_iter);
		b->spill_off = 0;
		base = sent;
		WARN_ON_ONCE(b->spill_len != b->bytes - sent);
	}
	/* The cuts still ahead, as spill buffer offsets. */
	for (i = 0; sent >= 0 && i < b->nr_cut; i++)
		if (b->cut[i] > sent)
			b->cut[n++] = b->cut[i] - base;
	b->nr_cut = n;
	kiw_txb_put_refs(b);
	return sent < 0 ? sent : 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_send);

/**
 * kiw_txb_push_spill - send what earlier batches left
 * @b: the batch
 * @sock: the socket
 *
 * In runs, as kiw_txb_send() would have sent it.
 *
 * Return: 0 once the spill buffer is empty, -EAGAIN if TCP has no room
 * yet (sk_write_space will tell), or the socket's error.
 */
int kiw_txb_push_spill(struct kiw_txb *b, struct socket *sock)
{
	struct msghdr msg = {};
	struct kvec kv;
	int sent;

	if (b->spill_off < b->spill_len) {
		kv.iov_base = b->spill + b->spill_off;
		kv.iov_len = b->spill_len - b->spill_off;
		iov_iter_kvec(&msg.msg_iter, ITER_SOURCE, &kv, 1, kv.iov_len);
		sent = kiw_txb_send_runs(b, sock, &msg, b->spill_off,
					 b->spill_len, false);
		if (sent <= 0)
			return sent ? sent : -EAGAIN;
		b->spill_off += sent;
		if (b->spill_off < b->spill_len)
			return -EAGAIN;
	}
	b->spill_len = 0;
	b->spill_off = 0;
	b->nr_cut = 0;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_txb_push_spill);
