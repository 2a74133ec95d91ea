# shellcheck shell=bash
# Common helpers for the cfq scripts; sourced, never run.

CFQ_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CFQ_CACHE=${CFQ_CACHE:-$CFQ_TOP/.cache}
CFQ_DEBS=${CFQ_DEBS:-${XDG_CACHE_HOME:-$HOME/.cache}/cfq/debs}
CFQ_KERNELS=${CFQ_KERNELS:-6.12 6.1}

die() { echo "$(basename "$0"): $*" >&2; exit 1; }
log() { echo "[$(basename "$0")] $*" >&2; }

# kernel_info KEY: sets KEY PKGVER ABI SRCPKG KBUILDPKG SUITE and the paths
# KDIR (complete when $KDIR/.complete exists), KHDR (kbuild tree), KSRC
# (source with block/*.h), KROOT (modules root), VMLINUX (boot image), BTF
# (for scripts/abi-check; empty when the kernel has none), BOOT_PVH and
# KAPPEND (kernel command line words this kernel needs under QEMU).
# KEY-debug is the self-built debug kernel of KEY (scripts/debug-kernel).
kernel_info() {
	local line base=${1%-debug}
	line=$(awk -v k="$base" '$1 == k { print; exit }' "$CFQ_TOP/scripts/kernels.conf")
	[ -n "$line" ] || die "unknown kernel '$1' (known: $(awk '!/^#/ && NF { printf "%s ", $1 }' "$CFQ_TOP/scripts/kernels.conf")and KEY-debug)"
	read -r KEY PKGVER ABI SRCPKG KBUILDPKG SUITE <<<"$line"
	if [ "$base" != "$1" ]; then
		KEY=$1
		KDIR=$("$CFQ_TOP/scripts/debug-kernel" path "$base" || true)
		KHDR=$KDIR/tree
		KSRC=$KDIR/tree
		KROOT=$KDIR/root
		VMLINUX=$KDIR/tree/arch/x86/boot/bzImage
		ABI=$(cat "$KDIR/tree/include/config/kernel.release" 2>/dev/null || echo none)
		BTF=
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
	BTF=$VMLINUX
	BOOT_PVH=1
	KAPPEND=
}

# What a guest kernel log must never contain (the unsigned-module taint
# messages are expected and do not match)
CFQ_SPLAT='WARNING:|BUG:|kernel BUG|Oops|general protection|INFO: task .* blocked|soft lockup|rcu.*(stall|detected stalls)|unreferenced object|UBSAN:|list_(add|del) corruption|Kernel panic'
