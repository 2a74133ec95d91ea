#!/bin/bash
# Two cgroups with io.cfq.weight 100 and 200, one sequential reader each,
# on the emulated rotational disk: the heavier gets about twice the
# throughput (1.6 .. 2.4), in time mode (slice_idle=8) and with idling
# off but group_idle on (slice_idle=0 group_idle=8); the group counters
# agree with the split.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 400
set -euo pipefail

modprobe hddsim || fail "modprobe hddsim failed"
sched_set hdd0 cfq
CG=/sys/fs/cgroup
echo +io >$CG/cgroup.subtree_control
mkdir -p $CG/lo $CG/hi
echo 100 >$CG/lo/io.cfq.weight
echo 200 >$CG/hi/io.cfq.weight

# reader CGROUP NAME OFFSET: a sequential reader in CGROUP for 6 s
reader() {
	(echo $BASHPID >"$CG/$1/cgroup.procs"
	 exec fio --minimal --output="/tmp/$2.fio" --direct=1 --bs=64k \
		--rw=read --ioengine=psync --runtime=6 --time_based \
		--filename=/dev/hdd0 --name="$2" --offset="$3" --size=512M)
}
# split: run both; check hi/lo within [1.6, 2.4]
split() {
	reader lo lo 0 &
	reader hi hi 1G &
	wait
	lo=$(awk -F';' '{ print $7 }' /tmp/lo.fio)
	hi=$(awk -F';' '{ print $7 }' /tmp/hi.fio)
	log "$1: lo $lo KiB/s, hi $hi KiB/s"
	[ "$lo" -gt 0 ] || fail "$1: the weight-100 reader got nothing"
	awk -v l="$lo" -v h="$hi" 'BEGIN { r = h / l; printf "# ratio %.2f\n", r; exit !(r >= 1.6 && r <= 2.4) }' ||
		fail "$1: throughput ratio $hi/$lo outside 1.6 .. 2.4"
}

split "slice_idle=8"
DEV=$(cat /sys/block/hdd0/dev)
grep "^$DEV " $CG/lo/io.cfq.stat | sed 's/^/# lo: /'
grep "^$DEV " $CG/hi/io.cfq.stat | sed 's/^/# hi: /'
echo 0 >/sys/block/hdd0/queue/iosched/slice_idle
split "slice_idle=0 group_idle=8"

rmdir $CG/lo $CG/hi
sched_set hdd0 none
rmmod cfq
rmmod hddsim
