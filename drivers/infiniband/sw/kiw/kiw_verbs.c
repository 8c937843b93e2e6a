// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw verbs: user contexts, protection domains, and the table of every
 * verb kiw implements (the mmap of the rings is kiw_obj.c's).
 *
 * User space reaches kiw through the siw ABI (include/uapi/rdma/siw-abi.h):
 * the device reports RDMA_DRIVER_SIW and ABI version 1, so rdma-core's
 * libsiw provider drives it unchanged.
 */
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "kiw.h"
#include "kiw_cq.h"
#include "kiw_mem.h"
#include "kiw_obj.h"
#include "kiw_qp.h"
#include "kiw_srq.h"

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

void kiw_device_init_objects(struct kiw_device *kdev)
{
	xa_init_flags(&kdev->qp_xa, XA_FLAGS_ALLOC);
	xa_init(&kdev->mr_xa);
}

/* dealloc_driver: every object is gone by now. */
void kiw_device_fini_objects(struct kiw_device *kdev)
{
	WARN_ON(!xa_empty(&kdev->qp_xa));
	WARN_ON(!xa_empty(&kdev->mr_xa));
	xa_destroy(&kdev->qp_xa);
	xa_destroy(&kdev->mr_xa);
}

const struct ib_device_ops kiw_verbs_ops = {
	.alloc_mr = kiw_alloc_mr,
	.alloc_pd = kiw_alloc_pd,
	.alloc_ucontext = kiw_alloc_ucontext,
	.create_cq = kiw_create_cq,
	.create_qp = kiw_create_qp,
	.create_srq = kiw_create_srq,
	.dealloc_pd = kiw_dealloc_pd,
	.dealloc_ucontext = kiw_dealloc_ucontext,
	.dereg_mr = kiw_dereg_mr,
	.destroy_cq = kiw_destroy_cq,
	.destroy_qp = kiw_destroy_qp,
	.destroy_srq = kiw_destroy_srq,
	.get_dma_mr = kiw_get_dma_mr,
	.iw_add_ref = kiw_iw_add_ref,
	.iw_get_qp = kiw_iw_get_qp,
	.iw_rem_ref = kiw_iw_rem_ref,
	.map_mr_sg = kiw_map_mr_sg,
	.mmap = kiw_mmap,
	.mmap_free = kiw_mmap_free,
	.modify_qp = kiw_modify_qp,
	.modify_srq = kiw_modify_srq,
	.poll_cq = kiw_poll_cq,
	.post_recv = kiw_post_recv,
	.post_send = kiw_post_send,
	.post_srq_recv = kiw_post_srq_recv,
	.query_qp = kiw_query_qp,
	.query_srq = kiw_query_srq,
	.reg_user_mr = kiw_reg_user_mr,
	.req_notify_cq = kiw_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, kiw_cq, base),
	INIT_RDMA_OBJ_SIZE(ib_pd, kiw_pd, base),
	INIT_RDMA_OBJ_SIZE(ib_qp, kiw_qp, base),
	INIT_RDMA_OBJ_SIZE(ib_srq, kiw_srq, base),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, kiw_ucontext, base),
};
