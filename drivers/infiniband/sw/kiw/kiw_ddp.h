/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * DDP protocol logic (RFC 5041): segment headers, segmentation of a
 * message to the MULPDU, and the receive-side checks of section 7.1 with
 * the per-queue reassembly state they run against.
 *
 * Everything here is pure: no sockets, no skbs, no verbs objects, no
 * allocation, no locks. The transmit and receive engines call these
 * functions with plain values and own the state structs (the receive state
 * belongs to the connection's receive path, which runs one segment at a
 * time, so it needs no lock of its own).
 *
 * Receiving a segment, in this order (each step returns KIW_TERM_NONE or
 * the Terminate error to report; the first error stops the segment, and
 * nothing of it is placed):
 *
 *   1. kiw_ddp_rx_parse()          DDP version, header length, QN range
 *   2. kiw_rdmap_rx_check()        RDMAP version, opcode vs model and QN
 *   3. kiw_ddp_rx_check_untagged() MSN, buffer, MO, length, or
 *      kiw_ddp_rx_check_tagged()   STag and TO continuity in a message
 *   4. if kiw_ddp_needs_stag_check(): the STag access check (kiw_mem.c),
 *      never for a zero-length tagged segment (RFC 5041 section 5.2)
 *   5. place the payload
 *   6. kiw_ddp_rxq_advance() / kiw_ddp_rxt_advance()
 *
 * What kiw enforces beyond the letter of section 7.1, and why: kiw sits on
 * a TCP socket, so segments reach it in the order the peer sent them. A
 * data source passes the messages of a queue to the LLP in order (section
 * 5.3), gives every segment of a message the same STag or QN/MSN, and
 * sends the L segment last (section 4.1); every iWARP sender we know also
 * sends a message's segments in increasing MO/TO order, which section 5.3
 * recommends. An in-order receiver can therefore check each segment
 * against the message it continues, and does so instead of tracking a
 * window of placements:
 *
 *   - untagged: the MSN is the queue's expected one, the next message
 *     (2/0x03 otherwise, even inside the RFC's window of posted buffers;
 *     a second L for one MSN lands here, because the first L moved the
 *     queue on); the MO is the number of octets already placed in the
 *     message, 0 for its first segment (2/0x04); MO + length fits the
 *     buffer and stays below 2^32 (2/0x05); the RDMAP control octet is the
 *     same in every segment (RDMAP 0x2/0x06: the opcode changed
 *     mid-message). RsvdULP's other 32 bits (the Invalidate STag) are not
 *     compared, as section 4.3 allows; RDMAP uses the L segment's value.
 *   - tagged: a segment continuing a message carries the message's STag
 *     (1/0x00) and the TO right after the previous segment (1/0x01).
 *     Writes and Read Responses come from different queues at the peer and
 *     may interleave, so each has its own context (struct kiw_ddp_rx).
 *   - zero-length untagged segments get the same checks (a zero-length
 *     Send still consumes a receive buffer and an MSN at the RDMAP layer;
 *     with none posted it is 2/0x02); zero-length tagged segments are never
 *     checked against STag or TO, and do not start or move a message.
 *   - the Rsvd bits of the DDP control octet are never checked.
 */
#ifndef KIW_DDP_H
#define KIW_DDP_H

#include <linux/types.h>
#include <kiw/ddp.h>
#include <kiw/rdmap.h>

/* ---- Transmit: headers and segmentation ---- */

void kiw_ddp_build_tagged(struct kiw_ddp_tagged_hdr *h, u8 rdmap_ctrl,
			  u32 stag, u64 to, bool last);
void kiw_ddp_build_untagged(struct kiw_ddp_untagged_hdr *h, u8 rdmap_ctrl,
			    u32 ulp_word, u32 qn, u32 msn, u32 mo, bool last);

/* One segment of a message, as kiw_ddp_seg_next() hands it out. */
struct kiw_ddp_seg {
	u32 off;	/* first payload octet in the message: MO, TO - TO0 */
	u32 len;	/* payload octets */
	bool last;	/* set L */
};

/*
 * Cuts a message of len octets (0 <= len < 2^32) into segments whose DDP
 * header and payload fit the MULPDU. Offsets start at 0: untagged segments
 * carry them as MO, tagged ones as initial TO + offset (RFC 5041 section
 * 5.2). Plain state, so the transmit engine can stop between segments and
 * resume.
 */
struct kiw_ddp_segmenter {
	u32 msg_len;
	u32 off;		/* offset of the next segment */
	u32 max_payload;	/* MULPDU - DDP header length */
	u8 hdr_len;
	bool done;
};

