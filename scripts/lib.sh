# shellcheck shell=bash
# Common helpers for the cfq scripts; sourced, never run.
# The variables set here (kernel_info's, CFQ_SPLAT) are for the scripts that
# source this file: unused here (SC2034) is what they are.
# shellcheck disable=SC2034

CFQ_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CFQ_CACHE=${CFQ_CACHE:-$CFQ_TOP/.cache}
# (HOME may be unset: DKMS runs scripts/block-headers from apt, also under
# systemd services such as apt-daily-upgrade, which set no HOME)
CFQ_DEBS=${CFQ_DEBS:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/cfq/debs}
CFQ_KERNELS=${CFQ_KERNELS:-$(awk '!/^#/ && NF { printf "%s%s", s, $1; s = " " }' "$CFQ_TOP/scripts/kernels.conf")}

die() { echo "$(basename "$0"): $*" >&2; exit 1; }
log() { echo "[$(basename "$0")] $*" >&2; }
# header FILE KEY: the value of the first '# KEY:' line of a case or benchmark
header() { sed -n "s/^# $2: *//p" "$1" | head -1; }

# kernel_info KEY: sets KEY PKGVER ABI SRCPKG KBUILDPKG SUITE BUILDENV and the paths
# KDIR (complete when $KDIR/.complete exists), KHDR (kbuild tree), KSRC
# (source with block/*.h), KROOT (modules root), VMLINUX (boot image), BTF
# (the vmlinux whose BTF scripts/abi-check reads; empty when none), BOOT_PVH and
# KAPPEND (kernel command line words this kernel needs under QEMU).
# KEY-debug is the self-built debug kernel of KEY (scripts/debug-kernel).
kernel_info() {
	local line base=${1%-debug}
	line=$(awk -v k="$base" '$1 == k { print; exit }' "$CFQ_TOP/scripts/kernels.conf")
	[ -n "$line" ] || die "unknown kernel '$1' (known: $(awk '!/^#/ && NF { printf "%s ", $1 }' "$CFQ_TOP/scripts/kernels.conf")and KEY-debug)"
	read -r KEY PKGVER ABI SRCPKG KBUILDPKG SUITE BUILDENV <<<"$line"
	if [ "$base" != "$1" ]; then
		KEY=$1
		KDIR=$("$CFQ_TOP/scripts/debug-kernel" path "$base" || true)
		KHDR=$KDIR/tree
		KSRC=$KDIR/tree
		KROOT=$KDIR/root
		VMLINUX=$KDIR/tree/arch/x86/boot/bzImage
		ABI=$(cat "$KDIR/tree/include/config/kernel.release" 2>/dev/null || echo none)
		BTF=
		# built from source with the host's compiler (scripts/debug-kernel)
		BUILDENV=host
		# PVH entry of this build triple-faults under QEMU (toolchain.md 13)
		BOOT_PVH=0
		# With 5-level paging (-cpu max has LA57), KASAN's idea of the
		# address space follows X86_FEATURE_LA57, which identify_cpu()
		# clears for a moment at boot: an interrupt then gets a false
		# "BUG: KASAN: wild-memory-access" (2 boots in 10 here). 4-level it is.
		# The kernel runs 6-28x slower than Debian's under TCG: the soft
		# lockup threshold (2 x watchdog_thresh) scales with it.
		KAPPEND="no5lvl watchdog_thresh=60"
		return
	fi
	KDIR=$CFQ_CACHE/kernels/$PKGVER
	KHDR=$KDIR/hdr/usr/src/linux-headers-$ABI
	KSRC=$KDIR/src
	KROOT=$KDIR/root
	VMLINUX=$KDIR/vmlinux
	[ -f "$VMLINUX" ] || [ ! -f "$KDIR/vmlinuz" ] || VMLINUX=$KDIR/vmlinuz
	# the image's vmlinux carries BTF; from 7.2 the headers ship a
	# BTF-only vmlinux, what a user's system has: that one, where it exists
	BTF=$VMLINUX
	[ -f "$KHDR/vmlinux" ] && BTF=$KHDR/vmlinux
	BOOT_PVH=1
	KAPPEND=
}

# What a guest kernel log must never contain (the unsigned-module taint
# messages are expected and do not match)
CFQ_SPLAT='WARNING:|BUG:|kernel BUG|Oops|general protection|INFO: task .* blocked|soft lockup|rcu.*(stall|detected stalls)|unreferenced object|UBSAN:|list_(add|del) corruption|Kernel panic'
# Those after which the guest is stopped (scripts/vm): the kernel killed a
# task in the middle of its work
CFQ_FATAL='BUG:|kernel BUG|Oops|general protection|Kernel panic'

# in_buildenv CMD...: run CMD where kernel_info's kernel is built: on the
# host, or in the Debian chroot of $BUILDENV (scripts/buildenv), which sees
# $CFQ_TOP and $CFQ_CACHE at the same paths
in_buildenv() {
	if [ "$BUILDENV" = host ]; then
		"$@"
	else
		"$CFQ_TOP/scripts/buildenv" run "$BUILDENV" -- "$@"
	fi
}

# Debian's archive, as this machine's apt configuration names it (no
# mirror is named in the project): the URI of the suite that holds
# bookworm, or of bookworm-security for security suites
debian_uri() {
	local want=bookworm uri=
	[[ $1 == *-security ]] && want=bookworm-security
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		uri=$(awk -v w="$want" '/^URIs:/ { u = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == w) { print u; exit } }' \
			/etc/apt/sources.list.d/debian.sources)
	fi
	if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
		uri=$(awk -v w="$want" '$1 == "deb" && $3 == w { print $2; exit }' /etc/apt/sources.list)
	fi
	[ -n "$uri" ] || die "no apt source for Debian $want found to derive $1 from"
	echo "$uri"
}

# suite_apt SUITE APT-COMMAND ARGS...: apt-get with a private configuration
# that knows only SUITE (and its base suite for dependencies), its lists in
# $CFQ_DEBS/apt/SUITE; the machine's own apt set-up is untouched. The lists
# are fetched once a day.
suite_apt() {
	local suite=$1 dir=$CFQ_DEBS/apt/$1 key=/usr/share/keyrings/debian-archive-keyring.gpg
	shift
	local opts=(-o "Dir::State::Lists=$dir/lists" -o "Dir::Etc::SourceList=$dir/sources.list"
		-o Dir::Etc::SourceParts=/nonexistent -o "Dir::Cache=$dir/cache"
		-o Dir::State::status=/dev/null -o APT::Architecture=amd64 -o Debug::NoLocking=1)
	if [ ! -e "$dir/lists/.updated" ] || [ -n "$(find "$dir/lists/.updated" -mmin +1440)" ]; then
		mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
		printf 'deb [signed-by=%s] %s %s main\n' "$key" "$(debian_uri "$suite")" "$suite" >"$dir/sources.list"
		[ "${suite%%-*}" != "$suite" ] &&
			printf 'deb [signed-by=%s] %s %s main\n' "$key" "$(debian_uri "${suite%%-*}")" "${suite%%-*}" >>"$dir/sources.list"
		apt-get "${opts[@]}" -q update >/dev/null || die "apt-get update for $suite failed"
		touch "$dir/lists/.updated"
	fi
	apt-get "${opts[@]}" "$@"
}
