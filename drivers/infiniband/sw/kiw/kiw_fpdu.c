// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw FPDU framing, pure: the receive parser, the transmit layout and
 * builder, and the skb copy/CRC helpers (see kiw_fpdu.h for the contract).
 *
 * Everything here runs in the receive path (softirq) or the TX work: no
 * sleeping, no allocation; pages are mapped with kmap_local_page() for the
 * duration of one copy.
 */
#include <linux/bug.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <kunit/visibility.h>

#include "kiw_fpdu.h"
#include "kiw_mpa.h"

/* Called on each virtually contiguous piece of an skb range, in order. */
typedef void (*kiw_skb_actor)(void *arg, const u8 *from, unsigned int len);

static int kiw_skb_walk(const struct sk_buff *skb, unsigned int off,
			unsigned int len, kiw_skb_actor fn, void *arg)
{
	unsigned int start = skb_headlen(skb), n, i;
	const struct sk_buff *frag_iter;

	if (off < start) {
		n = min(start - off, len);
		fn(arg, skb->data + off, n);
		off += n;
		len -= n;
	}
	for (i = 0; len && i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *f = &skb_shinfo(skb)->frags[i];
		unsigned int end = start + skb_frag_size(f);
		u32 p_off, p_len, copied;
		struct page *p;

		if (off < end) {
			n = min(end - off, len);
			skb_frag_foreach_page(f, skb_frag_off(f) + off - start,
					      n, p, p_off, p_len, copied) {
				u8 *vaddr = kmap_local_page(p);

				fn(arg, vaddr + p_off, p_len);
				kunmap_local(vaddr);
			}
			off += n;
			len -= n;
		}
		start = end;
	}
	skb_walk_frags(skb, frag_iter) {
		unsigned int end = start + frag_iter->len;

		if (!len)
			break;
		if (off < end) {
			n = min(end - off, len);
			if (kiw_skb_walk(frag_iter, off - start, n, fn, arg))
				return -EFAULT;
			off += n;
			len -= n;
		}
		start = end;
	}
	return len ? -EFAULT : 0;
}

struct kiw_copy_arg {
	u8 *to;
	u32 *crc;
};

/* Copy, then run the CRC over the copy while it is hot in the cache. */
static void kiw_copy_actor(void *arg, const u8 *from, unsigned int len)
{
	struct kiw_copy_arg *a = arg;

	memcpy(a->to, from, len);
	if (a->crc)
		*a->crc = kiw_crc_update(*a->crc, a->to, len);
	a->to += len;
}

/**
 * kiw_skb_copy_crc - copy an skb range to kernel memory, CRC included
 * @skb: source, with any mix of linear data, page frags and frag_list
 * @off: offset in @skb
 * @to: destination
 * @len: octets
 * @crc: CRC32c register to update, or NULL
 *
 * Return: 0, or -EFAULT if the range is not inside @skb.
 */
int kiw_skb_copy_crc(const struct sk_buff *skb, unsigned int off, void *to,
		     unsigned int len, u32 *crc)
{
	struct kiw_copy_arg a = { .to = to, .crc = crc };

	return kiw_skb_walk(skb, off, len, kiw_copy_actor, &a);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_skb_copy_crc);

struct kiw_copy_page_arg {
	struct page *page;	/* current destination page */
	unsigned int pg_off;	/* offset in it, < PAGE_SIZE */
	u32 *crc;
};

static void kiw_copy_page_actor(void *arg, const u8 *from, unsigned int len)
{
	struct kiw_copy_page_arg *a = arg;

	while (len) {
		unsigned int n = min_t(unsigned int, len,
				       PAGE_SIZE - a->pg_off);
		u8 *to = kmap_local_page(a->page);

		memcpy(to + a->pg_off, from, n);
		if (a->crc)
			*a->crc = kiw_crc_update(*a->crc, to + a->pg_off, n);
		kunmap_local(to);
		from += n;
		len -= n;
		a->pg_off += n;
		if (a->pg_off == PAGE_SIZE) {
			a->page = nth_page(a->page, 1);
			a->pg_off = 0;
		}
	}
}

/**
 * kiw_skb_copy_page_crc - copy an skb range to pages, CRC included
 * @skb: source
 * @off: offset in @skb
 * @page: first destination page; the range may run on into the pages
 *	that follow it (a compound page or physically contiguous pages)
 * @pg_off: offset in @page (may be beyond PAGE_SIZE)
 * @len: octets
 * @crc: CRC32c register to update, or NULL
 *
 * Return: 0, or -EFAULT if the range is not inside @skb.
 */