int kiw_ddp_seg_init(struct kiw_ddp_segmenter *s, u32 msg_len,
		     unsigned int mulpdu, bool tagged);
int kiw_ddp_seg_set_mulpdu(struct kiw_ddp_segmenter *s, unsigned int mulpdu);
bool kiw_ddp_seg_next(struct kiw_ddp_segmenter *s, struct kiw_ddp_seg *seg);

/* ---- Receive: parsed header, per-queue state, checks ---- */

/* A received segment's DDP header in host order, and its payload length. */
struct kiw_ddp_info {
	u8 ddp_ctrl;
	u8 rdmap_ctrl;		/* RsvdULP octet 0 */
	u32 stag;		/* tagged */
	u64 to;			/* tagged */
	u32 ulp_word;		/* untagged RsvdULP octets 1-4 */
	u32 qn;			/* untagged */
	u32 msn;		/* untagged */
	u32 mo;			/* untagged */
	u32 len;		/* payload octets after the header */
};

static inline bool kiw_ddp_info_tagged(const struct kiw_ddp_info *seg)
{
	return kiw_ddp_is_tagged(seg->ddp_ctrl);
}

static inline bool kiw_ddp_info_last(const struct kiw_ddp_info *seg)
{
	return kiw_ddp_is_last(seg->ddp_ctrl);
}

/*
 * Whether the STag access check must run on a tagged segment: never for a
 * zero-length one, whose STag and TO must not be checked (RFC 5041
 * section 5.2; some peers send STag 0 there).
 */
static inline bool kiw_ddp_needs_stag_check(const struct kiw_ddp_info *seg)
{
	return kiw_ddp_info_tagged(seg) && seg->len;
}

/* The length of the untagged message an L segment completes (5.4). */
static inline u32 kiw_ddp_msg_len(const struct kiw_ddp_info *seg)
{
	return seg->mo + seg->len;
}

/* Untagged reassembly state of one queue (QN 0, 1 or 2). */
struct kiw_ddp_rxq {
	u32 msn;	/* MSN of the message in progress, else the next one */
	u32 placed;	/* octets of that message placed: the next MO */
	u8 rdmap_ctrl;	/* RDMAP control octet of the message in progress */
	bool active;	/* a segment without L was accepted */
};

/* Tagged reassembly state of one kind of tagged message. */
struct kiw_ddp_rxt {
	u32 stag;	/* STag of the message in progress */
	u64 next_to;	/* TO its next segment must carry */
	bool active;
};

/* A connection's receive state; init with kiw_ddp_rx_init(). */
struct kiw_ddp_rx {
	struct kiw_ddp_rxq q[KIW_DDP_QN_COUNT];
	struct kiw_ddp_rxt write;	/* RDMA Write */
	struct kiw_ddp_rxt read_resp;	/* RDMA Read Response */
};

/*
 * The tagged context a segment belongs to, by its RDMAP opcode (already
 * checked by kiw_rdmap_rx_check(): tagged means Write or Read Response).
 */
static inline struct kiw_ddp_rxt *
kiw_ddp_rx_tagged_ctx(struct kiw_ddp_rx *rx, const struct kiw_ddp_info *seg)
{
	return kiw_rdmap_opcode(seg->rdmap_ctrl) == KIW_RDMAP_READ_RESP ?
	       &rx->read_resp : &rx->write;
}

/* The MSN after msn: u32 arithmetic wraps 0xffffffff to 0 (4.3). */
static inline u32 kiw_ddp_msn_next(u32 msn)
{
	return msn + 1;
}

void kiw_ddp_rxq_init(struct kiw_ddp_rxq *q);
void kiw_ddp_rxt_init(struct kiw_ddp_rxt *t);
void kiw_ddp_rx_init(struct kiw_ddp_rx *rx);

kiw_term_t kiw_ddp_rx_parse(const void *hdr, unsigned int seg_len,
			    struct kiw_ddp_info *seg);
void kiw_ddp_decode(const void *hdr, struct kiw_ddp_info *seg);
kiw_term_t kiw_ddp_rx_check_untagged(const struct kiw_ddp_rxq *q,
				     const struct kiw_ddp_info *seg,
				     u32 nr_bufs, u64 buf_len);
kiw_term_t kiw_ddp_rx_check_tagged(const struct kiw_ddp_rxt *t,
				   const struct kiw_ddp_info *seg);
bool kiw_ddp_rxq_advance(struct kiw_ddp_rxq *q,
			 const struct kiw_ddp_info *seg);
bool kiw_ddp_rxt_advance(struct kiw_ddp_rxt *t,
			 const struct kiw_ddp_info *seg);

#endif /* KIW_DDP_H */
