#!/bin/bash
# Switch to cfq and back 50 times while fio keeps sync, async and random
# I/O going; every job must finish without errors.
# timeout: 600
set -euo pipefail

nullb_load queue_mode=2 irqmode=2 completion_nsec=50000 gb=1 memory_backed=1
echo 1 >/sys/block/nullb0/queue/rotational
# a region per job; smaller on the debug kernel, where freeing the written
# pages at rmmod takes long enough under KASAN to look like a soft lockup
mb=$((256 / CFQ_SLOW))
fio --name=seq --filename=/dev/nullb0 --rw=read --bs=64k --direct=1 \
	--ioengine=libaio --iodepth=4 --size=${mb}M \
	--name=rand --filename=/dev/nullb0 --rw=randrw --bs=4k --direct=1 \
	--ioengine=psync --offset=256M --size=${mb}M \
	--name=buf --filename=/dev/nullb0 --rw=write --bs=16k \
	--offset=512M --size=${mb}M \
	--runtime=3600 --time_based --minimal --output=/tmp/switch.fio &
pid=$!
sleep 1
for i in $(seq 50); do
	sched_set nullb0 cfq
	sleep 0.1
	[ "$(sched_get nullb0)" = cfq ] || fail "round $i: cfq not active"
	sched_set nullb0 none
done
sched_set nullb0 cfq
sleep 0.5
# fio exits non-zero when interrupted: judge each job by its error field
kill -INT "$pid"
wait "$pid" || true
[ "$(grep -c '^3;' /tmp/switch.fio)" -eq 3 ] || fail "fio did not report 3 jobs"
awk -F';' '/^3;/ && $5 != 0 { print $3 " error " $5; bad = 1 } END { exit bad }' \
	/tmp/switch.fio || fail "fio job failed: $(awk -F';' '/^3;/ && $5 != 0 { print $3; exit }' /tmp/switch.fio)"
sched_set nullb0 none
rmmod cfq
rmmod null_blk
