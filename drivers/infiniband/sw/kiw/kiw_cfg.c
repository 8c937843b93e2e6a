// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw module parameters.
 *
 * They are the MPA startup settings every connection starts from. All are
 * writable at run time through /sys/module/kiw/parameters and take effect
 * for connections set up afterwards; each write is validated, and a bad
 * value is refused with a message and -EINVAL, leaving the old one.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "kiw.h"

#define KIW_TIMEOUT_MIN_MS 100
#define KIW_TIMEOUT_MAX_MS 600000

static const char * const kiw_crc_policy_names[KIW_CRC_POLICY_MAX] = {
	[KIW_CRC_OFF] = "off",
	[KIW_CRC_ON] = "on",
	[KIW_CRC_REQUIRED] = "required",
};

/* Parse "off", "on" or "required" (a trailing newline is allowed). */
int kiw_crc_policy_parse(const char *s, enum kiw_crc_policy *policy)
{
	int i = sysfs_match_string(kiw_crc_policy_names, s);

	if (i < 0)
		return -EINVAL;
	*policy = i;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_crc_policy_parse);

const char *kiw_crc_policy_name(enum kiw_crc_policy policy)
{
	if (policy >= KIW_CRC_POLICY_MAX)
		return "invalid";
	return kiw_crc_policy_names[policy];
}
EXPORT_SYMBOL_IF_KUNIT(kiw_crc_policy_name);

/* kiw speaks MPA revision 1 (RFC 5044) and 2 (RFC 6581). */
int kiw_cfg_check_rev(unsigned int rev)
{
	return rev == 1 || rev == 2 ? 0 : -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cfg_check_rev);

int kiw_cfg_check_timeout(unsigned int ms)
{
	return ms >= KIW_TIMEOUT_MIN_MS && ms <= KIW_TIMEOUT_MAX_MS ?
	       0 : -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cfg_check_timeout);

static int kiw_param_crc = KIW_CRC_ON;
static bool kiw_param_markers;
static unsigned int kiw_param_mpa_rev = 2;
static unsigned int kiw_param_mpa_timeout_ms = 5000;

static int kiw_crc_param_set(const char *val, const struct kernel_param *kp)
{
	enum kiw_crc_policy policy;

	if (kiw_crc_policy_parse(val, &policy)) {
		pr_err("kiw: crc=%.*s refused: expected off, on or required\n",
		       (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	WRITE_ONCE(*(int *)kp->arg, policy);
	return 0;
}

static int kiw_crc_param_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n",
			 kiw_crc_policy_name(READ_ONCE(*(int *)kp->arg)));
}

static const struct kernel_param_ops kiw_crc_param_ops = {
	.set = kiw_crc_param_set,
	.get = kiw_crc_param_get,
};

static int kiw_uint_param_set(const char *val, const struct kernel_param *kp,
			      int (*check)(unsigned int), const char *what)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || check(v)) {
		pr_err("kiw: %s=%.*s refused: %s\n", kp->name,
		       (int)strcspn(val, "\n"), val, what);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static int kiw_rev_param_set(const char *val, const struct kernel_param *kp)
{
	return kiw_uint_param_set(val, kp, kiw_cfg_check_rev,
				  "MPA revision must be 1 or 2");
}

static int kiw_timeout_param_set(const char *val,
				 const struct kernel_param *kp)
{
	return kiw_uint_param_set(val, kp, kiw_cfg_check_timeout,
				  "must be 100 to 600000 ms");
}

static const struct kernel_param_ops kiw_rev_param_ops = {
	.set = kiw_rev_param_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops kiw_timeout_param_ops = {
	.set = kiw_timeout_param_set,
	.get = param_get_uint,
};

module_param_cb(crc, &kiw_crc_param_ops, &kiw_param_crc, 0644);
MODULE_PARM_DESC(crc,
		 "MPA CRC32c: off (do not ask, use it if the peer asks), on (ask; default, as RFC 5044 requires), required (ask and refuse peers that do not)");

module_param_named(markers, kiw_param_markers, bool, 0644);
MODULE_PARM_DESC(markers,
		 "Ask peers to insert MPA markers in what they send us (default: N; siw refuses peers that ask). A peer's request for markers is always honoured.");

module_param_cb(mpa_rev, &kiw_rev_param_ops, &kiw_param_mpa_rev, 0644);
MODULE_PARM_DESC(mpa_rev,
		 "MPA revision to start with: 1 (RFC 5044) or 2 (RFC 6581, IRD/ORD negotiation; default)");

module_param_cb(mpa_timeout_ms, &kiw_timeout_param_ops,
		&kiw_param_mpa_timeout_ms, 0644);
MODULE_PARM_DESC(mpa_timeout_ms,
		 "Time allowed for the whole MPA Request/Reply exchange, in ms (100-600000, default 5000)");

/* The settings a new connection starts from. */
void kiw_cfg_snapshot(struct kiw_mpa_cfg *cfg)
{
	cfg->crc = READ_ONCE(kiw_param_crc);
	cfg->markers = READ_ONCE(kiw_param_markers);
	cfg->rev = READ_ONCE(kiw_param_mpa_rev);
	cfg->timeout_ms = READ_ONCE(kiw_param_mpa_timeout_ms);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cfg_snapshot);
