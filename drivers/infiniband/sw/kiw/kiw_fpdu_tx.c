// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw FPDU framing, pure: the transmit side (see kiw_fpdu.h). Where an
 * FPDU's markers fall for its stream offset, and the FPDU itself, either
 * as vectors for one sendmsg() or copied into one buffer, with its CRC.
 *
 * Runs in the TX work: no sleeping, no allocation; payload pages are
 * mapped with kmap_local_page() for the duration of one CRC or copy.
 */
#include <linux/bug.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "kiw_fpdu.h"
#include "kiw_mpa.h"

/**
 * kiw_fpdu_layout - where an FPDU's markers fall, and its length
 * @lay: filled in
 * @start: stream offset of the FPDU's first octet (a multiple of 4 when
 *	markers are on)
 * @ulpdu_len: at most KIW_MPA_ULPDU_MAX
 * @markers: this direction carries markers
 *
 * Marker i sits where 508 * i + first_marker non-marker octets precede it
 * in the FPDU; it belongs to the FPDU only if FPDU octets remain after it.
 *
 * Return: 0, -EMSGSIZE or -EINVAL.
 */
int kiw_fpdu_layout(struct kiw_fpdu_layout *lay, u32 start,
		    unsigned int ulpdu_len, bool markers)
{
	unsigned int step = KIW_MPA_MARKER_INTERVAL - KIW_MPA_MARKER_SIZE;
	unsigned int data, to;

	if (ulpdu_len > KIW_MPA_ULPDU_MAX)
		return -EMSGSIZE;
	if (markers && (start & 3))
		return -EINVAL;
	memset(lay, 0, sizeof(*lay));
	lay->start = start;
	lay->ulpdu_len = ulpdu_len;
	lay->pad = kiw_mpa_pad(ulpdu_len);
	data = KIW_MPA_FPDU_OVERHEAD + ulpdu_len + lay->pad;
	lay->wire_len = data;
	if (!markers)
		return 0;
	to = kiw_mpa_to_marker(start);
	if (to >= data)
		return 0;
	lay->first_marker = to;
	lay->lead = to ? 0 : KIW_MPA_MARKER_SIZE;
	lay->nr_markers = (data - 1 - to) / step + 1;
	lay->wire_len += KIW_MPA_MARKER_SIZE * lay->nr_markers;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_layout);

/**
 * kiw_fpdu_mulpdu_at - the largest ULPDU whose FPDU fits one segment
 * @emss: the connection's EMSS
 * @start: the FPDU's stream offset (a multiple of 4)
 *
 * With markers, RFC 5044's MULPDU (kiw_mpa_mulpdu()) counts the most
 * markers a segment can hold; at most stream offsets an FPDU of that
 * size holds one marker fewer and ends 4 octets short of the segment.
 * FPDUs and segments then drift apart, a batch is no longer a whole
 * number of segments, and TCP sends (or holds) a short one per batch.
 * Here only the markers that do fall at @start are counted.
 *
 * Return: a ULPDU length at least kiw_mpa_mulpdu(@emss, true), whose FPDU
 * at @start takes at most @emss octets if that MULPDU's does.
 */
unsigned int kiw_fpdu_mulpdu_at(unsigned int emss, u32 start)
{
	unsigned int mulpdu = kiw_mpa_mulpdu(emss, true);
	unsigned int u = mulpdu + 2 * KIW_MPA_MARKER_SIZE;
	struct kiw_fpdu_layout lay;

	for (; u > mulpdu; u -= KIW_MPA_MARKER_SIZE)
		if (!kiw_fpdu_layout(&lay, start, u, true) &&
		    lay.wire_len <= emss)
			return u;
	return mulpdu;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_mulpdu_at);

/**
 * kiw_seg_plan_next - the segment boundaries around the next FPDU
 * @p: the plan: the EMSS, and how full the current segment is
 * @wire_len: the FPDU's length on the wire
 *
 * An FPDU that does not fit in what is left of the current segment starts
 * a new one: the sendmsg() before it ends with MSG_EOR, so that TCP does
 * not top up the short segment with the FPDU's first octets (and start
 * every later segment inside an FPDU). An FPDU longer than the EMSS
 * (the EMSS shrank under it) is cut by TCP wherever it must; the FPDU
 * after it starts a segment again.
 *
 * Return: KIW_SEG_CUT_BEFORE and/or KIW_SEG_CUT_AFTER, or 0.
 */
unsigned int kiw_seg_plan_next(struct kiw_seg_plan *p, unsigned int wire_len)
{
	unsigned int cut = 0;

	if (!p->mss)
		return 0;
	if (p->fill && wire_len > p->mss - p->fill) {
		cut |= KIW_SEG_CUT_BEFORE;
		p->fill = 0;
	}
	if (wire_len > p->mss) {
		cut |= KIW_SEG_CUT_AFTER;
		p->fill = 0;
		return cut;
	}
	p->fill += wire_len;
	if (p->fill == p->mss)
		p->fill = 0;	/* TCP cuts here by itself */
	return cut;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_seg_plan_next);

