/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw: iWARP in software. The device object and what every layer shares.
 *
 * Layers and files (Documentation/architecture.rst has the full map):
 *   kiw_main.c   module init/exit, "rdma link" type, the device list
 *   kiw_cfg.c    module parameters (validated) and their snapshot
 *   kiw_dev.c    device creation, attributes, query verbs, netdev events
 *   kiw_verbs.c  user context, PD, and the verbs ops table
 *   kiw_obj.c    object limits, rings mapped to user space (kiw_obj.h)
 *   kiw_cq.c     completion queues            (kiw_cq.h)
 *   kiw_qp_verbs.c  QP create, destroy, query  (kiw_qp.h)
 *   kiw_qp.c     the QP state machine         (kiw_qp.h)
 *   kiw_wq.c     SQ/RQ fetch, complete, flush (kiw_qp.h)
 *   kiw_post.c   posting                      (kiw_qp.h)
 *   kiw_srq.c    shared receive queues        (kiw_srq.h)
 *   kiw_mem.c    MRs, STags, memory access    (kiw_mem.h)
 *   kiw_cm*.c    connection manager           (kiw_cm.h, kiw_cep.h)
 *   kiw_stats.c  counters, hw stats           (kiw_stats.h)
 *   kiw_restrack.c  "rdma res" attributes
 *   kiw_trace.c  tracepoints                  (kiw_trace.h)
 */
#ifndef KIW_H
#define KIW_H

#include <linux/etherdevice.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "kiw_limits.h"
#include "kiw_mpa.h"

struct kiw_stats;

/* A device's connection manager state, embedded in struct kiw_device. */
struct kiw_cm_dev {
	/*
	 * Protects ceps, listeners, and the holds_sock and net fields of
	 * their entries. A spinlock (bottom halves off): an endpoint's last
	 * reference may go in any context.
	 */
	spinlock_t lock;
	struct list_head ceps;		/* every endpoint of the device */
	struct list_head listeners;	/* every listener of the device */
	wait_queue_head_t idle;		/* woken as endpoints let go */

	/*
	 * Passive endpoints iw_cm may still accept or reject, by the handle
	 * given as CONNECT_REQUEST's provider_data (its own lock). iw_cm
	 * may drop that event (its listener is being destroyed) and then
	 * never calls back; a handle that is gone makes a late accept fail
	 * cleanly where a pointer would be stale. Handles are not reused.
	 */
	struct xarray pending;
	unsigned long next_handle;	/* under lock */
};

struct kiw_device {
	struct ib_device ibdev;

	/* Set at creation; held (tracked) until the device is freed. */
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;

	/* Entry on the module's device list (kiw_dev.c), under its lock. */
	struct list_head list;

	/*
	 * Protects mac (written by netdev events, read by query_gid) and
	 * mpa (written through sysfs, copied by each new connection).
	 */
	spinlock_t lock;
	u8 mac[ETH_ALEN];
	struct kiw_mpa_cfg mpa;

	/* Listeners and connection endpoints (kiw_cm.h). */
	struct kiw_cm_dev cm;

	/* Counters (kiw_stats.h): per CPU, no lock. */
	struct kiw_stats __percpu *stats;

	/* Last port state reported by an event; written under RTNL. */
	enum ib_port_state port_state;

	/* Live objects, to enforce kiw_limits. */
	atomic_t num_ucontext;
	atomic_t num_pd;
	atomic_t num_cq;
	atomic_t num_qp;
	atomic_t num_srq;
	atomic_t num_mr;

	/*
	 * QP number -> struct kiw_qp (kiw_qp_verbs.c), for iw_get_qp.
	 * Numbers are handed out cyclically from qp_next; the xarray's own
	 * lock (taken with interrupts off) protects both.
	 */
	struct xarray qp_xa;
	u32 qp_next;

	/*
	 * STag index (24 bits) -> struct kiw_mr (kiw_mem.c). Lookups run
	 * under RCU from any context; insert and erase use the xarray's own
	 * lock with interrupts off.
	 */
	struct xarray mr_xa;
};

static inline struct kiw_device *to_kiw_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct kiw_device, ibdev);
}

struct kiw_ucontext {
	struct ib_ucontext base;
};

struct kiw_pd {
	struct ib_pd base;
};

static inline struct kiw_pd *to_kiw_pd(struct ib_pd *pd)
{
	return container_of(pd, struct kiw_pd, base);
}

#define kiw_dbg(kdev, fmt, ...) \
	ibdev_dbg(&(kdev)->ibdev, "%s: " fmt, __func__, ##__VA_ARGS__)

/* kiw_cfg.c */
int kiw_crc_policy_parse(const char *s, enum kiw_crc_policy *policy);
const char *kiw_crc_policy_name(enum kiw_crc_policy policy);
int kiw_cfg_check_rev(unsigned int rev);
int kiw_cfg_check_timeout(unsigned int ms);
int kiw_cfg_check_rx_budget(unsigned int octets);
extern unsigned int kiw_param_rx_softirq_budget;
void kiw_cfg_snapshot(struct kiw_mpa_cfg *cfg);
void kiw_dev_mpa_cfg(struct kiw_device *kdev, struct kiw_mpa_cfg *cfg);
extern const struct attribute_group kiw_mpa_attr_group;

/* kiw_dev.c */
int kiw_dev_init(void);
void kiw_dev_exit(void);
bool kiw_netdev_qualified(const struct net_device *netdev);
void kiw_gid_from_mac(const u8 *mac, union ib_gid *gid);
void kiw_fill_device_attr(struct ib_device_attr *attr, const u8 *mac);
bool kiw_is_kiw_device(const struct ib_device *ibdev);

/* kiw_verbs.c */
extern const struct ib_device_ops kiw_verbs_ops;
void kiw_device_init_objects(struct kiw_device *kdev);
void kiw_device_fini_objects(struct kiw_device *kdev);
/* kiw_restrack.c: what "rdma res show" shows of kiw's objects */
extern const struct ib_device_ops kiw_restrack_ops;

#endif /* KIW_H */
