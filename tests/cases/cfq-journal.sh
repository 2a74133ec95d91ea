#!/bin/bash
# The journal case (an LKML report against CFQ, bench B6): a writer doing
# 512-byte O_DSYNC writes from a child cgroup on ext4, whose journal
# thread (jbd2) runs in the root cgroup. Every write waits for a journal
# commit; a scheduler that idled on the writer's queue (or group) while
# the commit waits in another group would starve both (CFQ gave 60 KB/s
# where deadline gave 1.5-2 MB/s). On the emulated disk, cfq must reach
# at least half of mq-deadline's throughput in the same boot.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 200
set -euo pipefail

hdd_setup
modprobe ext4 || fail "modprobe ext4 failed"
mkfs.ext4 -q -F /dev/hdd0 || fail "mkfs.ext4 failed"
mkdir -p /mnt/jr
mount -t ext4 /dev/hdd0 /mnt/jr || fail "mount failed"
mkdir -p $CG/jr

# dsync SCHED: KiB/s of the writer for 4 s under SCHED
dsync() {
	sched_set hdd0 "$1"
	rm -f /mnt/jr/f
	sync
	in_cgroup jr fio --eta=never --minimal --output=/tmp/jr.fio \
		--name=dsync --filename=/mnt/jr/f --rw=write --bs=512 \
		--size=64M --sync=dsync --runtime=4 --time_based ||
		fail "fio failed under $1"
	fio_sum jr 48
}

dl=$(dsync mq-deadline)
cfq=$(dsync cfq)
log "O_DSYNC 512 B writes: mq-deadline $dl KiB/s, cfq $cfq KiB/s"
ratio_in "cfq of mq-deadline" "$cfq" "$dl" 0.5 100

rm -f /mnt/jr/f
umount /mnt/jr
hdd_teardown jr
