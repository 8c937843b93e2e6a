#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Install the Debian packages kiw's build, tests and demo need.
#
# Idempotent and quiet: it asks dpkg first and only calls apt when something
# is missing. Every tool the guests use comes from here too, because a guest
# sees the host's root file system (read-only, over 9p) as its own.
# Packages that ship daemons (nfs-kernel-server, open-iscsi, iperf3...) must
# not start them on the host: a policy-rc.d denies every start while apt runs.
#
# Usage: scripts/setup-deps.sh [--kernel-build]
#   --kernel-build  only what building the debug kernel needs, so that
#                   check.sh can start that build (the longest step of a
#                   cold run) while the rest installs
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KERNEL_BUILD=(
	# the debug kernel: the source, the toolchain, and time(1) for the
	# build's CPU time
	linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	kmod xz-utils time
)
PACKAGES=(
	"${KERNEL_BUILD[@]}"
	# kiw: headers to build it against (6.12, the default; Debian 12's
	# default kernel, 6.1: scripts/kernel.sh); checkpatch.pl, kunit.py
	linux-headers-6.12-amd64 linux-headers-amd64 dwarves python3 sparse
	# the sid chroot 7.2's headers need (scripts/kernel.sh 7.2 --kdir)
	debootstrap debian-archive-keyring
	# the VM: QEMU, and a busybox initramfs
	qemu-system-x86 busybox-static cpio
	# RDMA user space, used inside the guests
	rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest
	iproute2 python3-pyverbs ethtool iputils-ping procps
	# "make dkms-install" and its VM test (scripts/tests/ops_dkms.sh)
	dkms
	# the rdma_cm consumer of the CM tests (scripts/guest/cm_tool.c)
	librdmacm-dev libibverbs-dev
	# RDMA consumers and load generators for later tests and the demo
	nfs-kernel-server targetcli-fb open-iscsi nvme-cli fio iperf3
	gnuplot-nox
	# captures of kiw's segments (scripts/tests/dp_align.sh)
	tcpdump
)

[ "${1:-}" != --kernel-build ] || PACKAGES=("${KERNEL_BUILD[@]}")

missing=()
for p in "${PACKAGES[@]}"; do
	# "install ok installed" is the only state that means usable.
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
kiw_log "installing: ${missing[*]}"

# Deny service starts for the duration of the install (exit 101 = "action
# forbidden", see invoke-rc.d(8)); never overwrite an existing policy.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
	$SUDO chmod 755 "$policy"
	own_policy=1
fi
cleanup() { [ "$own_policy" = 0 ] || $SUDO rm -f "$policy"; }
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
apt_q=(-q -y -o Dpkg::Use-Pty=0 -o APT::Install-Recommends=false
       -o DPkg::Lock::Timeout=600)
log=$(mktemp)
# apt is noisy; keep its output and show it only if it fails.
# The package lists: refreshed unless that was done in the last hour (a
# --kernel-build call just before).
lists_fresh() {
	[ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -newermt '-1 hour' \
		2>/dev/null | head -n 1)" ]
}
if ! { { lists_fresh || $SUDO apt-get "${apt_q[@]}" update; } &&
       $SUDO env DEBIAN_FRONTEND=noninteractive apt-get "${apt_q[@]}" install "${missing[@]}"; } >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	rm -f "$log"
	kiw_die "apt-get failed"
fi
rm -f "$log"
kiw_log "installed ${#missing[@]} packages"
