#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Verbs semantics of a kiw device through Debian's libsiw and pyverbs, table
# by table, compared with Linux siw in the same guest (issue 16, point 2):
#
#  - QP states: from RESET, INIT, RTR and ERR (no connection) to every IB
#    state, each with the attribute mask an application passes for it;
#    whether the change is taken, its errno if not, and the state a query
#    reports afterwards (a refused change leaves the QP as it was);
#  - QP attributes: what modify_qp sets, query_qp reports (access flags,
#    ORD/IRD, caps, cur_qp_state), and what is refused with which errno;
#  - a QP from ibv_create_qp_ex moved to INIT with attributes;
#  - device and port attributes, CQs, SRQs and MRs: accepted and refused
#    arguments and what queries return.
#
# Each case gives an outcome string ("ok ...", or the errno name and what
# a query says afterwards). kiw's outcome is checked against KIW (the
# expectation, written out), then against siw's outcome on the same case:
# they must agree, except where SIW_DIFFERS says why not (siw behaviour that
# is not the verbs API's: the check then asserts that siw still differs
# this way, so that the table cannot go stale silently).
#
# Prints one "PASS desc" or "FAIL desc: detail" line per check and "DONE"
# at the end; verbs_semantics.sh turns them into TAP.
#
# Usage: verbs_semantics.py KIW_DEVICE SIW_DEVICE
import errno
import sys
import traceback

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr, QPInitAttrEx
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr

failed = 0

STATES = {e.IBV_QPS_RESET: 'RESET', e.IBV_QPS_INIT: 'INIT',
          e.IBV_QPS_RTR: 'RTR', e.IBV_QPS_RTS: 'RTS', e.IBV_QPS_SQD: 'SQD',
          e.IBV_QPS_SQE: 'SQE', e.IBV_QPS_ERR: 'ERR'}
BY_NAME = {v: k for k, v in STATES.items()}
LW, RW, RR = (e.IBV_ACCESS_LOCAL_WRITE, e.IBV_ACCESS_REMOTE_WRITE,
              e.IBV_ACCESS_REMOTE_READ)

# The masks applications pass per target state: INIT as ibv_modify_qp(3)
# documents for RC (and pyverbs' to_init, rdma-core's tests), RTR as
# rdma_cm passes it for iWARP (iw_cm_init_qp_attr()) and as IB passes it
# (less the address vector, which iWARP has no use for), RTS as IB passes
# it. iWARP ignores P_Key, PSNs, timeouts and retry counts.
INIT_MASK = (e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
             e.IBV_QP_ACCESS_FLAGS)
TARGETS = {
    'RESET': e.IBV_QP_STATE,
    'INIT': INIT_MASK,
    'RTR': e.IBV_QP_STATE | e.IBV_QP_ACCESS_FLAGS,
    'RTR/ib': (e.IBV_QP_STATE | e.IBV_QP_PATH_MTU | e.IBV_QP_DEST_QPN |
               e.IBV_QP_RQ_PSN | e.IBV_QP_MAX_DEST_RD_ATOMIC |
               e.IBV_QP_MIN_RNR_TIMER),
    'RTS': (e.IBV_QP_STATE | e.IBV_QP_SQ_PSN | e.IBV_QP_TIMEOUT |
            e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY |
            e.IBV_QP_MAX_QP_RD_ATOMIC),
    'SQD': e.IBV_QP_STATE,
    'SQE': e.IBV_QP_STATE,
    'ERR': e.IBV_QP_STATE,
}
# How to reach each start state without a connection.
PATHS = {'RESET': [], 'INIT': ['INIT'], 'RTR': ['INIT', 'RTR'],
         'ERR': ['ERR']}

