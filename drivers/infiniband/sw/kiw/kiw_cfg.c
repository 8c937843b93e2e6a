// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw module parameters and per-device MPA settings.
 *
 * The parameters are the MPA startup settings every new device starts
 * from (modinfo kiw shows each with its default). All are writable at
 * run time through /sys/module/kiw/parameters and take effect for
 * devices created afterwards; each device's own copy
 * is changed through its sysfs "mpa" group (below) and takes effect for
 * that device's connections set up afterwards. Every write is validated,
 * and a bad value is refused with -EINVAL, leaving the old one.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <kunit/visibility.h>

#include "kiw.h"
#include "kiw_rx.h"

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

/* What one sk_data_ready call may take (kiw_rx.h); 0: always defer. */
int kiw_cfg_check_rx_budget(unsigned int octets)
{
	return octets <= KIW_RX_BUDGET ? 0 : -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cfg_check_rx_budget);

static int kiw_param_crc = KIW_CRC_ON;
static bool kiw_param_markers;
static unsigned int kiw_param_mpa_rev = 2;
static bool kiw_param_p2p = true;
static unsigned int kiw_param_mpa_timeout_ms = 5000;
/* Read by kiw_rx.c on every sk_data_ready; set only through its check. */
unsigned int kiw_param_rx_softirq_budget = KIW_RX_BH_BUDGET;

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

static int kiw_rx_budget_param_set(const char *val,
				   const struct kernel_param *kp)
{
	return kiw_uint_param_set(val, kp, kiw_cfg_check_rx_budget,
				  "must be 0 to 262144 octets");
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
		 "MPA CRC32c for new devices: off (do not ask, use it if the peer asks), on (ask; default, as RFC 5044 requires), required (ask and refuse peers that do not). Per device: /sys/class/infiniband/<dev>/mpa/crc");

module_param_named(markers, kiw_param_markers, bool, 0644);
MODULE_PARM_DESC(markers,
		 "Ask peers to insert MPA markers in what they send us (default: N; siw refuses peers that ask). A peer's request for markers is always honoured. Per device: mpa/markers");

module_param_cb(mpa_rev, &kiw_rev_param_ops, &kiw_param_mpa_rev, 0644);
MODULE_PARM_DESC(mpa_rev,
		 "MPA revision to start with: 1 (RFC 5044) or 2 (RFC 6581, IRD/ORD negotiation; default). Per device: mpa/rev");

module_param_named(p2p, kiw_param_p2p, bool, 0644);
MODULE_PARM_DESC(p2p,
		 "Peer-to-peer mode, so that either side may send first (default: Y, as iWARP hardware). As initiator at MPA revision 2, ask for RFC 6581 peer-to-peer mode (a zero-length RDMA Write or Read opens Full Operation); as responder to a revision 2 initiator that did not ask (Linux siw), send without waiting for its first FPDU. N: RFC 5044 client-server mode, the responder waits for the initiator's first FPDU (7.1.2 (4)). Per device: mpa/p2p");

module_param_cb(mpa_timeout_ms, &kiw_timeout_param_ops,
		&kiw_param_mpa_timeout_ms, 0644);
MODULE_PARM_DESC(mpa_timeout_ms,
		 "Time allowed for the whole MPA Request/Reply exchange, and for a graceful close, in ms (100-600000, default 5000). Per device: mpa/timeout_ms");

static const struct kernel_param_ops kiw_rx_budget_param_ops = {
	.set = kiw_rx_budget_param_set,
	.get = param_get_uint,
};

/*
 * Not an MPA setting: what one receive callback (softirq) processes before
 * it leaves the rest to process context, as netdev_budget for NAPI.
 */
module_param_cb(rx_softirq_budget, &kiw_rx_budget_param_ops,
		&kiw_param_rx_softirq_budget, 0644);
MODULE_PARM_DESC(rx_softirq_budget,
		 "Octets one sk_data_ready call processes before it defers the rest to process context (default 65536, at most 262144; 0: always defer)");

/* The settings a new device starts from. */
void kiw_cfg_snapshot(struct kiw_mpa_cfg *cfg)
{
	cfg->crc = READ_ONCE(kiw_param_crc);
	cfg->markers = READ_ONCE(kiw_param_markers);
	cfg->rev = READ_ONCE(kiw_param_mpa_rev);
	cfg->p2p = READ_ONCE(kiw_param_p2p);
	cfg->timeout_ms = READ_ONCE(kiw_param_mpa_timeout_ms);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_cfg_snapshot);

