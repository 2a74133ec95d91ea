#!/bin/bash
# The idle timer in cfq's blktrace notes: with the default slice_idle,
# sequential readers (one pausing 20 ms every 8 requests) and a random
# reader on the emulated disk make cfq arm the idle timer, end waits on
# the awaited request and let the timer fire; with slice_idle=0 there is
# not one arm_idle, "idle wait ends" or "idle timer fired" note.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 240
set -euo pipefail

hdd_setup

# count PATTERN: cfq notes in /tmp/trace.txt matching PATTERN
count() { grep -cE " m +N cfq[0-9]+[SA]N? +$1" /tmp/trace.txt || true; }

# load: traced readers for 3 s; sets arm, ends, fired, disp (note counts)
load() {
	trace_start hdd0
	fio --eta=never --minimal --output=/tmp/idle.fio --direct=1 --bs=128k \
		--ioengine=psync --runtime=3 --time_based --filename=/dev/hdd0 \
		--name=seq --rw=read --offset=0 --size=512M \
		--name=think --rw=read --offset=1G --size=512M \
		--thinktime=20000 --thinktime_blocks=8 \
		--name=rand --rw=randread --bs=4k --offset=2G --size=1G ||
		fail "fio failed"
	trace_stop hdd0
	arm=$(count "arm_idle")
	ends=$(count "idle wait ends")
	fired=$(count "idle timer fired")
	disp=$(count "dispatch [0-9]")
	log "slice_idle=$(cat /sys/block/hdd0/queue/iosched/slice_idle):" \
		"$disp dispatches, $arm arm_idle, $ends idle wait ends, $fired idle timer fired;" \
		"KiB/s: $(awk -F';' '{ printf "%s %s ", $3, $7 }' /tmp/idle.fio)"
	[ "$disp" -gt 100 ] || fail "only $disp dispatch notes traced"
}

load
[ "$arm" -ge $((disp / 4)) ] || fail "default: only $arm arm_idle notes for $disp dispatches"
[ "$ends" -gt 0 ] || fail "default: no 'idle wait ends' note"
[ "$fired" -gt 0 ] || fail "default: no 'idle timer fired' note"

echo 0 >/sys/block/hdd0/queue/iosched/slice_idle
load
[ "$arm" = 0 ] && [ "$ends" = 0 ] && [ "$fired" = 0 ] ||
	fail "slice_idle=0: $arm arm_idle, $ends idle wait ends, $fired idle timer fired notes"

sched_set hdd0 none
rmmod hddsim
