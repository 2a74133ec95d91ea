# title: B6, the journal case: O_DSYNC 512-byte writes from a child cgroup on ext4 (hddsim)
# schedulers: none,mq-deadline,kyber,bfq,cfq,cfq:slice_idle=0
# plot: 2; ylabel KB/s written (O_DSYNC 512 B); title throughput (higher is better); values
# plot: 3,4; names mean,max; ylabel write latency ms; title write latency (lower is better)
# An LKML report from 2019 against CFQ: a 'dd bs=512 oflag=dsync' writer in
# a child cgroup on ext4 whose journal thread (jbd2) runs in the root
# cgroup. Each write waits for a journal commit; a scheduler that idles on
# the writer's queue while jbd2's commit waits starves both (CFQ gave
# 60 KB/s where deadline gave 1.5-2 MB/s).
set -euo pipefail
. /cfq/bench/lib.sh
quick=$1; scheds=$2
rt=$([ "$quick" = 1 ] && echo 5 || echo 20)
modprobe hddsim depth=1
load_scheds "$scheds"
modprobe ext4
mkfs.ext4 -q -F /dev/hdd0
mkdir -p /mnt/b6 && mount -t ext4 /dev/hdd0 /mnt/b6
echo +io >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/b6
table "scheduler" "KB/s" "mean write latency ms" "max write latency ms"
for s in $scheds; do
	use_sched hdd0 "$s"
	rm -f /mnt/b6/f; sync
	res=$(bash -c 'echo $$ >/sys/fs/cgroup/b6/cgroup.procs; exec fio --minimal --name=dsync \
		--filename=/mnt/b6/f --rw=write --bs=512 --size=64M --sync=dsync \
		--runtime='"$rt"' --time_based' |
		awk -F';' 'NF > 100 { printf "%d %.2f %.1f", $48, $81 / 1000, $80 / 1000 }')
	read -r kbps mean max <<<"$res"
	row "$s" "$kbps" "$mean" "$max"
done
table_end
umount /mnt/b6
