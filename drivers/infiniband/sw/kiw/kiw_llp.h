/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw LLP hand-over: what the connection manager (kiw_cm.c) gives the data
 * path (kiw_tx.c, kiw_rx.c) when MPA startup completes, and how the two
 * share the socket afterwards.
 *
 * Ownership of the socket. The CM creates, connects/accepts and finally
 * releases the kernel TCP socket, and keeps its sk_state_change callback
 * for the whole connection (FIN, RST, errors). When MPA completes, the CM
 * calls kiw_llp_attach(): from then on the data path owns sk_data_ready
 * (receive) and sk_write_space (transmit) and the socket's send side.
 * Before the CM releases the socket it calls kiw_llp_detach(), which
 * restores those callbacks and returns only when no receive callback and no
 * transmit work still uses the socket.
 *
 * The CM reads the MPA Request/Reply with exact lengths, so the first
 * octet left in the socket's receive queue at attach time is the first
 * octet of Full Operation (SeqStart of the receive half); the first octet
 * the data path sends is SeqStart of the transmit half. kiw_llp_attach()
 * processes whatever already sits in the receive queue (an FPDU that
 * arrived in the same segment as the Reply must not be lost), and it is
 * called before the responder's Reply is sent (RFC 5044 7.1, MPA-SU-4).
 *
 * Peer FIN. TCP may call sk_state_change before sk_data_ready delivers the
 * data that preceded the FIN. The CM therefore asks the data path to drain
 * the receive queue (kiw_llp_drain(), process context) before it reports
 * the disconnect: FPDUs that arrived before the FIN are delivered.
 */
#ifndef KIW_LLP_H
#define KIW_LLP_H

#include <linux/net.h>
#include <linux/types.h>
#include <net/sock.h>

struct kiw_qp;

/* RFC 6581 ready-to-receive message chosen for the connection. */
enum kiw_rtr {
	KIW_RTR_NONE,		/* revision 1, or revision 2 without RTR */
	KIW_RTR_SEND,		/* zero-length Send */
	KIW_RTR_WRITE,		/* zero-length RDMA Write */
	KIW_RTR_READ,		/* zero-length RDMA Read */
};

/* The negotiated connection (RFC 5044 7.1, RFC 6581). */
struct kiw_llp_params {
	struct socket *sock;
	bool initiator;		/* we sent the MPA Request */
	u8 mpa_rev;		/* 1 or 2 */
	bool crc;		/* CRC32c generated and checked, both ways */
	bool tx_markers;	/* we insert markers (the peer's M bit) */
	bool rx_markers;	/* the peer inserts markers (our M bit) */
	u32 ird;		/* inbound RDMA Reads we serve at once */
	u32 ord;		/* outbound RDMA Reads we may have pending */
	enum kiw_rtr rtr;	/* initiator sends it first; responder awaits */
	/*
	 * Responder only: send nothing until an FPDU (or the RTR) from the
	 * initiator has been received and validated (RFC 5044 7.1.2(4)).
	 */
	bool hold_tx_until_rx;
};

/*
 * kiw_llp.c (the data path). Process context, the caller holding a QP
 * reference and not the socket lock (these take it, and wait for the
 * data path's work items, which take it too).
 *
 * kiw_llp_attach()   take over sk_data_ready/sk_write_space, set up the
 *                    TX and RX state from @params, process what already
 *                    sits in the receive queue. -ENOMEM, or -EBUSY if the
 *                    QP is still attached.
 * kiw_llp_detach()   give the callbacks back; returns when no RX callback
 *                    or work and no TX work uses the socket any more.
 *                    Harmless if not attached.
 * kiw_llp_drain()    process what sits in the receive queue now (peer FIN,
 *                    see above).
 * kiw_llp_tx_drain() graceful close: wait until the TX has handed every
 *                    work request posted before CLOSING (and every Read
 *                    Response owed) to TCP, or the QP left RTS/CLOSING,
 *                    or @timeout jiffies passed; the CM then sends its
 *                    FIN. 0, or -ETIMEDOUT / -ECONNRESET.
 */
int kiw_llp_attach(struct kiw_qp *qp, const struct kiw_llp_params *params);
void kiw_llp_detach(struct kiw_qp *qp);
void kiw_llp_drain(struct kiw_qp *qp);
int kiw_llp_tx_drain(struct kiw_qp *qp, unsigned long timeout);

/*
 * sk_user_data belongs to the CM for the socket's whole life (its
 * endpoint). The data path's callbacks find the QP through the CM:
 * kiw_cm_sk_qp() returns the QP @sk is attached to (valid from
 * kiw_llp_attach() until kiw_llp_detach() returns), NULL otherwise. Called
 * with sk->sk_callback_lock held for reading, from any context; must not
 * sleep or take a lock.
 */
struct kiw_qp *kiw_cm_sk_qp(const struct sock *sk);

#endif /* KIW_LLP_H */
