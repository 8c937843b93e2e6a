// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw module entry points: register the "kiw" rdma link type and the netdev
 * notifier, and on exit remove every kiw device, each on its own.
 *
 * kiw shares its driver id (RDMA_DRIVER_SIW) with siw so that rdma-core's
 * libsiw drives it, which means ib_unregister_driver() would also remove
 * siw's devices. kiw therefore keeps its own list of devices.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include "kiw.h"
#include "kiw_mpa.h"
#include "kiw_tx.h"

/*
 * kiw_devices: every kiw device from allocation to dealloc_driver.
 * kiw_devices_lock protects the list; it is never held while calling
 * into the RDMA core's registration, which may call back into kiw.
 */
DEFINE_MUTEX(kiw_devices_lock);
LIST_HEAD(kiw_devices);

static struct rdma_link_ops kiw_link_ops = {
	.type = "kiw",
	.newlink = kiw_newlink,
};

static struct notifier_block kiw_netdev_nb = {
	.notifier_call = kiw_netdev_event,
};

/*
 * Unregister every kiw device. ib_unregister_device() waits for a
 * concurrent (queued) unregistration of the same device to finish, and our
 * dealloc_driver callback takes the device off the list, so the loop ends.
 */
static void kiw_unregister_all(void)
{
	struct kiw_device *kdev;

	for (;;) {
		mutex_lock(&kiw_devices_lock);
		kdev = list_first_entry_or_null(&kiw_devices,
						struct kiw_device, list);
		if (kdev)
			get_device(&kdev->ibdev.dev);
		mutex_unlock(&kiw_devices_lock);
		if (!kdev)
			break;
		ib_unregister_device(&kdev->ibdev);
		put_device(&kdev->ibdev.dev);
	}
}

static int __init kiw_init(void)
{
	int ret;

	kiw_crc_setup();
	ret = kiw_llp_init();
	if (ret)
		return ret;
	ret = kiw_cm_init();
	if (ret)
		goto err_llp;
	ret = register_netdevice_notifier(&kiw_netdev_nb);
	if (ret)
		goto err_cm;
	rdma_link_register(&kiw_link_ops);
	pr_info("kiw: software iWARP loaded\n");
	return 0;

err_cm:
	kiw_cm_exit();
err_llp:
	kiw_llp_exit();
	return ret;
}

static void __exit kiw_exit(void)
{
	/* No new devices once the link type is gone. */
	rdma_link_unregister(&kiw_link_ops);
	unregister_netdevice_notifier(&kiw_netdev_nb);
	kiw_unregister_all();
	kiw_cm_exit();
	kiw_llp_exit();
	pr_info("kiw: unloaded\n");
}

module_init(kiw_init);
module_exit(kiw_exit);

MODULE_AUTHOR("The kiw authors");
MODULE_DESCRIPTION("kiw: iWARP (RDMAP, DDP, MPA with CRC32c and markers) in software over kernel TCP");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(KIW_VERSION);
MODULE_ALIAS_RDMA_LINK("kiw");
