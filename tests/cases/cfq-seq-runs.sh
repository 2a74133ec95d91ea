#!/bin/bash
# Idling works: two sequential readers on the emulated disk (hddsim) each
# get long runs of contiguous dispatches (one slice's worth), read from the
# blk tracer's D events, and the disk hardly seeks; with slice_idle=0 the
# same readers alternate request by request.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 240
set -euo pipefail

hdd_setup

# runs: from the D events in /tmp/trace.txt, "dispatches runs mean max":
# a run is a sequence of dispatches each starting where the previous ended
runs() {
	awk '{
		for (i = 1; i <= NF; i++) if ($i == "D") break
		if (i > NF || $(i + 3) != "+") next
		s = $(i + 2); n++
		if (n > 1 && s == end) cur++
		else { if (n > 1) { r++; if (cur > mx) mx = cur }; cur = 1 }
		end = s + $(i + 4)
	} END {
		if (n) { r++; if (cur > mx) mx = cur }
		printf "%d %d %d %d\n", n, r, n / (r ? r : 1), mx
	}' /tmp/trace.txt
}

# readers: two sequential 128k readers, 2 GiB apart, for 3 s, traced;
# sets n (dispatches), r (runs), mean, mx, a, b (KiB/s), seeks
readers() {
	echo 1 >/sys/block/hdd0/hddsim/reset
	trace_start hdd0
	fio --eta=never --minimal --output=/tmp/seq.fio --direct=1 --bs=128k \
		--rw=read --ioengine=psync --runtime=3 --time_based \
		--filename=/dev/hdd0 --name=a --offset=0 --size=512M \
		--name=b --offset=2G --size=512M || fail "fio failed"
	trace_stop hdd0
	read -r n r mean mx <<<"$(runs)"
	a=$(awk -F';' '$3 == "a" { print $7 }' /tmp/seq.fio)
	b=$(awk -F';' '$3 == "b" { print $7 }' /tmp/seq.fio)
	seeks=$(awk '$1 == "seeks" { print $2 }' /sys/block/hdd0/hddsim/stats)
	log "slice_idle=$(cat /sys/block/hdd0/queue/iosched/slice_idle): readers $a $b KiB/s;" \
		"$n dispatches in $r runs of contiguous dispatches (mean $mean, longest $mx); $seeks seeks"
	[ "$n" -gt 100 ] || fail "only $n dispatches traced"
}

readers
# A 100 ms slice at ~170 MB/s is ~130 dispatches of 128k: idling must keep
# each reader on the disk for most of it.
[ "$mean" -ge 32 ] || fail "idling: mean run of contiguous dispatches $mean < 32"
[ $((seeks * 32)) -le "$n" ] || fail "idling: $seeks seeks for $n dispatches"
idle_mean=$mean

echo 0 >/sys/block/hdd0/queue/iosched/slice_idle
readers
# no idling: the readers alternate, so the runs are much shorter
[ $((mean * 8)) -le "$idle_mean" ] ||
	fail "slice_idle=0: mean run $mean not far below $idle_mean with idling"

sched_set hdd0 none
rmmod hddsim
