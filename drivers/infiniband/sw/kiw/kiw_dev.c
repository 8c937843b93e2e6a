// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw device: creation by "rdma link add", attributes, the query verbs, and
 * how the device follows its netdev (carrier, address, unregistration);
 * the module's list of kiw devices, and what acts on all of them: a netns
 * going away, and the module's exit.
 *
 * kiw shares its driver id (RDMA_DRIVER_SIW) with siw so that rdma-core's
 * libsiw drives it, which means ib_unregister_driver() would also remove
 * siw's devices. kiw therefore keeps its own list of devices.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_netlink.h>
#include <rdma/siw-abi.h>
#include <kunit/visibility.h>

#include "kiw.h"
#include "kiw_cm.h"
#include "kiw_stats.h"

/*
 * kiw_devices: every kiw device from allocation to dealloc_driver.
 * kiw_devices_lock protects the list; it is never held while calling
 * into the RDMA core's registration, which may call back into kiw.
 */
static DEFINE_MUTEX(kiw_devices_lock);
static LIST_HEAD(kiw_devices);

/* kiw runs over TCP on Ethernet interfaces; loopback and tunnels are out. */
bool kiw_netdev_qualified(const struct net_device *netdev)
{
	return netdev->type == ARPHRD_ETHER && netdev->addr_len == ETH_ALEN &&
	       !(netdev->flags & IFF_LOOPBACK);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_netdev_qualified);

/*
 * The one GID of an iWARP port is only a name (iWARP addresses peers by IP):
 * like other iWARP drivers, kiw puts the interface's MAC in its first six
 * octets and zeroes the rest.
 */
void kiw_gid_from_mac(const u8 *mac, union ib_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	ether_addr_copy(gid->raw, mac);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_gid_from_mac);

/* Device attributes: kiw_limits.h, and a system image GUID from the MAC. */
void kiw_fill_device_attr(struct ib_device_attr *attr, const u8 *mac)
{
	memset(attr, 0, sizeof(*attr));
	attr->vendor_id = KIW_VENDOR_ID;
	attr->vendor_part_id = KIW_VENDOR_PART_ID;
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_mr_size = U64_MAX;
	attr->max_qp = KIW_MAX_QP;
	attr->max_qp_wr = KIW_MAX_QP_WR;
	attr->max_send_sge = KIW_MAX_SGE;
	attr->max_recv_sge = KIW_MAX_SGE;
	attr->max_sge_rd = KIW_MAX_SGE_RD;
	attr->max_cq = KIW_MAX_CQ;
	attr->max_cqe = KIW_MAX_CQE;
	attr->max_mr = KIW_MAX_MR;
	attr->max_pd = KIW_MAX_PD;
	attr->max_qp_rd_atom = KIW_MAX_IRD;
	attr->max_qp_init_rd_atom = KIW_MAX_ORD;
	attr->max_res_rd_atom = KIW_MAX_QP * KIW_MAX_IRD;
	attr->max_srq = KIW_MAX_SRQ;
	attr->max_srq_wr = KIW_MAX_SRQ_WR;
	attr->max_srq_sge = KIW_MAX_SGE;
	attr->max_fast_reg_page_list_len = KIW_MAX_FRMR_PAGES;
	attr->atomic_cap = IB_ATOMIC_NONE;
	addrconf_addr_eui48((u8 *)&attr->sys_image_guid, mac);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_fill_device_attr);

static void kiw_get_mac(struct kiw_device *kdev, u8 *mac)
{
	spin_lock(&kdev->lock);
	ether_addr_copy(mac, kdev->mac);
	spin_unlock(&kdev->lock);
}

static int kiw_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr, struct ib_udata *udata)
{
	u8 mac[ETH_ALEN];

	/* ib_register_device() asks with no udata on 7.2 (a user's query
	 * always has one).
	 */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	kiw_get_mac(to_kiw_dev(ibdev), mac);
	kiw_fill_device_attr(attr, mac);
	return 0;
}

static enum ib_port_state kiw_netdev_port_state(struct net_device *netdev)
{
	return netif_running(netdev) && netif_carrier_ok(netdev) ?
	       IB_PORT_ACTIVE : IB_PORT_DOWN;
}

static int kiw_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *attr)
{
	struct net_device *netdev = to_kiw_dev(ibdev)->netdev;
	int ret;

	memset(attr, 0, sizeof(*attr));
	ret = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	if (ret)
		return ret;

	attr->state = kiw_netdev_port_state(netdev);
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->gid_tbl_len = 1;
	attr->max_msg_sz = U32_MAX;
	attr->max_mtu = ib_mtu_int_to_enum(READ_ONCE(netdev->max_mtu));
	attr->active_mtu = ib_mtu_int_to_enum(READ_ONCE(netdev->mtu));
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	return 0;
}

