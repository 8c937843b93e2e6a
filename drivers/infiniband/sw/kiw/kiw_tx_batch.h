/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw transmit batches: a run of FPDUs handed to TCP with one sendmsg().
 *
 * The TX engine (kiw_tx.c) decides what goes into each FPDU: it writes
 * the DDP (and RDMAP) header into kiw_txb_hdr(), names the payload with
 * kiw_txb_src_local()/kiw_txb_src_tagged(), and closes the FPDU with
 * kiw_txb_add(), which frames it. kiw_txb_send() then gives the batch to
 * TCP, which copies it into its own buffers, so a work request is
 * complete once its last FPDU was accepted.
 *
 * Segments. TCP fills each segment to the EMSS and appends to a segment
 * it has not sent yet; an FPDU shorter than the EMSS (a message's last)
 * would have the next FPDU's first octets appended, and every segment
 * after it would begin inside an FPDU. So the batch goes out in runs,
 * each a sendmsg() ending with MSG_EOR (TCP then appends nothing to that
 * segment), cut where the next FPDU would not fit in what is left of the
 * current segment (kiw_seg_plan_next()), and at the end of the batch:
 * every segment begins with an FPDU (RFC 5044 section 5).
 *
 * Without CRC an FPDU is framed as vectors over the payload pages
 * (kiw_fpdu_build()), and TCP copies straight from the regions. With CRC
 * the CRC must cover exactly the octets TCP copies, and the payload's
 * owner may write it meanwhile (user memory; a buffer a peer places into
 * while it is also a send source, as perftest does): each FPDU is then
 * staged, copied into the spill buffer with its CRC computed over that
 * copy (kiw_fpdu_build_linear()), and the batch is sent from there. A
 * payload that changes is then sent as it was copied, with a CRC that
 * matches it, as a NIC reading memory once would send it.
 *
 * Memory regions. The payload is described by page vectors into the
 * regions; a reference on each region is held from kiw_txb_src_*() until
 * kiw_txb_send() returns, and never longer: dereg_mr waits for those
 * references, and the peer may keep the socket full for as long as it
 * likes. What TCP did not accept (the socket is full) is therefore
 * copied into the spill buffer, and sent from there before anything else
 * (kiw_txb_push_spill()); a batch is sized to the socket's free space, so
 * that copy is the exception.
 *
 * Context: the TX work only (process context, may not sleep except in
 * sendmsg(), which is called with MSG_DONTWAIT). No locks of its own.
 */
#ifndef KIW_TX_BATCH_H
#define KIW_TX_BATCH_H

#include <linux/bvec.h>
#include <linux/net.h>
#include <linux/types.h>
#include <linux/uio.h>

#include "kiw_fpdu.h"
#include "kiw_mem.h"
#include "kiw_qp.h"

#define KIW_TXB_FPDUS	16	/* FPDUs per batch */
#define KIW_TXB_SRC	32	/* payload vectors per FPDU */
#define KIW_TXB_REFS	16	/* regions referenced by one batch */
#define KIW_TXB_BYTES	65536	/* octets per batch; the largest spill size */
#define KIW_TXB_SPILL_MIN 1024	/* the smallest spill buffer */

/*
 * The spill buffer. A connection's starts at its largest FPDU (the
 * peer's MSS bounds it: kiw_tx_attach()), never below
 * KIW_TXB_SPILL_MIN, and a batch never takes more octets than the
 * buffer holds: its first FPDU always fits, others only within the
 * buffer's size, so a staged batch, and what TCP did not take of any
 * batch, always fit in it. Once a batch had to stop at that size with
 * a message still being sent, and the socket offered more, the next
 * batch first tries to double the buffer (up to KIW_TXB_BYTES: it grows
 * with the traffic), without waiting for memory; if that
 * fails, batches simply stay that size. State only needed under load is
 * so allocated when it is needed, and a failure never stops a stream.
 */
/* The largest buffer holds any FPDU. */
static_assert(KIW_MPA_FPDU_OVERHEAD + KIW_MPA_ULPDU_MAX + 3 +
	      KIW_MPA_MARKER_SIZE * KIW_FPDU_MAX_MARKERS <= KIW_TXB_BYTES);
/* A Terminate, the one FPDU sent before any MSS is known, fits anyway. */
static_assert(KIW_MPA_FPDU_OVERHEAD + KIW_DDP_HDR_MAX_LEN +
	      KIW_RDMAP_TERM_MAX_LEN + 3 + KIW_MPA_MARKER_SIZE * 3 <=
	      KIW_TXB_SPILL_MIN);

/*
 * Shaped by what the connection negotiated (kiw_txb_alloc()): FPDUs with
 * a CRC are staged in the spill buffer and need no vectors; without CRC,
 * vectors for the whole batch: one FPDU's worst case, and a share for
 * each of the others (a batch that runs out of them just ends early).
 * Marker room only for a connection that sends markers.
 */
#define KIW_TXB_VECS_FPDU	5	/* vectors per FPDU, without markers */
#define KIW_TXB_VECS_FPDU_MK	12	/* with markers */
#define KIW_TXB_ZCOPY	BIT(0)	/* FPDUs go out as vectors (no CRC) */
#define KIW_TXB_MARKERS	BIT(1)	/* FPDUs carry markers */

/* Longest header an FPDU starts with: untagged DDP plus inline data. */
#define KIW_TXB_HDR_MAX	(KIW_DDP_HDR_MAX_LEN + KIW_MAX_INLINE)

static_assert(KIW_DDP_HDR_MAX_LEN + KIW_RDMAP_TERM_MAX_LEN <= KIW_TXB_HDR_MAX);
static_assert(KIW_DDP_HDR_MAX_LEN + sizeof(struct kiw_rdmap_read_req) <=
	      KIW_TXB_HDR_MAX);

/*
 * One FPDU's octets that are not payload; the vectors point here. Without
 * CRC a batch has one for each of its FPDUs (the vectors point into them
 * until TCP took the batch); with CRC a single one, which each FPDU
 * reuses: kiw_fpdu_build_linear() copies it into the staged image before
 * the next FPDU is begun (kiw_txb_slot()).
 */
struct kiw_txb_fpdu {
	u8 hdr[KIW_MPA_ULPDU_LEN_SIZE + KIW_TXB_HDR_MAX];
	struct kiw_fpdu_tx ftx;
};

/* A region the batch reads from, with the snapshot it was checked on. */
struct kiw_txb_ref {
	struct kiw_mr *mr;
	struct kiw_mr_map map;
	u32 key;		/* the lkey or STag it was found by */
	bool remote;		/* checked as a Read source (STag) */
};

/* An SQ work request whose last FPDU is in the batch: its position. */
struct kiw_txb_end {
	u32 pos;
};

struct kiw_txb {
	unsigned int nr_fpdu;
	unsigned int nr_vec;
	unsigned int nr_src;	/* payload vectors of the FPDU being built */
	unsigned int nr_ref;
	unsigned int nr_end;
	unsigned int bytes;	/* octets in the batch */
	bool staged;		/* the FPDUs are in the spill buffer (CRC) */
	unsigned int limit;	/* octets this batch should not exceed */
	unsigned int want;	/* what kiw_txb_begin() was offered */
	bool grow;		/* a batch stopped at spill_cap: grow it */
	/*
	 * Where a sendmsg() ends with MSG_EOR (kiw_seg_plan_next()): batch
	 * offsets while the batch is built, spill buffer offsets once what
	 * TCP did not take is there; the end of the batch is one too.
	 */
	struct kiw_seg_plan plan;
	unsigned int nr_cut;
	u32 cut[KIW_TXB_FPDUS];
	struct kiw_txb_fpdu *fpdu;	/* kiw_txb_slot(); in the linear map */
	struct kiw_mpa_marker *mk;	/* kiw_txb_mk_max() per slot; linear */
	struct kiw_txb_end end[KIW_TXB_FPDUS];
	struct kiw_txb_ref ref[KIW_TXB_REFS];
	struct bio_vec src[KIW_TXB_SRC];
	unsigned int flags;	/* KIW_TXB_ZCOPY, KIW_TXB_MARKERS */
	unsigned int fpdu_vecs;	/* most vectors one FPDU can need */
	unsigned int vec_max;	/* room in @vec */
	/*
	 * The octets of earlier batches TCP has not taken yet; while a
	 * batch is built (the buffer is then empty), its staged FPDUs.
	 */
	u8 *spill;
	unsigned int spill_cap;	/* its size */
	unsigned int spill_len;
	unsigned int spill_off;
	struct bio_vec vec[];	/* @vec_max; the batch's FPDUs, if ZCOPY */
};

/* Marker room per FPDU in @mk: none without markers. */
static inline unsigned int kiw_txb_mk_max(const struct kiw_txb *b)
{
	return b->flags & KIW_TXB_MARKERS ? KIW_FPDU_MAX_MARKERS : 0;
}

/* FPDU slots a batch of @flags has: one per FPDU only for vectors. */
static inline unsigned int kiw_txb_nr_slots(unsigned int flags)
{
	return flags & KIW_TXB_ZCOPY ? KIW_TXB_FPDUS : 1;
}

/* The slot of the batch's FPDU @i: its header, trailer and layout. */
static inline struct kiw_txb_fpdu *kiw_txb_slot(const struct kiw_txb *b,
						unsigned int i)
{
	return &b->fpdu[b->flags & KIW_TXB_ZCOPY ? i : 0];
}

/* The FPDU kiw_txb_add() added last (the batch must have one). */
static inline const struct kiw_txb_fpdu *kiw_txb_last(const struct kiw_txb *b)
{
	return kiw_txb_slot(b, b->nr_fpdu - 1);
}

struct kiw_txb *kiw_txb_alloc(unsigned int spill, unsigned int flags);
void kiw_txb_free(struct kiw_txb *b);
int kiw_txb_reserve(struct kiw_txb *b, unsigned int size, gfp_t gfp);
void kiw_txb_stopped_short(struct kiw_txb *b, unsigned int next);
void kiw_txb_begin(struct kiw_txb *b, unsigned int limit, unsigned int mss);
bool kiw_txb_room(const struct kiw_txb *b, unsigned int next);

/* The current FPDU's header area, after the ULPDU_Length octets. */
static inline u8 *kiw_txb_hdr(struct kiw_txb *b)
{
	return kiw_txb_slot(b, b->nr_fpdu)->hdr + KIW_MPA_ULPDU_LEN_SIZE;
}

int kiw_txb_src_local(struct kiw_txb *b, struct kiw_device *kdev,
		      const struct ib_pd *pd, const struct siw_sge *sge,
		      u32 off, u32 len, enum ib_wc_status *status);
int kiw_txb_src_tagged(struct kiw_txb *b, struct kiw_device *kdev,
		       const struct ib_pd *pd, u32 stag, u64 to, u32 len,
		       kiw_term_t *term);
void kiw_txb_src_reset(struct kiw_txb *b);
int kiw_txb_add(struct kiw_txb *b, u32 start, bool markers, bool crc,
		unsigned int hdr_len);
void kiw_txb_end_msg(struct kiw_txb *b, u32 pos);
void kiw_txb_put_refs(struct kiw_txb *b);
void kiw_txb_iter(struct kiw_txb *b, struct iov_iter *it, struct kvec *kv);
int kiw_txb_send(struct kiw_txb *b, struct socket *sock, bool more);
int kiw_txb_push_spill(struct kiw_txb *b, struct socket *sock);

#endif /* KIW_TX_BATCH_H */