# kiw: IB's QP state diagram (ib_modify_qp_is_ok()) for the states an
# unconnected QP can be in; RTS only through the CM; SQD from RTS, or
# where the connection is already going (ERR); SQE is entered, never asked
# for. A refused change leaves the state as it was.
KIW_QP = {
    'RESET': {'RESET': 'ok RESET', 'INIT': 'ok INIT', 'RTR': 'EINVAL RESET',
              'RTR/ib': 'EINVAL RESET', 'RTS': 'EINVAL RESET',
              'SQD': 'EINVAL RESET', 'SQE': 'EINVAL RESET', 'ERR': 'ok ERR'},
    'INIT': {'RESET': 'ok RESET', 'INIT': 'ok INIT', 'RTR': 'ok RTR',
             'RTR/ib': 'ok RTR', 'RTS': 'EINVAL INIT', 'SQD': 'EINVAL INIT',
             'SQE': 'EINVAL INIT', 'ERR': 'ok ERR'},
    'RTR': {'RESET': 'ok RESET', 'INIT': 'EINVAL RTR', 'RTR': 'EINVAL RTR',
            'RTR/ib': 'EINVAL RTR', 'RTS': 'EINVAL RTR', 'SQD': 'EINVAL RTR',
            'SQE': 'EINVAL RTR', 'ERR': 'ok ERR'},
    'ERR': {'RESET': 'ok RESET', 'INIT': 'EINVAL ERR', 'RTR': 'EINVAL ERR',
            'RTR/ib': 'EINVAL ERR', 'RTS': 'EINVAL ERR', 'SQD': 'ok ERR',
            'SQE': 'EINVAL ERR', 'ERR': 'ok ERR'},
}


def check(desc, cond, detail=''):
    global failed
    if cond:
        print(f'PASS {desc}', flush=True)
    else:
        failed += 1
        print(f'FAIL {desc}: {detail}', flush=True)


def errname(ex):
    """The errno's name (EOPNOTSUPP rather than its alias ENOTSUP), or
    "failed" for an error pyverbs gives no errno for."""
    code = getattr(ex, 'error_code', 0) or 0
    if code == errno.EOPNOTSUPP:
        return 'EOPNOTSUPP'
    return errno.errorcode.get(code, f'error{code}') if code > 0 else 'failed'


def attempt(fn):
    """fn()'s result and '' or None and the errno name it failed with."""
    try:
        return fn(), ''
    except (PyverbsRDMAError, PyverbsError) as ex:
        return None, errname(ex)


def new_qp(res, ex=False, cap=None, sig_all=0):
    cap = cap or QPCap(max_send_wr=4, max_recv_wr=4)
    if ex:
        return QP(res['ctx'], QPInitAttrEx(qp_type=e.IBV_QPT_RC,
                                           scq=res['cq'], rcq=res['cq'],
                                           cap=cap, pd=res['pd'],
                                           comp_mask=e.IBV_QP_INIT_ATTR_PD,
                                           sq_sig_all=sig_all))
    return QP(res['pd'], QPInitAttr(qp_type=e.IBV_QPT_RC, scq=res['cq'],
                                    rcq=res['cq'], cap=cap,
                                    sq_sig_all=sig_all))


def qp_attr(state, **kw):
    a = QPAttr(qp_state=BY_NAME[(state or 'RESET').split('/')[0]])
    a.port_num = 1
    a.pkey_index = 0
    a.qp_access_flags = LW | RW | RR
    a.max_dest_rd_atomic = 4
    a.max_rd_atomic = 4
    a.path_mtu = e.IBV_MTU_1024
    for k, v in kw.items():
        setattr(a, k, v)
    return a


def move(qp, state, mask=None, **kw):
    """Modify to state with its TARGETS mask; '' or the errno name."""
    mask = TARGETS[state] if mask is None else mask
    return attempt(lambda: qp.modify(qp_attr(state, **kw), mask))[1]


def state(qp):
    return STATES.get(qp.query(e.IBV_QP_STATE)[0].qp_state, '?')


