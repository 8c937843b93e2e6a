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
 * Order at Full Operation. The CM moves the QP to RTS first
 * (kiw_qp_llp_established(); it does not kick the TX, which has no
 * socket yet, and a post_send's kick meanwhile finds none and does
 * nothing), then calls kiw_llp_attach(), which starts the TX only if it
 * has something to send (the RTR, WQEs posted meanwhile: kiw_tx_wanted());
 * the responder then sends its Reply. If attach fails, the CM
 * closes the connection and the QP goes to ERROR.
 *
 * sk_user_data is the CM's for the socket's whole life: it points at the
 * struct kiw_llp_conn the endpoint embeds. The data path's callbacks find
 * their QP there (kiw_llp_sk_qp()), valid from attach until
 * kiw_llp_detach() has returned.
 *
 * Graceful close (modify to SQD). The QP is CLOSING and the CM kicks the
 * TX (kiw_tx_kick()). The TX sends what was posted before; when nothing is
 * left to send and the QP is still CLOSING, it reports
 * KIW_QP_REPORT_DRAINED (kiw_qp_report(); any context; repeats are
 * ignored). A responder that still holds its
 * FPDUs (hold_tx_until_rx, nothing received yet) is drained too: what it
 * may not send is flushed with the close, and a FIN is not an FPDU. A
 * modify to ERR while CLOSING (ib_drain_qp() after rdma_disconnect())
 * flushes the SQ instead: the TX, finding the QP in ERROR, reports it
 * drained as well (or aborts, if TCP holds part of an FPDU). The CM
 * then sends the FIN, and finishes the close when the peer's FIN arrives,
 * or aborts it after the device's timeout.
 *
 * Peer FIN. TCP may call sk_state_change before sk_data_ready delivers the
 * data that preceded the FIN. The CM therefore asks the data path to drain
 * the receive queue (kiw_llp_drain(), process context) before it reports
 * the disconnect: FPDUs that arrived before the FIN are delivered.
 *
 * Locking. The CM calls attach, detach and drain holding its endpoint's
 * mutex. The data path never calls the CM: it reports to it
 * (kiw_qp_report(): the CM's hook only posts an event to its endpoint's
 * work) and finds its QP from a socket with kiw_llp_sk_qp(); neither
 * sleeps or waits for the CM, so the data path may use them from
 * anywhere, and its own work may be waited for (flushed) by detach.
 */
#ifndef KIW_LLP_H
#define KIW_LLP_H

#include <linux/net.h>
#include <linux/types.h>

#include "kiw_mpa.h"

struct kiw_qp;
struct sock;

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

/* kiw_tx.c/kiw_rx.c. Process context; the QP holds a reference. */
int kiw_llp_attach(struct kiw_qp *qp, const struct kiw_llp_params *params);
void kiw_llp_detach(struct kiw_qp *qp);
void kiw_llp_drain(struct kiw_qp *qp);

/*
 * What a connection's socket's sk_user_data points to, from the CM's
 * kiw_cep_install() until it restores the socket: the CM's endpoint
 * embeds it. The data path's callbacks take their QP from it.
 */
struct kiw_llp_conn {
	struct kiw_qp *qp;	/* the bound QP, or NULL (WRITE_ONCE) */
};

#endif /* KIW_LLP_H */
