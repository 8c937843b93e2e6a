// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CRC32c implementation behind MPA's CRC (kiw_crc_update()).
 *
 * The kernel has two ways to compute CRC32c: crc32c() (libcrc32c), which
 * goes through the crypto API to its highest-priority "crc32c" driver
 * (crc32c-intel on x86: the SSE4.2 instruction with PCLMULQDQ folding),
 * and __crc32c_le() (lib/crc32.c), slice-by-8 tables in plain C. On real
 * hardware the instruction wins by a wide margin. Under an emulator it can
 * lose: QEMU's TCG emulates the crc32 instruction bit by bit, and the
 * tables are about 3.5 times faster there (Documentation/benchmark.rst).
 *
 * So at load kiw times both over the same buffer, as the kernel does for
 * its RAID6 and XOR routines, and uses the faster; the crc32c_impl
 * parameter names one instead. Both compute the same function, so the
 * choice can change at any time, also under traffic.
 */
#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/crc32c.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "kiw_mpa.h"

enum kiw_crc_impl {
	KIW_CRC_AUTO,
	KIW_CRC_CRYPTO,
	KIW_CRC_TABLE,
};

static const char *const kiw_crc_impl_names[] = {
	[KIW_CRC_AUTO] = "auto",
	[KIW_CRC_CRYPTO] = "crypto",
	[KIW_CRC_TABLE] = "table",
};

/*
 * True: __crc32c_le(); false: crc32c(). Written only under kiw_crc_lock,
 * read locklessly (both give the same CRC, so a reader may take either).
 * A plain flag rather than a static key: a branch is nothing next to the
 * CRC's work, and no code is patched under traffic.
 */
static bool kiw_crc_table __read_mostly;

/*
 * kiw_crc_lock serializes changes of the implementation: what was asked
 * for (kiw_crc_asked) and kiw_crc_table. kiw_crc_ready says whether module
 * init has run (before it, a parameter given at load is only recorded).
 */
static DEFINE_MUTEX(kiw_crc_lock);
static enum kiw_crc_impl kiw_crc_asked = KIW_CRC_AUTO;
static bool kiw_crc_ready;

/* Which driver crc32c() uses, for the log and the parameter's value. */
static char kiw_crc_driver[CRYPTO_MAX_ALG_NAME] = "crc32c";

u32 kiw_crc_update(u32 crc, const void *p, unsigned int len)
{
	if (READ_ONCE(kiw_crc_table))
		return kiw_crc32c_table(crc, p, len);
	return crc32c(crc, p, len);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_crc_update);

/* True if kiw_crc_update() currently uses the tables (for KUnit). */
bool kiw_crc_uses_table(void)
{
	return READ_ONCE(kiw_crc_table);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_crc_uses_table);

#define KIW_CRC_BENCH_LEN	4096
#define KIW_CRC_BENCH_LOOPS	16
#define KIW_CRC_BENCH_TRIALS	3

/*
 * The best of a few trials, each KIW_CRC_BENCH_LOOPS passes over @buf, in
 * MB/s (U64_MAX if too fast to time).
 */
static u64 kiw_crc_rate(bool table, const u8 *buf)
{
	u64 best = U64_MAX;
	int t, i;

	for (t = 0; t < KIW_CRC_BENCH_TRIALS; t++) {
		u64 start = ktime_get_ns();
		u32 c = ~0U;

		for (i = 0; i < KIW_CRC_BENCH_LOOPS; i++)
			c = table ? kiw_crc32c_table(c, buf, KIW_CRC_BENCH_LEN) :
				    crc32c(c, buf, KIW_CRC_BENCH_LEN);
		OPTIMIZER_HIDE_VAR(c);	/* (the tables' function is __pure) */
		best = min(best, ktime_get_ns() - start);
	}
	if (!best)
		return U64_MAX;
	/* octets per ns * 1000 = MB/s */
	return div64_u64((u64)KIW_CRC_BENCH_LEN * KIW_CRC_BENCH_LOOPS * 1000,
			 best);
}

