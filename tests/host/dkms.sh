# per-kernel: yes
# 'dkms build' of cfq succeeds for the kernel, as on a Debian system that has
# the kernel's headers and its linux-source package: a kernel of a later
# Debian release is built there, in its build environment (scripts/buildenv),
# with that release's dkms and compiler.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib.sh"
kernel_info "$1"
if [ "$BUILDENV" != host ] && [ -z "${CFQ_DKMS_FILES:-}" ]; then
	# the build environment has no git: the tracked files are listed here
	list=$(mktemp -p "$CFQ_CACHE")
	(cd "$top" && git ls-files) >"$list"
	rc=0
	in_buildenv env CFQ_DKMS_FILES="$list" bash "$0" "$1" || rc=$?
	rm -f "$list"
	exit $rc
fi
command -v dkms >/dev/null || { echo "dkms not installed"; exit 1; }
# the cfq-dkms package owns the same /usr/src/cfq-VERSION and DKMS tree
if dpkg-query -W -f='${Status}' cfq-dkms 2>/dev/null | grep -q 'ok installed'; then
	echo "cfq-dkms is installed here, and this check would remove its DKMS tree: apt purge cfq-dkms first"
	exit 1
fi
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
src=/usr/src/cfq-$ver
t=$(mktemp -d)
cleanup() { dkms remove "cfq/$ver" --all >/dev/null 2>&1 || true; rm -rf "$src" "$t"; }
trap cleanup EXIT
cleanup
mkdir -p "$src" "$t"
if [ -n "${CFQ_DKMS_FILES:-}" ]; then
	(cd "$top" && tr '\n' '\0' <"$CFQ_DKMS_FILES" | xargs -0 cp --parents -t "$src")
else
	(cd "$top" && git ls-files -z | xargs -0 cp --parents -t "$src")
fi
dkms add "cfq/$ver" >"$t/log" 2>&1 || { cat "$t/log"; echo "dkms add failed"; exit 1; }
# the cached kernel stands in for an installed one: its headers, its source
export CFQ_CACHE
if ! dkms build "cfq/$ver" -k "$ABI" --kernelsourcedir "$KHDR" >"$t/log" 2>&1; then
	tail -n 20 "$t/log"
	cat "/var/lib/dkms/cfq/$ver/build/make.log" 2>/dev/null | tail -n 20
	echo "dkms build failed for $ABI"
	exit 1
fi
ko=$(find "/var/lib/dkms/cfq/$ver/$ABI" -name 'cfq.ko*' | head -1)
[ -n "$ko" ] || { echo "dkms built no cfq.ko for $ABI"; exit 1; }
