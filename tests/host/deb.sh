# The cfq-dkms package (make deb) builds, is lintian clean (no error or
# warning), ships what DKMS needs, and its copy of the source names the
# missing package when a kernel's headers or linux-source are absent.
# shellcheck shell=bash
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib.sh"
for c in dpkg-buildpackage dh_dkms lintian; do
	command -v "$c" >/dev/null || { echo "$c not installed (scripts/setup-host installs debhelper dh-dkms lintian)"; exit 1; }
done
mkdir -p "$CFQ_CACHE"
t=$(mktemp -d -p "$CFQ_CACHE")
trap 'rm -rf "$t"' EXIT
deb=$(CFQ_DEB_OUT=$t/out "$top/scripts/build-deb" 2>"$t/err") || { cat "$t/err"; echo "make deb failed"; exit 1; }
ver=$(dpkg-deb -f "$deb" Version)
if ! lintian --fail-on error,warning "$t/out/cfq_${ver}"_*.changes >"$t/lintian" 2>&1; then
	grep -v '^running with root' "$t/lintian"
	echo "lintian: $(grep -c '^[EW]:' "$t/lintian" || true) errors/warnings"
	exit 1
fi
dpkg-deb -c "$deb" | awk '{ print $NF }' >"$t/list"
for f in "usr/src/cfq-$ver/dkms.conf" "usr/src/cfq-$ver/Makefile" "usr/src/cfq-$ver/Kbuild" \
	"usr/src/cfq-$ver/cfq-iosched.c" "usr/src/cfq-$ver/scripts/block-headers" \
	usr/lib/udev/rules.d/60-cfq.rules usr/share/doc/cfq-dkms/README.md.gz \
	usr/share/doc/cfq-dkms/cfq-iosched.rst.gz usr/share/doc/cfq-dkms/copyright; do
	grep -qx "\./$f" "$t/list" || { echo "$deb lacks /$f"; exit 1; }
done
dpkg-deb -I "$deb" control | grep -q '^ *Depends:.*dkms' || { echo "cfq-dkms does not depend on dkms"; exit 1; }
dpkg-deb -I "$deb" prerm | grep -q 'dkms remove' || { echo "prerm does not dkms remove"; exit 1; }
# the shipped tree, as DKMS runs it: no headers; headers but no linux-source
dpkg-deb -x "$deb" "$t/root"
src=$t/root/usr/src/cfq-$ver
rel=6.12.99+deb13-amd64
out=$(make -C "$src" KERNELRELEASE=$rel KDIR="$t/nokdir" modules 2>&1) && { echo "make without headers succeeded"; exit 1; }
grep -q "install linux-headers-$rel" <<<"$out" || { echo "$out"; echo "no 'install linux-headers-$rel' message"; exit 1; }
mkdir -p "$t/kdir" "$t/usrsrc"
touch "$t/kdir/Makefile"
out=$(CFQ_USR_SRC=$t/usrsrc make -C "$src" KERNELRELEASE=$rel KDIR="$t/kdir" modules 2>&1) &&
	{ echo "make without linux-source succeeded"; exit 1; }
grep -q "cfq: private block headers for 6.12 not found: install linux-source-6.12" <<<"$out" ||
	{ echo "$out"; echo "no 'install linux-source-6.12' message"; exit 1; }