def qp_table(res):
    out = {}
    for start, path in PATHS.items():
        for target in TARGETS:
            qp = new_qp(res)
            err = ''
            for step in path:
                err = err or move(qp, step)
            if err:
                out[f'qp {start} -> {target}'] = f'setup {err}'
            else:
                err = move(qp, target)
                out[f'qp {start} -> {target}'] = \
                    f'{err or "ok"} {state(qp)}'
            qp.close()
    return out


def qp_attrs(res):
    out = {}
    qp = new_qp(res, cap=QPCap(max_send_wr=5, max_recv_wr=9,
                               max_send_sge=2, max_recv_sge=1,
                               max_inline_data=8), sig_all=0)
    a, i = qp.query(e.IBV_QP_STATE | e.IBV_QP_CUR_STATE | e.IBV_QP_CAP)
    out['new QP: state, cur_qp_state'] = \
        f'{STATES[a.qp_state]} {STATES[a.cur_qp_state]}'
    out['new QP: caps at least as asked'] = str(
        a.cap.max_send_wr >= 5 and a.cap.max_recv_wr >= 9 and
        a.cap.max_send_sge >= 2 and a.cap.max_recv_sge >= 1 and
        a.cap.max_inline_data >= 8 and i.cap.max_send_wr == a.cap.max_send_wr)
    out['new QP: sq_sig_all reported'] = str(i.sq_sig_all)
    err = move(qp, 'INIT', qp_access_flags=LW | RW | RR)
    a, _ = qp.query(e.IBV_QP_STATE | e.IBV_QP_CUR_STATE |
                    e.IBV_QP_ACCESS_FLAGS | e.IBV_QP_PORT)
    out['INIT (app mask): state, cur, access, port'] = \
        (f'{err or "ok"} {STATES[a.qp_state]} {STATES[a.cur_qp_state]} '
         f'{a.qp_access_flags} {a.port_num}')
    err = move(qp, 'INIT', qp_access_flags=RR)
    a, _ = qp.query(e.IBV_QP_ACCESS_FLAGS)
    out['INIT -> INIT changes access flags'] = \
        f'{err or "ok"} {a.qp_access_flags}'
    err = move(qp, 'INIT', qp_access_flags=LW | e.IBV_ACCESS_ZERO_BASED)
    a, _ = qp.query(e.IBV_QP_ACCESS_FLAGS)
    out['access flag that is no QP flag (ZERO_BASED)'] = \
        f'{err or "ok"} {a.qp_access_flags}'
    err = move(qp, 'RTR/ib', max_dest_rd_atomic=7)
    a, _ = qp.query(e.IBV_QP_MAX_DEST_RD_ATOMIC)
    out['RTR sets max_dest_rd_atomic (IRD) 7'] = \
        f'{err or "ok"} {a.max_dest_rd_atomic}'
    err = move(qp, None, e.IBV_QP_MAX_QP_RD_ATOMIC, max_rd_atomic=5)
    a, _ = qp.query(e.IBV_QP_MAX_QP_RD_ATOMIC | e.IBV_QP_STATE)
    out['no state: sets max_rd_atomic (ORD) 5'] = \
        f'{err or "ok"} {a.max_rd_atomic} {STATES[a.qp_state]}'
    for name, mask, kw in [
            ('max_rd_atomic 129', e.IBV_QP_MAX_QP_RD_ATOMIC,
             {'max_rd_atomic': 129}),
            ('max_dest_rd_atomic 129', e.IBV_QP_MAX_DEST_RD_ATOMIC,
             {'max_dest_rd_atomic': 129}),
            ('IBV_QP_CAP (resize)', e.IBV_QP_CAP, {}),
            ('IBV_QP_RATE_LIMIT', e.IBV_QP_RATE_LIMIT, {'rate_limit': 1}),
            ('port 2', e.IBV_QP_PORT, {'port_num': 2})]:
        err = move(qp, None, mask, **kw)
        a, _ = qp.query(e.IBV_QP_STATE | e.IBV_QP_MAX_QP_RD_ATOMIC)
        out[f'refused: {name}'] = \
            f'{err or "ok"} {STATES[a.qp_state]} {a.max_rd_atomic}'
    qp.close()
    qp = new_qp(res)
    err = move(qp, 'ERR')
    err = err or move(qp, None, e.IBV_QP_MAX_QP_RD_ATOMIC, max_rd_atomic=2)
    a, _ = qp.query(e.IBV_QP_STATE | e.IBV_QP_MAX_QP_RD_ATOMIC)
    out['in ERR: max_rd_atomic 2'] = \
        f'{err or "ok"} {STATES[a.qp_state]} {a.max_rd_atomic}'
    err = move(qp, 'RESET') or move(qp, 'INIT')
    out['reused: ERR, RESET, INIT'] = f'{err or "ok"} {state(qp)}'
    qp.close()
    # ibv_create_qp_ex with only a PD is ibv_create_qp (libibverbs): the
    # QP moves to INIT like any other, directly and through pyverbs.
    qp = new_qp(res, ex=True)
    err = move(qp, 'INIT')
    out['create_qp_ex, then INIT with attributes'] = \
        f'{err or "ok"} {state(qp)}'
    qp.close()
    qp, err = attempt(lambda: QP(res['ctx'], QPInitAttrEx(
        qp_type=e.IBV_QPT_RC, scq=res['cq'], rcq=res['cq'], pd=res['pd'],
        cap=QPCap(), comp_mask=e.IBV_QP_INIT_ATTR_PD), QPAttr()))
    out['create_qp_ex with a QPAttr (pyverbs to_init)'] = \
        f'{err or "ok"} {state(qp) if qp else ""}'
    if qp:
        qp.close()
    _, err = attempt(lambda: QP(res['ctx'], QPInitAttrEx(
        qp_type=e.IBV_QPT_RC, scq=res['cq'], rcq=res['cq'], pd=res['pd'],
        cap=QPCap(), send_ops_flags=e.IBV_QP_EX_WITH_SEND,
        comp_mask=e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)))
    out['create_qp_ex with send_ops_flags'] = err or 'ok'
    return out


