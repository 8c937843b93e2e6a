/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw MPA startup, pure: Request/Reply frames (build, parse, validate),
 * negotiation (RFC 5044 section 7.1, RFC 6581), MULPDU, marker arithmetic
 * and CRC32c. No sockets here: the connection manager reads and writes the
 * frames, these functions decide what they mean.
 *
 * A connection's startup, as the connection manager drives it:
 *
 *   initiator                           responder
 *   kiw_mpa_request_init()
 *   kiw_mpa_build()       -- Request -> kiw_mpa_parse_hdr(), read PD,
 *                                       kiw_mpa_parse_pd()
 *                                       kiw_mpa_check_request() (refuse early)
 *                                       ... the consumer accepts or rejects
 *                                       kiw_mpa_reply_init(), kiw_mpa_build()
 *   kiw_mpa_parse_hdr(),  <- Reply --
 *   read PD, kiw_mpa_parse_pd()
 *   kiw_mpa_negotiate()                 kiw_mpa_negotiate()
 *
 * Both sides run kiw_mpa_negotiate() on the same two frames, so they agree
 * on the outcome by construction.
 */
#ifndef KIW_MPA_H
#define KIW_MPA_H

#include <linux/types.h>
#include <linux/unaligned.h>
#include <kiw/mpa.h>
#include <kiw/rdmap.h>

#include "kiw_limits.h"

/* How a device asks for and accepts MPA CRC32c (RFC 5044 section 4.4). */
enum kiw_crc_policy {
	KIW_CRC_OFF,		/* do not ask; use it if the peer asks */
	KIW_CRC_ON,		/* ask (the RFC's default) */
	KIW_CRC_REQUIRED,	/* ask, and refuse peers that do not */
	KIW_CRC_POLICY_MAX
};

/*
 * MPA startup settings. Each device has its own (struct kiw_device.mpa),
 * initialised from the module parameters and changed through sysfs;
 * every connection takes a copy when it starts.
 */
struct kiw_mpa_cfg {
	enum kiw_crc_policy crc;
	bool markers;			/* ask the peer to send us markers */
	u8 rev;				/* MPA revision we speak first: 1 or 2 */
	bool p2p;			/* RTR as initiator; see kiw_cm_hold_tx() */
	unsigned int timeout_ms;	/* startup exchange; graceful close */
};

/* RFC 6581 ready-to-receive message chosen for the connection. */
enum kiw_rtr {
	KIW_RTR_NONE,		/* revision 1, or revision 2 without RTR */
	KIW_RTR_SEND,		/* zero-length Send */
	KIW_RTR_WRITE,		/* zero-length RDMA Write */
	KIW_RTR_READ,		/* zero-length RDMA Read */
};

/*
 * Why a received frame, or the pair of frames, cannot start a connection.
 * kiw_mpa_err_is_malformed() tells the frame errors (RFC 5044 section 8
 * code 4: close the TCP connection at once) from the negotiation failures
 * (the frames were valid, the connection is not possible).
 */
enum kiw_mpa_err {
	KIW_MPA_OK = 0,
	/* The frame is malformed (RFC 5044 section 7.1.2 (2), (3), (5)). */
	KIW_MPA_ERR_TRUNCATED,	/* < 20 octets, or less PD than PD_Length */
	KIW_MPA_ERR_KEY,	/* key is neither the Req nor the Rep key */
	KIW_MPA_ERR_INIT_INIT,	/* a Request where a Reply was expected */
	KIW_MPA_ERR_NOT_REQUEST, /* a Reply where a Request was expected */
	KIW_MPA_ERR_REV,	/* Rev 0, > 2, or a Reply above the Request */
	KIW_MPA_ERR_PD_LEN,	/* PD_Length > 512 */
	KIW_MPA_ERR_PD_BUF,	/* PD_Length > the receiver's buffer */
	KIW_MPA_ERR_V2_SHORT,	/* Rev 2 with S, PD_Length < 4 */
	/* The frames are valid, the connection is refused. */
	KIW_MPA_ERR_CRC_REQUIRED, /* crc=required and the peer sent C=0 */
	KIW_MPA_ERR_IRD,	/* the responder's ORD exceeds our IRD */
	KIW_MPA_ERR_RTR,	/* no peer-to-peer RTR type both sides take */
	KIW_MPA_ERR_MAX
};

