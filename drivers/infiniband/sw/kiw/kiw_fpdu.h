/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw FPDU framing, pure: the receive parser and the transmit builder
 * (RFC 5044 sections 4 to 6). No sockets here: the RX engine feeds the
 * parser from its tcp_read_sock() actor, the TX engine hands the builder's
 * vectors to one sendmsg().
 *
 * Stream offsets are u32, counted from SeqStart (the first octet of Full
 * Operation in that direction); they wrap, and markers sit wherever the
 * offset is a multiple of 512.
 */
#ifndef KIW_FPDU_H
#define KIW_FPDU_H

#include <linux/bvec.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <kiw/ddp.h>
#include <kiw/mpa.h>
#include <kiw/rdmap.h>

/*
 * Receive.
 *
 * The parser is fed exactly what a tcp_read_sock() actor gets: (skb,
 * offset, length) chunks of the in-order byte stream, split anywhere.
 * It removes markers (checking each FPDUPTR), reassembles ULPDU_Length
 * and the DDP header, runs the CRC over everything RFC 5044 section 4.4
 * covers, and calls the upper layer:
 *
 *   hdr()   once the DDP header is complete (14 or 18 octets, from the T
 *           bit), with the ULPDU length. A non-zero return (a Terminate
 *           error) fails the FPDU; the payload is then not passed up.
 *   data()  for each piece of payload, markers already removed. The upper
 *           layer must run every octet, in order, through exactly one of
 *           kiw_fpdu_rx_copy(), kiw_fpdu_rx_copy_page() or
 *           kiw_fpdu_rx_skip(), which keep the CRC going. Returning an
 *           error fails the FPDU. Its offset is for those helpers only:
 *           a piece may have markers inside (it then counts payload
 *           octets, the helpers skip them), so it reads no skb itself.
 *   end()   once per FPDU, after its CRC field: KIW_TERM_NONE for a good
 *           FPDU, else the error; after an error the parser is stopped for
 *           good and calls nothing more (RFC 5044 section 8).
 *
 * A ULPDU_Length above KIW_MPA_ULPDU_MAX stops the parser at once
 * (KIW_FPDU_ERR_LEN). Errors inside an FPDU (a bad FPDUPTR: LLP code 3; a
 * ULPDU shorter than its DDP header: KIW_FPDU_ERR_SHORT; a hdr() or data()
 * error) are held
 * until the FPDU's CRC field when CRC is on, and a CRC mismatch (LLP code
 * 2) is reported instead of them: RFC 5044 section 8 reports code 3 only
 * "with a valid CRC", and a header that fails its checks may simply be
 * corrupt. Without CRC they are reported at once.
 *
 * Verify first (RFC 5044 section 6, MPA-RX-1). With CRC, an FPDU's
 * payload must not reach data() before its CRC is known good: the caller
 * asks kiw_fpdu_rx_room() how much the parser may take. 0 means the next
 * FPDU has to be checked ahead first, once all of it is queued
 * (kiw_fpdu_rx_span() says how much that is): a copy of the parser runs
 * over it, CRC only (kiw_fpdu_rx_ahead_begin(), _feed()), and
 * kiw_fpdu_rx_ahead_commit() hands the verdict to the parser, which then
 * takes that FPDU without running the CRC again: a good one as before, a
 * bad one (its CRC, or with a good CRC its framing) without calling
 * hdr() or data(), its error reported as before. Without markers, an
 * FPDU whole in one contiguous piece is checked in one CRC pass instead
 * (kiw_fpdu_rx_ahead_flat()), to the same verdict. kiw_fpdu_rx_through()
 * lets one FPDU go up as it arrives, its CRC checked at its end, for a
 * receiver that cannot hold all of it. Fed without asking (the KUnit engine tests do), the parser
 * still places before the CRC is known, and the upper layer completes
 * nothing before end() says the FPDU was good.
 */

/*
 * A ULPDU shorter than the DDP header its control octet announces: MPA
 * framed it fine (its CRC is good), DDP cannot interpret it. DDP local
 * catastrophic, as kiw_ddp_rx_parse() reports the same segment (and irdma
 * its "segment too small"); not MPA code 3, which is a marker that
 * disagrees with ULPDU_Length and means nothing without markers.
 */
#define KIW_FPDU_ERR_SHORT \
	KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_CATASTROPHIC, \
		 KIW_DDP_ECODE_CATASTROPHIC)

/*
 * A ULPDU_Length above the largest ULPDU any sender may post (64768, RFC
 * 5044 section 3): reported at once, before anything of the FPDU is passed
 * up; such a length points at no CRC field worth checking. RFC 5044
 * section 8 has no code for it; as siw, kiw reports code 3, the framing
 * error of that list.
 */
