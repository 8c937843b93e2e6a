#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Verbs objects on a kiw device through Debian's libsiw and pyverbs: device
# and port attributes, PD, CQs (the mapped ring and its arming word), RC QPs
# (caps, limits, the IB states rdma_cm walks through, flushing into the
# mapped CQ, libsiw's doorbell), MRs and their STags, SRQs and the SRQ
# limit. Prints one "PASS desc" or "FAIL desc: detail" line per check and
# "DONE" at the end; verbs_objects.sh turns them into TAP.
#
# Usage: verbs_objects.py DEVICE
import errno
import os
import sys
import threading
import traceback

import pyverbs.enums as e
from pyverbs.cq import CQ, CompChannel
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

# kiw_limits.h
MAX_QP_WR, MAX_SRQ_WR, MAX_CQE = 16384, 65536, 262144
MAX_SGE, MAX_INLINE, MAX_SRQ = 6, 80, 4096

failed = 0


def check(desc, cond, detail=''):
    global failed
    if cond:
        print(f'PASS {desc}', flush=True)
    else:
        failed += 1
        print(f'FAIL {desc}: {detail}', flush=True)


def err_of(fn):
    """Run fn; return the errno it failed with, 0 if it succeeded."""
    try:
        obj = fn()
    except PyverbsRDMAError as ex:
        return ex.error_code
    except PyverbsError as ex:
        return getattr(ex, 'error_code', -1) or -1
    if hasattr(obj, 'close'):
        obj.close()
    return 0


def expect_errno(desc, fn, want):
    got = err_of(fn)
    check(desc, got == want,
          f'expected {errno.errorcode.get(want, want)}, '
          f'got {errno.errorcode.get(got, got)}')


def rc_qp(pd, cq, cap, srq=None):
    return QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, srq=srq,
                             cap=cap))


def device_checks(ctx):
    a = ctx.query_device()
    want = {'max_qp_wr': MAX_QP_WR, 'max_sge': MAX_SGE, 'max_cqe': MAX_CQE,
            'max_srq': MAX_SRQ, 'max_srq_wr': MAX_SRQ_WR,
            'max_srq_sge': MAX_SGE, 'max_qp_rd_atom': 128,
            'max_qp_init_rd_atom': 128, 'max_mr': 65536, 'max_pd': 16384}
    for k, v in want.items():
        check(f'query_device {k} = {v}', getattr(a, k) == v,
              f'got {getattr(a, k)}')
    p = ctx.query_port(1)
    check('query_port: port active', p.state == e.IBV_PORT_ACTIVE,
          f'state {p.state}')
    check('query_port: one GID', p.gid_tbl_len == 1, f'{p.gid_tbl_len}')


def cq_checks(ctx):
    cq = CQ(ctx, 100, None, None, 0)
    check('create_cq(100) gives 128 entries', cq.cqe == 128, f'{cq.cqe}')
    cq.req_notify()
    cq.req_notify(solicited_only=True)
    n, _ = cq.poll(4)
    check('a new CQ polls empty through the mapped ring', n == 0, f'{n}')
    cq.close()
    expect_errno('create_cq beyond max_cqe fails with EINVAL',
                 lambda: CQ(ctx, MAX_CQE + 1, None, None, 0), errno.EINVAL)
    big = CQ(ctx, MAX_CQE, None, None, 0)
    check('create_cq(max_cqe) works', big.cqe == MAX_CQE, f'{big.cqe}')
    big.close()