int kiw_skb_copy_page_crc(const struct sk_buff *skb, unsigned int off,
			  struct page *page, unsigned int pg_off,
			  unsigned int len, u32 *crc)
{
	struct kiw_copy_page_arg a = {
		.page = nth_page(page, pg_off >> PAGE_SHIFT),
		.pg_off = offset_in_page(pg_off),
		.crc = crc,
	};

	return kiw_skb_walk(skb, off, len, kiw_copy_page_actor, &a);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_skb_copy_page_crc);

static void kiw_crc_actor(void *arg, const u8 *from, unsigned int len)
{
	u32 *crc = arg;

	*crc = kiw_crc_update(*crc, from, len);
}

/* Run an skb range through the CRC only. */
int kiw_skb_crc(const struct sk_buff *skb, unsigned int off,
		unsigned int len, u32 *crc)
{
	return kiw_skb_walk(skb, off, len, kiw_crc_actor, crc);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_skb_crc);

/* The parser's small fields: copy out and run through the CRC. */
static void kiw_fpdu_rx_take(struct kiw_fpdu_rx *rx, const struct sk_buff *skb,
			     unsigned int off, u8 *to, unsigned int len,
			     bool crc)
{
	if (WARN_ON_ONCE(skb_copy_bits(skb, off, to, len)))
		memset(to, 0, len);
	if (crc)
		rx->crc = kiw_crc_update(rx->crc, to, len);
}

static u32 *kiw_fpdu_rx_crcp(struct kiw_fpdu_rx *rx)
{
	return rx->crc_on ? &rx->crc : NULL;
}

/**
 * kiw_fpdu_rx_copy - data(): copy payload to kernel memory
 * @rx: the parser that called data()
 * @skb: as passed to data()
 * @off: offset in @skb, within the piece passed to data()
 * @to: destination
 * @len: octets
 *
 * Return: 0, or -EFAULT (a caller bug; the FPDU then fails).
 */
int kiw_fpdu_rx_copy(struct kiw_fpdu_rx *rx, const struct sk_buff *skb,
		     unsigned int off, void *to, unsigned int len)
{
	int rv = kiw_skb_copy_crc(skb, off, to, len, kiw_fpdu_rx_crcp(rx));

	if (!rv)
		rx->acct += len;
	return rv;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_rx_copy);

/* data(): copy payload to a page (mapped inside) at @pg_off. */
int kiw_fpdu_rx_copy_page(struct kiw_fpdu_rx *rx, const struct sk_buff *skb,
			  unsigned int off, struct page *page,
			  unsigned int pg_off, unsigned int len)
{
	int rv = kiw_skb_copy_page_crc(skb, off, page, pg_off, len,
				       kiw_fpdu_rx_crcp(rx));

	if (!rv)
		rx->acct += len;
	return rv;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_rx_copy_page);

/* data(): payload octets nobody keeps; they still count for the CRC. */
int kiw_fpdu_rx_skip(struct kiw_fpdu_rx *rx, const struct sk_buff *skb,
		     unsigned int off, unsigned int len)
{
	int rv = 0;

	if (rx->crc_on)
		rv = kiw_skb_crc(skb, off, len, &rx->crc);
	if (!rv)
		rx->acct += len;
	return rv;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_rx_skip);

/**
 * kiw_fpdu_rx_init - set up the parser at SeqStart
 * @rx: the parser
 * @ops: upper layer callbacks
 * @markers: the peer puts markers in the FPDUs it sends us
 * @crc: CRC32c was negotiated
 */
void kiw_fpdu_rx_init(struct kiw_fpdu_rx *rx,
		      const struct kiw_fpdu_rx_ops *ops, bool markers,
		      bool crc)
{
	memset(rx, 0, sizeof(*rx));
	rx->ops = ops;
	rx->markers = markers;
	rx->crc_on = crc;
	rx->state = KIW_FPDU_RX_LEN;
	rx->crc = kiw_crc_init();
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_rx_init);

static void kiw_fpdu_rx_stop(struct kiw_fpdu_rx *rx, kiw_term_t t)
{
	rx->state = KIW_FPDU_RX_DEAD;
	rx->err = t;
	rx->ops->end(rx, t);
}

/* An error in this FPDU: report now, or at its CRC field (see .h). */
static void kiw_fpdu_rx_fail(struct kiw_fpdu_rx *rx, kiw_term_t t)
{
	if (!rx->pending)
		rx->pending = t;
	if (!rx->crc_on)
		kiw_fpdu_rx_stop(rx, rx->pending);
}