#define KIW_FPDU_ERR_LEN \
	KIW_TERM(KIW_TERM_LAYER_LLP, KIW_LLP_ETYPE_MPA, KIW_LLP_ECODE_MARKER)
#define KIW_FPDU_ERR_CRC \
	KIW_TERM(KIW_TERM_LAYER_LLP, KIW_LLP_ETYPE_MPA, KIW_LLP_ECODE_CRC)
#define KIW_FPDU_ERR_MARKER \
	KIW_TERM(KIW_TERM_LAYER_LLP, KIW_LLP_ETYPE_MPA, KIW_LLP_ECODE_MARKER)
/* The upper layer did not account for a data() piece exactly (a bug). */
#define KIW_FPDU_ERR_LOCAL \
	KIW_TERM(KIW_TERM_LAYER_RDMAP, KIW_RDMAP_ETYPE_CATASTROPHIC, \
		 KIW_RDMAP_ECODE_CATASTROPHIC)

#define KIW_FPDU_RX_HDR_MAX	sizeof(struct kiw_ddp_untagged_hdr)

struct kiw_fpdu_rx;

struct kiw_fpdu_rx_ops {
	kiw_term_t (*hdr)(struct kiw_fpdu_rx *rx, const u8 *hdr,
			  unsigned int hdr_len, unsigned int ulpdu_len);
	kiw_term_t (*data)(struct kiw_fpdu_rx *rx, const struct sk_buff *skb,
			   unsigned int off, unsigned int len);
	void (*end)(struct kiw_fpdu_rx *rx, kiw_term_t verdict);
};

/*
 * Parser states, in stream order. A marker may come in any state except
 * inside a field (FPDUs are 4-aligned from SeqStart); its octets are taken
 * aside and added to the current FPDU's CRC. Between FPDUs the parser is
 * in LEN with nothing collected, and the CRC preset, so a marker there
 * belongs to the next FPDU, as section 4.4 says.
 */
enum kiw_fpdu_rx_state {
	KIW_FPDU_RX_LEN,	/* collecting the 2 octets of ULPDU_Length */
	KIW_FPDU_RX_HDR,	/* collecting the DDP header */
	KIW_FPDU_RX_DATA,	/* payload: up via data(), or CRC only */
	KIW_FPDU_RX_PAD,	/* 0-3 PAD octets: CRC only */
	KIW_FPDU_RX_CRC,	/* collecting the 4 CRC octets */
	KIW_FPDU_RX_DEAD,	/* an error was reported: consume nothing */
};

/* All receive state of one connection; the QP embeds it. */
struct kiw_fpdu_rx {
	const struct kiw_fpdu_rx_ops *ops;
	u32 off;		/* stream offset of the next octet */
	u32 fpdu_off;		/* stream offset of this FPDU's ULPDU_Length */
	u32 crc;		/* CRC32c register of this FPDU */
	u32 acct;		/* octets accounted for in the current data() */
	u32 rem;		/* octets left in DATA or PAD */
	kiw_term_t pending;	/* error held until the CRC field */
	kiw_term_t err;		/* the error that stopped the parser */
	enum kiw_fpdu_rx_state state;
	u16 ulpdu_len;
	u8 pad;
	u8 hdr_len;		/* 0 until the DDP control octet is in */
	u8 have;		/* octets of the current field collected */
	u8 mk_have;		/* octets of the current marker collected */
	bool markers;		/* this direction carries markers */
	bool crc_on;		/* CRC negotiated: check it */
	bool ahead;		/* this FPDU's CRC was checked ahead */
	bool ahead_bad;		/* ... and does not match */
	bool once;		/* a copy checking ahead: stop after one FPDU */
	bool through;		/* this FPDU goes up unchecked (kiw_rx.c) */
	u32 ahead_end;		/* stream offset just past that FPDU */
	/* The flat window, kiw_fpdu_rx_flat_begin() to _end(): */
	const struct sk_buff *flat_skb;	/* NULL outside it */
	const u8 *flat;		/* octet @flat_start of @flat_skb */
	unsigned int flat_start;
	unsigned int flat_len;
	/*
	 * A data() call over payload that markers interrupt, all of it in
	 * the flat window (kiw_fpdu_rx_data_span()): the helpers' offsets
	 * count payload octets from @span_off, the skb offset of the first,
	 * and they skip the markers in between.
	 */
	bool span;
	unsigned int span_off;
	unsigned int span_len;	/* payload octets */
	unsigned int span_first; /* ... before the first marker */
	u8 mk[KIW_MPA_MARKER_SIZE];
	u8 len[KIW_MPA_ULPDU_LEN_SIZE];
	u8 hdr[KIW_FPDU_RX_HDR_MAX];
	u8 crc_field[KIW_MPA_CRC_SIZE];
};

void kiw_fpdu_rx_init(struct kiw_fpdu_rx *rx,
		      const struct kiw_fpdu_rx_ops *ops, bool markers,
		      bool crc);
