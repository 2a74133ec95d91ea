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

hdd_setup

# classes OFFSET RT BE: the RT reader read RT KiB/s at OFFSET, BE's BE
classes() {
	local rt=$2 be=$3
	log "RT at $1: RT $rt KiB/s, BE $be KiB/s"
	[ "$rt" -gt 0 ] || fail "the RT reader got nothing"
	[ "$rt" -ge $((4 * be)) ] || fail "RT $rt KiB/s is not 4 x BE $be KiB/s"
}
hdd_reader_pair 3 classes rt "-c1 -n4" be "-c2 -n4"

sched_set hdd0 none
rmmod hddsim
