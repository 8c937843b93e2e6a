// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw module entry points: set up and tear down, in order, the CRC, the
 * data path's workqueue (kiw_qp.c), the connection manager's, and the
 * devices' side (the "kiw" rdma link type, the netdev notifier and the
 * netns hook, all in kiw_dev.c, which owns the list of kiw devices).
 */
#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "kiw.h"
#include "kiw_cm.h"
#include "kiw_mpa.h"
#include "kiw_qp.h"

static int __init kiw_init(void)
{
	int ret;

	kiw_crc_setup();
	ret = kiw_qp_wq_init();
	if (ret)
		return ret;
	ret = kiw_cm_init();
	if (ret)
		goto err_tx;
	ret = kiw_dev_init();
	if (ret)
		goto err_cm;
	pr_info("kiw: software iWARP loaded\n");
	return 0;

err_cm:
	kiw_cm_exit();
err_tx:
	kiw_qp_wq_exit();
	return ret;
}

static void __exit kiw_exit(void)
{
	kiw_dev_exit();		/* every device gone */
	kiw_cm_exit();
	kiw_qp_wq_exit();
	pr_info("kiw: unloaded\n");
}

module_init(kiw_init);
module_exit(kiw_exit);

MODULE_AUTHOR("The kiw authors");
MODULE_DESCRIPTION("kiw: iWARP (RDMAP, DDP, MPA with CRC32c and markers) in software over kernel TCP");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(KIW_VERSION);
MODULE_ALIAS_RDMA_LINK("kiw");