/* The settings a new connection of @kdev starts from. */
void kiw_dev_mpa_cfg(struct kiw_device *kdev, struct kiw_mpa_cfg *cfg)
{
	spin_lock(&kdev->lock);
	*cfg = kdev->mpa;
	spin_unlock(&kdev->lock);
}

/*
 * Per-device MPA settings: /sys/class/infiniband/<dev>/mpa/{crc,markers,
 * rev,p2p,timeout_ms}, the same names, values and checks as the module
 * parameters; a write applies to that device's connections set up
 * afterwards.
 *
 * Why sysfs (ib_device_ops.device_group), which the RDMA core reserves for
 * existing drivers and would rather see as netlink: RDMA netlink has no
 * driver-specific device attributes to set, and per-device MPA policy is
 * needed. An administrator runs one interface toward Linux siw (markers
 * off, which siw refuses) and another toward hardware iWARP (CRC
 * required); and kiw's own tests run both hosts of a connection in one
 * guest with one module, so that each side's settings must be its own.
 * Module parameters alone, being global, cannot express either.
 */
static struct kiw_device *kiw_attr_dev(struct device *dev)
{
	return rdma_device_to_drv_device(dev, struct kiw_device, ibdev);
}

static int kiw_attr_set(struct device *dev, const char *buf,
			int (*parse)(const char *buf, struct kiw_mpa_cfg *c))
{
	struct kiw_device *kdev = kiw_attr_dev(dev);
	struct kiw_mpa_cfg cfg;
	int ret;

	/* Parse into a copy; only a valid value reaches the device. */
	kiw_dev_mpa_cfg(kdev, &cfg);
	ret = parse(buf, &cfg);
	if (ret)
		return ret;
	spin_lock(&kdev->lock);
	kdev->mpa = cfg;
	spin_unlock(&kdev->lock);
	return 0;
}

static int kiw_parse_crc(const char *buf, struct kiw_mpa_cfg *c)
{
	return kiw_crc_policy_parse(buf, &c->crc);
}

static int kiw_parse_markers(const char *buf, struct kiw_mpa_cfg *c)
{
	return kstrtobool(buf, &c->markers);
}

static int kiw_parse_p2p(const char *buf, struct kiw_mpa_cfg *c)
{
	return kstrtobool(buf, &c->p2p);
}

static int kiw_parse_rev(const char *buf, struct kiw_mpa_cfg *c)
{
	unsigned int v;

	if (kstrtouint(buf, 0, &v) || kiw_cfg_check_rev(v))
		return -EINVAL;
	c->rev = v;
	return 0;
}

static int kiw_parse_timeout(const char *buf, struct kiw_mpa_cfg *c)
{
	unsigned int v;

	if (kstrtouint(buf, 0, &v) || kiw_cfg_check_timeout(v))
		return -EINVAL;
	c->timeout_ms = v;
	return 0;
}

#define KIW_MPA_ATTR(name, fmt, expr, parser)				\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	struct kiw_mpa_cfg c;						\
									\
	kiw_dev_mpa_cfg(kiw_attr_dev(dev), &c);				\
	return sysfs_emit(buf, fmt "\n", expr);				\
}									\
static ssize_t name##_store(struct device *dev,				\
			    struct device_attribute *attr,		\
			    const char *buf, size_t count)		\
{									\
	int ret = kiw_attr_set(dev, buf, parser);			\
									\
	return ret ? ret : count;					\
}									\
static DEVICE_ATTR_RW(name)

KIW_MPA_ATTR(crc, "%s", kiw_crc_policy_name(c.crc), kiw_parse_crc);
KIW_MPA_ATTR(markers, "%d", c.markers, kiw_parse_markers);
KIW_MPA_ATTR(p2p, "%d", c.p2p, kiw_parse_p2p);
KIW_MPA_ATTR(rev, "%u", c.rev, kiw_parse_rev);
KIW_MPA_ATTR(timeout_ms, "%u", c.timeout_ms, kiw_parse_timeout);

static struct attribute *kiw_mpa_attrs[] = {
	&dev_attr_crc.attr,
	&dev_attr_markers.attr,
	&dev_attr_p2p.attr,
	&dev_attr_rev.attr,
	&dev_attr_timeout_ms.attr,
	NULL
};

const struct attribute_group kiw_mpa_attr_group = {
	.name = "mpa",
	.attrs = kiw_mpa_attrs,
};
