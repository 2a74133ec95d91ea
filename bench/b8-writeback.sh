# title: B8, write-back weights: buffered writers in cgroups weighted 100 and 200 on ext4
# plot: 4,5,6; names 30 s,lowest 5 s,highest 5 s; ylabel MiB weight 200 / MiB weight 100; title write-back split (goal 2.0); goal 2.0; values
# plot: 2,3; names weight 100,weight 200; ylabel MiB written back in 30 s; title bytes written back; values
# schedulers: cfq,bfq
# Two fio jobs, one per cgroup (io and memory controllers on, so the
# flushers' writes carry the cgroup that dirtied the pages), each writing
# 1 MiB blocks through the page cache into a 160 MiB file on ext4 on
# hddsim, looping over it. The bytes written back for each group (the
# block layer's io.stat wbytes: the flushers' bios, whatever the
# scheduler) are counted every 5 s; the ratio is over 10..40 s, after the
# dirty limits and writeback's bandwidth estimates have settled.
# (1 GiB files ran the guest out of memory: hddsim keeps its data in RAM.)
set -euo pipefail
quick=$1; scheds=$2
. /cfq/bench/lib.sh
load_scheds "$scheds"
secs=$([ "$quick" = 1 ] && echo 15 || echo 40)
cg=/sys/fs/cgroup
modprobe ext4
table "scheduler" "MiB weight 100" "MiB weight 200" "ratio" "lowest 5 s ratio" "highest 5 s ratio"
for s in $scheds; do
	rmmod hddsim 2>/dev/null || true
	modprobe hddsim
	use_sched hdd0 "$s"
	dev=$(cat /sys/block/hdd0/dev)
	mkfs.ext4 -q -F /dev/hdd0
	mkdir -p /mnt/b8
	mount -t ext4 /dev/hdd0 /mnt/b8
	echo "+io +memory" >$cg/cgroup.subtree_control
	for w in 100 200; do
		mkdir -p $cg/b8w$w
		echo $w >"$cg/b8w$w/io.${s%%:*}.weight"
	done
	# written: the bytes written back so far, "WEIGHT100 WEIGHT200"
	written() {
		awk -v d="$dev" '$1 == d { for (i = 2; i <= NF; i++)
			if (index($i, "wbytes=") == 1) printf "%s ", substr($i, 8) }' \
			$cg/b8w100/io.stat $cg/b8w200/io.stat
	}
	for w in 100 200; do
		(echo $BASHPID >$cg/b8w$w/cgroup.procs && exec fio --eta=never --minimal \
			--output=/tmp/b8w$w.fio --name=b8w$w --rw=write --bs=1M --size=160M \
			--fallocate=none --runtime=$((secs + 2)) --time_based \
			--filename=/mnt/b8/f$w) &
	done
	samples=""
	for ((t = 5; t <= secs; t += 5)); do
		sleep 5
		samples="$samples $t $(written)"
	done
	wait
	# shellcheck disable=SC2046,SC2086 # the five cells, split
	row "$s" $(echo $samples | awk '{ for (i = 1; i <= NF; i += 3) {
			t = $i; l = $(i + 1); h = $(i + 2)
			if (t == 10) { l0 = l; h0 = h }
			if (t > 10) { r = (h - ph) / (l - pl > 0 ? l - pl : 1)
				if (lo == "" || r < lo) lo = r; if (r > hi) hi = r }
			pl = l; ph = h }
		printf "%d %d %.2f %.2f %.2f\n", (pl - l0) / 1048576, (ph - h0) / 1048576,
			(ph - h0) / (pl - l0), lo, hi }')
	rm -f /mnt/b8/f100 /mnt/b8/f200
	umount /mnt/b8
	rmdir $cg/b8w100 $cg/b8w200
	use_sched hdd0 none
done
table_end
rmmod hddsim