static int kiw_get_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *immutable)
{
	immutable->gid_tbl_len = 1;
	immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

static int kiw_query_gid(struct ib_device *ibdev, u32 port, int index,
			 union ib_gid *gid)
{
	u8 mac[ETH_ALEN];

	if (index != 0)
		return -EINVAL;
	kiw_get_mac(to_kiw_dev(ibdev), mac);
	kiw_gid_from_mac(mac, gid);
	return 0;
}

/* Called by the RDMA core when the device is unregistered, once. */
static void kiw_dealloc_driver(struct ib_device *ibdev)
{
	struct kiw_device *kdev = to_kiw_dev(ibdev);

	mutex_lock(&kiw_devices_lock);
	list_del_init(&kdev->list);
	mutex_unlock(&kiw_devices_lock);
	kiw_cm_dev_fini(kdev);
	netdev_put(kdev->netdev, &kdev->netdev_tracker);
	kiw_device_fini_objects(kdev);
	kiw_stats_fini(kdev);
	kiw_dbg(kdev, "released\n");
}

static const struct ib_device_ops kiw_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_SIW,
	.uverbs_abi_ver = SIW_ABI_VERSION,

	.dealloc_driver = kiw_dealloc_driver,
	.device_group = &kiw_mpa_attr_group,
	.get_port_immutable = kiw_get_port_immutable,
	.query_device = kiw_query_device,
	.query_gid = kiw_query_gid,
	.query_port = kiw_query_port,
};

bool kiw_is_kiw_device(const struct ib_device *ibdev)
{
	return ibdev->ops.dealloc_driver == kiw_dealloc_driver;
}

static struct kiw_device *kiw_device_alloc(struct net_device *netdev)
{
	struct kiw_device *kdev;
	struct ib_device *ibdev;

	kdev = ib_alloc_device(kiw_device, ibdev);
	if (!kdev)
		return NULL;
	ibdev = &kdev->ibdev;
	if (kiw_stats_init(kdev)) {
		ib_dealloc_device(ibdev);	/* no ops yet: nothing else */
		return NULL;
	}

	INIT_LIST_HEAD(&kdev->list);
	spin_lock_init(&kdev->lock);
	kiw_cfg_snapshot(&kdev->mpa);
	kiw_cm_dev_init(kdev);
	kiw_device_init_objects(kdev);
	ether_addr_copy(kdev->mac, netdev->dev_addr);
	kdev->port_state = kiw_netdev_port_state(netdev);
	kdev->netdev = netdev;
	netdev_hold(netdev, &kdev->netdev_tracker, GFP_KERNEL);

	ibdev->node_type = RDMA_NODE_RNIC;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	ibdev->iw_driver_flags = IW_F_NO_PORT_MAP;
	/* libsiw's doorbell is an empty post_send: let it through uverbs. */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, kdev->mac);
	strscpy(ibdev->node_desc, KIW_NODE_DESC, sizeof(ibdev->node_desc));
	strscpy(ibdev->iw_ifname, netdev->name, sizeof(ibdev->iw_ifname));
	ib_set_device_ops(ibdev, &kiw_dev_ops);
	ib_set_device_ops(ibdev, &kiw_verbs_ops);
	ib_set_device_ops(ibdev, &kiw_cm_ops);
	ib_set_device_ops(ibdev, &kiw_stats_ops);
	ib_set_device_ops(ibdev, &kiw_restrack_ops);
	return kdev;
}

/* "rdma link add <name> type kiw netdev <netdev>"; netdev is held for us. */
static int kiw_newlink(const char *ibdev_name, struct net_device *netdev)
{
	struct ib_device *other;
	struct kiw_device *kdev;
	int ret;

	if (!kiw_netdev_qualified(netdev)) {
		pr_warn_ratelimited("kiw: %s is not an Ethernet interface\n",
				    netdev->name);
		return -EINVAL;
	}
	/* One software iWARP device (kiw or siw) per interface. */
	other = ib_device_get_by_netdev(netdev, RDMA_DRIVER_SIW);
	if (other) {
		pr_warn_ratelimited("kiw: %s already has RDMA device %s\n",
				    netdev->name, dev_name(&other->dev));
		ib_device_put(other);
		return -EEXIST;
	}

	kdev = kiw_device_alloc(netdev);
	if (!kdev)
		return -ENOMEM;
	ret = ib_device_set_netdev(&kdev->ibdev, netdev, 1);
	if (ret)
		goto err_dealloc;

	mutex_lock(&kiw_devices_lock);
	list_add_tail(&kdev->list, &kiw_devices);
	mutex_unlock(&kiw_devices_lock);

	ib_mark_name_assigned_by_user(&kdev->ibdev);
	ret = ib_register_device(&kdev->ibdev, ibdev_name, NULL);
	if (ret) {
		/* The core reports a name already taken as -ENFILE. */
		if (ret == -ENFILE)
			ret = -EEXIST;
		goto err_dealloc;
	}

	/*
	 * If the netdev started unregistering before the device was findable
	 * by netdev, our notifier missed NETDEV_UNREGISTER and would hold the
	 * netdev forever; reg_state changes before the notifier runs.
	 */
	if (READ_ONCE(netdev->reg_state) != NETREG_REGISTERED)
		ib_unregister_device_queued(&kdev->ibdev);
	kiw_dbg(kdev, "created on %s\n", netdev->name);
	return 0;

err_dealloc:
	/* Calls kiw_dealloc_driver(): off the list, netdev released. */
	ib_dealloc_device(&kdev->ibdev);
	return ret;
}