static inline bool kiw_mpa_err_is_malformed(enum kiw_mpa_err e)
{
	return e >= KIW_MPA_ERR_TRUNCATED && e <= KIW_MPA_ERR_V2_SHORT;
}

const char *kiw_mpa_err_name(enum kiw_mpa_err e);
kiw_term_t kiw_mpa_err_term(enum kiw_mpa_err e);
int kiw_mpa_err_errno(enum kiw_mpa_err e);

/* RTR message types (RFC 6581), as a mask. */
#define KIW_MPA_RTR_SEND	0x1
#define KIW_MPA_RTR_WRITE	0x2
#define KIW_MPA_RTR_READ	0x4
#define KIW_MPA_RTR_ALL		0x7

/*
 * What kiw offers as initiator and takes as responder. A zero-length RDMA
 * Write is preferred: it needs no answer, no IRD/ORD credit and no receive
 * WQE. A zero-length Read is taken too (siw and cxgb4 send both). A
 * zero-length Send would consume the consumer's first receive WQE, so kiw
 * neither offers nor accepts it.
 */
#define KIW_MPA_RTR_KIW		(KIW_MPA_RTR_WRITE | KIW_MPA_RTR_READ)

/* One connection's local MPA settings. */
struct kiw_mpa_local {
	enum kiw_crc_policy crc;
	bool markers;		/* ask the peer to put markers in its FPDUs */
	u8 rev;			/* highest revision to speak: 1 or 2 */
	bool p2p;		/* initiator, rev 2: ask for peer-to-peer */
	u8 rtr;			/* RTR types offered (initiator) or taken */
	u16 ird;		/* inbound RDMA Reads we can hold */
	u16 ord;		/* outbound RDMA Reads we want to issue */
};

void kiw_mpa_local_init(struct kiw_mpa_local *l, const struct kiw_mpa_cfg *cfg,
			u32 ird, u32 ord);

/* A Request or Reply frame, decoded. */
struct kiw_mpa_frame {
	bool request;		/* the Req key (else the Rep key) */
	bool markers;		/* M */
	bool crc;		/* C */
	bool reject;		/* R; always false in a Request */
	bool enhanced;		/* Rev 2 with S: the RFC 6581 word is there */
	u8 rev;
	u16 pd_len;		/* PD_Length, the word included */
	/* The RFC 6581 word, when enhanced. */
	bool p2p;		/* A */
	u8 rtr;			/* B, C, D as KIW_MPA_RTR_* */
	u16 ird;
	u16 ord;
	/* The consumer's private data: after the word, if any. */
	const u8 *ulp_pd;
	u16 ulp_pd_len;
};

/* The frame's full length on the wire. */
static inline unsigned int kiw_mpa_frame_len(const struct kiw_mpa_frame *f)
{
	return sizeof(struct kiw_mpa_hdr) + f->pd_len;
}

/* Largest consumer private data a frame of this revision carries. */
static inline unsigned int kiw_mpa_ulp_pd_max(bool enhanced)
{
	return KIW_MPA_PD_MAX - (enhanced ? sizeof(struct kiw_mpa_v2) : 0);
}

int kiw_mpa_request_init(struct kiw_mpa_frame *req,
			 const struct kiw_mpa_local *l,
			 const void *pd, unsigned int pd_len);
int kiw_mpa_reply_init(struct kiw_mpa_frame *rep,
		       const struct kiw_mpa_local *l,
		       const struct kiw_mpa_frame *req, bool reject,
		       const void *pd, unsigned int pd_len);
int kiw_mpa_build(const struct kiw_mpa_frame *f, void *buf, size_t len);

