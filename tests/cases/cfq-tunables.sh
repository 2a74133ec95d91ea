#!/bin/bash
# Every cfq tunable: its default, a valid round trip, and -EINVAL with the
# old value kept for an empty, textual, negative, 2^64 and out-of-range
# write. Defaults are checked on a rotational and a non-rotational queue
# (slice_idle is 0 where seeks are free).
set -euo pipefail

nullb_load queue_mode=2 irqmode=0 gb=1
dir=/sys/block/nullb0/queue/iosched

# name default valid out-of-range
tunables="
quantum 8 4 0
fifo_expire_sync 125 200 0
fifo_expire_async 250 300 0
back_seek_max 16384 1024 4294967296
back_seek_penalty 2 5 0
slice_sync 100 50 0
slice_sync_us 100000 50000 0
slice_async 40 20 0
slice_async_us 40000 20000 0
slice_async_rq 2 3 0
slice_idle 8 4 4294967296
slice_idle_us 8000 4000 4294967296
group_idle 8 2 4294967296
group_idle_us 8000 2000 4294967296
low_latency 1 0 2
target_latency 300 150 0
target_latency_us 300000 150000 0
sliding_window 1 0 2
startup_boost 4000 1000 4294967296
"

# bad_write FILE VALUE: the write must fail with EINVAL
bad_write() {
	local err
	if err=$(printf '%s\n' "$2" 2>&1 >"$1"); then
		fail "$(basename "$1"): writing '$2' succeeded"
	fi
	case $err in
	*"Invalid argument"*) ;;
	*) fail "$(basename "$1"): writing '$2' failed with '$err', not EINVAL" ;;
	esac
}

echo 1 >/sys/block/nullb0/queue/rotational
sched_set nullb0 cfq
n=0
while read -r name def valid oor; do
	[ -n "$name" ] || continue
	f=$dir/$name
	[ -f "$f" ] || fail "$name: missing"
	[ "$(cat "$f")" = "$def" ] || fail "$name: default $(cat "$f"), expected $def"
	echo "$valid" >"$f" || fail "$name: writing $valid failed"
	[ "$(cat "$f")" = "$valid" ] || fail "$name: wrote $valid, reads $(cat "$f")"
	for bad in "" abc 12abc -1 18446744073709551616 "$oor"; do
		bad_write "$f" "$bad"
		[ "$(cat "$f")" = "$valid" ] || fail "$name: changed to $(cat "$f") by '$bad'"
	done
	echo "$def" >"$f"
	n=$((n + 1))
done <<<"$tunables"
[ "$n" -eq 19 ] || fail "checked $n tunables, expected 19"
[ "$(ls "$dir" | wc -l)" -eq 19 ] || fail "unexpected files: $(ls "$dir" | tr '\n' ' ')"

# the ms and us files are two views of one value
echo 12 >"$dir/slice_idle"
[ "$(cat "$dir/slice_idle_us")" = 12000 ] || fail "slice_idle_us does not follow slice_idle"
echo 1500 >"$dir/slice_sync_us"
[ "$(cat "$dir/slice_sync")" = 1 ] || fail "slice_sync does not follow slice_sync_us"

# non-rotational: no idling by default
sched_set nullb0 none
echo 0 >/sys/block/nullb0/queue/rotational
sched_set nullb0 cfq
[ "$(cat "$dir/slice_idle")" = 0 ] || fail "slice_idle $(cat "$dir/slice_idle") on a non-rotational queue"
sched_set nullb0 none
rmmod null_blk
log "$n tunables checked"
