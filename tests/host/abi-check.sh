# per-kernel: yes
# scripts/abi-check accepts cfq.ko and rejects a module whose private headers
# were compiled with a layout the kernel does not have (negative control).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib.sh"
kernel_info "$1"
in_buildenv "$top/scripts/abi-check" "$CFQ_CACHE/build/$ABI/extra/cfq.ko" "$BTF" 2>/dev/null ||
	{ echo "abi-check rejects cfq.ko"; exit 1; }
t=$(mktemp -d -p "$CFQ_CACHE")
trap 'rm -rf "$t"' EXIT
printf 'obj-m := abineg.o\nccflags-y := -I$(BLOCK_PRIV) -DCONFIG_BLK_CGROUP_FC_APPID=1\n' >"$t/Kbuild"
printf '#include <linux/module.h>\n#include "blk-cgroup.h"\nstruct blkcg *abineg;\nMODULE_LICENSE("GPL");\n' >"$t/abineg.c"
in_buildenv make -s -C "$KHDR" M="$t" BLOCK_PRIV="$KSRC/block" modules >/dev/null 2>&1 || { echo "negative-control build failed"; exit 1; }
if in_buildenv "$top/scripts/abi-check" "$t/abineg.ko" "$BTF" 2>/dev/null; then
	echo "abi-check accepted a module with a different struct blkcg layout"
	exit 1
fi
