// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: kiw device attributes, GID derivation and netdev qualification.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>

#include "kiw.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct kiw_gid_case {
	const char *name;
	u8 mac[ETH_ALEN];
};

static const struct kiw_gid_case kiw_gid_cases[] = {
	{ "locally_administered", { 0x02, 0x00, 0x00, 0xaa, 0xbb, 0xcc } },
	{ "global_oui", { 0x00, 0x1b, 0x21, 0x3c, 0x4d, 0x5e } },
	{ "all_ones", { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff } },
};

static void kiw_gid_case_desc(const struct kiw_gid_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_gid, kiw_gid_cases, kiw_gid_case_desc);

/* The GID holds the MAC in its first six octets; the other ten are zero. */
static void kiw_gid_from_mac_test(struct kunit *test)
{
	const struct kiw_gid_case *c = test->param_value;
	union ib_gid gid;
	int i;

	memset(&gid, 0xa5, sizeof(gid));
	kiw_gid_from_mac(c->mac, &gid);
	KUNIT_EXPECT_MEMEQ(test, gid.raw, c->mac, ETH_ALEN);
	for (i = ETH_ALEN; i < sizeof(gid.raw); i++)
		KUNIT_EXPECT_EQ_MSG(test, gid.raw[i], 0, "octet %d", i);
}

static void kiw_device_attr_limits_test(struct kunit *test)
{
	static const u8 mac[ETH_ALEN] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
	/* EUI-64 from the MAC: U/L bit flipped, ff:fe in the middle. */
	static const u8 guid[8] = { 0x02, 0x11, 0x22, 0xff,
				    0xfe, 0x33, 0x44, 0x55 };
	struct ib_device_attr attr;

	memset(&attr, 0xa5, sizeof(attr));
	kiw_fill_device_attr(&attr, mac);

	KUNIT_EXPECT_EQ(test, attr.vendor_id, KIW_VENDOR_ID);
	KUNIT_EXPECT_EQ(test, attr.max_qp, KIW_MAX_QP);
	KUNIT_EXPECT_EQ(test, attr.max_qp_wr, KIW_MAX_QP_WR);
	KUNIT_EXPECT_EQ(test, attr.max_cq, KIW_MAX_CQ);
	KUNIT_EXPECT_EQ(test, attr.max_cqe, KIW_MAX_CQE);
	KUNIT_EXPECT_EQ(test, attr.max_mr, KIW_MAX_MR);
	KUNIT_EXPECT_EQ(test, attr.max_pd, KIW_MAX_PD);
	KUNIT_EXPECT_EQ(test, attr.max_srq, KIW_MAX_SRQ);
	KUNIT_EXPECT_EQ(test, attr.max_srq_wr, KIW_MAX_SRQ_WR);
	KUNIT_EXPECT_EQ(test, attr.max_send_sge, SIW_MAX_SGE);
	KUNIT_EXPECT_EQ(test, attr.max_recv_sge, SIW_MAX_SGE);
	KUNIT_EXPECT_EQ(test, attr.max_srq_sge, SIW_MAX_SGE);
	KUNIT_EXPECT_EQ(test, attr.max_sge_rd, 1);
	KUNIT_EXPECT_EQ(test, attr.max_qp_rd_atom, KIW_MAX_IRD);
	KUNIT_EXPECT_EQ(test, attr.max_qp_init_rd_atom, KIW_MAX_ORD);
	KUNIT_EXPECT_EQ(test, attr.max_fast_reg_page_list_len,
			KIW_MAX_FRMR_PAGES);
	KUNIT_EXPECT_EQ(test, attr.atomic_cap, IB_ATOMIC_NONE);
	KUNIT_EXPECT_EQ(test, attr.page_size_cap, PAGE_SIZE);
	/* NFS, iSER and NVMe-oF need fast registration. */
	KUNIT_EXPECT_TRUE(test, attr.device_cap_flags &
				IB_DEVICE_MEM_MGT_EXTENSIONS);
	/* "rdma link delete" is refused without this. */
	KUNIT_EXPECT_TRUE(test, attr.kernel_cap_flags & IBK_ALLOW_USER_UNREG);
	KUNIT_EXPECT_MEMEQ(test, &attr.sys_image_guid, guid, sizeof(guid));
	/* Fields kiw does not set are zero, not left over. */
	KUNIT_EXPECT_EQ(test, attr.max_mw, 0);
	KUNIT_EXPECT_EQ(test, attr.max_ah, 0);
}

static void kiw_free_netdev_action(void *netdev)
{
	free_netdev(netdev);
}

static struct net_device *kiw_test_etherdev(struct kunit *test)
{
	struct net_device *netdev = alloc_etherdev(0);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, netdev);
	ret = kunit_add_action_or_reset(test, kiw_free_netdev_action, netdev);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return netdev;
}

static void kiw_netdev_qualified_test(struct kunit *test)
{
	struct net_device *netdev = kiw_test_etherdev(test);

	KUNIT_EXPECT_TRUE(test, kiw_netdev_qualified(netdev));

	netdev->type = ARPHRD_LOOPBACK;
	KUNIT_EXPECT_FALSE(test, kiw_netdev_qualified(netdev));
	netdev->type = ARPHRD_NONE;
	KUNIT_EXPECT_FALSE(test, kiw_netdev_qualified(netdev));
	netdev->type = ARPHRD_INFINIBAND;
	KUNIT_EXPECT_FALSE(test, kiw_netdev_qualified(netdev));

	netdev->type = ARPHRD_ETHER;
	netdev->flags |= IFF_LOOPBACK;
	KUNIT_EXPECT_FALSE(test, kiw_netdev_qualified(netdev));

	netdev->flags &= ~IFF_LOOPBACK;
	netdev->addr_len = 0;
	KUNIT_EXPECT_FALSE(test, kiw_netdev_qualified(netdev));
}

static struct kunit_case kiw_dev_test_cases[] = {
	KUNIT_CASE_PARAM(kiw_gid_from_mac_test, kiw_gid_gen_params),
	KUNIT_CASE(kiw_device_attr_limits_test),
	KUNIT_CASE(kiw_netdev_qualified_test),
	{}
};

static struct kunit_suite kiw_dev_test_suite = {
	.name = "kiw_dev",
	.test_cases = kiw_dev_test_cases,
};

kunit_test_suite(kiw_dev_test_suite);

MODULE_DESCRIPTION("KUnit tests for kiw");
MODULE_LICENSE("Dual BSD/GPL");