static void kiw_port_event(struct kiw_device *kdev, enum ib_event_type type)
{
	struct ib_event event = {
		.device = &kdev->ibdev,
		.event = type,
		.element.port_num = 1,
	};

	ib_dispatch_event(&event);
}

/* Report carrier and admin state changes once each; called under RTNL. */
static void kiw_update_port_state(struct kiw_device *kdev)
{
	enum ib_port_state state = kiw_netdev_port_state(kdev->netdev);

	ASSERT_RTNL();
	if (state == kdev->port_state)
		return;
	kdev->port_state = state;
	ib_dispatch_port_state_event(&kdev->ibdev, kdev->netdev);
}

static void kiw_update_mac(struct kiw_device *kdev)
{
	spin_lock(&kdev->lock);
	ether_addr_copy(kdev->mac, kdev->netdev->dev_addr);
	spin_unlock(&kdev->lock);
	kiw_port_event(kdev, IB_EVENT_GID_CHANGE);
}

/* Netdev notifier: runs under RTNL for every interface in every netns. */
static int kiw_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(ptr);
	struct ib_device *ibdev;
	struct kiw_device *kdev;

	ibdev = ib_device_get_by_netdev(netdev, RDMA_DRIVER_SIW);
	if (!ibdev)
		return NOTIFY_DONE;
	if (!kiw_is_kiw_device(ibdev))	/* a siw device */
		goto out;
	kdev = to_kiw_dev(ibdev);

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		kiw_update_port_state(kdev);
		break;
	case NETDEV_CHANGEADDR:
		kiw_update_mac(kdev);
		break;
	case NETDEV_CHANGENAME:
		strscpy(ibdev->iw_ifname, netdev->name,
			sizeof(ibdev->iw_ifname));
		break;
	case NETDEV_UNREGISTER:
		/* Also sent when the netdev moves to another netns. */
		kiw_dbg(kdev, "%s is going away, removing the device\n",
			netdev->name);
		ib_unregister_device_queued(ibdev);
		break;
	default:
		break;
	}
out:
	ib_device_put(ibdev);
	return NOTIFY_DONE;
}

static struct rdma_link_ops kiw_link_ops = {
	.type = "kiw",
	.newlink = kiw_newlink,
};

static struct notifier_block kiw_netdev_nb = {
	.notifier_call = kiw_netdev_event,
};

/*
 * A netns is going away: every device closes its sockets there, now
 * (kiw_cm_dev_close_sockets() says why this cannot wait for the devices'
 * own removal).
 */
static void __net_exit kiw_net_pre_exit(struct net *net)
{
	struct kiw_device *kdev;

	mutex_lock(&kiw_devices_lock);
	list_for_each_entry(kdev, &kiw_devices, list)
		kiw_cm_dev_close_sockets(kdev, net);
	mutex_unlock(&kiw_devices_lock);
}

static struct pernet_operations kiw_net_ops = {
	.pre_exit = kiw_net_pre_exit,
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

/* Module init, after the CM's: devices may be created once this returns. */
int kiw_dev_init(void)
{
	int ret;

	ret = register_pernet_subsys(&kiw_net_ops);
	if (ret)
		return ret;
	ret = register_netdevice_notifier(&kiw_netdev_nb);
	if (ret)
		goto err_net;
	rdma_link_register(&kiw_link_ops);
	return 0;

err_net:
	unregister_pernet_subsys(&kiw_net_ops);
	return ret;
}

/* Module exit: no new devices, then none left. */
void kiw_dev_exit(void)
{
	rdma_link_unregister(&kiw_link_ops);
	unregister_netdevice_notifier(&kiw_netdev_nb);
	kiw_unregister_all();
	unregister_pernet_subsys(&kiw_net_ops);
}
