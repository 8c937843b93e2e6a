/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What every verbs object shares: its slot among the device's limits
 * (kiw_limits.h), and its ring: allocated, offered to user space to map,
 * freed.
 */
#ifndef KIW_OBJ_H
#define KIW_OBJ_H

#include <linux/atomic.h>
#include <linux/mm_types.h>
#include <rdma/ib_verbs.h>

int kiw_take_slot(atomic_t *count, int max);

void *kiw_mmap_ring_alloc(size_t size, bool user);
int kiw_mmap_ring(struct ib_udata *udata, void *addr, size_t len,
		  struct rdma_user_mmap_entry **entry, u64 *key);
int kiw_mmap_ring_resp(struct ib_udata *udata, size_t resp_len, void *addr,
		       size_t len, struct rdma_user_mmap_entry **entry,
		       u64 *key);
void kiw_mmap_ring_free(struct rdma_user_mmap_entry *entry, void *ring);

/* ib_device_ops: mmap() of a ring, and the end of its mapping's entry */
int kiw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void kiw_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* KIW_OBJ_H */
