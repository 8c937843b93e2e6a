#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=stock timeout=600
#
# verbs_limits: a kiw device at and past its limits (issue 8, Limits).
# Guest time: 83 s on the stock kernel (2 busy cores; the counts take
# about 45 s of it). The stock kernel, because filling a device costs
# about 120k verbs (16384 QPs, CQs and PDs, 65536 MRs, 4096 SRQs) at
# 0.02-0.5 ms each there, and many times that on the debug kernel under
# TCG (see DEBUG below): far over the CI budget.
#
#  - QPs, MRs, PDs, CQs, SRQs: as many as query_device allows are
#    created (QPs with the smallest queues, one CQ and PD for all; MRs of
#    one page, the same page each time), one more fails with ENOMEM
#    (kiw_take_slot()), a second process can still open the device and
#    create a PD and a CQ while QPs, MRs or SRQs are full (and its own one
#    more fails with ENOMEM too), one destroyed makes room for exactly
#    one, and when all are destroyed "rdma res" counts none.
#  - ORD/IRD: librdmacm refuses initiator_depth/responder_resources above
#    the device's max_qp_init_rd_atom/max_qp_rd_atom (128) with EINVAL for
#    RDMA_PS_TCP, and gives the maximum for RDMA_MAX_INIT_DEPTH /
#    RDMA_MAX_RESP_RES (255); through RDMA_PS_IB, which librdmacm does not
#    check, 200 reaches the kernel and kiw clamps it to 128
#    (kiw_mpa_local_init()) in its MPA Request and Reply. More Reads
#    posted at once than the ORD the connection settled (128, 2, 1) wait
#    their turn and all complete, successfully, in order, with their data.
#  - RLIMIT_MEMLOCK: as uid 65534 without capabilities and ulimit -l 1024,
#    ibv_reg_mr pins no more than the limit (kiw_reg_user_mr() pins through
#    ib_umem_get(), which accounts mm->pinned_vm: ENOMEM past it), and
#    deregistering gives the pages back.
. "$KIW_TOP/scripts/guest/lib.sh"

LT=$KIW_GUEST_BIN/limits_tool
OUT=/tmp/limits
A4=10.77.0.1
ENOMEM=12 EINVAL=22

check "two hosts: netns a and b joined by veth" kiw_hosts_up
check "modprobe kiw" kiw_load
check "rdma link add kiw_a, kiw_b" kiw_devices_add

# ---------------------------------------------------------------------------
# Object counts.

# has FILE REGEX: a line of FILE matches; else FILE is shown.
has() {
	grep -qE -- "$2" "$1" && return 0
	echo "no line matches: $2"
	cat "$1"
	return 1
}

# count KIND: limits_tool count on kiw_a into $OUT.KIND.
count() {
	timeout 300 "$LT" count kiw_a "$1" > "$OUT.$1" 2>&1
	local rc=$?
	[ "$rc" = 0 ] || { cat "$OUT.$1"; return 1; }
}

# created KIND: the tool created as many as it wanted, which is max_KIND
# (less the PD and the CQ the tool holds itself, for those kinds).
created() {
	local f=$OUT.$1 max want
	max=$(sed -n 's/^MAX //p' "$f")
	want=$(sed -n 's/^WANT //p' "$f")
	[ -n "$max" ] && [ "$max" -gt 0 ] && has "$f" "^CREATED $want\$"
}

# res_none KIND: "rdma res" shows no object of KIND left on kiw_a.
res_none() {
	local out
	out=$(rdma res show 2>&1)
	grep -qE "kiw_a: (.* )?$1 0( |\$)" <<<"$out" && return 0
	echo "$out"
	return 1
}

