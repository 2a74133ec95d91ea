# title: B5, scheduler overhead: 4k random reads on null_blk (irqmode=0)
# plot: 2,4; names QD1 (psync),QD32 (libaio); ylabel IOPS (4k random reads); title IOPS (higher is better); format %.0s%c
# plot: 3,5; names QD1 (psync),QD32 (libaio); ylabel guest us per I/O above none; title cost per I/O (lower is better); values
# Guest script: IOPS at QD1 (psync) and QD32 (libaio) per scheduler, and the
# guest-time cost per I/O above 'none' (with -icount, 1 ns = 1 instruction).
set -euo pipefail
quick=$1; scheds=$2
# IOPS on null_blk settle within a fraction of a second; the runs are
# CPU-bound, so each second costs about 10 s of emulation
rt=$([ "$quick" = 1 ] && echo 1 || echo 2)
modprobe null_blk queue_mode=2 irqmode=0 gb=4 hw_queue_depth=64
for s in $scheds; do case $s in bfq|cfq) modprobe $s ;; kyber) modprobe kyber-iosched ;; esac; done
iops() {
	fio --minimal --name=b5 --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 \
		--runtime="$rt" --time_based --ramp_time=0.5 "$@" | awk -F';' 'NF > 100 { print $8 }'
}
declare -A qd1 qd32
for s in $scheds; do
	echo "$s" >/sys/block/nullb0/queue/scheduler
	qd1[$s]=$(iops --ioengine=psync)
	qd32[$s]=$(iops --ioengine=libaio --iodepth=32)
done
# without 'none' in the run (--sched) there is no base to cost against
cost() { [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", 1e6 / a - 1e6 / b }'; }
echo TABLE-BEGIN
echo "| scheduler | QD1 IOPS | QD1 us/IO above none | QD32 IOPS | QD32 us/IO above none |"
echo "|---|---|---|---|---|"
for s in $scheds; do
	echo "| $s | ${qd1[$s]} | $(cost "${qd1[$s]}" "${qd1[none]:-}") | ${qd32[$s]} | $(cost "${qd32[$s]}" "${qd32[none]:-}") |"
done
echo TABLE-END
echo none >/sys/block/nullb0/queue/scheduler
