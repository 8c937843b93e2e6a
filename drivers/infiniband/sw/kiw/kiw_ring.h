/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Ownership of ring entries shared with libsiw (SQ, RQ, SRQ, CQ).
 *
 * An entry belongs to its producer until the producer sets SIW_WQE_VALID
 * in the entry's flags, as its last store to the entry; it then belongs to
 * the consumer until the consumer clears the flags, as its last access to
 * the entry. The acquire and release below order the entry's other fields
 * against that hand-over on both sides; user space does the same with C11
 * atomics.
 */
#ifndef KIW_RING_H
#define KIW_RING_H

#include <asm/barrier.h>
#include <rdma/siw-abi.h>

/* Consumer: the entry's flags. */
#define kiw_ring_flags(e) \
	/* acquire: the entry's body is read only after its flags */ \
	smp_load_acquire(&(e)->flags)

/* Consumer: is the entry posted? (kiw_ring_flags() has the barrier.) */
#define kiw_ring_posted(e) \
	(kiw_ring_flags(e) & SIW_WQE_VALID)

/* Producer: hand the filled entry over. */
#define kiw_ring_publish(e, f) \
	/* release: the entry's body is written before its flags */ \
	smp_store_release(&(e)->flags, (f))

/* Consumer: hand the entry back. */
#define kiw_ring_free(e) \
	/* release: all reads of the entry are done before it is freed */ \
	smp_store_release(&(e)->flags, 0)

#endif /* KIW_RING_H */