/*
 * The builder's cursor over the FPDU being assembled: it either records
 * vectors (@out) or copies the octets into a buffer (@lin).
 */
struct kiw_fpdu_emit {
	struct kiw_fpdu_tx *tx;
	struct kiw_mpa_marker *mk_room;	/* the descriptor's @mk */
	struct bio_vec *out;
	unsigned int nr;
	unsigned int max;
	u8 *lin;
	u32 pos;		/* offset in the FPDU of the next octet */
	unsigned int mk;	/* next marker's index */
	bool markers;
	bool crc_on;
	u32 crc;
};

static void kiw_fpdu_emit_vec(struct kiw_fpdu_emit *e, struct page *page,
			      unsigned int off, unsigned int len)
{
	struct bio_vec *last = NULL;

	if (e->nr && e->nr <= e->max)
		last = &e->out[e->nr - 1];

	page = nth_page(page, off >> PAGE_SHIFT);
	off = offset_in_page(off);
	e->pos += len;
	if (last && last->bv_page == page &&
	    last->bv_offset + last->bv_len == off) {
		last->bv_len += len;
		return;
	}
	if (e->nr < e->max)
		bvec_set_page(&e->out[e->nr], page, len, off);
	e->nr++;		/* past max: counted, reported as -ENOSPC */
}

/* Kernel memory: a vector to it, or a copy. */
static void kiw_fpdu_put_virt(struct kiw_fpdu_emit *e, const void *p,
			      unsigned int len)
{
	if (e->lin) {
		memcpy(e->lin + e->pos, p, len);
		e->pos += len;
		return;
	}
	kiw_fpdu_emit_vec(e, virt_to_page(p), offset_in_page(p), len);
}

/*
 * Octets of a @len-octet piece that can go before the next marker; puts
 * that marker out first when it is due. A marker only goes out ahead of
 * FPDU octets, so the one after the CRC is left to the next FPDU.
 */
static unsigned int kiw_fpdu_emit_room(struct kiw_fpdu_emit *e,
				       unsigned int len)
{
	const struct kiw_fpdu_layout *lay = &e->tx->lay;
	struct kiw_mpa_marker *m;
	u32 at;

	if (!e->markers || e->mk >= lay->nr_markers)
		return len;
	at = kiw_fpdu_marker_pos(lay, e->mk);
	if (e->pos < at)
		return min(len, at - e->pos);
	m = &e->mk_room[e->mk];
	m->rsvd = 0;
	m->fpduptr = cpu_to_be16(kiw_fpdu_marker_ptr(lay, e->mk));
	if (e->crc_on)
		e->crc = kiw_crc_update(e->crc, m, sizeof(*m));
	kiw_fpdu_put_virt(e, m, sizeof(*m));
	e->mk++;
	return kiw_fpdu_emit_room(e, len);
}

static void kiw_fpdu_emit_virt(struct kiw_fpdu_emit *e, const u8 *p,
			       unsigned int len, bool crc)
{
	while (len) {
		unsigned int n = kiw_fpdu_emit_room(e, len);

		if (crc && e->crc_on)
			e->crc = kiw_crc_update(e->crc, p, n);
		kiw_fpdu_put_virt(e, p, n);
		p += n;
		len -= n;
	}
}

/* @n octets of payload pages: CRC over them, or copy then CRC the copy. */
static void kiw_fpdu_emit_pages(struct kiw_fpdu_emit *e, struct page *page,
				unsigned int off, unsigned int n)
{
	unsigned int done, c;

	for (done = 0; (e->lin || e->crc_on) && done < n; done += c) {
		struct page *p = nth_page(page, (off + done) >> PAGE_SHIFT);
		unsigned int p_off = offset_in_page(off + done);
		const u8 *from;
		u8 *vaddr;

		c = min_t(unsigned int, n - done, PAGE_SIZE - p_off);
		vaddr = kmap_local_page(p);
		from = vaddr + p_off;
		if (e->lin) {
			memcpy(e->lin + e->pos + done, from, c);
			from = e->lin + e->pos + done;
		}
		if (e->crc_on)
			e->crc = kiw_crc_update(e->crc, from, c);
		kunmap_local(vaddr);
	}
	if (e->lin)
		e->pos += n;
	else
		kiw_fpdu_emit_vec(e, page, off, n);
}

static void kiw_fpdu_emit_page(struct kiw_fpdu_emit *e, struct page *page,
			       unsigned int off, unsigned int len)
{
	while (len) {
		unsigned int n = kiw_fpdu_emit_room(e, len);

		kiw_fpdu_emit_pages(e, page, off, n);
		off += n;
		len -= n;
	}
}

