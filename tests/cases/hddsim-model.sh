#!/bin/bash
# hddsim's service-time model (tests/modules/hddsim): throughput of the
# single disk (sequential reads and writes, random 4k reads at QD1) and of
# the 8-spindle array (one stream of full-stripe reads; eight streams, one
# per spindle) must each be within 10 % of the model's own formula, computed
# here from the module's parameters and derived geometry (hddsim/model).
# Guest time is deterministic (--icount), so are the numbers.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 600
set -euo pipefail

M=/sys/block/hdd0/hddsim/model

# hdd_load PARAM...: (re)load hddsim, scheduler none
hdd_load() {
	rmmod hddsim 2>/dev/null || true
	modprobe hddsim "$@" || fail "modprobe hddsim $* failed"
	[ -b /dev/hdd0 ] || fail "no /dev/hdd0"
	sched_set hdd0 none
}
# model KEY: a value of /sys/block/hdd0/hddsim/model
model() { awk -v k="$1" '$1 == k { print $2 }' $M; }
# hstat KEY: a value of /sys/block/hdd0/hddsim/stats
hstat() { awk -v k="$1" '$1 == k { print $2 }' /sys/block/hdd0/hddsim/stats; }
# within WHAT MEASURED EXPECTED: print both; fail unless within 10 %
within() {
	awk -v w="$1" -v m="$2" -v e="$3" 'BEGIN {
		printf "%-44s measured %10.1f  model %10.1f  ratio %.3f\n", w, m, e, m / e
		exit !(m >= 0.9 * e && m <= 1.1 * e) }' ||
		fail "$1: measured $2, model $3: not within 10 %"
}

# fio_do ARGS...: run fio on hdd0 (direct); sets ri (read IOPS), rk, wk (KiB/s)
fio_do() {
	local out
	out=$(fio_run --filename=/dev/hdd0 --direct=1 --time_based "$@") || fail "$out"
	read -r ri _ rk wk <<<"$out"
}
fio_seq() { fio_do --ioengine=psync "$@"; }

# --- single disk, defaults ---
hdd_load
[ "$(cat /sys/block/hdd0/queue/rotational)" = 1 ] || fail "hdd0 not rotational"
sector_ps=$(model sector_ps)
# media rate in KiB/s (fio's unit): 512 bytes per sector_ps picoseconds
rate_kib=$(awk -v s="$sector_ps" 'BEGIN { printf "%.1f", 512e12 / s / 1024 }')

# Sequential: 1 MiB reads at QD1; the media streams on between requests,
# so the throughput is the transfer rate.
fio_seq --name=seqr --rw=read --bs=1M --runtime=3
within "disk: sequential read 1M QD1 (KiB/s)" "$rk" "$rate_kib"
fio_seq --name=seqw --rw=write --bs=1M --size=256M --runtime=3
within "disk: sequential write 1M QD1 (KiB/s)" "$wk" "$rate_kib"

# Random 4k reads at QD1 over the whole disk: every request pays the mean
# seek between two uniformly random tracks, half a revolution, and the
# transfer.  With seek(d) = t2t + (full - t2t) sqrt((d - 1) / (T - 1)) for
# a distance of d >= 1 tracks out of T, the mean is t2t (1 - 1/T) +
# (full - t2t) 8/15 (the mean of sqrt|x - y| for x, y uniform in [0, 1];
# the guest's awk has no sqrt for the exact sum, which differs by < 0.1 %).
echo 1 >/sys/block/hdd0/hddsim/reset
fio_seq --name=randr --rw=randread --bs=4k --runtime=10
expect=$(awk -v T="$(model tracks)" -v t2t="$(model t2t_ns)" -v full="$(model full_ns)" \
	-v rev="$(model rev_ps)" -v s="$sector_ps" 'BEGIN {
	seek = t2t * (1 - 1 / T) + (full - t2t) * 8 / 15
	printf "%.2f", 1e9 / (seek + rev / 2000 + 8 * s / 1000) }')
within "disk: random read 4k QD1 (IOPS)" "$ri" "$expect"
awk -v n="$(hstat requests)" -v s="$(hstat seek_ns)" -v r="$(hstat rot_ns)" 'BEGIN {
	printf "  %d requests, mean seek %.2f ms, mean rotation %.2f ms\n", n, s / n / 1e6, r / n / 1e6 }'

# The same over the first quarter of the disk: distances scale by 1/4, so
# the mean seek is t2t (1 - 4/T) + (full - t2t) 8/15 sqrt(1/4).
fio_seq --name=randq --rw=randread --bs=4k --size=$(( $(model spindle_sectors) / 8 ))k --runtime=5
expect_q=$(awk -v T="$(model tracks)" -v t2t="$(model t2t_ns)" -v full="$(model full_ns)" \
	-v rev="$(model rev_ps)" -v s="$sector_ps" 'BEGIN {
	seek = t2t * (1 - 4 / T) + (full - t2t) * 8 / 15 / 2
	printf "%.2f", 1e9 / (seek + rev / 2000 + 8 * s / 1000) }')
within "disk: random read 4k QD1, 1/4 span (IOPS)" "$ri" "$expect_q"

# NCQ (depth 32, fio iodepth 32) reorders by positioning time: it must beat
# QD1 by far (no formula: informational, checked loosely).
hdd_load depth=32
fio_do --ioengine=libaio --iodepth=32 --name=ncq --rw=randread --bs=4k --runtime=5
qi=$ri
echo "disk: random read 4k QD32 depth=32 (IOPS)       measured $qi (QD1 model $expect)"
awk -v q="$qi" -v e="$expect" 'BEGIN { exit !(q > 1.5 * e) }' ||
	fail "NCQ depth 32: $qi IOPS, not above 1.5 x QD1 ($expect)"

# --- array: 8 spindles, 64 KiB chunks, depth 1 ---
hdd_load array=1
n=$(model spindles)
chunk_kib=$(( $(model chunk_sectors) / 2 ))
{ [ "$n" = 8 ] && [ "$chunk_kib" = 64 ]; } || fail "array: $n spindles of $chunk_kib KiB chunks, expected 8 x 64"

# One stream of full-stripe reads: each is split into one chunk per
# spindle, all served in parallel: n x the transfer rate.
fio_seq --name=stripe --rw=read --bs=$((n * chunk_kib))k --runtime=3
within "array: 1 stream, full-stripe reads (KiB/s)" "$rk" "$(awk -v r="$rate_kib" -v n="$n" 'BEGIN { print r * n }')"

# n streams, stream j reading the chunks of spindle j (chunk j, j + n,
# j + 2n...) sequentially: each spindle streams one of them, in parallel.
echo 1 >/sys/block/hdd0/hddsim/reset
jobs=()
for ((j = 0; j < n; j++)); do jobs+=(--name="s$j" --offset=$((j * chunk_kib))k); done
fio_seq --rw=read:$(((n - 1) * chunk_kib))k --bs=${chunk_kib}k --runtime=3 "${jobs[@]}"
within "array: $n streams, one per spindle (KiB/s)" "$rk" "$(awk -v r="$rate_kib" -v n="$n" 'BEGIN { print r * n }')"
[ "$(hstat seeks)" -le $((2 * n)) ] || fail "array: $(hstat seeks) seeks for $n sequential streams"
rmmod hddsim
