#!/usr/bin/env bash
# The Debian 13 system of scripts/check-install: debootstrap trixie, the
# pinned 6.12 kernel (image, headers, linux-source-6.12) from the .debs that
# scripts/fetch-kernel cached, the 7.3 kernel's kbuild, common headers and
# linux-source-7.3 (its linux-headers-7.3 .deb is left in /root/debs for the
# guest to install: the "kernel upgrade"), and a boot service that runs the
# check's guest script. Writes OUT/root.img (ext4), OUT/vmlinuz, OUT/initrd.
# scripts/check-install keys OUT by a hash of this file: change it, and the
# image is made again.
# usage: tests/install/mkimage.sh OUT
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
out=$1
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot)"
rm -rf "$out" && mkdir -p "$out"
r=$out/root
kernel_info 6.12
k1_ver=$PKGVER k1_abi=$ABI k1_src=$SRCPKG k1_kb=$KBUILDPKG
kernel_info 7.3
k2_ver=$PKGVER k2_abi=$ABI k2_src=$SRCPKG k2_kb=$KBUILDPKG
deb() { # deb PKG VER: the .deb fetch-kernel cached
	local f
	f=$(find "$CFQ_DEBS" -maxdepth 1 -name "${1}_${2}_*.deb" | head -1)
	[ -n "$f" ] || die "no cached ${1}_${2} .deb in $CFQ_DEBS: run make setup"
	echo "$f"
}
chr() {
	unshare --mount --propagation private bash -euo pipefail -c '
		d=$1; shift
		mount -t proc proc "$d/proc"
		mount --rbind /dev "$d/dev"
		exec chroot "$d" /usr/bin/env PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"' chr "$r" "$@"
}
uri=$(debian_uri trixie)
log "debootstrap trixie into $r"
debootstrap --variant=minbase \
	--include=systemd,systemd-sysv,udev,dbus,kmod,initramfs-tools,dkms,apt,xz-utils,util-linux,procps \
	trixie "$r" "$uri" >"$out/debootstrap.log" 2>&1 ||
	{ tail -n 20 "$out/debootstrap.log" >&2; die "debootstrap failed (log: $out/debootstrap.log)"; }
cat >"$r/etc/apt/sources.list" <<SRC
deb $uri trixie main
deb $(debian_uri trixie-security) trixie-security main
SRC
mkdir -p "$r/tmp/debs" "$r/root/debs"
for p in "linux-image-$k1_abi" "linux-headers-$k1_abi" "linux-headers-${k1_abi%-amd64}-common" "$k1_kb" "$k1_src"; do
	cp "$(deb "$p" "$k1_ver")" "$r/tmp/debs/"
done
for p in "linux-base-$k2_abi" "linux-headers-${k2_abi%-amd64}-common" "$k2_kb" "$k2_src"; do
	cp "$(deb "$p" "$k2_ver")" "$r/tmp/debs/"
done
cp "$(deb "linux-headers-$k2_abi" "$k2_ver")" "$r/root/debs/"
log "installing the kernels"
chr apt-get -q update >>"$out/debootstrap.log" 2>&1
# gcc-14-for-host: what linux-headers-7.3 needs when the guest installs it
chr sh -c 'apt-get install -y -q --no-install-recommends /tmp/debs/*.deb gcc-14-for-host pahole linux-base' \
	>>"$out/apt.log" 2>&1 || { tail -n 20 "$out/apt.log" >&2; die "apt-get install failed (log: $out/apt.log)"; }
chr apt-get clean
rm -rf "$r/tmp/debs"
echo cfq-install >"$r/etc/hostname"
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' >"$r/etc/fstab"
chr passwd -d root >/dev/null
cat >"$r/etc/systemd/system/cfq-check.service" <<'UNIT'
[Unit]
Description=cfq check-install guest script (disk labelled CFQIN)
After=local-fs.target systemd-udev-settle.service systemd-udevd.service
Wants=systemd-udevd.service

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'mkdir -p /run/cfqin && mount -o ro LABEL=CFQIN /run/cfqin && exec bash /run/cfqin/guest.sh >/dev/ttyS1 2>&1'
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
UNIT
chr systemctl enable cfq-check.service >/dev/null 2>&1
chr systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer >/dev/null 2>&1 || true
cp "$r/boot/vmlinuz-$k1_abi" "$out/vmlinuz"
cp "$r/boot/initrd.img-$k1_abi" "$out/initrd"
size=$(du -sm "$r" | cut -f1)
mke2fs -q -t ext4 -L root -d "$r" "$out/root.img" "$((size * 3 / 2 + 1024))M"
rm -rf "$r"
echo "$size" >"$out/root-mb"
