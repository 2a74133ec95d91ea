# per-kernel: yes
# cfq.ko carries the metadata users and modprobe rely on.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib.sh"
kernel_info "$1"
ko=$CFQ_CACHE/build/$ABI/extra/cfq.ko
[ -f "$ko" ] || { echo "no $ko"; exit 1; }
[ "$(modinfo -F license "$ko")" = GPL ] || { echo "license is not GPL"; exit 1; }
[ -n "$(modinfo -F description "$ko")" ] || { echo "no description"; exit 1; }
modinfo -F alias "$ko" | grep -qx cfq-iosched || { echo "no alias cfq-iosched"; exit 1; }
vm=$(modinfo -F vermagic "$ko")
[ "${vm%% *}" = "$ABI" ] || { echo "vermagic '$vm' is not for $ABI"; exit 1; }
