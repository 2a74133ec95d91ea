#!/bin/bash
# IOPS mode (slice_idle=0 on a disk that queues): groups are charged by
# requests, not time. Random 4 KiB readers in cgroups of weight 100 and
# 200 on the emulated disk with NCQ (hddsim depth=32): the heavier gets
# 2.0 +- 0.3 times the IOPS of the lighter, with four psync readers per
# group (one request each in flight) and with one libaio reader of depth
# 16 per group.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 300
set -euo pipefail

hdd_setup depth=32
echo 0 >/sys/block/hdd0/queue/iosched/slice_idle
cg_make io100 100
cg_make io200 200

# readers WEIGHT FIO-ARGS...: random readers in cgroup ioWEIGHT for 4 s
readers() {
	local w=$1
	shift
	in_cgroup "io$w" fio --eta=never --minimal --output="/tmp/io$w.fio" \
		--direct=1 --bs=4k --rw=randread --runtime=4 --time_based \
		--filename=/dev/hdd0 --name="io$w" --size=1G "$@"
}
# split WHAT FIO-ARGS...
split() {
	local what=$1
	shift
	readers 100 "$@" &
	readers 200 "$@" &
	wait
	ratio_in "$what, IOPS 200:100" "$(fio_sum io200 8)" "$(fio_sum io100 8)" 1.7 2.3
}

split "4 psync readers per group" --ioengine=psync --numjobs=4
split "1 libaio reader of depth 16 per group" --ioengine=libaio --iodepth=16

hdd_teardown io100 io200
