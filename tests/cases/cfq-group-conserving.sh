#!/bin/bash
# Weight groups are work-conserving: a lone sequential reader in a cgroup
# of weight 100 whose sibling has weight 1000 but does no I/O gets the
# whole disk, at least 95 % of what the same reader gets alone outside any
# cgroup: with the sibling empty, and with a process in the sibling that
# read 16 MiB and then sleeps (its group was served, has a queue and a
# virtual time, and must not be idled for).
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 300
set -euo pipefail

hdd_setup
DEV=$(cat /sys/block/hdd0/dev)
cg_make wclo 100
cg_make wchi 1000

# the reader: sequential, 64k, at 0 for 4 s (hdd_reader); alone, it is in
# the root cgroup
hdd_reader -g . -b 64k alone 0 4
alone=$(fio_sum alone 7)
hdd_reader -g wclo -b 64k empty 0 4
ratio_in "next to an empty weight-1000 sibling, of alone" "$(fio_sum empty 7)" "$alone" 0.95 1.05

# the sibling reads 16 MiB elsewhere, then sleeps with its queue alive
in_cgroup wchi bash -c 'dd if=/dev/hdd0 of=/dev/null bs=64k count=256 \
	skip=32768 iflag=direct 2>/dev/null; exec sleep 60' &
sleeper=$!
for _ in $(seq 100); do
	[ "$(cg_stat wchi "$DEV" rbytes)" = 16777216 ] && break
	sleep 0.1
done
[ "$(cg_stat wchi "$DEV" rbytes)" = 16777216 ] || fail "the sibling's 16 MiB read did not finish"
hdd_reader -g wclo -b 64k idle 0 4
ratio_in "next to an idle weight-1000 sibling, of alone" "$(fio_sum idle 7)" "$alone" 0.95 1.05
# the sleep is a child of $!: end everything in the cgroup
echo 1 >$CG/wchi/cgroup.kill
wait $sleeper 2>/dev/null || true
for _ in $(seq 50); do
	[ -z "$(cat $CG/wchi/cgroup.procs)" ] && break
	sleep 0.1
done

hdd_teardown wclo wchi
