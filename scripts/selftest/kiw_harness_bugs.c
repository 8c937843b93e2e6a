// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bugs on purpose, for scripts/selftest.sh only: proves that the VM harness
 * fails a run on a kmemleak or lockdep report from the debug kernel.
 *   insmod kiw_harness_bugs.ko bug=leak     leak one allocation
 *   insmod kiw_harness_bugs.ko bug=lockdep  take two mutexes in both orders
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

static char *bug = "none";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "leak or lockdep");

static void *kiw_harness_leaked;
static DEFINE_MUTEX(kiw_harness_a);
static DEFINE_MUTEX(kiw_harness_b);

static int __init kiw_harness_bugs_init(void)
{
	if (!strcmp(bug, "leak")) {
		/* Drop the only reference: kmemleak must report the object. */
		WRITE_ONCE(kiw_harness_leaked, kmalloc(128, GFP_KERNEL));
		WRITE_ONCE(kiw_harness_leaked, NULL);
	} else if (!strcmp(bug, "lockdep")) {
		mutex_lock(&kiw_harness_a);
		mutex_lock(&kiw_harness_b);
		mutex_unlock(&kiw_harness_b);
		mutex_unlock(&kiw_harness_a);
		mutex_lock(&kiw_harness_b);
		mutex_lock(&kiw_harness_a);
		mutex_unlock(&kiw_harness_a);
		mutex_unlock(&kiw_harness_b);
	}
	return 0;
}

static void __exit kiw_harness_bugs_exit(void)
{
}

module_init(kiw_harness_bugs_init);
module_exit(kiw_harness_bugs_exit);
MODULE_DESCRIPTION("kiw harness self-test: deliberate kernel bugs");
MODULE_LICENSE("Dual BSD/GPL");
