# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Shared settings for kiw's scripts. Source it; do not run it.
#
# Caches live outside the repository, under KIW_CACHE, and every cache entry
# is keyed by what it was made from, so a stale one is never used.

KIW_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KIW_CACHE=${KIW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kiw}
KIW_JOBS=${KIW_JOBS:-$(nproc)}

kiw_log() { printf '[kiw] %s\n' "$*" >&2; }
kiw_die() { printf '[kiw] error: %s\n' "$*" >&2; exit 1; }

# Debian package version of an installed package, or nothing.
kiw_pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null; }

# The kernel release (uname -r) of Debian's linux-headers-6.12-amd64, found
# from the installed metapackage, never hard-coded.
kiw_stock_release() {
	local dep
	dep=$(dpkg-query -W -f='${Depends}' linux-headers-6.12-amd64 2>/dev/null |
	      tr ',' '\n' | sed -n 's/^ *linux-headers-\([^ ]*\).*/\1/p' | head -n 1)
	[ -n "$dep" ] || kiw_die "linux-headers-6.12-amd64 is not installed (run scripts/setup-deps.sh)"
	echo "$dep"
}

kiw_stock_kdir() { echo "/usr/src/linux-headers-$(kiw_stock_release)"; }

# A short hash of files and strings, for cache keys.
kiw_hash() { cat "$@" | sha256sum | cut -c1-12; }

# Run "$@" while holding an exclusive lock named NAME under KIW_CACHE, so
# two scripts (or two users of one cache) never build the same entry at once.
kiw_locked() {
	local name=$1
	shift
	mkdir -p "$KIW_CACHE/locks"
	(
		flock -n 9 || { kiw_log "waiting for the lock $name (another build?)"; flock 9; }
		"$@"
	) 9>"$KIW_CACHE/locks/$name"
}

# The unpacked linux-source-6.12 (checkpatch.pl, kunit.py, siw, the debug
# kernel), cached in $KIW_CACHE/src-<package version>; prints its path.
kiw_linux_src() {
	local srcver src
	srcver=$(kiw_pkg_version linux-source-6.12)
	[ -n "$srcver" ] || kiw_die "linux-source-6.12 is not installed (run scripts/setup-deps.sh)"
	src="$KIW_CACHE/src-$srcver"
	[ -f "$src/.done" ] || kiw_locked "src-$srcver" _kiw_unpack_src "$src" >&2
	echo "$src"
}

_kiw_unpack_src() {
	[ ! -f "$1/.done" ] || return 0
	kiw_log "unpacking linux-source-6.12 into $1"
	rm -rf "$1"
	mkdir -p "$1"
	tar -C "$1" --strip-components=1 -xf /usr/src/linux-source-6.12.tar.xz
	touch "$1/.done"
}

# Seconds since the epoch, and a duration in a readable form.
kiw_now() { date +%s; }
kiw_since() { echo "$(( $(date +%s) - $1 )) s"; }

# The host's TSC frequency in kHz (scripts/tsc-khz.c), measured once per
# host boot and cached; nothing when it cannot be measured. KIW_VM_TSC_KHZ
# overrides it (0: do not pass one to the guests).
kiw_tsc_khz() {
	local bin id cache
	if [ -n "${KIW_VM_TSC_KHZ:-}" ]; then
		[ "$KIW_VM_TSC_KHZ" = 0 ] || echo "$KIW_VM_TSC_KHZ"
		return 0
	fi
	id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null) || return 0
	cache=$KIW_CACHE/tsc-khz.$id
	[ -s "$cache" ] || {
		bin=$KIW_CACHE/bin/tsc-khz-$(kiw_hash "$KIW_TOP/scripts/tsc-khz.c")
		[ -x "$bin" ] || {
			mkdir -p "$KIW_CACHE/bin"
			cc -O2 -o "$bin.tmp.$$" "$KIW_TOP/scripts/tsc-khz.c" &&
				mv "$bin.tmp.$$" "$bin"
		} >&2 || return 0
		"$bin" > "$cache.tmp.$$" && mv "$cache.tmp.$$" "$cache" || return 0
	}
	cat "$cache"
}
