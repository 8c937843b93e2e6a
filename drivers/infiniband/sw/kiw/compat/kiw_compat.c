// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw compat: the functions compat.h declares for kernels that lack an API
 * kiw uses, or spell it differently. Each is compiled only where its probe
 * says the kernel needs it; on the newest kernel this file is empty.
 */
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "../kiw_cq.h"
#include "../kiw_mem.h"

#ifndef KIW_HAVE_CREATE_CQ_ATTRS
/*
 * Before 6.11 the core passed create_cq() the bundle's driver_udata (NULL
 * for a kernel consumer's CQ), so the bundle is the udata's container.
 */
int (kiw_create_cq)(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct uverbs_attr_bundle *attrs = NULL;

	if (udata)
		attrs = container_of(udata, struct uverbs_attr_bundle,
				     driver_udata);
	return kiw_create_cq(cq, attr, attrs);
}
#endif

#ifndef KIW_HAVE_REG_USER_MR_DMAH
/* Before 6.17 there was no DMA handle: the same as passing none. */
struct ib_mr *(kiw_reg_user_mr)(struct ib_pd *pd, u64 start, u64 len, u64 va,
				int access, struct ib_udata *udata)
{
	return kiw_reg_user_mr(pd, start, len, va, access, NULL, udata);
}
#endif

#ifndef KIW_HAVE_IB_DISPATCH_PORT_STATE_EVENT
/*
 * Before 6.14 a driver reported its port's state changes itself. kiw
 * calls this only when the state it tracks for the port changed, so no
 * deduplication is needed here; kiw's device has one port.
 */
void ib_dispatch_port_state_event(struct ib_device *dev,
				  struct net_device *ndev)
{
	struct ib_event event = {
		.device = dev,
		.element.port_num = 1,
	};

	event.event = netif_running(ndev) && netif_carrier_ok(ndev) ?
		      IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
	ib_dispatch_event(&event);
}
#endif
