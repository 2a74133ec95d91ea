#!/bin/bash
# Group turns with the default tunables (B1d's shape): on the striped
# array, cgroups of weight 100 and 200, one direct sequential reader of
# 128 KiB each, one request in flight, for 4 s. When a group's slice runs
# out while its one request is in flight, cfq waits for that request (and
# the group's next one, wait busy) instead of taking the group off the
# group tree. io.cfq.stat's dequeue counts how often each group left the
# tree: at most 3 times each (the start and end of the run). Without the
# wait, 5-7 times each on 6.12 (split 1.61).
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 240
set -euo pipefail

hdd_setup array=1 spindles=8 chunk_kb=64 capacity_mb=8192
dev=$(cat /sys/block/hdd0/dev)

# readers N: N readers per group, both groups at once, in new cgroups
# gtN-100 and gtN-200 (fresh io.cfq.stat); logs what each group read
readers() {
	local w
	for w in 100 200; do
		cg_make "gt$1-$w" "$w"
		in_cgroup "gt$1-$w" fio --eta=never --minimal --output="/tmp/gt$w.fio" \
			--direct=1 --bs=128k --rw=read --runtime=4 --time_based \
			--filename=/dev/hdd0 --name="gt$w" --numjobs="$1" --size=512M \
			--offset=$(((w / 100 - 1) * $1 * 512))M --offset_increment=512M &
	done
	wait
	log "$1 reader(s) per group: weight 100 $(fio_sum gt100 7) KiB/s," \
		"weight 200 $(fio_sum gt200 7) KiB/s;" \
		"left the tree $(cg_stat "gt$1-100" "$dev" dequeue) and" \
		"$(cg_stat "gt$1-200" "$dev" dequeue) times"
}

readers 1
for w in 100 200; do
	d=$(cg_stat "gt1-$w" "$dev" dequeue)
	[ "$d" -le 3 ] || fail "one reader per group: weight $w's group left the tree $d times (want <= 3)"
done

hdd_teardown gt1-100 gt1-200
