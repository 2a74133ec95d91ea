#!/usr/bin/env bash
# The guest side of scripts/check-install, run at each boot of the installed
# Debian 13 system by its cfq-check.service (output on ttyS1). Boot 1
# installs the package and then a second kernel's headers; boot 2 checks
# udev, I/O classes, systemd weights, and purges. Result lines:
#   RESULT NAME PASS|FAIL DETAIL     and at the end of each boot   STAGE-DONE N
set -uo pipefail
in=/run/cfqin
state=/var/lib/cfq-check
mkdir -p "$state"
stage=$(cat "$state/stage" 2>/dev/null || echo 1)
# A service has no HOME (systemd sets it only with User=); a root shell,
# where one types apt install, has. The package's scripts/lib.sh needs it
# (set -u: "HOME: unbound variable" fails DKMS's pre_build): the
# no-home check below shows that on its own.
export HOME=/root
res() { echo "RESULT $1 $2 ${*:3}"; }
check() { # check NAME DETAIL CMD...
	local n=$1 d=$2
	shift 2
	if "$@"; then res "$n" PASS "$d"; else res "$n" FAIL "$d"; fi
}
# the disks by their QEMU serial
disk() { lsblk -dno NAME,SERIAL | awk -v s="$1" '$2 == s { print $1 }'; }
rot=$(disk cfqrot) ssd=$(disk cfqssd)
rotdev=$(cat "/sys/block/$rot/dev" 2>/dev/null)
echo "guest: stage $stage, kernel $(uname -r), rotational disk $rot, other $ssd, up $(cut -d' ' -f1 /proc/uptime) s"
cat /proc/cmdline

if [ "$stage" = 1 ]; then
	cp "$in"/cfq-dkms_*.deb /tmp/
	t0=$SECONDS
	# no network in the guest: apt cannot fetch the recommendations
	# (linux-source, linux-headers-amd64; their X.Y/ABI packages are there)
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/cfq-dkms_*.deb >/tmp/apt.log 2>&1
	rc=$?
	tail -n 15 /tmp/apt.log
	res apt-install "$([ $rc = 0 ] && echo PASS || echo FAIL)" "apt-get install ./cfq-dkms: status $rc in $((SECONDS - t0)) s"
	dkms status
	check dkms-6.12 "cfq installed for $(uname -r)" grep -q "cfq/.*$(uname -r).*installed" <(dkms status 2>&1)
	# on a copy: block-headers caches what it unpacks in its tree, and
	# files the package does not own would keep /usr/src/cfq-* at purge
	rm -rf /tmp/cfq-nohome && cp -a /usr/src/cfq-* /tmp/cfq-nohome
	check no-home "the package's block-headers without HOME (as under apt-daily-upgrade.service): $(env -u HOME /tmp/cfq-nohome/scripts/block-headers "$(uname -r)" 2>&1 | tail -1)" \
		env -u HOME /tmp/cfq-nohome/scripts/block-headers "$(uname -r)"
	check modinfo "modinfo cfq finds the DKMS module" sh -c "modinfo -n cfq | grep -q updates/dkms"
	# the kernel upgrade: a second kernel's headers (its linux-source is
	# there), installed after cfq-dkms: DKMS builds cfq for it
	t0=$SECONDS
	DEBIAN_FRONTEND=noninteractive dpkg -i /root/debs/linux-headers-*.deb >/tmp/hdr.log 2>&1
	rc=$?
	tail -n 15 /tmp/hdr.log
	res headers-install "$([ $rc = 0 ] && echo PASS || echo FAIL)" "dpkg -i the second kernel's headers: status $rc in $((SECONDS - t0)) s"
	dkms status
	k2=$(basename /root/debs/linux-headers-*.deb | sed -E 's/^linux-headers-([^_]+)_.*/\1/')
	check dkms-second-kernel "cfq installed for $k2 by the headers' DKMS hook" grep -q "cfq/.*$k2.*installed" <(dkms status 2>&1)
	echo 2 >"$state/stage"
	sync
	echo "STAGE-DONE 1"
	systemctl poweroff
	exit 0
fi

# ---- boot 2: after the reboot
sched() { cat "/sys/block/$1/queue/scheduler"; }
echo "guest: $rot: $(sched "$rot"); $ssd: $(sched "$ssd"); vda: $(sched vda)"
check udev-rotational "$rot (rotation_rate=7200): $(sched "$rot")" grep -q '\[cfq\]' "/sys/block/$rot/queue/scheduler"
check udev-nonrotational "$ssd (rotation_rate=1): $(sched "$ssd")" sh -c "! grep -q '\[cfq\]' /sys/block/$ssd/queue/scheduler"
echo "guest: io in the root's subtree_control: $(cat /sys/fs/cgroup/cgroup.subtree_control)"