unsigned int kiw_fpdu_rx_feed(struct kiw_fpdu_rx *rx,
			      const struct sk_buff *skb, unsigned int off,
			      unsigned int len);

static inline kiw_term_t kiw_fpdu_rx_error(const struct kiw_fpdu_rx *rx)
{
	return rx->err;
}

unsigned int kiw_fpdu_rx_room(const struct kiw_fpdu_rx *rx);
int kiw_fpdu_rx_span(const struct kiw_fpdu_rx *rx, const u8 *peek,
		     unsigned int n);
void kiw_fpdu_rx_ahead_begin(struct kiw_fpdu_rx *copy,
			     const struct kiw_fpdu_rx *rx);
bool kiw_fpdu_rx_ahead_feed(struct kiw_fpdu_rx *copy,
			    const struct sk_buff *skb, unsigned int off,
			    unsigned int len);
void kiw_fpdu_rx_ahead_commit(struct kiw_fpdu_rx *rx,
			      const struct kiw_fpdu_rx *copy);
bool kiw_fpdu_rx_ahead_flat(struct kiw_fpdu_rx *rx, const u8 *fpdu,
			    unsigned int n);

/* May kiw_fpdu_rx_ahead_flat() check the next FPDU (if it is at hand)? */
static inline bool kiw_fpdu_rx_flat_ok(const struct kiw_fpdu_rx *rx)
{
	return rx->crc_on && !rx->markers && !rx->ahead && !rx->through;
}

void kiw_fpdu_rx_through(struct kiw_fpdu_rx *rx);

/**
 * kiw_fpdu_rx_flat_begin - the caller holds octets of @skb flat in memory
 * @rx: the parser
 * @skb: the skb the next kiw_fpdu_rx_feed() calls pass
 * @off: offset in @skb of the octet at @va
 * @va: @len octets of @skb from @off, contiguous, mapped until
 *	kiw_fpdu_rx_flat_end()
 * @len: octets
 *
 * Until kiw_fpdu_rx_flat_end(), the parser and the data() helpers below
 * read octets in that window from @va instead of walking @skb.
 */
static inline void kiw_fpdu_rx_flat_begin(struct kiw_fpdu_rx *rx,
					  const struct sk_buff *skb,
					  unsigned int off, const u8 *va,
					  unsigned int len)
{
	rx->flat_skb = skb;
	rx->flat = va;
	rx->flat_start = off;
	rx->flat_len = len;
}

static inline void kiw_fpdu_rx_flat_end(struct kiw_fpdu_rx *rx)
{
	rx->flat_skb = NULL;
}

void kiw_fpdu_rx_feed_pieces(struct kiw_fpdu_rx *rx, const struct sk_buff *skb,
			     unsigned int off, unsigned int len);
unsigned int kiw_fpdu_rx_take_flat(struct kiw_fpdu_rx *rx,
				   const struct sk_buff *skb, unsigned int off,
				   unsigned int len);

/* Octets kiw_fpdu_rx_span() may need to see. */
#define KIW_FPDU_RX_PEEK	(KIW_MPA_MARKER_SIZE + KIW_MPA_ULPDU_LEN_SIZE)

int kiw_fpdu_rx_copy(struct kiw_fpdu_rx *rx, const struct sk_buff *skb,
		     unsigned int off, void *to, unsigned int len);
int kiw_fpdu_rx_copy_page(struct kiw_fpdu_rx *rx, const struct sk_buff *skb,
			  unsigned int off, struct page *page,
			  unsigned int pg_off, unsigned int len);
int kiw_fpdu_rx_skip(struct kiw_fpdu_rx *rx, const struct sk_buff *skb,
		     unsigned int off, unsigned int len);

/*
 * Transmit.
 *
 * Where the markers of an FPDU fall: for an FPDU whose first octet is at
 * stream offset @start (a multiple of 4 when markers are on), marker i
 * (0 <= i < nr_markers) is at offset first_marker + 512 * i from @start.
 * A marker at offset 0 leads the FPDU (FPDUPTR 0) and ULPDU_Length follows
 * it; a marker that would fall right after the CRC belongs to the next
 * FPDU and is not counted here.
 */
struct kiw_fpdu_layout {
	u32 start;		/* stream offset of the FPDU's first octet */
	u32 wire_len;		/* octets on the wire, markers included */
	u16 ulpdu_len;
	u16 nr_markers;
	u16 first_marker;	/* offset from @start of marker 0 */
	u8 pad;
	u8 lead;		/* 4 if a marker leads the FPDU, else 0 */
};

