#!/bin/bash
# A thread pool of short runs (B4's shape, shorter): 40 threads each
# reading 4-block runs at random offsets of 2 GiB of the emulated disk at
# depth 1. Two rules make cfq serve it: a queue whose requests seek less
# than half the time keeps its idle window, so each run is served whole
# (with sliding_window=0 cfq does at least 1.5x the runs none does, where
# each run costs a seek per request), and with the sliding window a queue
# whose next request is far gives the disk to the queue whose request is
# nearest the head (at least 1.5x the runs of sliding_window=0), while no
# thread is left behind: the fewest runs of a thread are at least a
# tenth of the mean. Then B4w's shape (4 processes, 10 random reads each
# in flight): with the head order, a queue chosen for its request's
# position serves that request, not its FIFO's oldest, so the window
# gains at least 10 % over sliding_window=0; and a queue whose workload
# slice is over gives the disk back at its next seek (blktrace note "seek
# after workload slice", at least 5 times in 4 s).
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 240
set -euo pipefail

hdd_setup depth=1
Q=/sys/block/hdd0/queue/iosched

# pool NAME: 4 s of the pool; sets runs (total) and lo (fewest of a thread)
pool() {
	fio --eta=never --minimal --output="/tmp/$1.fio" --thread --numjobs=40 \
		--filename=/dev/hdd0 --rw=randread:4 --bs=4k --direct=1 --size=2G \
		--runtime=4 --time_based --name="$1" || fail "fio failed"
	read -r runs lo <<<"$(awk -F';' 'NF > 100 { r = $6 / 16; t += r
		if (n++ == 0 || r < lo) lo = r } END { printf "%d %d\n", t, lo }' "/tmp/$1.fio")"
	log "$1: $runs runs, fewest of a thread $lo"
}

sched_set hdd0 none
pool none
none=$runs
sched_set hdd0 cfq
echo 0 >$Q/sliding_window
pool neighbour
ratio_in "runs, idling for runs (sliding_window=0) / none" "$runs" "$none" 1.5 100
neigh=$runs
echo 1 >$Q/sliding_window
pool window
ratio_in "runs, nearest queue first / sliding_window=0" "$runs" "$neigh" 1.5 100
ratio_in "fewest runs of a thread / mean" "$lo" "$((runs / 40))" 0.1 100

# B4w's shape: 4 processes with 10 random 16 KiB reads each in flight,
# traced; sets reads (per s) and ends (notes "seek after workload slice")
aio() {
	echo 1 >/sys/block/hdd0/hddsim/reset
	trace_start hdd0
	fio --eta=never --minimal --output="/tmp/$1.fio" --numjobs=4 \
		--ioengine=libaio --iodepth=10 --filename=/dev/hdd0 --rw=randread \
		--bs=16k --direct=1 --size=2G --runtime=4 --time_based \
		--name="$1" || fail "fio failed"
	trace_stop hdd0
	reads=$(fio_sum "$1" 8)
	ends=$(grep -cE " m +N cfq[0-9]+[SA]N? +seek after workload slice" /tmp/trace.txt || true)
	seek=$(awk '$1 == "seeks" { n = $2 } $1 == "seek_sectors" { s = $2 }
		END { print int(s / (n > 0 ? n : 1)) }' /sys/block/hdd0/hddsim/stats)
	log "$1: $reads reads/s, mean seek $seek sectors, $ends turns ended at a seek"
}
aio aio-window
win=$reads
[ "$ends" -ge 5 ] || fail "head order: only $ends turns ended at a seek after the workload slice"
echo 0 >$Q/sliding_window
aio aio-neighbour
echo 1 >$Q/sliding_window
ratio_in "libaio reads/s, head order / sliding_window=0" "$win" "$reads" 1.1 100
hdd_teardown