count_checks() {
	local k=$1 f=$OUT.$1 K=${1^^}
	check "$K: limits_tool count ran to the end" count "$k" || return
	diag "$K: $(grep -E '^(MAX|CREATED|CREATE_MS_EACH|DESTROY_MS_EACH) ' "$f" | tr '\n' ' ')"
	check "$K: as many created as query_device's max_$k" created "$k"
	check "$K: one past max_$k fails with ENOMEM" has "$f" "^EXTRA_ERRNO $ENOMEM\$"
	if [ "$k" = qp ] || [ "$k" = mr ] || [ "$k" = srq ]; then
		check "$K: with the device full, another process opens it and creates a PD and a CQ" \
			has "$f" "^PROBE_PD_CQ ok\$"
		check "$K: ... and its own $k fails with ENOMEM too" \
			has "$f" "^PROBE_EXTRA_ERRNO $ENOMEM\$"
	fi
	check "$K: one destroyed at the limit makes room for one more" has "$f" "^REFILL ok\$"
	check "$K: ... and only one: the next fails with ENOMEM" has "$f" "^EXTRA2_ERRNO $ENOMEM\$"
	check "$K: every one destroyed without error" has "$f" "^DESTROY_FAILS 0\$"
	check "$K: rdma res shows none left on kiw_a" res_none "$k"
}

for k in qp mr pd cq srq; do
	count_checks "$k"
done

# ---------------------------------------------------------------------------
# ORD/IRD.

# read_pair PORT SERVER_ARGS CLIENT_ARGS: a server in netns a, a client
# in b. The outputs are emptied here, not only by the background job's
# redirection: that runs later, in the child, and until it does the
# previous server's LISTENING would let the client connect too early
# (TCP answers the SYN with a reset, the client sees ECONNREFUSED).
read_pair() {
	local port=$1 sargs=$2 cargs=$3 pid rc=0
	: > "$OUT.srv"
	: > "$OUT.cli"
	ip netns exec a timeout 120 "$LT" server -b $A4 -p "$port" $sargs \
		> "$OUT.srv" 2>&1 &
	pid=$!
	wait_for 30 grep -q LISTENING "$OUT.srv" || { kill $pid; cat "$OUT.srv"; return 1; }
	ip netns exec b timeout 120 "$LT" client -a $A4 -p "$port" $cargs \
		> "$OUT.cli" 2>&1 || rc=$?
	# A client that failed leaves the server waiting: not for 120 s.
	[ "$rc" = 0 ] || { sleep 2; kill $pid 2>/dev/null; }
	wait $pid || rc=$((rc + 100))
	[ "$rc" = 0 ] && return 0
	cat "$OUT.srv" "$OUT.cli"
	echo "--- the kernel's last words, and both devices' counters:"
	dmesg | tail -n 40
	local d
	for d in kiw_a kiw_b; do
		echo "$d: $(rdma statistic show link $d/1 2>&1 |
			grep -oE 'conn_[a-z_]+ [0-9]+' | tr '\n' ' ')"
	done
	return 1
}

pair_diag() {
	diag "$(grep -hE '^(SERVER_|CLIENT_|READS|CONNECT|ACCEPT|FIRST)' "$OUT.srv" "$OUT.cli")"
}

reads_ok() {
	has "$OUT.cli" "^READS posted=$1 completed=$1 bad_status=0 bad_order=0 bad_octets=0\$"
}

check "ORD/IRD 200 asked: connection made" read_pair 7101 "-o 200 -i 200 -n 200 -s 512" "-o 200 -i 200 -n 200 -s 512"
pair_diag
check "ORD/IRD 200 asked: librdmacm refuses it with EINVAL (above max_qp_init_rd_atom)" \
	has "$OUT.cli" "^CONNECT_ERRNO $EINVAL\$"
check "ORD/IRD RDMA_MAX_INIT_DEPTH (255): the QP settles at ORD 128, IRD 128" \
	has "$OUT.cli" "^CLIENT_QP ord=128 ird=128\$"
check "ORD 128: 200 Reads posted at once all complete in order with their data" reads_ok 200

# RDMA_PS_IB: librdmacm passes 200 on (it checks for RDMA_PS_TCP only),
# kiw clamps what it puts into its MPA Request and Reply to 128 each.
check "ORD/IRD 200 (RDMA_PS_IB, unchecked by librdmacm): connection made" \
	read_pair 7104 "-P -o 200 -i 200 -n 150 -s 300" "-P -o 200 -i 200 -n 150 -s 300"