enum kiw_mpa_err kiw_mpa_parse_hdr(const void *buf, size_t len,
				   bool expect_request, u8 max_rev,
				   size_t pd_buf_len, struct kiw_mpa_frame *f);
enum kiw_mpa_err kiw_mpa_parse_pd(struct kiw_mpa_frame *f, const void *pd,
				  size_t len);
enum kiw_mpa_err kiw_mpa_parse(const void *buf, size_t len,
			       bool expect_request, u8 max_rev,
			       size_t pd_buf_len, struct kiw_mpa_frame *f);

enum kiw_mpa_role {
	KIW_MPA_INITIATOR,
	KIW_MPA_RESPONDER,
};

/* What the startup settled, for the data path. */
struct kiw_mpa_result {
	u8 rev;			/* the Reply's revision */
	bool crc;		/* generate and check CRC32c, both ways */
	bool tx_markers;	/* put markers in the FPDUs we send */
	bool rx_markers;	/* expect markers in the FPDUs we receive */
	u16 ird;		/* RDMA Read Requests we must be able to hold */
	u16 ord;		/* RDMA Read Requests we may have outstanding */
	u8 rtr;			/* peer-to-peer RTR type, 0 if none */
	bool send_rtr;		/* initiator: send the RTR as first FPDU */
	bool await_rtr;		/* responder: the first FPDU must be the RTR */
	bool hold_tx;		/* send no FPDU before one was received */
};

enum kiw_mpa_err kiw_mpa_check_request(const struct kiw_mpa_local *l,
				       const struct kiw_mpa_frame *req);
enum kiw_mpa_err kiw_mpa_negotiate(enum kiw_mpa_role role,
				   const struct kiw_mpa_local *l,
				   const struct kiw_mpa_frame *req,
				   const struct kiw_mpa_frame *rep,
				   struct kiw_mpa_result *res);

unsigned int kiw_mpa_mulpdu(unsigned int emss, bool markers);

/*
 * Marker arithmetic, in u32 stream offsets counted from SeqStart (the
 * first octet of Full Operation in that direction). 2^32 is a multiple of
 * 512, so these stay exact when the offsets wrap. Never use the absolute
 * TCP sequence number modulo 512.
 */
static inline u32 kiw_mpa_stream_off(u32 seq, u32 seq_start)
{
	return seq - seq_start;
}

/* Octets from @off to the next marker (0 if a marker starts at @off). */
static inline u32 kiw_mpa_to_marker(u32 off)
{
	return -off & (KIW_MPA_MARKER_INTERVAL - 1);
}

/* Stream offset of the first marker at or after @off. */
static inline u32 kiw_mpa_next_marker(u32 off)
{
	return off + kiw_mpa_to_marker(off);
}

u16 kiw_mpa_fpduptr(u32 marker_off, u32 ulpdu_len_off);
u32 kiw_mpa_fpdu_start(u32 marker_off, u16 fpduptr);
u32 kiw_mpa_ulpdu_len_off(u32 marker_off, u16 fpduptr);

/*
 * CRC32c as MPA and iSCSI use it: register preset to all ones, reflected
 * (kiw_crc_update() is the raw register update, as crc32c()), result
 * complemented, and sent least significant octet first: a result of
 * 0x83992352 goes on the wire as 52 23 99 83.
 */
static inline u32 kiw_crc_init(void)
{
	return ~0U;
}

/* kiw_crc.c: crc32c() or lib/crc32's tables, whichever is faster here. */
u32 kiw_crc_update(u32 crc, const void *p, unsigned int len);
void kiw_crc_setup(void);
int kiw_crc_set_impl(const char *val);
const char *kiw_crc_asked_impl(void);
bool kiw_crc_uses_table(void);

static inline u32 kiw_crc_final(u32 crc)
{
	return ~crc;
}

static inline void kiw_crc_put(void *wire, u32 crc_final)
{
	put_unaligned_le32(crc_final, wire);
}

static inline u32 kiw_crc_get(const void *wire)
{
	return get_unaligned_le32(wire);
}

#endif /* KIW_MPA_H */