# readers NAME:SKIP_MB:SECS:PROPERTY... : transient services reading $rot
# with direct I/O for SECS s; prints "NAME BYTES" each, BYTES being what
# the service's cgroup read from $rot (its io.stat rbytes, read by the
# service itself as it ends: dd's own count, printed on SIGINT, was
# missing once for a reader that io.stat and systemd saw read 1.8 GB;
# dd's output and status stay in the log). Every reader has
# IOAccounting=yes, so io.stat is there. systemd-run
# starts them up to seconds apart under TCG, so each says it is up
# (/run/UNIT.up) and waits for /run/cfq-go, made once all are up: they
# start within 0.1 s. Each is done when it has written /run/UNIT.cg
# (its cgroup), after its reader (systemctl is-active once said a
# running reader was not, and its bytes were read before it ended).
secs=20
# wait_file FILE SECS: wait up to SECS s until FILE exists
wait_file() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ -e "$1" ] && return
		sleep 0.1
	done
	echo "guest: $1 not there after $2 s"
}
readers() {
	local spec n skip t props u
	rm -f /run/cfq-go
	for spec in "$@"; do
		IFS=: read -r n skip t props <<<"$spec"
		u=cfq-$n
		rm -f /run/$u.{up,out,io,cfq,cg}
		# shellcheck disable=SC2086
		systemd-run --quiet --unit="$u" --no-block -p IOAccounting=yes $props \
			sh -c "touch /run/$u.up; while [ ! -e /run/cfq-go ]; do sleep 0.1; done; timeout -s INT $t dd if=/dev/$rot of=/dev/null bs=64k iflag=direct skip=$((skip * 16)) 2>/run/$u.out; echo \"dd status \$?\" >>/run/$u.out; cg=\$(sed -n 's/^0:://p' /proc/self/cgroup); cat /sys/fs/cgroup\$cg/io.stat >/run/$u.io; cat /sys/fs/cgroup\$cg/io.cfq.stat >/run/$u.cfq; echo \$cg >/run/$u.cg"
	done
	for spec in "$@"; do
		wait_file "/run/cfq-${spec%%:*}.up" 60
	done
	touch /run/cfq-go
	sleep 8
	# what cfq does half-way (debugfs), for the log; its service trees
	# are kept in /run/cfq-mid.trees (up to 10 looks, 0.2 s apart, until
	# they show a group for each reader: a queue between two of its
	# requests can be off the tree for a moment)
	local i
	for ((i = 0; i < 10; i++)); do
		cp /sys/kernel/debug/block/$rot/sched/service_trees /run/cfq-mid.trees 2>/dev/null || true
		[ "$(grep -c '^group ' /run/cfq-mid.trees 2>/dev/null)" -ge $# ] && break
		sleep 0.2
	done
	grep -H . /sys/kernel/debug/block/$rot/sched/{state,active,service_trees} 2>/dev/null |
		sed 's/^/guest: debugfs: /' >&2 || true
	for spec in "$@"; do
		IFS=: read -r n skip t props <<<"$spec"
		wait_file "/run/cfq-$n.cg" $((t + 120))
		sed "s/^/guest: cfq-$n: /" "/run/cfq-$n.out" "/run/cfq-$n.io" "/run/cfq-$n.cfq" >&2
		echo "$n $(awk -v d="$rotdev" '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^rbytes=/) print substr($i, 8) }' "/run/cfq-$n.io")"
	done
}
# cfq_ms NAME: the disk time cfq gave reader NAME on $rot (io.cfq.stat time_ms)
cfq_ms() {
	awk -v d="$rotdev" '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^time_ms=/) print substr($i, 9) }' "/run/cfq-$1.cfq"
}
echo "guest: RT and IDLE readers, ${secs} s"
# the IDLE reader stops 4 s before the RT one: an IDLE reader left alone
# at the end is served (a run before the common start: RT 313 MB, IDLE
# 34 MB, 9.1x). The readers' IOAccounting=yes turns the io controller on
# for system.slice while they run, as any unit's IOWeight= does: each reader
# is then a cfq group of its own, the common case on a systemd system
# (without it, both read in the root group, as in this check's earlier
# runs; io is off again once they are gone)
out=$(readers rt:0:$secs:"-p IOSchedulingClass=realtime" \
	idle:8192:$((secs - 4)):"-p IOSchedulingClass=idle")
echo "$out"
rtb=$(awk '$1 == "rt" { print $2 + 0 }' <<<"$out")
idb=$(awk '$1 == "idle" { print $2 + 0 }' <<<"$out")
check rt-vs-idle "RT $rtb bytes, IDLE $idb bytes (want RT > 10 x IDLE)" test "$rtb" -gt $((idb * 10))
check rt-idle-groups "half-way, each reader a cfq group of its own: $(grep -c '^group /system.slice/cfq-\(rt\|idle\).service:' /run/cfq-mid.trees) of 2 in debugfs" \
	test "$(grep -c '^group /system.slice/cfq-\(rt\|idle\).service:' /run/cfq-mid.trees)" = 2

# This point checks that IOWeight= reaches cfq, not how cfq idles under
# emulation. Without -icount a guest's think time between two 64 KiB
# reads is the host's: on a loaded host it grew past slice_idle and
# group_idle (8 ms), a group left the tree between its requests and the
# split drifted towards 1 (1.34 in one run beside other guests; 1.83 and
# 1.98 alone; 1.42 with 50 ms windows beside a kernel build and two
# more guests). So the weight readers run with both idle windows at
# 100 ms, and the defaults are put back after them. Each reader's
# io.cfq.stat (time_ms: the disk time cfq gave it) is in the log.
iosched=/sys/block/$rot/queue/iosched
echo 100 >"$iosched/slice_idle"
echo 100 >"$iosched/group_idle"
echo "guest: IOWeight=100 and IOWeight=200 readers, ${secs} s, slice_idle $(cat "$iosched/slice_idle") group_idle $(cat "$iosched/group_idle") ms"
out=$(readers w100:0:$secs:"-p IOWeight=100" w200:8192:$secs:"-p IOWeight=200")
echo 8 >"$iosched/slice_idle"
echo 8 >"$iosched/group_idle"
echo "$out"
for u in w100 w200; do
	echo "guest: cfq-$u: $(cat /run/cfq-$u.cg 2>/dev/null)"
done
cat /sys/fs/cgroup/system.slice/cgroup.subtree_control
a=$(awk '$1 == "w100" { print $2 + 0 }' <<<"$out")
b=$(awk '$1 == "w200" { print $2 + 0 }' <<<"$out")
ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print 0 }')
# The 1:2 split is checked in the disk time cfq gave each reader
# (io.cfq.stat time_ms): that is what the weights split. The bytes each
# read in that time depend on the guest's CPU, which under TCG follows
# the host's load: on a quiet host they split 1.83-1.98, beside other
# guests 1.52 and 1.18 where the time split 1.88 and 1.85 (w200 read 89
# and 120 MB per second of its time, w100 109 and 188). So in bytes only
# the order is checked: the heavier service reads more.
check weight-ratio "IOWeight=200/IOWeight=100 bytes: $b/$a = $ratio (want 1.1-3.0)" \
	awk -v r="$ratio" 'BEGIN { exit !(r >= 1.1 && r <= 3.0) }'