/* Lay out, then put out every octet of the FPDU in wire order. */
static int kiw_fpdu_emit_all(struct kiw_fpdu_emit *e,
			     const struct kiw_fpdu_tx_desc *d)
{
	struct kiw_fpdu_tx *tx = e->tx;
	unsigned int i, ulpdu_len = d->hdr_len;
	u8 *crc_field;
	int rv;

	for (i = 0; i < d->nr_src; i++) {
		ulpdu_len += d->src[i].bv_len;
		if (ulpdu_len > KIW_MPA_ULPDU_MAX)
			return -EMSGSIZE;
	}
	rv = kiw_fpdu_layout(&tx->lay, d->start, ulpdu_len, d->markers);
	if (rv)
		return rv;
	if (tx->lay.nr_markers > d->mk_max)
		return -ENOSPC;
	if (e->lin && e->max < tx->lay.wire_len)
		return -ENOSPC;

	put_unaligned_be16(ulpdu_len, d->hdr);
	kiw_fpdu_emit_virt(e, d->hdr, KIW_MPA_ULPDU_LEN_SIZE + d->hdr_len,
			   true);
	for (i = 0; i < d->nr_src; i++)
		kiw_fpdu_emit_page(e, d->src[i].bv_page, d->src[i].bv_offset,
				   d->src[i].bv_len);
	memset(tx->trailer, 0, sizeof(tx->trailer));
	kiw_fpdu_emit_virt(e, tx->trailer, tx->lay.pad, true);

	/* A marker just before the CRC field is covered by it. */
	kiw_fpdu_emit_room(e, KIW_MPA_CRC_SIZE);
	crc_field = tx->trailer + tx->lay.pad;
	tx->crc = e->crc_on ? kiw_crc_final(e->crc) : 0;
	kiw_crc_put(crc_field, tx->crc);
	kiw_fpdu_emit_virt(e, crc_field, KIW_MPA_CRC_SIZE, false);

	WARN_ON_ONCE(e->pos != tx->lay.wire_len ||
		     e->mk != tx->lay.nr_markers);
	return 0;
}

/**
 * kiw_fpdu_build - lay out one FPDU as vectors for one sendmsg()
 * @tx: layout and CRC out, markers and trailer octets (see kiw_fpdu.h)
 * @d: what to frame
 * @out: vectors, in wire order: ULPDU_Length and header, payload split
 *	where markers fall, markers, PAD and CRC
 * @max_out: room in @out; KIW_FPDU_TX_MAX_VEC(@d->nr_src) always suffices
 *
 * The CRC is computed in the same pass, over exactly the octets the
 * vectors describe (markers in the FPDU included). The payload must not
 * change until it is sent, or the CRC no longer matches it: with CRC,
 * kiw_txb_add() frames payload its owner may still write (any region)
 * with kiw_fpdu_build_linear() instead.
 *
 * Return: the number of vectors, -EMSGSIZE for a ULPDU above 64768
 * octets, -EINVAL for a misaligned start or memory outside the linear
 * mapping, -ENOSPC when @max_out is too small or the FPDU needs more
 * markers than @d->mk_max.
 */
int kiw_fpdu_build(struct kiw_fpdu_tx *tx, const struct kiw_fpdu_tx_desc *d,
		   struct bio_vec *out, unsigned int max_out)
{
	struct kiw_fpdu_emit e = {
		.tx = tx, .mk_room = d->mk, .out = out, .max = max_out,
		.markers = d->markers, .crc_on = d->crc, .crc = kiw_crc_init(),
	};
	int rv;

	if (!virt_addr_valid(d->hdr) || !virt_addr_valid(tx) ||
	    (d->mk_max && !virt_addr_valid(d->mk)))
		return -EINVAL;
	rv = kiw_fpdu_emit_all(&e, d);
	if (rv)
		return rv;
	if (e.nr > max_out)
		return -ENOSPC;
	return e.nr;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_build);

/**
 * kiw_fpdu_build_linear - write one FPDU's wire image into a buffer
 * @tx: layout and CRC out
 * @d: what to frame; @d->hdr may be any kernel memory here
 * @buf: where the FPDU goes
 * @len: room in @buf; the FPDU takes kiw_fpdu_layout()'s wire_len
 *
 * The payload is copied, then the CRC runs once over the whole image,
 * just written and still in the cache (one call, not one per header,
 * page piece, marker and pad), so the CRC matches what is sent even if
 * the source changes afterwards.
 *
 * Return: the FPDU's length, -EMSGSIZE, -EINVAL (as kiw_fpdu_build()) or
 * -ENOSPC when it does not fit in @len octets or needs more markers than
 * @d->mk_max.
 */
int kiw_fpdu_build_linear(struct kiw_fpdu_tx *tx,
			  const struct kiw_fpdu_tx_desc *d, u8 *buf,
			  unsigned int len)
{
	struct kiw_fpdu_emit e = {
		.tx = tx, .mk_room = d->mk, .lin = buf, .max = len,
		.markers = d->markers,
	};
	int rv = kiw_fpdu_emit_all(&e, d);
	u32 n;

	if (rv)
		return rv;
	if (d->crc) {
		/* Everything before the CRC field, markers included. */
		n = e.pos - KIW_MPA_CRC_SIZE;
		tx->crc = kiw_crc_final(kiw_crc_update(kiw_crc_init(), buf, n));
		kiw_crc_put(buf + n, tx->crc);
	}
	return e.pos;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_build_linear);