def qp_cap_checks(pd, cq):
    cap = QPCap(max_send_wr=10, max_recv_wr=20, max_send_sge=2,
                max_recv_sge=3, max_inline_data=16)
    qp = rc_qp(pd, cq, cap)
    attr, init = qp.query(e.IBV_QP_STATE | e.IBV_QP_CAP)
    check('new QP is in RESET', attr.qp_state == e.IBV_QPS_RESET,
          f'{attr.qp_state}')
    got = (attr.cap.max_send_wr, attr.cap.max_recv_wr, attr.cap.max_send_sge,
           attr.cap.max_recv_sge, attr.cap.max_inline_data)
    check('query_qp reports the real caps (16, 32, 6, 6, 80)',
          got == (16, 32, MAX_SGE, MAX_SGE, MAX_INLINE), f'{got}')
    qp.close()
    bad = [('max_send_wr', dict(max_send_wr=MAX_QP_WR + 1)),
           ('max_recv_wr', dict(max_recv_wr=MAX_QP_WR + 1)),
           ('max_send_sge', dict(max_send_sge=MAX_SGE + 1)),
           ('max_recv_sge', dict(max_recv_sge=MAX_SGE + 1)),
           ('max_inline_data', dict(max_inline_data=MAX_INLINE + 1))]
    for name, kw in bad:
        args = dict(max_send_wr=1, max_recv_wr=1, max_send_sge=1,
                    max_recv_sge=1, max_inline_data=0)
        args.update(kw)
        expect_errno(f'create_qp with {name} beyond the limit: EINVAL',
                     lambda: rc_qp(pd, cq, QPCap(**args)), errno.EINVAL)
    qp = rc_qp(pd, cq, QPCap(max_send_wr=MAX_QP_WR, max_recv_wr=MAX_QP_WR))
    check('create_qp at max_qp_wr works', True)
    qp.close()
    expect_errno('create_qp of type UD: EOPNOTSUPP',
                 lambda: QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq,
                                           rcq=cq, cap=QPCap())),
                 errno.EOPNOTSUPP)


def modify(qp, state, mask=0, **kw):
    a = QPAttr(qp_state=state)
    for k, v in kw.items():
        setattr(a, k, v)
    qp.modify(a, e.IBV_QP_STATE | mask)


def state_of(qp):
    return qp.query(e.IBV_QP_STATE)[0].qp_state


def get_event(ch, cq, timeout=10):
    """get_cq_event with a timeout; True if the CQ event arrived."""
    got = []
    t = threading.Thread(target=lambda: got.append(ch.get_cq_event(cq)),
                         daemon=True)
    t.start()
    t.join(timeout)
    if got:
        cq.ack_events(1)
    return bool(got)


