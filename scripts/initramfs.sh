#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Build (once) the tiny initramfs the test VMs boot: busybox-static, the
# /init of scripts/guest/init, and, for kernels that have them as modules
# (Debian's), the modules that mount the host root: virtio-pci, 9p over
# virtio and overlayfs, decompressed (busybox's insmod does not read .ko.xz).
#
# Usage: scripts/initramfs.sh MODROOT RELEASE
#   MODROOT  the directory holding lib/modules/RELEASE (depmod'ed)
# Prints the path of the cached initramfs.cpio.gz, keyed by a hash of
# everything that goes into it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

modroot=${1:?MODROOT}
release=${2:?RELEASE}
busybox=/bin/busybox
init="$KIW_TOP/scripts/guest/init"
# The initramfs has no libc: only busybox-static's binary works there.
[ -n "$(kiw_pkg_version busybox-static)" ] && [ -x "$busybox" ] ||
	kiw_die "busybox-static is not installed (run scripts/setup-deps.sh)"

# The modules to load, in order; "builtin" lines (the debug kernel; virtio
# on 6.12 and 7.2) drop out. Debian's 6.1 has virtio_pci as a module.
modules=$(modprobe -d "$modroot" -S "$release" --show-depends -a \
		   virtio_pci 9pnet_virtio 9p overlay |
	  awk '$1 == "insmod" && !seen[$2]++ { print $2 }')

key=$( { cat "$busybox" "$init" "$0"; echo "$release"
	 for m in $modules; do echo "$m"; cat "$m"; done; } | sha256sum | cut -c1-12)
out="$KIW_CACHE/initramfs/$release-$key.cpio.gz"
if [ -f "$out" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
tmpout=$(mktemp "$out.XXXXXX")
trap 'rm -rf "$tmp" "$tmpout"' EXIT
mkdir -p "$tmp/bin" "$tmp/modules"
cp "$busybox" "$tmp/bin/busybox"
cp "$init" "$tmp/init"
chmod 755 "$tmp/init"
for m in $modules; do
	name=$(basename "$m")
	case "$name" in
	*.ko.xz)  xz -dc "$m" > "$tmp/modules/${name%.xz}" ;;
	*.ko.zst) zstd -qdc "$m" > "$tmp/modules/${name%.zst}" ;;
	*.ko.gz)  gzip -dc "$m" > "$tmp/modules/${name%.gz}" ;;
	*.ko)     cp "$m" "$tmp/modules/" ;;
	*)        kiw_die "unknown module format: $m" ;;
	esac
	basename "${name%.ko*}.ko" >> "$tmp/modules/order"
done

(cd "$tmp" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) > "$tmpout"
# Atomic: a concurrent builder of the same key produces the same file.
mv "$tmpout" "$out"
kiw_log "initramfs for $release: $out"
echo "$out"
