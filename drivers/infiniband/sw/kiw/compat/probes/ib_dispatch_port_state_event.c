// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * 6.14: the core reports port state changes of a device's netdev itself;
 * ib_dispatch_port_state_event() is its helper, and deduplicates.
 */
#include <rdma/ib_verbs.h>

void kiw_probe(struct ib_device *dev, struct net_device *ndev);
void kiw_probe(struct ib_device *dev, struct net_device *ndev)
{
	ib_dispatch_port_state_event(dev, ndev);
}