def device_port(res):
    ctx, out = res['ctx'], {}
    d = ctx.query_device()
    for k in ('device_cap_flags', 'atomic_caps', 'page_size_cap',
              'phys_port_cnt', 'max_sge_rd', 'max_mr_size'):
        out[f'device {k}'] = str(getattr(d, k))
    out['device max_qp_init_rd_atom == max_qp_rd_atom'] = \
        str(d.max_qp_init_rd_atom == d.max_qp_rd_atom)
    p = ctx.query_port(1)
    for k in ('state', 'phys_state', 'port_cap_flags', 'gid_tbl_len',
              'pkey_tbl_len', 'link_layer', 'max_msg_sz', 'active_mtu',
              'lid', 'max_vl_num'):
        out[f'port {k}'] = str(getattr(p, k))
    out['query_port 2'] = attempt(lambda: ctx.query_port(2))[1] or 'ok'
    out['query_gid 0'] = attempt(lambda: ctx.query_gid(1, 0))[1] or 'ok'
    out['query_gid 1'] = attempt(lambda: ctx.query_gid(1, 1))[1] or 'ok'
    return out


def cqs(res):
    ctx, out = res['ctx'], {}
    maxcqe = ctx.query_device().max_cqe
    nvec = ctx.num_comp_vectors
    for name, n, vec in [('0', 0, 0), ('1', 1, 0), ('max_cqe', maxcqe, 0),
                         ('max_cqe + 1', maxcqe + 1, 0),
                         ('comp_vector num_comp_vectors - 1', 4, nvec - 1),
                         ('comp_vector num_comp_vectors', 4, nvec)]:
        cq, err = attempt(lambda: CQ(ctx, n, None, None, vec))
        out[f'create_cq {name}'] = \
            f'{err or "ok"}{" >= n" if cq and cq.cqe >= n else ""}'
        if cq:
            cq.close()
    cq = CQ(ctx, 4, None, None, 0)
    out['resize_cq'] = attempt(lambda: cq.resize(8))[1] or 'ok'
    cq.close()
    return out


