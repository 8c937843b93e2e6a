/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw connection manager: the iw_cm hooks (connect, accept, reject,
 * listen), connection endpoints and their MPA startup on kernel TCP
 * sockets, and connection teardown. Its internals are in kiw_cep.h, a
 * device's CM state (struct kiw_cm_dev) in kiw.h; this is what the rest
 * of kiw calls.
 *
 * Files: kiw_cm_dev.c (set-up, teardown, iw_cm's entry points), kiw_cm.c
 * (endpoints, connect/accept/reject, teardown, netns), kiw_cm_mpa.c (the
 * MPA exchange on the socket), kiw_cm_listen.c (listeners),
 * kiw_cm_backlog.c (what a listener holds), kiw_cm_fsm.c (the pure state
 * machine), kiw_sock.c (socket helpers).
 */
#ifndef KIW_CM_H
#define KIW_CM_H

#include <rdma/ib_verbs.h>

struct kiw_device;
struct net;

/* Module and device set-up (kiw_cm_dev.c). */
int kiw_cm_init(void);
void kiw_cm_exit(void);
void kiw_cm_dev_init(struct kiw_device *kdev);
void kiw_cm_dev_fini(struct kiw_device *kdev);
void kiw_cm_dev_close_sockets(struct kiw_device *kdev, const struct net *net);
extern const struct ib_device_ops kiw_cm_ops;

#endif /* KIW_CM_H */
