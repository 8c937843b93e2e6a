# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Helpers for the connection manager's VM tests; source after lib.sh.
#
#   cm_setup                 two hosts, kiw loaded, kiw_a/kiw_b, cm_tool built
#   mpa_set DEV KEY VALUE    a device's MPA setting (sysfs mpa/ group)
#   cm_server NS ARGS...     start "cm_tool server ARGS" in NS, wait until it
#                            listens; its output goes to $CM_SRV_OUT
#   cm_server_wait           wait for it to end; its status in $CM_SRV_RC
#   cm_server_end PID OUT S  a server whose peers are all done: give it S
#                            seconds to print its RESULT, then kill it
#                            (its deadline, -t, may then be generous)
#   cm_client NS ARGS...     run "cm_tool client ARGS" in NS; output in
#                            $CM_CLI_OUT, status in $CM_CLI_RC
#   cm_get FILE KEY          a value of FILE's RESULT line
#   cm_expect FILE k=v...    every k=v holds on FILE's RESULT line
#   check_here "desc" cmd... as check, but cmd runs in this shell (it may
#                            set variables or start background jobs)
#   cm_section TEXT          a diag line with the seconds since sourcing

# scripts/vm.sh builds cm_tool.c on the host, into KIW_GUEST_BIN (two
# minutes saved per test: cc under TCG is slow); compile it here only
# when that is missing.
CM_TOOL=/tmp/cm_tool
[ ! -x "${KIW_GUEST_BIN:-}/cm_tool" ] || CM_TOOL=$KIW_GUEST_BIN/cm_tool

check_here() {
	local desc=$1 rc=0 log=/tmp/check_here.out
	shift
	"$@" > "$log" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		ok "$desc"
		return 0
	fi
	not_ok "$desc"
	diag "command: $*" "exit status: $rc"
	diag "$(cat "$log")"
	return 1
}
CM_SRV_PID= CM_SRV_OUT= CM_SRV_RC= CM_CLI_OUT= CM_CLI_RC=
CM_SEQ=0
CM_T0=$(cut -d' ' -f1 /proc/uptime)

cm_section() {
	diag "--- $* [$(awk -v t0="$CM_T0" '{ printf "%.0f", $1 - t0 }' \
		/proc/uptime) s]"
}

cm_tool_build() {
	[ "$CM_TOOL" = /tmp/cm_tool ] || return 0
	cc -O2 -Wall -o "$CM_TOOL" "$KIW_TOP/scripts/guest/cm_tool.c" \
		-lrdmacm -libverbs
}

mpa_set() {
	echo "$3" > "/sys/class/infiniband/$1/mpa/$2"
}

mpa_get() {
	cat "/sys/class/infiniband/$1/mpa/$2"
}

cm_setup() {
	check "two hosts: netns a and b joined by veth" kiw_hosts_up &&
	check "modprobe kiw" kiw_load &&
	check "kiw_a on veth-a, kiw_b on veth-b" kiw_devices_add &&
	check "cm_tool builds" cm_tool_build
}

cm_server() {
	local ns=$1
	shift
	CM_SEQ=$((CM_SEQ + 1))
	CM_SRV_OUT=/tmp/cm_srv.$CM_SEQ
	: > "$CM_SRV_OUT"
	ip netns exec "$ns" "$CM_TOOL" server "$@" > "$CM_SRV_OUT" 2>&1 &
	CM_SRV_PID=$!
	wait_for 20 grep -q '^LISTENING' "$CM_SRV_OUT"
}

cm_server_wait() {
	CM_SRV_RC=0
	wait "$CM_SRV_PID" || CM_SRV_RC=$?
	CM_SRV_PID=
}

# cm_server_end PID OUT SECONDS: a server's deadline (-t) counts from its
# start and must cover a busy host; once its peers are done, it has
# SECONDS to end on its own, or the test stops waiting for it.
cm_server_end() {
	local pid=$1 out=$2 rc=0
	wait_for "$3" grep -q '^RESULT' "$out" ||
		{ kill "$pid" 2>/dev/null; echo "# the server did not end" >> "$out"; }
	wait "$pid" || rc=$?
	return $rc
}

cm_client() {
	local ns=$1
	shift
	CM_SEQ=$((CM_SEQ + 1))
	CM_CLI_OUT=/tmp/cm_cli.$CM_SEQ
	CM_CLI_RC=0
	ip netns exec "$ns" "$CM_TOOL" client "$@" > "$CM_CLI_OUT" 2>&1 ||
		CM_CLI_RC=$?
}

# cm_result FILE: FILE's RESULT line into CM_RESULT (bash only: every
# process started costs a fraction of a second under TCG, and the tests
# look at hundreds of RESULT lines).
cm_result() {
	local line
	CM_RESULT=
	while IFS= read -r line; do
		[[ $line == "RESULT "* ]] && CM_RESULT="$line "
	done < "$1"
	[ -n "$CM_RESULT" ]
}

cm_get() {
	cm_result "$1" || return 0
	[[ $CM_RESULT =~ \ $2=([0-9]*)\  ]] && echo "${BASH_REMATCH[1]}"
}

# cm_expect FILE k=v...: quiet on success; shows the file otherwise.
cm_expect() {
	local f=$1 kv k v got
	shift
	cm_result "$f" || { cat "$f"; return 1; }
	for kv in "$@"; do
		k=${kv%%=*} v=${kv#*=} got=
		[[ $CM_RESULT =~ \ $k=([0-9]*)\  ]] && got=${BASH_REMATCH[1]}
		if [ "$got" != "$v" ]; then
			echo "$k=$got, expected $v"
			cat "$f"
			return 1
		fi
	done
}