def qp_state_checks(ctx, pd):
    ch = CompChannel(ctx)
    cq = CQ(ctx, 16, None, ch, 0)
    mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    qp = rc_qp(pd, cq, QPCap(max_send_wr=4, max_recv_wr=4))
    acc = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
    modify(qp, e.IBV_QPS_INIT, e.IBV_QP_ACCESS_FLAGS | e.IBV_QP_PKEY_INDEX |
           e.IBV_QP_PORT, qp_access_flags=acc, pkey_index=0, port_num=1)
    attr, _ = qp.query(e.IBV_QP_STATE | e.IBV_QP_ACCESS_FLAGS)
    check('modify to INIT (as rdma_cm does)', attr.qp_state == e.IBV_QPS_INIT,
          f'{attr.qp_state}')
    check('query_qp reports the access flags', attr.qp_access_flags == acc,
          f'{attr.qp_access_flags:#x}')
    modify(qp, e.IBV_QPS_RTR)
    check('modify to RTR', state_of(qp) == e.IBV_QPS_RTR, f'{state_of(qp)}')
    expect_errno('modify to RTS without a connection: EINVAL',
                 lambda: modify(qp, e.IBV_QPS_RTS), errno.EINVAL)

    for i in range(2):
        qp.post_recv(RecvWR(wr_id=100 + i, num_sge=1,
                            sg=[SGE(mr.buf, 64, mr.lkey)]))
    send = SendWR(wr_id=7, opcode=e.IBV_WR_SEND, num_sge=1,
                  sg=[SGE(mr.buf, 64, mr.lkey)],
                  send_flags=e.IBV_SEND_SIGNALED)
    # libsiw writes the SQ ring, then rings the doorbell (an empty
    # post_send), which kiw refuses with ENOTCONN; libsiw reports only -1.
    check('post_send before the connection exists fails',
          err_of(lambda: qp.post_send(send)) != 0)
    cq.req_notify()
    modify(qp, e.IBV_QPS_ERR)
    check('modify to ERR', state_of(qp) == e.IBV_QPS_ERR, f'{state_of(qp)}')
    check('the armed CQ raises a completion event', get_event(ch, cq))
    n, wcs = cq.poll(8)
    got = [(w.wr_id, w.status, w.opcode, w.qp_num) for w in wcs]
    want = [(7, e.IBV_WC_WR_FLUSH_ERR, e.IBV_WC_SEND, qp.qp_num),
            (100, e.IBV_WC_WR_FLUSH_ERR, e.IBV_WC_RECV, qp.qp_num),
            (101, e.IBV_WC_WR_FLUSH_ERR, e.IBV_WC_RECV, qp.qp_num)]
    check('ERR flushes the SQ, then the RQ, in order, into the mapped CQ',
          n == 3 and got == want, f'{n} completions: {got}')
    qp.post_send(SendWR(wr_id=8, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                        sg=[SGE(mr.buf, 8, mr.lkey)]))
    n, wcs = cq.poll(8)
    check('a WR posted in ERR completes at once with a flush error',
          n == 1 and wcs[0].wr_id == 8 and
          wcs[0].status == e.IBV_WC_WR_FLUSH_ERR,
          f'{n}: {[(w.wr_id, w.status) for w in wcs]}')
    modify(qp, e.IBV_QPS_RESET)
    check('modify ERR to RESET', state_of(qp) == e.IBV_QPS_RESET,
          f'{state_of(qp)}')
    qp.close()
    mr.close()
    cq.close()
    ch.close()


def mr_checks(pd):
    lw, rw, rr = (e.IBV_ACCESS_LOCAL_WRITE, e.IBV_ACCESS_REMOTE_WRITE,
                  e.IBV_ACCESS_REMOTE_READ)
    mrs = [MR(pd, 4096, lw | rw | rr) for _ in range(16)]
    stags = [m.rkey for m in mrs]
    check('lkey == rkey (one STag)', all(m.lkey == m.rkey for m in mrs))
    check('libsiw asks for key 0: the STag key octet is 0',
          all(s & 0xff == 0 for s in stags), f'{[hex(s) for s in stags]}')
    idx = sorted(s >> 8 for s in stags)
    check('STag indices are distinct and non-zero',
          len(set(idx)) == 16 and idx[0] != 0, f'{idx}')
    check('STag indices are not sequential',
          any(b - a != 1 for a, b in zip(idx, idx[1:])), f'{idx}')
    for m in mrs:
        m.close()
    for name, acc in [('local read only', 0), ('remote read', rr),
                      ('local write', lw), ('remote write', lw | rw)]:
        m = MR(pd, 65536, acc)
        m.write(b'kiw' * 100, 300)
        check(f'reg_mr 64 KiB, {name}: works and is usable',
              m.read(300, 0) == b'kiw' * 100)
        m.close()
    big = MR(pd, 4 << 20, lw | rw | rr)
    check('reg_mr 4 MiB', big.length == 4 << 20)
    big.close()
    expect_errno('reg_mr remote write without local write: EINVAL',
                 lambda: MR(pd, 4096, rw), errno.EINVAL)


