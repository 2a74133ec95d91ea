#!/bin/bash
# The global sliding window (sliding_window=1): every dispatch is the
# active queue's first request at or after the head (end of the last
# dispatch, of any queue) minus 2 x back_seek_max sectors, or its lowest
# when none is left above (or, inside a slice, the cached successor of the
# queue's previous dispatch), across queue switches too; after a
# FIFO-forced dispatch the sweep goes on from there. Checked on the emulated disk with
# 4 random readers at depth 16 (libaio), replaying the blk tracer's insert
# (I) events and cfq's dispatch and fifo notes: no dispatch may break the
# rule. With sliding_window=0 (CFQ 4.20's neighbour rule) a queue resumes
# from its own last position: some dispatches break it and more queue
# switches jump backwards.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 300
set -euo pipefail

hdd_setup
Q=/sys/block/hdd0/queue/iosched

# check: replay /tmp/trace.txt; prints "dispatches descending switches
# descending_at_switch off_window fifo_forced unknown"
check() {
	awk -v win=$(($(cat $Q/back_seek_max) * 2)) '
	# lowest queued sector >= from of process pid, or -1
	function lowest(pid, from,    k, s, best, p) {
		best = -1
		for (k in pending) {
			split(k, p, SUBSEP)
			if (p[1] != pid) continue
			s = p[2] + 0
			if (s >= from && (best < 0 || s < best)) best = s
		}
		return best
	}
	{ for (i = 1; i <= NF; i++) if ($i == "I" || $i == "m") break }
	i <= NF && $i == "I" && $(i + 3) == "+" {
		task = $1; sub(/.*-/, "", task)	# inserted by the process itself
		pending[task SUBSEP ($(i + 2) + 0)] = 1
		next
	}
	/ m +N cfq[0-9]+[SA]N? +fifo=/ { forced = 1; next }
	match($0, /cfq[0-9]+[SA]N? +dispatch [0-9]+\+[0-9]+/) {
		split(substr($0, RSTART + 3, RLENGTH - 3), f, /[SAN ]+|\+/)
		pid = f[1]; sec = f[3] + 0; key = pid SUBSEP sec
		if (!(key in pending)) { unknown++; last = sec + f[4]; forced = 0; next }
		n++
		if (n > 1 && sec < prev) desc++
		if (n > 1 && pid != ppid) { sw++; if (sec < prev) swdesc++ }
		if (forced) {
			nforced++
		} else if (n > 1) {
			want = lowest(pid, last > win ? last - win : 0)
			if (want < 0) want = lowest(pid, 0)
			# or, inside a slice, the cached successor of the last one
			succ = -1
			if (pid == ppid && !pforced) {
				succ = lowest(pid, prev + 1)
				if (succ < 0) succ = lowest(pid, 0)
			}
			if (sec != want && sec != succ) off++
		}
		delete pending[key]
		prev = sec; ppid = pid; last = sec + f[4]; pforced = forced; forced = 0
	}
	END { printf "%d %d %d %d %d %d %d\n", n, desc, sw, swdesc, off, nforced, unknown }
	' /tmp/trace.txt
}

# readers: 3 s of 4 random readers, traced; sets the counts of check
readers() {
	trace_start hdd0
	fio --eta=never --minimal --output=/tmp/sw.fio --direct=1 --bs=4k \
		--rw=randread --ioengine=libaio --iodepth=16 --runtime=3 \
		--time_based --filename=/dev/hdd0 --name=r --numjobs=4 \
		--size=4G || fail "fio failed"
	trace_stop hdd0
	read -r n desc sw swdesc off forced unknown <<<"$(check)"
	log "sliding_window=$(cat $Q/sliding_window) fifo_expire_sync=$(cat $Q/fifo_expire_sync):" \
		"$n dispatches, $desc descending; $sw queue switches, $swdesc descending;" \
		"$off off the window, $forced FIFO-forced, $unknown unmatched"
	[ "$n" -ge 200 ] && [ "$sw" -ge 10 ] || fail "too few dispatches ($n) or switches ($sw) to judge"
	[ "$unknown" -le $((n / 100)) ] || fail "$unknown dispatches not matched to an insert"
}

# with the FIFO (default 125 ms) forcing requests out of order
readers
[ "$forced" -gt 0 ] || fail "no FIFO-forced dispatch"
[ "$off" = 0 ] || fail "sliding window with FIFO: $off of $n dispatches off the window"

# without it: the window alone decides
echo 10000 >$Q/fifo_expire_sync
readers
[ "$off" = 0 ] || fail "sliding window: $off of $n dispatches off the window"
w_swdesc=$swdesc w_sw=$sw

echo 0 >$Q/sliding_window
readers
[ "$off" -ge 5 ] || fail "sliding_window=0: only $off dispatches off the window, no different order"
[ $((swdesc * w_sw)) -gt $((w_swdesc * sw)) ] ||
	fail "sliding_window=0: $swdesc of $sw switches descending, not more than $w_swdesc of $w_sw with the window"

echo 1 >$Q/sliding_window
echo 125 >$Q/fifo_expire_sync
sched_set hdd0 none
rmmod hddsim
