#!/bin/bash
# ionice: best-effort level 0 gets more than level 7, in the direction of
# CFQ's slice scaling (sync slices of 180 ms vs 40 ms, and level 7 comes
# round less often): two sequential readers on the emulated disk for 3 s,
# the level-0 one gets 2 to 9 times the other's throughput (4.5 expected),
# so level 7 is slowed, not starved; checked with either on either half
# of the disk.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 240
set -euo pipefail

hdd_setup

# levels OFFSET HI LO: level 0 read HI KiB/s at OFFSET, level 7 LO
levels() {
	local hi=$2 lo=$3
	log "level 0 at $1: level 0 $hi KiB/s, level 7 $lo KiB/s" \
		"(ratio $(awk -v h="$hi" -v l="$lo" 'BEGIN { if (l) printf "%.2f", h / l; else print "inf" }'))"
	[ "$lo" -gt 0 ] || fail "the level-7 reader got nothing"
	[ "$hi" -ge $((2 * lo)) ] || fail "level 0 $hi KiB/s is not 2 x level 7 $lo KiB/s"
	[ "$hi" -le $((9 * lo)) ] || fail "level 7 starved: $lo KiB/s vs level 0 $hi KiB/s"
}
hdd_reader_pair 3 levels hi "-c2 -n0" lo "-c2 -n7"

sched_set hdd0 none
rmmod hddsim
