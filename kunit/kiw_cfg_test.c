// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: validation of kiw's module parameters.
 */
#include <kunit/test.h>

#include "kiw.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct kiw_crc_case {
	const char *in;
	int ret;
	enum kiw_crc_policy policy;
};

static const struct kiw_crc_case kiw_crc_cases[] = {
	{ "off", 0, KIW_CRC_OFF },
	{ "on", 0, KIW_CRC_ON },
	{ "required", 0, KIW_CRC_REQUIRED },
	{ "on\n", 0, KIW_CRC_ON },	/* as written through sysfs */
	{ "", -EINVAL },
	{ "ON", -EINVAL },
	{ "yes", -EINVAL },
	{ "onx", -EINVAL },
	{ "require", -EINVAL },
	{ "1", -EINVAL },
};

static void kiw_crc_case_desc(const struct kiw_crc_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%*pE\"",
		 (int)strlen(c->in), c->in);
}

KUNIT_ARRAY_PARAM(kiw_crc, kiw_crc_cases, kiw_crc_case_desc);

static void kiw_crc_policy_parse_test(struct kunit *test)
{
	const struct kiw_crc_case *c = test->param_value;
	enum kiw_crc_policy policy = KIW_CRC_POLICY_MAX;

	KUNIT_ASSERT_EQ(test, kiw_crc_policy_parse(c->in, &policy), c->ret);
	if (c->ret)
		KUNIT_EXPECT_EQ(test, policy, KIW_CRC_POLICY_MAX);
	else
		KUNIT_EXPECT_EQ(test, policy, c->policy);
}

/* Every policy's name parses back to it; out-of-range values are named. */
static void kiw_crc_policy_name_test(struct kunit *test)
{
	enum kiw_crc_policy p, back;

	for (p = 0; p < KIW_CRC_POLICY_MAX; p++) {
		const char *name = kiw_crc_policy_name(p);

		KUNIT_ASSERT_EQ(test, kiw_crc_policy_parse(name, &back), 0);
		KUNIT_EXPECT_EQ(test, back, p);
	}
	KUNIT_EXPECT_STREQ(test, kiw_crc_policy_name(KIW_CRC_POLICY_MAX),
			   "invalid");
}

static void kiw_cfg_rev_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kiw_cfg_check_rev(0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiw_cfg_check_rev(1), 0);
	KUNIT_EXPECT_EQ(test, kiw_cfg_check_rev(2), 0);
	KUNIT_EXPECT_EQ(test, kiw_cfg_check_rev(3), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiw_cfg_check_rev(255), -EINVAL);
}

static void kiw_cfg_timeout_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kiw_cfg_check_timeout(0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiw_cfg_check_timeout(99), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiw_cfg_check_timeout(100), 0);
	KUNIT_EXPECT_EQ(test, kiw_cfg_check_timeout(5000), 0);
	KUNIT_EXPECT_EQ(test, kiw_cfg_check_timeout(600000), 0);
	KUNIT_EXPECT_EQ(test, kiw_cfg_check_timeout(600001), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiw_cfg_check_timeout(UINT_MAX), -EINVAL);
}

/*
 * The defaults are what the documentation promises: CRC is asked for
 * unless an administrator turns it off, and peer-to-peer mode is on.
 * Covers: MPA-CRC-3
 */
static void kiw_cfg_defaults_test(struct kunit *test)
{
	struct kiw_mpa_cfg cfg;

	kiw_cfg_snapshot(&cfg);
	KUNIT_EXPECT_EQ(test, cfg.crc, KIW_CRC_ON);
	KUNIT_EXPECT_FALSE(test, cfg.markers);
	KUNIT_EXPECT_EQ(test, cfg.rev, 2);
	/* Peer-to-peer, so that every standard tool runs (kiw_cm_hold_tx()). */
	KUNIT_EXPECT_TRUE(test, cfg.p2p);
	KUNIT_EXPECT_EQ(test, cfg.timeout_ms, 5000);
}

static struct kunit_case kiw_cfg_test_cases[] = {
	KUNIT_CASE_PARAM(kiw_crc_policy_parse_test, kiw_crc_gen_params),
	KUNIT_CASE(kiw_crc_policy_name_test),
	KUNIT_CASE(kiw_cfg_rev_test),
	KUNIT_CASE(kiw_cfg_timeout_test),
	KUNIT_CASE(kiw_cfg_defaults_test),
	{}
};

static struct kunit_suite kiw_cfg_test_suite = {
	.name = "kiw_cfg",
	.test_cases = kiw_cfg_test_cases,
};

kunit_test_suite(kiw_cfg_test_suite);
