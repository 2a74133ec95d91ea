# title: B1, weight groups on an 8-spindle array: sequential readers in cgroups weighted 100 and 200
# schedulers: cfq,cfq:slice_idle=0+group_idle=8,cfq:slice_idle=0+group_idle=0,bfq,none+iocost,none,mq-deadline,kyber
# plot: 6 by 2; ylabel MB/s of weight 200 / MB/s of weight 100; title share of the weight-200 group (goal 2.0); goal 2.0; ymax 4
# plot: 7 by 2; ylabel total MB/s (both groups); title throughput kept (higher is better)
# The 2010 group_idle seed: two cgroups with weights 100 and 200 and N
# sequential readers each (buffered 4k reads of separate 512 MiB regions)
# on a striped array (hddsim array=1, 8 spindles, 64 KiB chunks). Weights
# are io.cfq.weight for cfq, io.bfq.weight for bfq, io.weight for
# none+iocost (none with the iocost controller on, its default cost model);
# plain none, mq-deadline and kyber have none: they give the throughput of
# not idling at all, the reference for the total.
# The guest's one CPU (1 instruction per ns under -icount) reads about
# 250-300 MB/s buffered at most, so at N=1 the total is CPU-bound.
# bench/b1d-groups-direct.sh runs this script with B1_DIRECT=1: each reader
# reads 128 KiB (the read-ahead size) with O_DIRECT, one request at a time,
# as read-ahead would without the page cache's copying.
set -euo pipefail
. /cfq/bench/lib.sh
quick=$1; scheds=$2
# Guest time is deterministic, so short runs repeat exactly. They are short
# because buffered reading is dear to emulate (about a minute of host CPU
# per GB read): 2 s is 6-7 rounds of cfq's 300 ms group scheduling. The
# first 0.5 s are not counted: the two fio start one after the other.
rt=$([ "$quick" = 1 ] && echo 1 || echo 2)
ramp=0.5
io="--bs=4k"
if [ "${B1_DIRECT:-0}" = 1 ]; then
	# direct reads cost the emulator little: 12 s, 40 rounds of 300 ms
	# (4 s runs moved cfq's N=1 ratio between 1.83 and 1.96 on 6.1)
	rt=$([ "$quick" = 1 ] && echo 1 || echo 12)
	io="--direct=1 --bs=128k"
fi
ns=$([ "$quick" = 1 ] && echo "1 4" || echo "1 2 4 8")
modprobe hddsim array=1 spindles=8 chunk_kb=64 capacity_mb=16384
load_scheds "$scheds"
dev=$(cat /sys/block/hdd0/dev)
cg=/sys/fs/cgroup
echo +io >$cg/cgroup.subtree_control
mkdir -p $cg/g100 $cg/g200

# weights CONFIG: set 100/200 in the weight file CONFIG uses, print its name
weights() {
	local f=
	case $1 in
	cfq*) f=io.cfq.weight ;;
	bfq) f=io.bfq.weight ;;
	none+iocost)
		f=io.weight
		echo "$dev enable=1" >$cg/io.cost.qos ;;
	esac
	[ -n "$f" ] && [ -e $cg/g100/$f ] || { echo "-"; return; }
	echo 100 >$cg/g100/$f
	echo 200 >$cg/g200/$f
	echo "$f"
}
# mbps FILE: summed read bandwidth of fio's terse lines, MB/s
mbps() { awk -F';' 'NF > 100 { kb += $7 } END { printf "%.1f", kb / 1000 }' "$1"; }

table "scheduler" "readers per group" "weight file" "MB/s weight 100" "MB/s weight 200" "ratio" "total MB/s"
for s in $scheds; do
	use_sched hdd0 "${s%+iocost}"
	wf=$(weights "$s")
	for n in $ns; do
		drop_caches
		# group 100 reads regions 0..n-1, group 200 regions n..2n-1
		for g in 100 200; do
			base=$([ $g = 100 ] && echo 0 || echo "$n")
			# shellcheck disable=SC2086 # $io is several options
			bash -c 'echo $$ >"$1/cgroup.procs"; shift; exec fio "$@"' _ "$cg/g$g" \
				--minimal --filename=/dev/hdd0 --rw=read $io --size=512M \
				--offset=$((base * 512))M --offset_increment=512M --numjobs="$n" \
				--runtime="$rt" --ramp_time=$ramp --time_based --name="g$g" >"/tmp/b1.$g" &
		done
		wait
		r100=$(mbps /tmp/b1.100)
		r200=$(mbps /tmp/b1.200)
		row "$s" "$n" "$wf" "$r100" "$r200" \
			"$(awk -v a="$r200" -v b="$r100" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
			"$(awk -v a="$r200" -v b="$r100" 'BEGIN { printf "%.1f", a + b }')"
	done
	[ "$s" = none+iocost ] && echo "$dev enable=0" >$cg/io.cost.qos
done
table_end