ta=$(cfq_ms w100) tb=$(cfq_ms w200)
tratio=$(awk -v a="$ta" -v b="$tb" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print 0 }')
check weight-time-ratio "IOWeight=200/IOWeight=100 disk time (io.cfq.stat): $tb/$ta ms = $tratio (want 1.6-2.5)" \
	awk -v r="$tratio" 'BEGIN { exit !(r >= 1.6 && r <= 2.5) }'
# the helper copies a slice's IOWeight= too (an ancestor of the unit)
printf '[Slice]\nIOWeight=300\n' >/etc/systemd/system/cfq-t.slice
systemctl daemon-reload
systemd-run --quiet --wait --slice=cfq-t.slice -p IOWeight=50 \
	sh -c 'cat /sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup)/io.cfq.weight >/run/t.own; cat /sys/fs/cgroup/cfq.slice/cfq-t.slice/io.cfq.weight /sys/fs/cgroup/cfq-t.slice/io.cfq.weight >/run/t.slice 2>/dev/null'
echo "guest: own io.cfq.weight: $(cat /run/t.own); slice: $(cat /run/t.slice)"
check helper-unit "io.cfq.weight of a unit with IOWeight=50: $(head -1 /run/t.own)" grep -qx 'default 50' /run/t.own
check helper-slice "io.cfq.weight of its slice with IOWeight=300: $(head -1 /run/t.slice)" grep -qx 'default 300' /run/t.slice

# purge
t0=$SECONDS
DEBIAN_FRONTEND=noninteractive apt-get purge -y cfq-dkms >/tmp/purge.log 2>&1
rc=$?
tail -n 10 /tmp/purge.log
res apt-purge "$([ $rc = 0 ] && echo PASS || echo FAIL)" "apt-get purge cfq-dkms: status $rc in $((SECONDS - t0)) s"
left=$(ls -d /var/lib/dkms/cfq /usr/src/cfq-* /usr/lib/udev/rules.d/60-cfq.rules /usr/libexec/cfq \
	/usr/lib/systemd/system/service.d/50-cfq-weight.conf 2>/dev/null; find /lib/modules -name 'cfq.ko*' 2>/dev/null)
check purge-files "left after purge: ${left:-nothing}" test -z "$left"
# every disk the rule gave cfq: the virtio-blk ones (root, CFQIN) say rotational
for f in /sys/block/*/queue/scheduler; do
	grep -q '\[cfq\]' "$f" && echo mq-deadline >"$f"
done
check rmmod "the loaded cfq unloads once the disks are switched away" sh -c 'rmmod cfq && ! test -d /sys/module/cfq'
echo "STAGE-DONE 2"
sync
systemctl poweroff
