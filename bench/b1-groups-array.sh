# title: B1, weight groups on an 8-spindle array: sequential readers in cgroups weighted 100 and 200
# schedulers: cfq,cfq:slice_idle=0+group_idle=8,cfq:slice_idle=0+group_idle=0,bfq,none,mq-deadline,kyber
# The 2010 group_idle seed: two cgroups with weights 100 and 200 and N
# sequential readers each (buffered 4k reads of separate 512 MiB regions)
# on a striped array (hddsim array=1, 8 spindles, 64 KiB chunks). Weights
# are io.cfq.weight for cfq, io.bfq.weight for bfq, io.weight (iocost) for
# none; mq-deadline and kyber have none.
set -euo pipefail
. /cfq/bench/lib.sh
quick=$1; scheds=$2
rt=$([ "$quick" = 1 ] && echo 5 || echo 15)
ns=$([ "$quick" = 1 ] && echo "1 4" || echo "1 2 4 8")
modprobe hddsim array=1 spindles=8 chunk_kb=64 capacity_mb=16384
load_scheds "$scheds"
dev=$(cat /sys/block/hdd0/dev)
cg=/sys/fs/cgroup
echo +io >$cg/cgroup.subtree_control
mkdir -p $cg/g100 $cg/g200

# weights SCHED: set 100/200 in the weight file SCHED uses
weights() {
	local f=
	case $1 in
	cfq*) f=io.cfq.weight ;;
	bfq) f=io.bfq.weight ;;
	none)
		f=io.weight
		echo "$dev enable=1" >$cg/io.cost.qos ;;
	esac
	[ -n "$f" ] && [ -e $cg/g100/$f ] || { echo "-"; return; }
	echo 100 >$cg/g100/$f
	echo 200 >$cg/g200/$f
	echo "$f"
}

table "scheduler" "readers per group" "weight file" "MB/s weight 100" "MB/s weight 200" "ratio" "total MB/s"
for s in $scheds; do
	use_sched hdd0 "$s"
	wf=$(weights "$s")
	for n in $ns; do
		drop_caches
		for g in 100 200; do
			base=$([ $g = 100 ] && echo 0 || echo "$n")
			bash -c 'echo $$ >'"$cg/g$g"'/cgroup.procs; exec fio --minimal --filename=/dev/hdd0 \
				--rw=read --bs=4k --size=512M --offset_increment=512M --offset='"$((base * 512))"'M \
				--numjobs='"$n"' --runtime='"$rt"' --time_based --name=g'"$g" >/tmp/b1.$g &
		done
		wait
		r100=$(awk -F';' 'NF > 100 { kb += $7 } END { printf "%.1f", kb / 1000 }' /tmp/b1.100)
		r200=$(awk -F';' 'NF > 100 { kb += $7 } END { printf "%.1f", kb / 1000 }' /tmp/b1.200)
		row "$s" "$n" "$wf" "$r100" "$r200" \
			"$(awk -v a="$r200" -v b="$r100" 'BEGIN { printf "%.2f", b > 0 ? a / b : 0 }')" \
			"$(awk -v a="$r200" -v b="$r100" 'BEGIN { printf "%.1f", a + b }')"
	done
	[ "$s" = none ] && echo "$dev enable=0" >$cg/io.cost.qos
done
table_end
