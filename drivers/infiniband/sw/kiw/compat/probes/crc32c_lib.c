// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * 6.15: crc32c() is lib/crc's architecture-optimized code, called
 * directly (crc32_optimizations() says what it uses), not a crypto API
 * lookup, and lib/crc32's bare tables (__crc32c_le()) are gone.
 */
#include <linux/bits.h>
#include <linux/crc32.h>

u32 kiw_probe(void);
u32 kiw_probe(void)
{
	return crc32_optimizations() & CRC32C_OPTIMIZATION;
}
