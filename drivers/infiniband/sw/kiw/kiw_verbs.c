// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw verbs: user contexts and protection domains.
 *
 * User space reaches kiw through the siw ABI (include/uapi/rdma/siw-abi.h):
 * the device reports RDMA_DRIVER_SIW and ABI version 1, so rdma-core's
 * libsiw provider drives it unchanged.
 */
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "kiw.h"

/* Take one of @max slots of @count, or fail with -ENOMEM. */
static int kiw_take_slot(atomic_t *count, int max)
{
	if (atomic_inc_return(count) > max) {
		atomic_dec(count);
		return -ENOMEM;
	}
	return 0;
}

static int kiw_alloc_ucontext(struct ib_ucontext *base, struct ib_udata *udata)
{
	struct kiw_device *kdev = to_kiw_dev(base->device);
	struct siw_uresp_alloc_ctx uresp = {
		.dev_id = KIW_VENDOR_PART_ID,
	};
	int ret;

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	ret = kiw_take_slot(&kdev->num_ucontext, KIW_MAX_UCONTEXT);
	if (ret)
		return ret;
	ret = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
	if (ret)
		atomic_dec(&kdev->num_ucontext);
	return ret;
}

static void kiw_dealloc_ucontext(struct ib_ucontext *base)
{
	atomic_dec(&to_kiw_dev(base->device)->num_ucontext);
}

static int kiw_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return kiw_take_slot(&to_kiw_dev(pd->device)->num_pd, KIW_MAX_PD);
}

static int kiw_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	atomic_dec(&to_kiw_dev(pd->device)->num_pd);
	return 0;
}

const struct ib_device_ops kiw_verbs_ops = {
	.alloc_pd = kiw_alloc_pd,
	.alloc_ucontext = kiw_alloc_ucontext,
	.dealloc_pd = kiw_dealloc_pd,
	.dealloc_ucontext = kiw_dealloc_ucontext,

	INIT_RDMA_OBJ_SIZE(ib_pd, kiw_pd, base),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, kiw_ucontext, base),
};
