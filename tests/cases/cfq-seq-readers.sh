#!/bin/bash
# Two sequential readers on a rotational queue share it near-equally, with
# idling (slice_idle=8) and without (slice_idle=0).
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 300
set -euo pipefail

nullb_load queue_mode=2 irqmode=2 completion_nsec=100000 gb=1
echo 1 >/sys/block/nullb0/queue/rotational
sched_set nullb0 cfq

# readers: two sequential readers for 4 s; sets $r1 $r2 (KiB/s)
readers() {
	fio --minimal --output=/tmp/seq.fio --direct=1 --bs=4k --rw=read \
		--runtime=4 --time_based --filename=/dev/nullb0 \
		--name=a --offset=0 --size=256M \
		--name=b --offset=512M --size=256M || fail "fio failed"
	r1=$(awk -F';' '$3 == "a" { print $7 }' /tmp/seq.fio)
	r2=$(awk -F';' '$3 == "b" { print $7 }' /tmp/seq.fio)
	log "slice_idle=$(cat /sys/block/nullb0/queue/iosched/slice_idle): readers $r1 $r2 KiB/s"
	[ "$r1" -gt 0 ] && [ "$r2" -gt 0 ] || fail "a reader got nothing: $r1 $r2"
	# near-equal: the slower gets at least 2/3 of the faster
	[ $((r1 * 3)) -ge $((r2 * 2)) ] && [ $((r2 * 3)) -ge $((r1 * 2)) ] ||
		fail "unfair split between sequential readers: $r1 vs $r2 KiB/s"
}

readers
echo 0 >/sys/block/nullb0/queue/iosched/slice_idle
readers
sched_set nullb0 none
rmmod cfq
rmmod null_blk