def srq_checks(pd, ctx):
    # libsiw has no query_srq: what create returns is what there is to see.
    init = SrqInitAttr(SrqAttr(max_wr=100, max_sge=2, srq_limit=10))
    srq = SRQ(pd, init)
    check('create_srq(100) returns 128 entries, 6 SGEs',
          (init.max_wr, init.max_sge) == (128, MAX_SGE),
          f'{(init.max_wr, init.max_sge)}')
    expect_errno('modify_srq limit above max_wr: EINVAL',
                 lambda: srq.modify(SrqAttr(srq_limit=129),
                                    e.IBV_SRQ_LIMIT), errno.EINVAL)
    srq.modify(SrqAttr(srq_limit=128), e.IBV_SRQ_LIMIT)
    check('modify_srq limit = max_wr', True)
    expect_errno('modify_srq max_wr (resize): EOPNOTSUPP',
                 lambda: srq.modify(SrqAttr(max_wr=256), e.IBV_SRQ_MAX_WR),
                 errno.EOPNOTSUPP)
    mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    for i in range(4):
        srq.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[SGE(mr.buf, 64,
                                                         mr.lkey)]))
    check('post_srq_recv into the mapped ring', True)
    cq = CQ(ctx, 8, None, None, 0)
    qp = rc_qp(pd, cq, QPCap(max_send_wr=4, max_recv_wr=0), srq=srq)
    cap = qp.query(e.IBV_QP_CAP)[0].cap
    check('a QP on an SRQ reports no RQ of its own',
          (cap.max_recv_wr, cap.max_recv_sge) == (0, 0),
          f'{(cap.max_recv_wr, cap.max_recv_sge)}')
    qp.close()
    cq.close()
    mr.close()
    srq.close()
    expect_errno('create_srq with limit above max_wr: EINVAL',
                 lambda: SRQ(pd, SrqInitAttr(SrqAttr(max_wr=4, srq_limit=5))),
                 errno.EINVAL)
    expect_errno('create_srq beyond max_srq_wr: EINVAL',
                 lambda: SRQ(pd, SrqInitAttr(SrqAttr(max_wr=MAX_SRQ_WR + 1))),
                 errno.EINVAL)


def srq_count_checks(pd):
    # Thousands of mapped rings: their mmap keys pass the one libsiw reads
    # as "no mapping" (SIW_INVAL_UOBJ_KEY) if kiw ever hands it out.
    srqs, err = [], 0
    try:
        while len(srqs) <= MAX_SRQ:
            srqs.append(SRQ(pd, SrqInitAttr(SrqAttr(max_wr=1))))
    except PyverbsRDMAError as ex:
        err = ex.error_code
    check(f'exactly max_srq ({MAX_SRQ}) SRQs, then ENOMEM',
          len(srqs) == MAX_SRQ and err == errno.ENOMEM,
          f'{len(srqs)} created, then {errno.errorcode.get(err, err)}')
    for s in srqs:
        s.close()
    s = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=1)))
    check('after destroying them an SRQ can be created again', True)
    s.close()


def section(name, fn, *args):
    """Run one group of checks; an exception fails the group, not the
    script: the groups after it still run, and the log says what raised
    (the traceback goes to stderr, which verbs_objects.sh shows)."""
    try:
        fn(*args)
    except Exception as ex:  # pylint: disable=broad-except
        traceback.print_exc()
        check(f'{name}: no exception', False, f'{type(ex).__name__}: {ex}')


def listing(path):
    try:
        return sorted(os.listdir(path))
    except OSError as ex:
        return f'({ex.strerror})'


def open_device(name):
    """The device, or None after a FAIL line saying what there is."""
    try:
        return Context(name=name)
    except PyverbsError as ex:
        check(f'open {name}', False,
              f'{ex}; RDMA devices: {listing("/sys/class/infiniband")}, '
              f'uverbs: {listing("/sys/class/infiniband_verbs")}')
        return None


def main():
    ctx = open_device(sys.argv[1])
    if ctx is None:
        return 1
    section('device and port', device_checks, ctx)
    pd = PD(ctx)
    section('CQs', cq_checks, ctx)
    cq = CQ(ctx, 64, None, None, 0)
    section('QP caps', qp_cap_checks, pd, cq)
    cq.close()
    section('QP states', qp_state_checks, ctx, pd)
    section('MRs', mr_checks, pd)
    section('SRQs', srq_checks, pd, ctx)
    section('SRQ count', srq_count_checks, pd)
    pd.close()
    ctx.close()
    print('DONE', flush=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
