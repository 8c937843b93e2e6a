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

# The kernel release a Debian metapackage installed on the host points at:
# the first "linux-headers-<release>" among its Depends, or nothing.
kiw_meta_release() {
	dpkg-query -W -f='${Depends}' "$1" 2>/dev/null |
		tr ',' '\n' | sed -n 's/^ *linux-headers-\([^ ]*\).*/\1/p' | head -n 1
}

# The kernels kiw is tested on, by id (scripts/kernel.sh fetches them; the
# ones but stock and debug are check.sh's OTHER_KERNELS):
#   stock  Debian 12's 6.12 LTS (linux-headers-6.12-amd64), the default
#   6.1    Debian 12's default kernel (linux-headers-amd64)
#   7.2    Debian unstable's newest kernel (apt lists of our own, and a sid
#          chroot to build in: its kbuild tools need a newer glibc)
#   debug  the debug kernel built from linux-source-6.12 (debug-kernel.sh)
# shellcheck disable=SC2034 # used by the scripts that source this
KIW_KERNELS="stock 6.1 7.2 debug"

# apt for Debian unstable, with a configuration of its own under the cache:
# its own sources (one deb822 file, "Suites: sid"), lists, package cache and
# an empty dpkg status, so the system's apt configuration and state are
# never read or written. The archive is the one the system's apt uses.
KIW_SID_APT=$KIW_CACHE/apt-sid
kiw_mirror() {
	local m
	m=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null |
	    grep -v security | head -n 1)
	[ -n "$m" ] || m=$(sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' \
			   /etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1)
	echo "${m:-http://deb.debian.org/debian}"
}
kiw_sid_apt_opts() {
	local d=$KIW_SID_APT
	printf '%s\n' -o "Dir::Etc::sourcelist=$d/etc/sources.list" \
		-o "Dir::Etc::sourceparts=$d/etc/sources.list.d" \
		-o "Dir::Etc::preferences=$d/etc/preferences" \
		-o "Dir::Etc::preferencesparts=$d/etc/preferences.d" \
		-o "Dir::State::lists=$d/lists" -o "Dir::State::status=$d/status" \
		-o "Dir::Cache=$d/cache" -o "Debug::NoLocking=1" \
		-o "APT::Get::List-Cleanup=0" -o "Acquire::Languages=none"
}
# kiw_sid_apt apt-get|apt-cache ARGS...
kiw_sid_apt() {
	local tool=$1 opts
	shift
	mapfile -t opts < <(kiw_sid_apt_opts)
	"$tool" "${opts[@]}" "$@"
}
# kiw_sid_update [--force]: make (once) the configuration and fetch the
# lists when they are missing, older than KIW_SID_MAX_AGE days (default 7),
# or when --force (a package named in them is gone from the archive).
kiw_sid_update() {
	[ "${1:-}" = --force ] || ! _kiw_sid_fresh || return 0
	kiw_locked apt-sid _kiw_sid_update "${1:-}"
}
_kiw_sid_fresh() {
	[ -n "$(find "$KIW_SID_APT/lists" -maxdepth 1 -name '*_sid_main_binary-amd64_Packages*' \
		-newermt "-${KIW_SID_MAX_AGE:-7} days" 2>/dev/null | head -n 1)" ]
}
_kiw_sid_update() {
	local d=$KIW_SID_APT t0
	# Another caller may have fetched them while this one waited.
	[ "$1" = --force ] || ! _kiw_sid_fresh || return 0
	mkdir -p "$d/etc/sources.list.d" "$d/etc/preferences.d" "$d/lists/partial" \
		 "$d/cache/archives/partial"
	: > "$d/etc/sources.list"
	: > "$d/status"
	cat > "$d/etc/sources.list.d/sid.sources" <<-EOF
	Types: deb
	URIs: $(kiw_mirror)
	Suites: sid
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	t0=$(kiw_now)
	kiw_log "fetching Debian unstable's package lists into $d/lists"
	kiw_sid_apt apt-get -q update >"$d/update.log" 2>&1 ||
		{ tail -n 20 "$d/update.log" >&2; kiw_die "apt-get update (sid) failed"; }
	kiw_log "sid lists fetched in $(kiw_since "$t0")"
}
# kiw_sid_depends PKG PATTERN: the first dependency of PKG (in sid) that
# matches the extended regex PATTERN.
kiw_sid_depends() {
	kiw_sid_apt apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: *//p' | grep -E -m1 "$2"
}
# kiw_sid_version PKG: PKG's candidate version in sid.
kiw_sid_version() {
	kiw_sid_apt apt-cache show --no-all-versions "$1" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1
}

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