def srqs(res):
    """libsiw has no query_srq (EOPNOTSUPP): what modify_srq took is seen
    in what it refuses next (a limit above the queue size)."""
    pd, out = res['pd'], {}
    for name, kw in [('max_wr 0', dict(max_wr=0)),
                     ('max_sge 7', dict(max_wr=4, max_sge=7)),
                     ('srq_limit > max_wr', dict(max_wr=4, srq_limit=5)),
                     ('srq_limit = max_wr', dict(max_wr=4, srq_limit=4))]:
        s, err = attempt(lambda: SRQ(pd, SrqInitAttr(SrqAttr(**kw))))
        out[f'create_srq {name}'] = err or 'ok'
        if s:
            s.close()
    s = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=10, max_sge=2, srq_limit=3)))
    out['query_srq'] = attempt(s.query)[1] or 'ok'
    for name, mask, kw in [
            ('limit 5', e.IBV_SRQ_LIMIT, dict(srq_limit=5)),
            ('limit 0 (disarm)', e.IBV_SRQ_LIMIT, dict(srq_limit=0)),
            ('limit 16 (the queue size)', e.IBV_SRQ_LIMIT,
             dict(srq_limit=16)),
            ('limit 17', e.IBV_SRQ_LIMIT, dict(srq_limit=17)),
            ('max_wr (resize)', e.IBV_SRQ_MAX_WR, dict(max_wr=32))]:
        err = attempt(lambda: s.modify(SrqAttr(**kw), mask))[1]
        out[f'modify_srq {name}'] = err or 'ok'
    s.close()
    return out


def mrs(res):
    pd, out = res['pd'], {}
    for name, acc in [('local', LW), ('LW|RW|RR', LW | RW | RR),
                      ('RW without LW', RW),
                      ('atomic', LW | e.IBV_ACCESS_REMOTE_ATOMIC),
                      ('MW_BIND', LW | e.IBV_ACCESS_MW_BIND),
                      ('ON_DEMAND', LW | e.IBV_ACCESS_ON_DEMAND)]:
        m, err = attempt(lambda: MR(pd, 8192, acc))
        keys = m and m.lkey == m.rkey and m.length == 8192
        out[f'reg_mr {name}'] = \
            f'{err or "ok"}{" lkey==rkey len" if keys else ""}'
        if m:
            m.close()
    return out


