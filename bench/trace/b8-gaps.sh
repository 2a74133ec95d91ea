#!/bin/bash
# B8's writers under a trace of the gaps in the weight-200 group's writes.
# A guest script: scripts/vm run --kernel KEY --icount \
#	bench/trace/b8-gaps.sh [SCHED [INVALIDATE]]
# SCHED (default cfq) as bench/run's --sched takes it; INVALIDATE is fio's
# --invalidate (default 0, as B8 runs it; 1 is fio's own default, where
# fio drops its file's cache each time it starts the file over).
# The same two fio writers as bench/b8-writeback.sh, traced for 20 s after
# 10 s: the blk trace of hdd0 with bio (Q), request (G), insert (I),
# merge (M, F) and completion (C) events, and every sched_switch. A gap is
# a stretch over 2 ms in which the weight-200 group has nothing in the
# block layer: no write inserted and not completed, none in a plug (G..I)
# and no bio waiting for a tag (Q..G). For the gaps it prints their
# number and time, what the task that queued the group's last write
# before each gap was doing in it (on the CPU, runnable, or blocked and
# in which state), what the CPU ran in them, who queued the writes of
# each group, and the most frequent stacks of the writes fio itself
# queued (not its flusher's).
set -euo pipefail
case ${1:-} in
-h | --help)
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0
	;;
esac
s=${1:-cfq}
inv=${2:-0}
# shellcheck source=/dev/null
. /cfq/bench/lib.sh
load_scheds "$s"
cg=/sys/fs/cgroup
T=/sys/kernel/tracing
modprobe ext4
mount -t tracefs none $T 2>/dev/null || true

# gaps: the report, from the trace on stdin
gaps() {
	awk '
	BEGIN { cur = "(before the first switch)"; lqc = "(none traced)" }
	function adv(t) {
		if (lt != "" && gs != "") {
			gst[lq in st ? st[lq] : "on the CPU"] += t - lt
			gcpu[cur] += t - lt
		}
		lt = t
	}
	function stamp(   i) {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) return substr($i, 1, length($i) - 1) + 0
		return -1
	}
	/<stack trace>/ || /^ => / { next }
	/sched_switch:/ {
		adv(stamp())
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^prev_pid=/) pp = substr($i, 10)
			if ($i ~ /^prev_state=/) ps = substr($i, 12)
			if ($i ~ /^next_comm=/) nc = substr($i, 11)
			if ($i ~ /^next_pid=/) np = substr($i, 10)
		}
		st[pp] = ps ~ /^R/ ? "runnable" : "blocked (" ps ")"
		st[np] = "on the CPU"; cur = nc; sub(/[:\/].*/, "", cur)
		next
	}
	{
		for (i = 1; i <= NF && $i !~ /^[0-9]+\.[0-9]+:$/; i++) ;
		for (j = i + 1; j <= NF && $j !~ /^[QGIDCFM]$/; j++) ;
		if (j > NF || $(j + 1) !~ /W/) next
		t = substr($i, 1, length($i) - 1) + 0; a = $j; sec = $(j + 2)
		adv(t)
		g = /\/b8w100 / ? 1 : /\/b8w200 / ? 2 : 0
		if (t0 == "") t0 = t
		if (gs != "" && (n[2] > 0 || gp[2] > 0 || qp[2] > 0)) {
			if (t - gs > 0.002) {
				ng++; tot += t - gs; after[lqc]++
				for (k in gst) sst[k] += gst[k]
				for (k in gcpu) scpu[k] += gcpu[k]
			}
			gs = ""; delete gst; delete gcpu
		}
		if (a == "Q" && g) {
			qg[sec] = g; qp[g]++; nq[g == 1 ? 100 : 200, $NF]++
			if (g == 2) { lq = $1; sub(/.*-/, "", lq); lqc = $NF }
		} else if (a == "M" || a == "F" || a == "G") {
			if (sec in qg) { qp[qg[sec]]--; delete qg[sec] }
			if (a == "G" && g) gp[g]++
			if (a == "F") {
				old = sec + $(j + 4)
				if (old in grp) { grp[sec] = grp[old]; delete grp[old] }
			}
		} else if (a == "I" && g) {
			grp[sec] = g; n[g]++; if (gp[g] > 0) gp[g]--
		} else if (a == "C" && (sec in grp)) {
			n[grp[sec]]--; delete grp[sec]
		}
		if (gs == "" && !(n[2] > 0 || gp[2] > 0 || qp[2] > 0)) gs = t
		last = t
	} END {
		printf "%.1f s traced; weight-200 gaps over 2 ms: %d, %.0f ms (%.1f %%)\n",
			last - t0, ng, 1000 * tot, (last > t0 ? 100 * tot / (last - t0) : 0)
		for (k in sst) printf "  the last submitter %s: %.0f ms\n", k, 1000 * sst[k]
		for (k in scpu) printf "  the CPU ran %s: %.0f ms\n", k, 1000 * scpu[k]
		for (k in after) printf "  gaps after a write queued by %s: %d\n", k, after[k]
		for (k in nq) { split(k, p, SUBSEP); printf "  writes of weight %s queued by %s: %d\n", p[1], p[2], nq[k] }
	}'
}

# stacks: the three most frequent stacks of fio's bios, from the trace
stacks() {
	awk '/<stack trace>/ { on = 1; s = ""; n = 0; next }
		/^ => / && on { if (n++ < 12) s = s " " $2; next }
		{ if (on && s != "") c[s]++; on = 0 }
		END { if (on && s != "") c[s]++; for (k in c) print c[k], k }' |
		sort -rn | head -3
}

modprobe hddsim
use_sched hdd0 "$s"
wb_writers "$s" 32 --invalidate="$inv"
blk_trace_ready 131072
echo 1 >$T/events/sched/sched_switch/enable
echo 'comm == "fio"' >$T/events/block/block_bio_queue/filter
echo 'stacktrace if comm == "fio"' >$T/events/block/block_bio_queue/trigger
echo 1 >$T/events/block/block_bio_queue/enable
sleep 10
echo 1 >$T/tracing_on
sleep 20
echo 0 >$T/tracing_on
wait
echo 0 >/sys/block/hdd0/trace/enable
echo 0 >$T/events/sched/sched_switch/enable
echo 0 >$T/events/block/block_bio_queue/enable
echo '!stacktrace if comm == "fio"' >$T/events/block/block_bio_queue/trigger
echo "== $s, fio --invalidate=$inv"
grep -v 'block_bio_queue:' $T/trace | gaps
echo "fio's own writes, the most frequent stacks:"
stacks <$T/trace
echo nop >$T/current_tracer
rm -f /mnt/b8/f100 /mnt/b8/f200
umount /mnt/b8
rmdir $cg/b8w100 $cg/b8w200
use_sched hdd0 none
rmmod hddsim