static void kiw_fpdu_rx_marker(struct kiw_fpdu_rx *rx)
{
	u32 at = rx->off - KIW_MPA_MARKER_SIZE;
	u32 want = 0;
	u16 ptr = get_unaligned_be16(&rx->mk[2]);

	/* Inside an FPDU, it points back to the ULPDU_Length. */
	if (rx->state != KIW_FPDU_RX_LEN || rx->have)
		want = at - rx->fpdu_off;
	if ((ptr & KIW_MPA_FPDUPTR_MASK) != want)
		kiw_fpdu_rx_fail(rx, KIW_FPDU_ERR_MARKER);
}

static void kiw_fpdu_rx_next(struct kiw_fpdu_rx *rx)
{
	rx->state = KIW_FPDU_RX_LEN;
	rx->have = 0;
	rx->hdr_len = 0;
	rx->pending = KIW_TERM_NONE;
	rx->crc = kiw_crc_init();
}

static unsigned int kiw_fpdu_rx_len(struct kiw_fpdu_rx *rx,
				    const struct sk_buff *skb,
				    unsigned int off, unsigned int n)
{
	n = min_t(unsigned int, n, sizeof(rx->len) - rx->have);
	if (!rx->have)
		rx->fpdu_off = rx->off;
	kiw_fpdu_rx_take(rx, skb, off, rx->len + rx->have, n, true);
	rx->have += n;
	if (rx->have < sizeof(rx->len))
		return n;

	rx->ulpdu_len = get_unaligned_be16(rx->len);
	rx->pad = kiw_mpa_pad(rx->ulpdu_len);
	rx->have = 0;
	rx->state = KIW_FPDU_RX_HDR;
	if (!rx->ulpdu_len) {
		/* No DDP control octet at all. */
		rx->state = KIW_FPDU_RX_DATA;
		rx->rem = 0;
		kiw_fpdu_rx_fail(rx, KIW_FPDU_ERR_SHORT);
	}
	return n;
}

static unsigned int kiw_fpdu_rx_hdr(struct kiw_fpdu_rx *rx,
				    const struct sk_buff *skb,
				    unsigned int off, unsigned int n)
{
	unsigned int want = rx->hdr_len ? rx->hdr_len - rx->have : 1;
	kiw_term_t t;

	n = min(n, want);
	kiw_fpdu_rx_take(rx, skb, off, rx->hdr + rx->have, n, true);
	rx->have += n;
	if (!rx->hdr_len) {
		rx->hdr_len = kiw_ddp_hdr_len(rx->hdr[0]);
		if (rx->ulpdu_len < rx->hdr_len) {
			/* Take the rest of the ULPDU as payload nobody gets. */
			rx->state = KIW_FPDU_RX_DATA;
			rx->rem = rx->ulpdu_len - rx->have;
			kiw_fpdu_rx_fail(rx, KIW_FPDU_ERR_SHORT);
			return n;
		}
	}
	if (rx->have < rx->hdr_len)
		return n;

	rx->state = KIW_FPDU_RX_DATA;
	rx->rem = rx->ulpdu_len - rx->hdr_len;
	if (!rx->pending) {
		t = rx->ops->hdr(rx, rx->hdr, rx->hdr_len, rx->ulpdu_len);
		if (t)
			kiw_fpdu_rx_fail(rx, t);
	}
	return n;
}

static unsigned int kiw_fpdu_rx_data(struct kiw_fpdu_rx *rx,
				     const struct sk_buff *skb,
				     unsigned int off, unsigned int n)
{
	kiw_term_t t;

	n = min(n, rx->rem);
	if (rx->pending) {
		/* Failed FPDU (CRC on): nothing goes up, the CRC goes on. */
		if (WARN_ON_ONCE(kiw_skb_crc(skb, off, n, &rx->crc)))
			kiw_fpdu_rx_stop(rx, KIW_FPDU_ERR_LOCAL);
		rx->rem -= n;
		return n;
	}
	rx->acct = 0;
	t = rx->ops->data(rx, skb, off, n);
	if (WARN_ON_ONCE(rx->acct > n)) {
		kiw_fpdu_rx_stop(rx, KIW_FPDU_ERR_LOCAL);
		return n;
	}
	if (rx->acct < n) {
		/*
		 * data() failed part way (or, a bug, skipped octets): the
		 * CRC must still cover the rest, so that a sound FPDU
		 * reports data()'s error and not a CRC mismatch.
		 */
		if (WARN_ON_ONCE(!t))
			t = KIW_FPDU_ERR_LOCAL;
		if (rx->crc_on)
			kiw_skb_crc(skb, off + rx->acct, n - rx->acct, &rx->crc);
	}
	if (t)
		kiw_fpdu_rx_fail(rx, t);
	rx->rem -= n;
	return n;
}