/* Most markers one FPDU of at most KIW_MPA_ULPDU_MAX octets can hold. */
#define KIW_FPDU_MAX_MARKERS \
	DIV_ROUND_UP(KIW_MPA_ULPDU_MAX + KIW_MPA_ULPDU_LEN_SIZE + 3 + \
		     KIW_MPA_CRC_SIZE, \
		     KIW_MPA_MARKER_INTERVAL - KIW_MPA_MARKER_SIZE)

int kiw_fpdu_layout(struct kiw_fpdu_layout *lay, u32 start,
		    unsigned int ulpdu_len, bool markers);
unsigned int kiw_fpdu_mulpdu_at(unsigned int emss, u32 start);

static inline u32 kiw_fpdu_marker_pos(const struct kiw_fpdu_layout *lay,
				      unsigned int i)
{
	return lay->first_marker + i * KIW_MPA_MARKER_INTERVAL;
}

static inline u16 kiw_fpdu_marker_ptr(const struct kiw_fpdu_layout *lay,
				      unsigned int i)
{
	u32 pos = kiw_fpdu_marker_pos(lay, i);

	return pos ? pos - lay->lead : 0;
}

/*
 * Where TCP will cut segments (RFC 5044 section 5, MPA-AL-1): it fills
 * each one to the EMSS from where the last sendmsg() with MSG_EOR ended,
 * so a run of FPDUs handed over in one sendmsg() lands whole in segments
 * as long as no FPDU would straddle the EMSS. kiw_seg_plan_next() says,
 * for each FPDU in turn, where a sendmsg() must end with MSG_EOR for
 * every FPDU boundary to be a possible segment boundary.
 */
struct kiw_seg_plan {
	unsigned int mss;	/* the EMSS; 0: no planning */
	unsigned int fill;	/* octets in the segment being filled */
};

#define KIW_SEG_CUT_BEFORE	BIT(0)	/* end a sendmsg() before the FPDU */
#define KIW_SEG_CUT_AFTER	BIT(1)	/* end one after it */

static inline void kiw_seg_plan_init(struct kiw_seg_plan *p, unsigned int mss)
{
	p->mss = mss;
	p->fill = 0;
}

unsigned int kiw_seg_plan_next(struct kiw_seg_plan *p, unsigned int wire_len);

/*
 * Two ways to put an FPDU out: kiw_fpdu_build() describes it as vectors
 * over the caller's header, the payload pages, the caller's marker room
 * and the trailer in struct kiw_fpdu_tx (zero copy; the CRC is one read
 * of the payload);
 * kiw_fpdu_build_linear() writes it into one buffer, copying the payload
 * and computing the CRC over the copy in the same pass.
 *
 * One FPDU to build. @hdr holds KIW_MPA_ULPDU_LEN_SIZE octets the builder
 * fills with ULPDU_Length, then @hdr_len octets of DDP (and RDMAP) header.
 * The payload is @src: pages, or kernel memory through bvec_set_virt().
 * The markers go to @mk, room for @mk_max of them: none for a connection
 * without markers, KIW_FPDU_MAX_MARKERS for any FPDU; an FPDU needing
 * more is refused. @hdr, @mk and the struct kiw_fpdu_tx must be in the
 * kernel's linear mapping (kmalloc, not the stack or vmalloc): the
 * vectors point into them.
 */
struct kiw_fpdu_tx_desc {
	u32 start;		/* stream offset of the FPDU */
	bool markers;		/* insert markers */
	bool crc;		/* compute the CRC (else send 0) */
	u8 *hdr;
	unsigned int hdr_len;
	const struct bio_vec *src;
	unsigned int nr_src;
	struct kiw_mpa_marker *mk;
	unsigned int mk_max;
};

/*
 * Builder output besides the vectors, and the trailer octets they point
 * into. No pointer: a batch keeps 16 of these beside their headers in one
 * 2 KiB allocation (kiw_tx_batch.h).
 */
struct kiw_fpdu_tx {
	struct kiw_fpdu_layout lay;
	u32 crc;		/* the CRC value sent */
	u8 trailer[3 + KIW_MPA_CRC_SIZE];	/* PAD, then CRC */
};

/* Room the output vectors need for @nr_src payload and @nr_mk markers. */
#define KIW_FPDU_TX_VECS(nr_src, nr_mk)	((nr_src) + 2 + 2 * (nr_mk))
/* Room for @nr_src payload vectors in any FPDU. */
#define KIW_FPDU_TX_MAX_VEC(nr_src) \
	KIW_FPDU_TX_VECS(nr_src, KIW_FPDU_MAX_MARKERS)

int kiw_fpdu_build(struct kiw_fpdu_tx *tx, const struct kiw_fpdu_tx_desc *d,
		   struct bio_vec *out, unsigned int max_out);
int kiw_fpdu_build_linear(struct kiw_fpdu_tx *tx,
			  const struct kiw_fpdu_tx_desc *d, u8 *buf,
			  unsigned int len);

#endif /* KIW_FPDU_H */
