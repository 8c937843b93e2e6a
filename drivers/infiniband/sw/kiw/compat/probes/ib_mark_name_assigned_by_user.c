// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* 6.8: a device named by its user keeps the name through netns moves. */
#include <rdma/ib_verbs.h>

void kiw_probe(struct ib_device *dev);
void kiw_probe(struct ib_device *dev)
{
	ib_mark_name_assigned_by_user(dev);
}