# kiw's expected outcome of every case but the QP state table (KIW_QP).
KIW = {
    'new QP: state, cur_qp_state': 'RESET RESET',
    'new QP: caps at least as asked': 'True',
    'new QP: sq_sig_all reported': '0',
    'INIT (app mask): state, cur, access, port': 'ok INIT INIT 7 1',
    'INIT -> INIT changes access flags': f'ok {RR}',
    'access flag that is no QP flag (ZERO_BASED)': f'EINVAL {RR}',
    'RTR sets max_dest_rd_atomic (IRD) 7': 'ok 7',
    'no state: sets max_rd_atomic (ORD) 5': 'ok 5 RTR',
    'refused: max_rd_atomic 129': 'EINVAL RTR 5',
    'refused: max_dest_rd_atomic 129': 'EINVAL RTR 5',
    'refused: IBV_QP_CAP (resize)': 'EINVAL RTR 5',
    'refused: IBV_QP_RATE_LIMIT': 'EOPNOTSUPP RTR 5',
    'refused: port 2': 'EINVAL RTR 5',
    'reused: ERR, RESET, INIT': 'ok INIT',
    'in ERR: max_rd_atomic 2': 'EINVAL ERR 128',
    'create_qp_ex, then INIT with attributes': 'ok INIT',
    'create_qp_ex with a QPAttr (pyverbs to_init)': 'ok INIT',
    'create_qp_ex with send_ops_flags': 'EOPNOTSUPP',
    'device device_cap_flags': str(e.IBV_DEVICE_MEM_MGT_EXTENSIONS),
    'device atomic_caps': str(e.IBV_ATOMIC_NONE),
    'device page_size_cap': '4096',
    'device phys_port_cnt': '1',
    'device max_sge_rd': '1',
    'device max_mr_size': str(2**64 - 1),
    'device max_qp_init_rd_atom == max_qp_rd_atom': 'True',
    'port state': str(e.IBV_PORT_ACTIVE),
    'port phys_state': '5',
    'port port_cap_flags': str(e.IBV_PORT_CM_SUP |
                               e.IBV_PORT_DEVICE_MGMT_SUP),
    'port gid_tbl_len': '1',
    'port pkey_tbl_len': '0',
    'port link_layer': str(e.IBV_LINK_LAYER_ETHERNET),
    'port max_msg_sz': str(2**32 - 1),
    'port active_mtu': str(e.IBV_MTU_1024),
    'port lid': '0',
    'port max_vl_num': '0',
    'query_port 2': 'EINVAL',
    'query_gid 0': 'ok',
    'query_gid 1': 'failed',
    'create_cq 0': 'EINVAL',
    'create_cq 1': 'ok >= n',
    'create_cq max_cqe': 'ok >= n',
    'create_cq max_cqe + 1': 'EINVAL',
    'create_cq comp_vector num_comp_vectors - 1': 'ok >= n',
    'create_cq comp_vector num_comp_vectors': 'EINVAL',
    'resize_cq': 'EOPNOTSUPP',
    'create_srq max_wr 0': 'EINVAL',
    'create_srq max_sge 7': 'EINVAL',
    'create_srq srq_limit > max_wr': 'EINVAL',
    'create_srq srq_limit = max_wr': 'ok',
    'query_srq': 'EOPNOTSUPP',
    'modify_srq limit 5': 'ok',
    'modify_srq limit 0 (disarm)': 'ok',
    'modify_srq limit 16 (the queue size)': 'ok',
    'modify_srq limit 17': 'EINVAL',
    'modify_srq max_wr (resize)': 'EOPNOTSUPP',
    'reg_mr local': 'ok lkey==rkey len',
    'reg_mr LW|RW|RR': 'ok lkey==rkey len',
    'reg_mr RW without LW': 'EINVAL',
    'reg_mr atomic': 'ok lkey==rkey len',
    'reg_mr MW_BIND': 'ok lkey==rkey len',
    'reg_mr ON_DEMAND': 'EOPNOTSUPP',
}

