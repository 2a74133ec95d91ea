# title: B4, sliding window: 4 processes x 10 threads reading random 4-block runs (hddsim, depth 1)
# schedulers: none,mq-deadline,kyber,bfq,cfq,cfq:sliding_window=0
# plot: 2; title work done (higher is better); values
# plot: 5; ylabel mean seek (million sectors); scale 1e-6; title mean seek distance (lower is better); values
# The 2005 seed: many concurrent readers of short random runs on one disk
# that does no reordering of its own (hddsim depth=1): the scheduler's
# order decides the seeks. Operations completed in a fixed time.
set -euo pipefail
. /cfq/bench/lib.sh
quick=$1; scheds=$2
rt=$([ "$quick" = 1 ] && echo 5 || echo 20)
modprobe hddsim depth=1
load_scheds "$scheds"
table "scheduler" "operations (4-block runs)" "MB/s" "seeks" "mean seek (sectors)"
for s in $scheds; do
	use_sched hdd0 "$s"
	echo 1 >/sys/block/hdd0/hddsim/reset
	# 40 threads: each its own io_context, so 40 sync queues (as 4 x 10)
	res=$(fio --minimal --thread --numjobs=40 --filename=/dev/hdd0 --rw=randread:4 \
		--bs=4k --direct=1 --size=2G --runtime="$rt" --time_based --name=b4 | awk -F';' 'NF > 100 { io += $6; kb += $7 } END { print io, kb }')
	read -r kib kbps <<<"$res"
	seeks=$(awk '$1 == "seeks" { print $2 }' /sys/block/hdd0/hddsim/stats)
	dist=$(awk '$1 == "seek_sectors" { print $2 }' /sys/block/hdd0/hddsim/stats)
	row "$s" "$((kib / 16))" "$(awk -v k="$kbps" 'BEGIN { printf "%.2f", k / 1000 }')" \
		"$seeks" "$((dist / (seeks > 0 ? seeks : 1)))"
done
table_end