static unsigned int kiw_fpdu_rx_pad(struct kiw_fpdu_rx *rx,
				    const struct sk_buff *skb,
				    unsigned int off, unsigned int n)
{
	u8 pad[3];

	n = min(n, rx->rem);
	/* PAD content is ignored, but covered by the CRC. */
	kiw_fpdu_rx_take(rx, skb, off, pad, n, true);
	rx->rem -= n;
	return n;
}

static unsigned int kiw_fpdu_rx_crc(struct kiw_fpdu_rx *rx,
				    const struct sk_buff *skb,
				    unsigned int off, unsigned int n)
{
	kiw_term_t verdict;

	n = min_t(unsigned int, n, sizeof(rx->crc_field) - rx->have);
	kiw_fpdu_rx_take(rx, skb, off, rx->crc_field + rx->have, n, false);
	rx->have += n;
	if (rx->have < sizeof(rx->crc_field))
		return n;

	verdict = rx->pending;
	if (rx->crc_on &&
	    kiw_crc_get(rx->crc_field) != kiw_crc_final(rx->crc))
		verdict = KIW_FPDU_ERR_CRC;
	if (verdict) {
		kiw_fpdu_rx_stop(rx, verdict);
		return n;
	}
	rx->ops->end(rx, KIW_TERM_NONE);
	kiw_fpdu_rx_next(rx);
	return n;
}

/* Take at most @n octets (none of them marker octets) in the current state. */
static unsigned int kiw_fpdu_rx_step(struct kiw_fpdu_rx *rx,
				     const struct sk_buff *skb,
				     unsigned int off, unsigned int n)
{
	switch (rx->state) {
	case KIW_FPDU_RX_LEN:
		return kiw_fpdu_rx_len(rx, skb, off, n);
	case KIW_FPDU_RX_HDR:
		return kiw_fpdu_rx_hdr(rx, skb, off, n);
	case KIW_FPDU_RX_DATA:
		return kiw_fpdu_rx_data(rx, skb, off, n);
	case KIW_FPDU_RX_PAD:
		return kiw_fpdu_rx_pad(rx, skb, off, n);
	case KIW_FPDU_RX_CRC:
		return kiw_fpdu_rx_crc(rx, skb, off, n);
	default:
		return 0;
	}
}

/* Leave DATA and PAD as soon as they are done, before any marker. */
static void kiw_fpdu_rx_advance(struct kiw_fpdu_rx *rx)
{
	if (rx->state == KIW_FPDU_RX_DATA && !rx->rem) {
		rx->state = KIW_FPDU_RX_PAD;
		rx->rem = rx->pad;
	}
	if (rx->state == KIW_FPDU_RX_PAD && !rx->rem) {
		rx->state = KIW_FPDU_RX_CRC;
		rx->have = 0;
	}
}

/**
 * kiw_fpdu_rx_feed - parse the next octets of the stream
 * @rx: the parser
 * @skb: what tcp_read_sock() gave the actor
 * @off: offset in @skb of the first new octet
 * @len: octets
 *
 * Calls the upper layer as described in kiw_fpdu.h; never allocates.
 *
 * Return: octets consumed: @len, or fewer when an error stopped the parser
 * (then 0 from every later call; kiw_fpdu_rx_error() tells the error).
 */
unsigned int kiw_fpdu_rx_feed(struct kiw_fpdu_rx *rx,
			      const struct sk_buff *skb, unsigned int off,
			      unsigned int len)
{
	unsigned int done = 0, n;

	while (done < len && rx->state != KIW_FPDU_RX_DEAD) {
		u32 in_mk = rx->off & (KIW_MPA_MARKER_INTERVAL - 1);

		kiw_fpdu_rx_advance(rx);
		if (rx->markers && in_mk < KIW_MPA_MARKER_SIZE) {
			n = min(len - done, KIW_MPA_MARKER_SIZE - in_mk);
			kiw_fpdu_rx_take(rx, skb, off + done,
					 rx->mk + rx->mk_have, n, true);
			rx->mk_have += n;
			rx->off += n;
			done += n;
			if (rx->mk_have == KIW_MPA_MARKER_SIZE) {
				rx->mk_have = 0;
				kiw_fpdu_rx_marker(rx);
			}
			continue;
		}
		n = len - done;
		if (rx->markers)
			n = min(n, kiw_mpa_to_marker(rx->off));
		n = kiw_fpdu_rx_step(rx, skb, off + done, n);
		rx->off += n;
		done += n;
	}
	return done;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_rx_feed);

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

