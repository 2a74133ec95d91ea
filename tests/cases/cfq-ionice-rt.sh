#!/bin/bash
# ionice: a real-time reader beats a best-effort one. Two sequential
# readers on the emulated disk, one RT (ionice -c1) and one BE (-c2), both
# level 4, for 3 s: RT is served before BE whenever it has work, so it
# gets at least 4 times BE's throughput (in CFQ it gets nearly all);
# checked with the RT reader on either half of the disk.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 240
set -euo pipefail

rmmod hddsim 2>/dev/null || true
modprobe hddsim || fail "modprobe hddsim failed"
sched_set hdd0 cfq

for rt_off in 0 2G; do
	be_off=$([ $rt_off = 0 ] && echo 2G || echo 0)
	hdd_reader rt $rt_off 3 -c1 -n4 &
	p1=$!
	hdd_reader be "$be_off" 3 -c2 -n4 &
	p2=$!
	wait $p1 || fail "RT fio failed"
	wait $p2 || fail "BE fio failed"
	rt=$(fio_kib rt) be=$(fio_kib be)
	log "RT at $rt_off: RT $rt KiB/s, BE $be KiB/s"
	[ "$rt" -gt 0 ] || fail "the RT reader got nothing"
	[ "$rt" -ge $((4 * be)) ] || fail "RT $rt KiB/s is not 4 x BE $be KiB/s"
done

sched_set hdd0 none
rmmod hddsim
