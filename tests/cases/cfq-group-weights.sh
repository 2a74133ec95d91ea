#!/bin/bash
# Weight groups on the emulated rotational disk, one sequential reader per
# cgroup, in time mode (slice_idle=8) and with idling off but group_idle
# on (slice_idle=0 group_idle=8):
#  - io.cfq.weight 100 and 200: the heavier gets 2.0 +- 0.25 times the
#    throughput of the lighter;
#  - 100, 200 and 400: each step is 2.0 +- 15 % (1.7 .. 2.3);
# and the group counters agree with the split.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 600
set -euo pipefail

hdd_setup
DEV=$(cat /sys/block/hdd0/dev)
cg_make w100 100
cg_make w200 200
cg_make w400 400

# The reader of weight W: hdd_reader in cgroup wW, 64k reads for 5 s,
# its KiB/s in /tmp/wW.fio
# two MODE: 100 against 200
two() {
	hdd_reader -g w100 -b 64k w100 0 5 &
	hdd_reader -g w200 -b 64k w200 1G 5 &
	wait
	ratio_in "$1, 200:100" "$(fio_sum w200 7)" "$(fio_sum w100 7)" 1.75 2.25
}
# three MODE: 100, 200 and 400
three() {
	hdd_reader -g w100 -b 64k w100 0 5 &
	hdd_reader -g w200 -b 64k w200 1G 5 &
	hdd_reader -g w400 -b 64k w400 2G 5 &
	wait
	ratio_in "$1, 200:100 of three" "$(fio_sum w200 7)" "$(fio_sum w100 7)" 1.7 2.3
	ratio_in "$1, 400:200 of three" "$(fio_sum w400 7)" "$(fio_sum w200 7)" 1.7 2.3
}

two "slice_idle=8"
# the counters split like the throughput: what each group read
r100=$(cg_stat w100 "$DEV" rbytes)
r200=$(cg_stat w200 "$DEV" rbytes)
grep "^$DEV " $CG/w100/io.cfq.stat | sed 's/^/# w100: /'
grep "^$DEV " $CG/w200/io.cfq.stat | sed 's/^/# w200: /'
ratio_in "io.cfq.stat rbytes 200:100" "$r200" "$r100" 1.75 2.25
three "slice_idle=8"

echo 0 >/sys/block/hdd0/queue/iosched/slice_idle
two "slice_idle=0 group_idle=8"
three "slice_idle=0 group_idle=8"

hdd_teardown w100 w200 w400
