// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* 7.2: ib_umem_get() became ib_umem_get_va() (no alias left). */
#include <rdma/ib_umem.h>

struct ib_umem *kiw_probe(struct ib_device *dev);
struct ib_umem *kiw_probe(struct ib_device *dev)
{
	return ib_umem_get_va(dev, 0, PAGE_SIZE, 0);
}
