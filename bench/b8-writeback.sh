# title: B8, write-back weights: buffered writers in cgroups weighted 100 and 200 on ext4
# plot: 4,5,6; names 30 s,lowest 5 s,highest 5 s; ylabel MiB weight 200 / MiB weight 100; title write-back split (goal 2.0); goal 2.0; values
# plot: 2,3; names weight 100,weight 200; ylabel MiB written back in 30 s; title bytes written back; values
# schedulers: cfq,bfq
# Two fio jobs, one per cgroup (io and memory controllers on, so the
# flushers' writes carry the cgroup that dirtied the pages), each writing
# 1 MiB blocks through the page cache into a 160 MiB file on ext4 on
# hddsim, looping over it. The bytes written back for each group (the
# block layer's io.stat wbytes: the flushers' bios, whatever the
# scheduler) are counted every 5 s; the ratio is over 10..40 s, after the
# dirty limits and writeback's bandwidth estimates have settled.
# --invalidate=0: by default fio drops the file's pages with
# fadvise(DONTNEED) each time it starts over, which writes the group's
# whole dirty file back from the writer itself and leaves its flusher
# nothing to do until the group has dirtied enough again: the
# weight-200 group, which starts over more often, then had no write in
# the block layer 5-10 % of the time under cfq (a trace
# of who submitted its last write before each gap: fio, from fadvise).
# A blk trace of the same window tells the scheduler's part from the
# flushers': the share of the time each group had no write in the
# scheduler or the disk (its flusher submitted none, or it waits for a
# tag: nothing to weight), and the ratio of the disk time the groups'
# writes took while both had some (the split the scheduler gives; the
# weights ask for 2.0).
# (1 GiB files ran the guest out of memory: hddsim keeps its data in RAM.)
set -euo pipefail
quick=$1; scheds=$2
. /cfq/bench/lib.sh
load_scheds "$scheds"
secs=$([ "$quick" = 1 ] && echo 15 || echo 40)
cg=/sys/fs/cgroup
modprobe ext4
table "scheduler" "MiB weight 100" "MiB weight 200" "ratio" "lowest 5 s ratio" \
	"highest 5 s ratio" "% of time weight 100 has no write" \
	"% of time weight 200 has no write" "disk-time ratio while both write"
T=/sys/kernel/tracing
mount -t tracefs none $T 2>/dev/null || true
# split_trace: the last three columns, from the blk trace of hdd0 on stdin.
# A write is the group's from its insert (I) to its completion (C); the
# disk time of a completion is from its issue (D) or the previous
# completion, whichever is later (hddsim serves one request at a time).
# Requests are known by their first sector; a front merge (F) moves it.
split_trace() {
	awk '{
		for (i = 1; i <= NF && $i !~ /^[0-9]+\.[0-9]+:$/; i++) ;
		for (j = i + 1; j <= NF && $j !~ /^[IDCF]$/; j++) ;
		if (j > NF || $(j + 1) !~ /W/) next
		t = substr($i, 1, length($i) - 1) + 0; sec = $(j + 2)
		if ($j == "F") {
			old = sec + $(j + 4)
			if (old in grp) { grp[sec] = grp[old]; delete grp[old] }
			next
		}
		if ($j == "D") { issued[sec] = t; next }
		if (t0 == "") t0 = t
		if (last != "") { idle[1] += !n[1] * (t - last); idle[2] += !n[2] * (t - last) }
		last = t
		if ($j == "I") {
			g = /\/b8w100 / ? 1 : /\/b8w200 / ? 2 : 0
			if (g) { grp[sec] = g; n[g]++ }
			next
		}
		if (!(sec in grp)) next
		g = grp[sec]; delete grp[sec]
		d = t - (issued[sec] > prevc ? issued[sec] : prevc); prevc = t
		if (n[1] && n[2]) both[g] += d
		n[g]--
	} END {
		printf "%.1f %.1f %.2f\n", 100 * idle[1] / (last - t0), 100 * idle[2] / (last - t0),
			(both[1] > 0 ? both[2] / both[1] : 0)
	}'
}
for s in $scheds; do
	rmmod hddsim 2>/dev/null || true
	modprobe hddsim
	use_sched hdd0 "$s"
	dev=$(cat /sys/block/hdd0/dev)
	# written: the bytes written back so far, "WEIGHT100 WEIGHT200"
	written() {
		awk -v d="$dev" '$1 == d { for (i = 2; i <= NF; i++)
			if (index($i, "wbytes=") == 1) printf "%s ", substr($i, 8) }' \
			$cg/b8w100/io.stat $cg/b8w200/io.stat
	}
	wb_writers "$s" $((secs + 2)) --invalidate=0
	blk_trace_ready 32768
	samples=""
	for ((t = 5; t <= secs; t += 5)); do
		sleep 5
		samples="$samples $t $(written)"
		if [ $t = 10 ]; then echo 1 >$T/tracing_on; fi
	done
	echo 0 >$T/tracing_on
	wait
	echo 0 >/sys/block/hdd0/trace/enable
	split=$(split_trace <$T/trace)
	echo nop >$T/current_tracer
	# shellcheck disable=SC2046,SC2086 # the eight cells, split
	row "$s" $(echo $samples | awk '{ for (i = 1; i <= NF; i += 3) {
			t = $i; l = $(i + 1); h = $(i + 2)
			if (t == 10) { l0 = l; h0 = h }
			if (t > 10) { r = (h - ph) / (l - pl > 0 ? l - pl : 1)
				if (lo == "" || r < lo) lo = r; if (r > hi) hi = r }
			pl = l; ph = h }
		printf "%d %d %.2f %.2f %.2f\n", (pl - l0) / 1048576, (ph - h0) / 1048576,
			(ph - h0) / (pl - l0), lo, hi }') $split
	rm -f /mnt/b8/f100 /mnt/b8/f200
	umount /mnt/b8
	rmdir $cg/b8w100 $cg/b8w200
	use_sched hdd0 none
done
table_end
rmmod hddsim