pair_diag
check "ORD/IRD 200 reach the kernel: neither rdma_connect nor rdma_accept refuses" \
	eval '! grep -qE "^(CONNECT|ACCEPT)_ERRNO" "$OUT.srv" "$OUT.cli"'
check "ORD/IRD 200: kiw clamps them to 128 in its MPA Request (the server is asked 128/128)" \
	has "$OUT.srv" "^SERVER_REQUEST initiator_depth=128 responder_resources=128\$"
check "ORD/IRD 200: both QPs settle at ORD 128, IRD 128" \
	eval 'has "$OUT.cli" "^CLIENT_QP ord=128 ird=128\$" && has "$OUT.srv" "^SERVER_QP ord=128 ird=128\$"'
check "ORD/IRD 200: 150 Reads posted at once all complete in order with their data" reads_ok 150

check "ORD 2 / IRD 2: connection made" read_pair 7102 "-o 2 -i 2 -n 300 -s 700" "-o 2 -i 2 -n 300 -s 700"
pair_diag
check "ORD 2 / IRD 2: the client's QP settles at ORD 2, IRD 2" has "$OUT.cli" "^CLIENT_QP ord=2 ird=2\$"
check "ORD 2: 300 Reads posted at once all complete in order with their data" reads_ok 300

check "ORD 1 / IRD 1: connection made" read_pair 7103 "-o 1 -i 1 -n 300 -s 3000" "-o 1 -i 1 -n 300 -s 3000"
pair_diag
check "ORD 1 / IRD 1: the client's QP settles at ORD 1, IRD 1" has "$OUT.cli" "^CLIENT_QP ord=1 ird=1\$"
check "ORD 1: 300 Reads posted at once all complete in order with their data" reads_ok 300

# ---------------------------------------------------------------------------
# RLIMIT_MEMLOCK.

# memlock KIB: limits_tool memlock on kiw_a as nobody, without any
# capability, under RLIMIT_MEMLOCK KIB.
memlock() {
	chmod a+rw /dev/infiniband/uverbs* || return 1
	ulimit -l "$1" || return 1
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all -- timeout 60 "$LT" memlock kiw_a \
		> "$OUT.memlock" 2>&1
	local rc=$?
	[ "$rc" = 0 ] || { cat "$OUT.memlock"; return 1; }
}

ml() { has "$OUT.memlock" "^STEP $1 $2\$"; }

check "MEMLOCK: limits_tool memlock as uid 65534 without capabilities, ulimit -l 1024" memlock 1024
check "MEMLOCK: the tool ran as uid 65534 under a 1 MiB limit" \
	has "$OUT.memlock" "^UID 65534\$"
check "MEMLOCK: one registration of the limit + 1 page fails with ENOMEM" ml over_limit_at_once "errno $ENOMEM"
check "MEMLOCK: one registration of exactly the limit works" ml exactly_limit ok
check "MEMLOCK: one page more on top fails with ENOMEM" ml one_page_past_limit "errno $ENOMEM"
check "MEMLOCK: after deregistering, one page and the limit - 1 page work" \
	eval 'ml after_dereg_one_page ok && ml after_dereg_fill_to_limit ok'
check "MEMLOCK: ... and one page more fails with ENOMEM" ml after_dereg_one_page_past_limit "errno $ENOMEM"
check "MEMLOCK: after deregistering everything, the limit fits again" ml after_dereg_all_limit_again ok

check "rdma res: no QP, MR, PD, CQ or SRQ left on kiw_a" \
	eval 'res_none qp && res_none mr && res_none pd && res_none cq && res_none srq'
check "rdma link delete kiw_a, kiw_b" eval 'rdma link delete kiw_a && rdma link delete kiw_b'
check "rmmod kiw: no object left behind" kiw_unload
check "kmemleak: nothing leaked" kmemleak_check
tap_done
