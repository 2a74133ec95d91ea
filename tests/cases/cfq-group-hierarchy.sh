#!/bin/bash
# Hierarchical weights: cgroup A (io.cfq.weight 200) with children A1 and
# A2 (100 each) against B (100), one sequential reader in each of A1, A2
# and B on the emulated disk. A's share is 2/3, split evenly between its
# children, B's 1/3: A1 + A2 together get 2.0 +- 0.3 times B's throughput
# and A1 and A2 the same (A1/A2 within 0.8 .. 1.25); in time mode and
# with slice_idle=0 group_idle=8.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 300
set -euo pipefail

hdd_setup
cg_make hA 200
echo +io >$CG/hA/cgroup.subtree_control
cg_make hA/a1 100
cg_make hA/a2 100
cg_make hB 100

# split MODE: a sequential 64k reader in each of A1, A2 and B for 5 s
split() {
	hdd_reader -g hA/a1 -b 64k a1 0 5 &
	hdd_reader -g hA/a2 -b 64k a2 1G 5 &
	hdd_reader -g hB -b 64k b 2G 5 &
	wait
	a1=$(fio_sum a1 7) a2=$(fio_sum a2 7) b=$(fio_sum b 7)
	ratio_in "$1, (A1 + A2):B" $((a1 + a2)) "$b" 1.7 2.3
	ratio_in "$1, A1:A2" "$a1" "$a2" 0.8 1.25
}

split "slice_idle=8"
echo 0 >/sys/block/hdd0/queue/iosched/slice_idle
split "slice_idle=0 group_idle=8"

hdd_teardown hA/a1 hA/a2 hA hB
