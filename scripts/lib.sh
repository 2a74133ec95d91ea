# shellcheck shell=bash
# Common helpers for the cfq scripts; sourced, never run.

CFQ_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CFQ_CACHE=${CFQ_CACHE:-$CFQ_TOP/.cache}
CFQ_DEBS=${CFQ_DEBS:-${XDG_CACHE_HOME:-$HOME/.cache}/cfq/debs}
CFQ_KERNELS=${CFQ_KERNELS:-6.12 6.1}

die() { echo "$(basename "$0"): $*" >&2; exit 1; }
log() { echo "[$(basename "$0")] $*" >&2; }

# kernel_info KEY: sets KEY PKGVER ABI SRCPKG KBUILDPKG SUITE KDIR from kernels.conf
kernel_info() {
	local line
	line=$(awk -v k="$1" '$1 == k { print; exit }' "$CFQ_TOP/scripts/kernels.conf")
	[ -n "$line" ] || die "unknown kernel '$1' (known: $(awk '!/^#/ && NF { printf "%s ", $1 }' "$CFQ_TOP/scripts/kernels.conf"))"
	read -r KEY PKGVER ABI SRCPKG KBUILDPKG SUITE <<<"$line"
	KDIR=$CFQ_CACHE/kernels/$PKGVER
	KHDR=$KDIR/hdr/usr/src/linux-headers-$ABI
	KSRC=$KDIR/src
	KROOT=$KDIR/root
	VMLINUX=$KDIR/vmlinux
}
