#!/bin/bash
# Data written through cfq reads back intact (fio verify=crc32c on a
# memory-backed null_blk), with the defaults and with idling off, a
# quantum of 1 and low_latency off; sync, async and mixed jobs at once.
# timeout: 600
set -euo pipefail

nullb_load queue_mode=2 irqmode=2 completion_nsec=20000 gb=1 memory_backed=1
echo 1 >/sys/block/nullb0/queue/rotational
sched_set nullb0 cfq
dir=/sys/block/nullb0/queue/iosched

# MiB per job: a full run on Debian's kernels, an eighth on the debug one
mb=$((32 / CFQ_SLOW))

verify() {
	fio --filename=/dev/nullb0 --bs=4k --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --minimal --output=/tmp/verify.fio \
		--name=direct --rw=randwrite --direct=1 --ioengine=libaio \
		--iodepth=16 --offset=0 --size=$((mb))M \
		--name=sync --rw=write --direct=1 --ioengine=psync --bs=8k \
		--offset=64M --size=$((mb / 2))M \
		--name=buffered --rw=randwrite --offset=128M --size=$((mb / 2))M \
		--name=mixed --rw=randrw --direct=1 --ioengine=libaio \
		--iodepth=4 --offset=256M --size=$((mb / 2))M --bssplit=4k/50:64k/50 ||
		fail "$1: fio verify failed: $(grep -m1 -i 'verify\|error' /tmp/verify.fio)"
	grep -q ';' /tmp/verify.fio || fail "$1: no fio result"
	log "$1: verified"
}

verify defaults
echo 0 >"$dir/slice_idle"
verify slice_idle=0
echo 8 >"$dir/slice_idle"
echo 1 >"$dir/quantum"
verify quantum=1
echo 8 >"$dir/quantum"
echo 0 >"$dir/low_latency"
verify low_latency=0
echo 1 >"$dir/low_latency"
echo 0 >"$dir/sliding_window"
verify sliding_window=0
sched_set nullb0 none
rmmod cfq
rmmod null_blk
