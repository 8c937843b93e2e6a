// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw FPDU framing, pure: the receive parser and the skb copy/CRC helpers
 * (see kiw_fpdu.h for the contract; the transmit side is kiw_fpdu_tx.c).
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

/*
 * Copy, and run the CRC over the source: the socket's own octets, which
 * nobody else writes. The destination may be memory its owner (or another
 * connection placing into the same region) writes meanwhile; a CRC over
 * it would fail an FPDU that arrived intact.
 */
static void kiw_copy_actor(void *arg, const u8 *from, unsigned int len)
{
	struct kiw_copy_arg *a = arg;

	memcpy(a->to, from, len);
	if (a->crc)
		*a->crc = kiw_crc_update(*a->crc, from, len);
	a->to += len;
}

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
		if (a->crc)	/* over the source, as kiw_copy_actor() */
			*a->crc = kiw_crc_update(*a->crc, from, n);
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

static void kiw_crc_actor(void *arg, const u8 *from, unsigned int len)
{
	u32 *crc = arg;

	*crc = kiw_crc_update(*crc, from, len);
}

/* The CRC is computed as the octets go by (not checked ahead). */
static bool kiw_fpdu_rx_crc_live(const struct kiw_fpdu_rx *rx)
{
	return rx->crc_on && !rx->ahead;
}

/*
 * In a span (struct kiw_fpdu_rx): payload octets @k to @k + @len of it,
 * in pieces between its markers, from the flat window. The caller checked
 * that they are in the span, and kiw_fpdu_rx_data_span() that the span,
 * markers included, is in the window.
 */
static void kiw_fpdu_rx_span_walk(const struct kiw_fpdu_rx *rx,
				  unsigned int k, unsigned int len,
				  kiw_skb_actor fn, void *arg)
{
	const unsigned int step = KIW_MPA_MARKER_INTERVAL - KIW_MPA_MARKER_SIZE;
	const u8 *base = rx->flat + (rx->span_off - rx->flat_start);
	unsigned int mk, n;

	while (len) {
		if (k < rx->span_first) {
			mk = 0;
			n = rx->span_first - k;
		} else {
			mk = 1 + (k - rx->span_first) / step;
			n = step - (k - rx->span_first) % step;
		}
		n = min(n, len);
		fn(arg, base + k + mk * KIW_MPA_MARKER_SIZE, n);
		k += n;
		len -= n;
	}
}

/*
 * Walk @len octets at @off of @skb: in the flat window
 * (kiw_fpdu_rx_flat_begin()) if they are all in it, else through the skb.
 * In a span, @off counts payload octets, and nothing outside the span is
 * read: -EFAULT, a bug of data().
 */
static int kiw_fpdu_rx_walk(const struct kiw_fpdu_rx *rx,
			    const struct sk_buff *skb, unsigned int off,
			    unsigned int len, kiw_skb_actor fn, void *arg)
{
	unsigned int at = off - rx->flat_start;

	if (rx->span) {
		at = off - rx->span_off;
		if (skb != rx->flat_skb || off < rx->span_off ||
		    at > rx->span_len || len > rx->span_len - at)
			return -EFAULT;
		kiw_fpdu_rx_span_walk(rx, at, len, fn, arg);
		return 0;
	}
	if (skb != rx->flat_skb || off < rx->flat_start ||
	    at > rx->flat_len || len > rx->flat_len - at)
		return kiw_skb_walk(skb, off, len, fn, arg);
	fn(arg, rx->flat + at, len);
	return 0;
}

/*
 * The parser's small fields: copy out and, if CRC was negotiated and @crc
 * says the field is covered, run through the CRC.
 */
static void kiw_fpdu_rx_take(struct kiw_fpdu_rx *rx, const struct sk_buff *skb,
			     unsigned int off, u8 *to, unsigned int len,
			     bool crc)
{
	struct kiw_copy_arg a = { .to = to };

	if (crc && kiw_fpdu_rx_crc_live(rx))
		a.crc = &rx->crc;
	if (WARN_ON_ONCE(kiw_fpdu_rx_walk(rx, skb, off, len, kiw_copy_actor,
					  &a)))
		memset(to, 0, len);
}

