# title: B3, many writers: buffered dd writers on ext4 (hddsim) with one sync reader
# schedulers: none,mq-deadline,kyber,bfq,cfq
# The 2011 writeback seed: 1, 10 and 100 buffered writers on a file system
# while one process reads a file sequentially: bytes written back
# (nr_written), the reader's throughput and its worst read latency.
set -euo pipefail
. /cfq/bench/lib.sh
quick=$1; scheds=$2
rt=$([ "$quick" = 1 ] && echo 5 || echo 20)
ns=$([ "$quick" = 1 ] && echo "1 10" || echo "1 10 100")
modprobe hddsim depth=1 capacity_mb=8192
load_scheds "$scheds"
modprobe ext4
mkfs.ext4 -q -F /dev/hdd0
mkdir -p /mnt/b3 && mount -t ext4 /dev/hdd0 /mnt/b3
dd if=/dev/zero of=/mnt/b3/read.dat bs=1M count=1024 status=none
sync
table "scheduler" "writers" "written MB (nr_written)" "reader MB/s" "reader max latency ms"
for s in $scheds; do
	use_sched hdd0 "$s"
	for n in $ns; do
		rm -f /mnt/b3/w.*; sync; drop_caches
		w0=$(awk '$1 == "nr_written" { print $2 }' /proc/vmstat)
		for i in $(seq "$n"); do
			dd if=/dev/zero of="/mnt/b3/w.$i" bs=1M count=100000 status=none 2>/dev/null &
		done
		res=$(fio --minimal --name=reader --filename=/mnt/b3/read.dat --rw=read --bs=64k \
			--ioengine=psync --runtime="$rt" --time_based |
			awk -F';' 'NF > 100 { printf "%.2f %.1f", $7 / 1000, $39 / 1000 }')
		kill $(jobs -p) 2>/dev/null; wait 2>/dev/null || true
		w1=$(awk '$1 == "nr_written" { print $2 }' /proc/vmstat)
		read -r mbps maxms <<<"$res"
		row "$s" "$n" "$(((w1 - w0) * 4 / 1024))" "$mbps" "$maxms"
	done
done
table_end
umount /mnt/b3