# Where siw 6.12 does not do what the verbs API documents, and kiw does:
# case -> (siw's outcome, why). QP state table cells are listed in
# SIW_QP_DIFFERS below.
SIW_DIFFERS = {
    'new QP: state, cur_qp_state':
        ('INIT RESET', 'siw reports its IDLE as INIT, and never sets '
         'cur_qp_state'),
    'new QP: sq_sig_all reported':
        ('1', 'siw does not report sq_sig_type: the zeroed field reads as '
         'IBV_SIGNAL_ALL_WR'),
    'INIT (app mask): state, cur, access, port':
        ('ok INIT RESET 7 0', 'siw reports neither cur_qp_state nor port'),
    'INIT -> INIT changes access flags':
        ('ok 7', 'siw reports fixed access flags'),
    'access flag that is no QP flag (ZERO_BASED)':
        ('ok 7', 'siw ignores unknown access flags'),
    'RTR sets max_dest_rd_atomic (IRD) 7':
        ('ok 0', 'siw reports its ORD/IRD sizes, 0 before a connection'),
    'no state: sets max_rd_atomic (ORD) 5':
        ('ok 0 INIT', 'siw ignores max_rd_atomic; its IDLE is INIT'),
    'refused: max_rd_atomic 129':
        ('ok INIT 0', 'siw ignores max_rd_atomic'),
    'refused: max_dest_rd_atomic 129':
        ('ok INIT 0', 'siw ignores max_dest_rd_atomic'),
    'refused: IBV_QP_CAP (resize)':
        ('ok INIT 0', 'siw ignores a resize it does not do'),
    'refused: IBV_QP_RATE_LIMIT':
        ('EOPNOTSUPP INIT 0', 'refused by the RDMA core; siw reports INIT '
         'and ORD 0 (above)'),
    'reused: ERR, RESET, INIT':
        ('ok ERR', 'a siw QP in ERR stays there'),
    'in ERR: max_rd_atomic 2':
        ('ok ERR 0', 'siw ignores max_rd_atomic'),
    'refused: port 2':
        ('EINVAL INIT 0', 'siw reports INIT and ORD 0 (above)'),
}
# siw 6.12's state table: IB RESET, INIT and RTR all leave an unconnected
# QP in its IDLE, which it reports as INIT, and every change but RTS is
# taken without complaint; once in ERR a QP stays there whatever is asked
# for (siw cannot reuse it), and again without complaint.
SIW_QP_DIFFERS = {
    'RESET -> RESET': 'ok INIT', 'RESET -> RTR': 'ok INIT',
    'RESET -> RTR/ib': 'ok INIT', 'RESET -> RTS': 'EINVAL INIT',
    'RESET -> SQD': 'ok INIT', 'RESET -> SQE': 'ok INIT',
    'INIT -> RESET': 'ok INIT', 'INIT -> RTR': 'ok INIT',
    'INIT -> RTR/ib': 'ok INIT', 'INIT -> SQD': 'ok INIT',
    'INIT -> SQE': 'ok INIT',
    'RTR -> RESET': 'ok INIT', 'RTR -> INIT': 'ok INIT',
    'RTR -> RTR': 'ok INIT', 'RTR -> RTR/ib': 'ok INIT',
    'RTR -> RTS': 'EINVAL INIT', 'RTR -> SQD': 'ok INIT',
    'RTR -> SQE': 'ok INIT',
    'ERR -> RESET': 'ok ERR', 'ERR -> INIT': 'ok ERR',
    'ERR -> RTR': 'ok ERR', 'ERR -> RTR/ib': 'ok ERR',
    'ERR -> RTS': 'ok ERR', 'ERR -> SQE': 'ok ERR',
}


def run_all(res):
    out = {}
    for fn in (qp_table, qp_attrs, device_port, cqs, srqs, mrs):
        try:
            out.update(fn(res))
        except Exception as ex:  # pylint: disable=broad-except
            traceback.print_exc()
            out[f'{fn.__name__}: no exception'] = f'{type(ex).__name__}: {ex}'
    return out


def open_res(name):
    ctx = Context(name=name)
    pd = PD(ctx)
    return {'ctx': ctx, 'pd': pd, 'cq': CQ(ctx, 64, None, None, 0)}


def close_res(res):
    res['cq'].close()
    res['pd'].close()
    res['ctx'].close()


def expected():
    want = dict(KIW)
    for start, row in KIW_QP.items():
        for target, outcome in row.items():
            want[f'qp {start} -> {target}'] = outcome
    siw = {k: v[0] for k, v in SIW_DIFFERS.items()}
    siw.update({f'qp {k}': v for k, v in SIW_QP_DIFFERS.items()})
    return want, siw


def main():
    kres, sres = open_res(sys.argv[1]), open_res(sys.argv[2])
    kiw, siw = run_all(kres), run_all(sres)
    close_res(kres)
    close_res(sres)
    want, siw_want = expected()
    for case in sorted(set(kiw) | set(want)):
        got = kiw.get(case, '(not run)')
        check(f'kiw: {case}: {want.get(case, "?")}', got == want.get(case),
              f'got {got}')
        other = siw.get(case, '(not run)')
        if case in siw_want:
            check(f'siw differs: {case}: {siw_want[case]}',
                  other == siw_want[case] and other != got,
                  f'siw {other}, kiw {got}')
        else:
            check(f'kiw and siw agree: {case}', other == got,
                  f'kiw {got}, siw {other}')
    print('DONE', flush=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