/* Time both; true if the tables are faster. Process context. */
static bool kiw_crc_table_faster(void)
{
	u64 crypto_rate, table_rate;
	u8 *buf;

	buf = kmalloc(KIW_CRC_BENCH_LEN, GFP_KERNEL);
	if (!buf)
		return false;	/* the kernel's choice, untimed */
	get_random_bytes(buf, KIW_CRC_BENCH_LEN);
	crypto_rate = kiw_crc_rate(false, buf);
	table_rate = kiw_crc_rate(true, buf);
	kfree(buf);
	pr_info("kiw: crc32c: %s %llu MB/s, lib/crc32 tables %llu MB/s\n",
		kiw_crc_driver, crypto_rate, table_rate);
	return table_rate > crypto_rate;
}

static void kiw_crc_apply(enum kiw_crc_impl impl)
{
	bool table;

	lockdep_assert_held(&kiw_crc_lock);
	if (!kiw_crc32c_tables())
		table = false;	/* crc32c() is the library: nothing to pick */
	else if (impl == KIW_CRC_AUTO)
		table = kiw_crc_table_faster();
	else
		table = impl == KIW_CRC_TABLE;
	WRITE_ONCE(kiw_crc_table, table);
	pr_info("kiw: crc32c: using %s%s\n",
		table ? "lib/crc32 tables" : kiw_crc_driver,
		impl == KIW_CRC_AUTO ? " (the faster here)" : "");
}

/**
 * kiw_crc_set_impl - choose the CRC32c implementation
 * @val: "auto", "crypto" or "table" (a trailing newline is allowed)
 *
 * Before module init only records the choice. Process context.
 *
 * Return: 0, -EINVAL for anything else, or -EOPNOTSUPP for "table" where
 * the kernel's crc32c() is the library and has no separate tables.
 */
int kiw_crc_set_impl(const char *val)
{
	int impl = sysfs_match_string(kiw_crc_impl_names, val);

	if (impl < 0) {
		pr_warn("kiw: crc32c_impl: must be auto, crypto or table\n");
		return -EINVAL;
	}
	if (impl == KIW_CRC_TABLE && !kiw_crc32c_tables()) {
		pr_warn("kiw: crc32c_impl: this kernel's crc32c() is its only CRC32c\n");
		return -EOPNOTSUPP;
	}
	mutex_lock(&kiw_crc_lock);
	WRITE_ONCE(kiw_crc_asked, impl);
	if (kiw_crc_ready)
		kiw_crc_apply(impl);
	mutex_unlock(&kiw_crc_lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_crc_set_impl);

/* What was last asked for: "auto", "crypto" or "table" (for KUnit). */
const char *kiw_crc_asked_impl(void)
{
	return kiw_crc_impl_names[READ_ONCE(kiw_crc_asked)];
}
EXPORT_SYMBOL_IF_KUNIT(kiw_crc_asked_impl);

static int kiw_crc_impl_set(const char *val, const struct kernel_param *kp)
{
	return kiw_crc_set_impl(val);
}

/* What was asked for, and what is in use: "auto: table". */
static int kiw_crc_impl_get(char *buf, const struct kernel_param *kp)
{
	int n;

	mutex_lock(&kiw_crc_lock);
	n = sysfs_emit(buf, "%s: %s\n", kiw_crc_impl_names[kiw_crc_asked],
		       kiw_crc_table ? "table" :
		       kiw_crc_driver);
	mutex_unlock(&kiw_crc_lock);
	return n;
}

static const struct kernel_param_ops kiw_crc_impl_ops = {
	.set = kiw_crc_impl_set,
	.get = kiw_crc_impl_get,
};

module_param_cb(crc32c_impl, &kiw_crc_impl_ops, NULL, 0644);
MODULE_PARM_DESC(crc32c_impl,
		 "CRC32c implementation for MPA: auto (time both at load, use the faster; default), crypto (crc32c(), the crypto API's best driver, e.g. crc32c-intel), or table (lib/crc32's slice-by-8 tables). Writing auto times them again");

/* Module init: find crc32c()'s driver, then choose. */
void kiw_crc_setup(void)
{
	struct crypto_shash *tfm;

	/* The same lookup libcrc32c made: the highest-priority driver. */
	tfm = crypto_alloc_shash("crc32c", 0, 0);
	mutex_lock(&kiw_crc_lock);
	if (!IS_ERR(tfm))
		strscpy(kiw_crc_driver, crypto_shash_driver_name(tfm),
			sizeof(kiw_crc_driver));
	kiw_crc_ready = true;
	kiw_crc_apply(kiw_crc_asked);
	mutex_unlock(&kiw_crc_lock);
	if (!IS_ERR(tfm))
		crypto_free_shash(tfm);
}
