#!/bin/bash
# Buffered writers in cgroups of weight 100 and 200 (cgroup writeback: the
# io and memory controllers are on, so the flusher's writes carry the
# cgroup that dirtied the pages) on ext4 on the emulated disk: the bytes
# written back for the heavier group, as io.cfq.stat counts them over the
# 3 s after the first 2 s, are 1.2 .. 3.5 times the lighter's on 6.12
# and 7.3. Without cfq's per-group share of the write tags
# (cfq_group_write_depth()) the flushers share the tags evenly and this
# was 1.32 (6.12) and 1.44 (6.1); with it 1.60 .. 2.17 (6.12, six runs,
# four of them in one boot), but a clean-clone check on 2026-12-03 saw
# 1.44 and then 2.83 on 6.12 (the split varies from run to run even under
# -icount), so the bounds only say the heavier group is ahead and neither
# is starved: they no longer tell the write-depth rule's absence apart.
# On 6.1 the split is not held: 0.76 .. 3.41 in 25 runs of this case and
# of variants (mounted data=writeback or commit=60, nr_requests=512, the
# memory controller left on), most of them repeated in one boot. A blk
# trace per cgroup shows why: for spells of 300 to 700 ms one group's
# flusher submits no bio at all, while the other's requests fill the
# disk, so cfq has nothing of the first group to weight. The split then
# follows 6.1's per-cgroup write-back pacing, upstream of the scheduler.
# So on 6.1 the case only checks that neither group is starved (each gets
# at least 10 % of the bytes).
# Each file is 1 GiB (fio loops over it) and not preallocated: two files
# of 4 GiB preallocated on the 4 GiB disk split its blocks between them
# by a race, and a writer that ran out of them stopped with ENOSPC.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 300
set -euo pipefail

hdd_setup
modprobe ext4 || fail "modprobe ext4 failed"
DEV=$(cat /sys/block/hdd0/dev)
mkfs.ext4 -q -F /dev/hdd0 || fail "mkfs.ext4 failed"
mkdir -p /mnt/wb
mount -t ext4 /dev/hdd0 /mnt/wb || fail "mount failed"
echo +memory >$CG/cgroup.subtree_control
cg_make wb100 100
cg_make wb200 200

wbytes() { cg_stat "$1" "$DEV" wbytes; }
for w in 100 200; do
	in_cgroup "wb$w" fio --eta=never --minimal --output="/tmp/wb$w.fio" \
		--name="wb$w" --rw=write --bs=1M --size=1G --fallocate=none --runtime=6 \
		--time_based --filename="/mnt/wb/f$w" &
done
# the dirty limits fill up in the first 2 s; then both groups write back
sleep 2
l0=$(wbytes wb100) h0=$(wbytes wb200)
sleep 3
l1=$(wbytes wb100) h1=$(wbytes wb200)
wait
log "fio KiB/s: weight 100 $(fio_sum wb100 48), weight 200 $(fio_sum wb200 48)"
log "written back in 3 s: weight 100 $(((l1 - l0) >> 20)) MiB, weight 200 $(((h1 - h0) >> 20)) MiB"
case $(uname -r) in
6.1.*)	ratio_in "6.1: weight 100's part of the bytes" $((l1 - l0)) \
		$((h1 - h0 + l1 - l0)) 0.1 0.9
	log "6.1: written back 200:100 $(awk -v h=$((h1 - h0)) -v l=$((l1 - l0)) \
		'BEGIN { printf "%.3f", l ? h / l : 0 }') (not asserted)" ;;
*)	ratio_in "written back 200:100" $((h1 - h0)) $((l1 - l0)) 1.2 3.5 ;;
esac

rm -f /mnt/wb/f100 /mnt/wb/f200
umount /mnt/wb
hdd_teardown wb100 wb200
echo -memory >$CG/cgroup.subtree_control