static u32 *kiw_fpdu_rx_crcp(struct kiw_fpdu_rx *rx)
{
	return kiw_fpdu_rx_crc_live(rx) ? &rx->crc : NULL;
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
	struct kiw_copy_arg a = { .to = to, .crc = kiw_fpdu_rx_crcp(rx) };
	int rv = kiw_fpdu_rx_walk(rx, skb, off, len, kiw_copy_actor, &a);

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
	struct kiw_copy_page_arg a = {
		.page = nth_page(page, pg_off >> PAGE_SHIFT),
		.pg_off = offset_in_page(pg_off),
		.crc = kiw_fpdu_rx_crcp(rx),
	};
	int rv = kiw_fpdu_rx_walk(rx, skb, off, len, kiw_copy_page_actor, &a);

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

	if (kiw_fpdu_rx_crc_live(rx))
		rv = kiw_fpdu_rx_walk(rx, skb, off, len, kiw_crc_actor,
				      &rx->crc);
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
	rx->ahead = false;
	rx->through = false;
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

/* Does the marker @mk, at stream offset @at, point where it must? */
static bool kiw_fpdu_rx_marker_ok(const struct kiw_fpdu_rx *rx, u32 at,
				  const u8 *mk)
{
	u32 want = 0;

	/* Inside an FPDU, it points back to the ULPDU_Length. */
	if (rx->state != KIW_FPDU_RX_LEN || rx->have)
		want = at - rx->fpdu_off;
	return (get_unaligned_be16(mk + 2) & KIW_MPA_FPDUPTR_MASK) == want;
}

static void kiw_fpdu_rx_marker(struct kiw_fpdu_rx *rx)
{
	if (!kiw_fpdu_rx_marker_ok(rx, rx->off - KIW_MPA_MARKER_SIZE, rx->mk))
		kiw_fpdu_rx_fail(rx, KIW_FPDU_ERR_MARKER);
}

static void kiw_fpdu_rx_next(struct kiw_fpdu_rx *rx)
{
	rx->state = KIW_FPDU_RX_LEN;
	rx->have = 0;
	rx->hdr_len = 0;
	rx->pending = KIW_TERM_NONE;
	rx->crc = kiw_crc_init();
	rx->ahead = false;
	rx->through = false;
	if (rx->once)
		rx->state = KIW_FPDU_RX_DEAD;	/* the copy has its verdict */
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
	if (rx->ulpdu_len > KIW_MPA_ULPDU_MAX) {
		kiw_fpdu_rx_stop(rx, KIW_FPDU_ERR_LEN);
		return n;
	}
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
		if (kiw_fpdu_rx_crc_live(rx) &&
		    WARN_ON_ONCE(kiw_fpdu_rx_walk(rx, skb, off, n,
						  kiw_crc_actor, &rx->crc)))
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
		if (kiw_fpdu_rx_crc_live(rx))
			kiw_fpdu_rx_walk(rx, skb, off + rx->acct, n - rx->acct,
					 kiw_crc_actor, &rx->crc);
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
	if (rx->ahead ? rx->ahead_bad :
	    rx->crc_on && kiw_crc_get(rx->crc_field) != kiw_crc_final(rx->crc))
		verdict = KIW_FPDU_ERR_CRC;
	if (verdict) {
		kiw_fpdu_rx_stop(rx, verdict);
		return n;
	}
	rx->ops->end(rx, KIW_TERM_NONE);
	kiw_fpdu_rx_next(rx);
	return n;
}

/*
 * With markers (the caller checks), the rest of the payload in one data()
 * call, when that is all in the flat window with the markers between (most
 * of a bulk FPDU): instead of one call per 508 octets, and the markers
 * checked as they come. Only where data() places and nothing else is at stake: the FPDU
 * not failed, its CRC checked ahead or not negotiated (none to run over
 * the markers in order); and every marker in the run must point at this
 * FPDU, else the octet-by-octet way reports the first one that does not
 * where it is. Return: the octets taken, markers included; 0 if this
 * does not apply.
 */
static unsigned int kiw_fpdu_rx_data_span(struct kiw_fpdu_rx *rx,
					  const struct sk_buff *skb,
					  unsigned int off, unsigned int n)
{
	const unsigned int step = KIW_MPA_MARKER_INTERVAL - KIW_MPA_MARKER_SIZE;
	unsigned int first = kiw_mpa_to_marker(rx->off), at, nr, wire, i;
	const u8 *mk;

	if (rx->pending || kiw_fpdu_rx_crc_live(rx) || rx->rem <= first ||
	    skb != rx->flat_skb || off < rx->flat_start)
		return 0;
	nr = 1 + (rx->rem - first - 1) / step;	/* markers before the end */
	wire = rx->rem + nr * KIW_MPA_MARKER_SIZE;
	at = off - rx->flat_start;
	if (wire > n || at > rx->flat_len || wire > rx->flat_len - at)
		return 0;
	mk = rx->flat + at + first;
	for (i = 0; i < nr; i++, mk += KIW_MPA_MARKER_INTERVAL)
		if (!kiw_fpdu_rx_marker_ok(rx, rx->off + first +
					   i * KIW_MPA_MARKER_INTERVAL, mk))
			return 0;
	rx->span = true;
	rx->span_off = off;
	rx->span_len = rx->rem;
	rx->span_first = first;
	kiw_fpdu_rx_data(rx, skb, off, rx->rem);
	rx->span = false;
	return wire;
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
		if (rx->markers && rx->state == KIW_FPDU_RX_DATA) {
			n = kiw_fpdu_rx_data_span(rx, skb, off + done,
						  len - done);
			if (n) {
				rx->off += n;
				done += n;
				continue;
			}
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
 * kiw_fpdu_rx_room - octets the parser may take now
 * @rx: the parser
 *
 * Return: any number without CRC, once the parser stopped (what is left
 * is dropped), or for an FPDU let through (kiw_fpdu_rx_through()); what
 * is left of an FPDU whose CRC was checked ahead; else 0: the next FPDU
 * must be checked ahead first (see kiw_fpdu.h).
 */
unsigned int kiw_fpdu_rx_room(const struct kiw_fpdu_rx *rx)
{
	if (!rx->crc_on || rx->state == KIW_FPDU_RX_DEAD || rx->through)
		return UINT_MAX;
	return rx->ahead ? rx->ahead_end - rx->off : 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_rx_room);

/**
 * kiw_fpdu_rx_span - octets from here to the end of the next FPDU
 * @rx: the parser, between two FPDUs
 * @peek: the stream's next octets
 * @n: how many (KIW_FPDU_RX_PEEK is always enough)
 *
 * Return: the octets (a ULPDU_Length the parser refuses: up to that
 * field, where it stops), 0 if @n octets do not tell yet, or -EINVAL if
 * the parser is inside an FPDU (check ahead without knowing its end).
 */
int kiw_fpdu_rx_span(const struct kiw_fpdu_rx *rx, const u8 *peek,
		     unsigned int n)
{
	u32 in_mk = rx->off & (KIW_MPA_MARKER_INTERVAL - 1);
	struct kiw_fpdu_layout lay;
	unsigned int skip = 0;
	u32 start = rx->off;
	u16 ulpdu_len;

	if (rx->state != KIW_FPDU_RX_LEN || rx->have)
		return -EINVAL;
	if (rx->markers && in_mk < KIW_MPA_MARKER_SIZE) {
		/* the marker that leads the FPDU, or what is left of it */
		skip = KIW_MPA_MARKER_SIZE - in_mk;
		start -= in_mk;
	}
	if (n < skip + KIW_MPA_ULPDU_LEN_SIZE)
		return 0;
	ulpdu_len = get_unaligned_be16(peek + skip);
	if (ulpdu_len > KIW_MPA_ULPDU_MAX)
		return skip + KIW_MPA_ULPDU_LEN_SIZE;
	if (kiw_fpdu_layout(&lay, start, ulpdu_len, rx->markers))
		return -EINVAL;
	return start + lay.wire_len - rx->off;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_rx_span);

static kiw_term_t kiw_fpdu_ahead_hdr(struct kiw_fpdu_rx *rx, const u8 *hdr,
				     unsigned int hdr_len,
				     unsigned int ulpdu_len)
{
	return KIW_TERM_NONE;
}

static kiw_term_t kiw_fpdu_ahead_data(struct kiw_fpdu_rx *rx,
				      const struct sk_buff *skb,
				      unsigned int off, unsigned int len)
{
	return kiw_fpdu_rx_skip(rx, skb, off, len) ? KIW_FPDU_ERR_LOCAL :
						      KIW_TERM_NONE;
}

static void kiw_fpdu_ahead_end(struct kiw_fpdu_rx *rx, kiw_term_t verdict)
{
}

static const struct kiw_fpdu_rx_ops kiw_fpdu_ahead_ops = {
	.hdr = kiw_fpdu_ahead_hdr,
	.data = kiw_fpdu_ahead_data,
	.end = kiw_fpdu_ahead_end,
};

/**
 * kiw_fpdu_rx_ahead_begin - a copy of the parser to check the FPDU ahead
 * @copy: set up from @rx; it computes the CRC and places nothing
 * @rx: the parser, not inside an FPDU checked ahead
 */
void kiw_fpdu_rx_ahead_begin(struct kiw_fpdu_rx *copy,
			     const struct kiw_fpdu_rx *rx)
{
	*copy = *rx;
	copy->ops = &kiw_fpdu_ahead_ops;
	copy->once = true;
	copy->ahead = false;
	copy->through = false;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_rx_ahead_begin);

/**
 * kiw_fpdu_rx_ahead_feed - the next queued octets, to the copy
 * @copy: from kiw_fpdu_rx_ahead_begin()
 * @skb: the octets' skb
 * @off: offset in @skb
 * @len: octets
 *
 * Return: true once the copy has its verdict (the FPDU's end, or an error
 * that stops the parser); it then takes nothing more.
 */
bool kiw_fpdu_rx_ahead_feed(struct kiw_fpdu_rx *copy,
			    const struct sk_buff *skb, unsigned int off,
			    unsigned int len)
{
	kiw_fpdu_rx_feed(copy, skb, off, len);
	return copy->state == KIW_FPDU_RX_DEAD;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_rx_ahead_feed);

/**
 * kiw_fpdu_rx_ahead_commit - the parser takes the copy's verdict
 * @rx: the parser the copy was made from, unchanged since
 * @copy: done (kiw_fpdu_rx_ahead_feed() returned true)
 *
 * The parser may then take the FPDU (kiw_fpdu_rx_room()) without
 * computing its CRC again. The copy found an error (its CRC, or with a
 * good CRC a marker that disagrees, a ULPDU too short for its header):
 * nothing of the FPDU goes up, and the parser reports that error as it
 * would have (at the CRC field; a ULPDU_Length too large at once).
 */
void kiw_fpdu_rx_ahead_commit(struct kiw_fpdu_rx *rx,
			      const struct kiw_fpdu_rx *copy)
{
	rx->ahead = true;
	rx->ahead_end = copy->off;
	rx->ahead_bad = copy->err == KIW_FPDU_ERR_CRC;
	if (copy->err && !rx->pending)
		rx->pending = copy->err;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_rx_ahead_commit);

/**
 * kiw_fpdu_rx_ahead_flat - check the next FPDU ahead, all of it at hand
 * @rx: the parser, between two FPDUs
 * @fpdu: the stream's next octets, contiguous in memory
 * @n: how many
 *
 * What kiw_fpdu_rx_ahead_begin(), _feed() and _commit() do, in one CRC
 * pass, for the common case: no markers, and all of the FPDU in @fpdu (a
 * small message comes in one piece of one skb). Without markers the copy
 * finds no error but the CRC that the parser does not find itself before
 * any hdr() or data() (a ULPDU too short for its header shows at the
 * header), so its verdict is the CRC's alone.
 *
 * Return: true if the FPDU was checked (kiw_fpdu_rx_room() gives it);
 * false if this case does not apply: no CRC, markers, the parser inside
 * an FPDU, a ULPDU_Length it refuses, or an FPDU not all in @fpdu.
 */
bool kiw_fpdu_rx_ahead_flat(struct kiw_fpdu_rx *rx, const u8 *fpdu,
			    unsigned int n)
{
	unsigned int body;
	int span;
	u32 crc;

	if (!kiw_fpdu_rx_flat_ok(rx))
		return false;
	span = kiw_fpdu_rx_span(rx, fpdu, n);
	if (span <= 0 || (unsigned int)span > n ||
	    get_unaligned_be16(fpdu) > KIW_MPA_ULPDU_MAX)
		return false;
	body = span - KIW_MPA_CRC_SIZE;
	crc = kiw_crc_update(kiw_crc_init(), fpdu, body);
	rx->ahead = true;
	rx->ahead_end = rx->off + span;
	rx->ahead_bad = kiw_crc_get(fpdu + body) != kiw_crc_final(crc);
	if (rx->ahead_bad && !rx->pending)
		rx->pending = KIW_FPDU_ERR_CRC;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_rx_ahead_flat);

/* A piece of an skb that is contiguous in memory (kiw_skb_piece_get()). */
struct kiw_skb_piece {
	const u8 *va;
	unsigned int len;
	void *map;		/* from kmap_local_page(), or NULL */
};

/*
 * The piece of @skb from @off that is contiguous in memory: the rest of
 * its linear part, or the rest of one fragment (of one page of it, if the
 * fragment is in high memory), mapped until kiw_skb_piece_put(). Return:
 * false if @off is in the frag_list or beyond.
 */
static bool kiw_skb_piece_get(const struct sk_buff *skb, unsigned int off,
			      struct kiw_skb_piece *pc)
{
	unsigned int start = skb_headlen(skb), size = 0, at, i;
	const skb_frag_t *frag = NULL;
	struct page *page;

	pc->map = NULL;
	if (off < start) {
		pc->va = skb->data + off;
		pc->len = start - off;
		return true;
	}
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		frag = &skb_shinfo(skb)->frags[i];
		size = skb_frag_size(frag);
		if (off < start + size)
			break;
		start += size;
	}
	if (i == skb_shinfo(skb)->nr_frags)
		return false;
	page = skb_frag_page(frag);
	at = skb_frag_off(frag) + off - start;
	pc->len = start + size - off;
	if (skb_frag_must_loop(page)) {
		page = nth_page(page, at >> PAGE_SHIFT);
		at = offset_in_page(at);
		pc->len = min_t(unsigned int, pc->len, PAGE_SIZE - at);
	}
	pc->map = kmap_local_page(page);
	pc->va = (u8 *)pc->map + at;
	return true;
}

static void kiw_skb_piece_put(struct kiw_skb_piece *pc)
{
	if (pc->map)
		kunmap_local(pc->map);
}

/**
 * kiw_fpdu_rx_feed_pieces - kiw_fpdu_rx_feed(), a flat window at a time
 * @rx: the parser
 * @skb: what tcp_read_sock() gave the actor
 * @off: offset in @skb of the first new octet
 * @len: octets
 *
 * Each piece of the range that is contiguous in memory (the linear part,
 * a fragment) goes to kiw_fpdu_rx_feed() as a flat window
 * (kiw_fpdu_rx_flat_begin()): fields and payload that lie in one piece are
 * read from it, not by walking the skb; the frag_list as before.
 */
void kiw_fpdu_rx_feed_pieces(struct kiw_fpdu_rx *rx, const struct sk_buff *skb,
			     unsigned int off, unsigned int len)
{
	struct kiw_skb_piece pc;
	unsigned int n;

	while (len && kiw_skb_piece_get(skb, off, &pc)) {
		n = min(len, pc.len);
		kiw_fpdu_rx_flat_begin(rx, skb, off, pc.va, n);
		kiw_fpdu_rx_feed(rx, skb, off, n);
		kiw_fpdu_rx_flat_end(rx);
		kiw_skb_piece_put(&pc);
		off += n;
		len -= n;
	}
	if (len)
		kiw_fpdu_rx_feed(rx, skb, off, len);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_rx_feed_pieces);

/**
 * kiw_fpdu_rx_take_flat - check ahead and take an FPDU in one piece
 * @rx: the parser, between two FPDUs (kiw_fpdu_rx_room() is 0)
 * @skb: what tcp_read_sock() gave the actor
 * @off: offset in @skb of the next octet
 * @len: octets the caller lets the parser take, > 0
 *
 * CRC on and no markers, and the next FPDU whole in one piece of @skb (a
 * small message; most FPDUs of a large one): checked ahead in one CRC
 * pass (kiw_fpdu_rx_ahead_flat()) and taken, with that piece as the flat
 * window.
 *
 * Return: octets taken (at most @len); 0 if this does not apply, and the
 * parser is left as it was.
 */
unsigned int kiw_fpdu_rx_take_flat(struct kiw_fpdu_rx *rx,
				   const struct sk_buff *skb, unsigned int off,
				   unsigned int len)
{
	struct kiw_skb_piece pc;
	unsigned int n = 0;

	if (!kiw_fpdu_rx_flat_ok(rx) || !kiw_skb_piece_get(skb, off, &pc))
		return 0;
	if (kiw_fpdu_rx_ahead_flat(rx, pc.va, pc.len)) {
		n = min(len, kiw_fpdu_rx_room(rx));
		kiw_fpdu_rx_flat_begin(rx, skb, off, pc.va, pc.len);
		kiw_fpdu_rx_feed(rx, skb, off, n);
		kiw_fpdu_rx_flat_end(rx);
	}
	kiw_skb_piece_put(&pc);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_rx_take_flat);

/**
 * kiw_fpdu_rx_through - let the current or next FPDU go up unchecked
 * @rx: the parser, not inside an FPDU checked ahead
 *
 * Its payload reaches data() as it arrives, its CRC computed on the way
 * and checked at its end (end() then reports it, and the upper layer
 * completes nothing before): for a receiver that cannot hold the whole
 * FPDU until it is all there.
 */
void kiw_fpdu_rx_through(struct kiw_fpdu_rx *rx)
{
	if (!WARN_ON_ONCE(rx->ahead))
		rx->through = true;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fpdu_rx_through);
