#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Build (once) kiw's debug kernel from Debian's linux-source-6.12 with the
# options of scripts/debug.config (KUnit, KASAN, lockdep, kmemleak, debug
# objects, fault injection, siw and rxe as peers, the storage consumers).
#
# The result is cached in $KIW_CACHE/debug-<source version>-<hash>, keyed by
# the source package version, the config fragment and this script, and its
# path is printed on stdout. Usage: scripts/debug-kernel.sh [--print]
#   --print   only print the cache directory (built or not)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

srcver=$(kiw_pkg_version linux-source-6.12)
[ -n "$srcver" ] || kiw_die "linux-source-6.12 is not installed (run scripts/setup-deps.sh)"
key=$(kiw_hash "$KIW_TOP/scripts/debug.config" "$KIW_TOP/scripts/debug-kernel.sh" <(echo "$srcver"))
out="$KIW_CACHE/debug-$srcver-$key"
if [ "${1:-}" = --print ] || [ -f "$out/.done" ]; then
	echo "$out"
	exit 0
fi

# One build at a time: a second caller waits for the first, then finds .done.
mkdir -p "$KIW_CACHE"
exec 9>"$KIW_CACHE/.debug-kernel.lock"
if ! flock -n 9; then
	kiw_log "another debug kernel build is running; waiting for it"
	flock 9
fi
if [ -f "$out/.done" ]; then
	echo "$out"
	exit 0
fi

src="$KIW_CACHE/src-$srcver"
if [ ! -f "$src/.done" ]; then
	kiw_log "unpacking linux-source $srcver into $src"
	rm -rf "$src"
	mkdir -p "$src"
	tar -C "$src" --strip-components=1 -xf /usr/src/linux-source-6.12.tar.xz
	touch "$src/.done"
fi

rm -rf "$out"
mkdir -p "$out/build"
cp "$KIW_TOP/scripts/debug.config" "$out/build/.config"
kiw_log "configuring the debug kernel in $out"
make -s -C "$src" O="$out/build" ARCH=x86_64 olddefconfig >/dev/null

# olddefconfig drops what it cannot satisfy without a word: refuse that.
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" "$out/build/.config" || { kiw_log "not in .config: $line"; missing=1; }
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		grep -q "^$opt=" "$out/build/.config" && { kiw_log "should be unset: $opt"; missing=1; }
		;;
	esac
done < "$KIW_TOP/scripts/debug.config"
[ "$missing" = 0 ] || kiw_die "scripts/debug.config asks for options the kernel dropped"

kiw_log "building the debug kernel with $KIW_JOBS jobs (about 10 minutes on 2 cores)"
start=$(date +%s)
make -s -C "$src" O="$out/build" ARCH=x86_64 -j"$KIW_JOBS" bzImage modules
make -s -C "$src" O="$out/build" ARCH=x86_64 INSTALL_MOD_PATH="$out/mod" \
	INSTALL_MOD_STRIP=1 modules_install >/dev/null
make -s -C "$src" O="$out/build" kernelrelease > "$out/release"
cp "$out/build/arch/x86/boot/bzImage" "$out/bzImage"
kiw_log "debug kernel $(cat "$out/release") built in $(( $(date +%s) - start )) s"
touch "$out/.done"
echo "$out"