/* The builder's cursor over the FPDU being assembled. */
struct kiw_fpdu_emit {
	struct kiw_fpdu_tx *tx;
	struct bio_vec *out;
	unsigned int nr;
	unsigned int max;
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
	m = &e->tx->mk[e->mk];
	m->rsvd = 0;
	m->fpduptr = cpu_to_be16(kiw_fpdu_marker_ptr(lay, e->mk));
	if (e->crc_on)
		e->crc = kiw_crc_update(e->crc, m, sizeof(*m));
	kiw_fpdu_emit_vec(e, virt_to_page(m), offset_in_page(m), sizeof(*m));
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
		kiw_fpdu_emit_vec(e, virt_to_page(p), offset_in_page(p), n);
		p += n;
		len -= n;
	}
}

static void kiw_fpdu_emit_page(struct kiw_fpdu_emit *e, struct page *page,
			       unsigned int off, unsigned int len)
{
	while (len) {
		unsigned int n = kiw_fpdu_emit_room(e, len);
		unsigned int done, c;

		for (done = 0; e->crc_on && done < n; done += c) {
			struct page *p = nth_page(page, (off + done) >>
						  PAGE_SHIFT);
			unsigned int p_off = offset_in_page(off + done);
			u8 *vaddr = kmap_local_page(p);

			c = min_t(unsigned int, n - done, PAGE_SIZE - p_off);
			e->crc = kiw_crc_update(e->crc, vaddr + p_off, c);
			kunmap_local(vaddr);
		}
		kiw_fpdu_emit_vec(e, page, off, n);
		off += n;
		len -= n;
	}
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
 * change until it is sent, or the CRC no longer matches it.
 *
 * Return: the number of vectors, -EMSGSIZE for a ULPDU above 64768
 * octets, -EINVAL for a misaligned start or memory outside the linear
 * mapping, -ENOSPC when @max_out is too small.
 */
int kiw_fpdu_build(struct kiw_fpdu_tx *tx, const struct kiw_fpdu_tx_desc *d,
		   struct bio_vec *out, unsigned int max_out)
{
	struct kiw_fpdu_emit e = {
		.tx = tx, .out = out, .max = max_out,
		.markers = d->markers, .crc_on = d->crc, .crc = kiw_crc_init(),
	};
	u8 *crc_field = tx->trailer;
	unsigned int i, ulpdu_len = d->hdr_len;
	int rv;

	for (i = 0; i < d->nr_src; i++) {
		ulpdu_len += d->src[i].bv_len;
		if (ulpdu_len > KIW_MPA_ULPDU_MAX)
			return -EMSGSIZE;
	}
	if (!virt_addr_valid(d->hdr) || !virt_addr_valid(tx))
		return -EINVAL;
	rv = kiw_fpdu_layout(&tx->lay, d->start, ulpdu_len, d->markers);
	if (rv)
		return rv;

	put_unaligned_be16(ulpdu_len, d->hdr);
	kiw_fpdu_emit_virt(&e, d->hdr, KIW_MPA_ULPDU_LEN_SIZE + d->hdr_len,
			   true);
	for (i = 0; i < d->nr_src; i++)
		kiw_fpdu_emit_page(&e, d->src[i].bv_page, d->src[i].bv_offset,
				   d->src[i].bv_len);
	memset(tx->trailer, 0, sizeof(tx->trailer));
	kiw_fpdu_emit_virt(&e, tx->trailer, tx->lay.pad, true);

	/* A marker just before the CRC field is covered by it. */
	kiw_fpdu_emit_room(&e, KIW_MPA_CRC_SIZE);
	crc_field += tx->lay.pad;
	tx->crc = e.crc_on ? kiw_crc_final(e.crc) : 0;
	kiw_crc_put(crc_field, tx->crc);
	kiw_fpdu_emit_virt(&e, crc_field, KIW_MPA_CRC_SIZE, false);

	if (e.nr > max_out)
		return -ENOSPC;
	WARN_ON_ONCE(e.pos != tx->lay.wire_len ||
		     e.mk != tx->lay.nr_markers);
	return e.nr;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_build);
