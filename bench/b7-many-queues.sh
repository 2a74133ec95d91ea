# title: B7, many queues: 4k random reads on null_blk (irqmode=0) by 10, 100 and 1000 threads
# plot: 2,4,6; names 10 threads,100 threads,1000 threads; ylabel IOPS (4k random reads, QD1 each); title IOPS (higher is better); format %.0s%c
# plot: 3,5,7; names 10 threads,100 threads,1000 threads; ylabel guest us per I/O above none; title cost per I/O (lower is better); values
# Guest script: what a scheduler's per-I/O cost becomes when it has many
# queues. N fio threads (each its own io context: its own queue in cfq and
# bfq) read 4k at random, psync, from a non-rotational null_blk that
# completes in the submitting context, so the scheduler's CPU time is all
# that differs; the cost per I/O above none is in guest time (-icount:
# 1 ns = 1 instruction).
set -euo pipefail
. /cfq/bench/lib.sh
quick=$1; scheds=$2
rt=$([ "$quick" = 1 ] && echo 1 || echo 2)
modprobe null_blk queue_mode=2 irqmode=0 gb=4 hw_queue_depth=1024
load_scheds "$scheds"
iops() {
	fio --minimal --thread --name=b7 --filename=/dev/nullb0 --rw=randread \
		--bs=4k --direct=1 --ioengine=psync --numjobs="$1" --group_reporting \
		--runtime="$rt" --time_based --ramp_time=1 |
		awk -F';' 'NF > 100 { print $8 }'
}
declare -A r
for s in $scheds; do
	echo "$s" >/sys/block/nullb0/queue/scheduler
	for n in 10 100 1000; do
		r[$s.$n]=$(iops $n)
	done
done
cost() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", 1e6 / a - 1e6 / b }'; }
echo TABLE-BEGIN
echo "| scheduler | 10 threads IOPS | us/IO above none | 100 threads IOPS | us/IO above none | 1000 threads IOPS | us/IO above none |"
echo "|---|---|---|---|---|---|---|"
for s in $scheds; do
	line="| $s"
	for n in 10 100 1000; do
		line="$line | ${r[$s.$n]} | $(cost "${r[$s.$n]}" "${r[none.$n]}")"
	done
	echo "$line |"
done
echo TABLE-END
echo none >/sys/block/nullb0/queue/scheduler
