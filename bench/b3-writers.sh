# title: B3, many writers: buffered dd writers on ext4 (hddsim) with one sync reader
# schedulers: none,mq-deadline,kyber,bfq,cfq
# plot: 4 by 2; ylabel reader MB/s (log scale); title reader throughput (higher is better); log
# plot: 5 by 2; ylabel reader max latency ms (log scale); title reader's worst latency (lower is better); log
# plot: 3 by 2; title writers' progress
# vm: --mem 3G
# The 2011 writeback seed: 1, 10 and 100 buffered writers on a file system
# while one process reads a file sequentially: bytes written back
# (nr_written), the reader's throughput and its worst read latency.
set -euo pipefail
. /cfq/bench/lib.sh
quick=$1; scheds=$2
# Small, fixed dirty limits (not a share of the guest's memory): the writers
# fill them in a fraction of a second and writeback is in its steady state
# for most of the run. Guest time is deterministic, so a few seconds
# measure it; writing is dear to emulate (about a minute of host CPU per GB).
rt=$([ "$quick" = 1 ] && echo 2 || echo 3)
ns=$([ "$quick" = 1 ] && echo "1 10" || echo "1 10 100")
echo $((32 << 20)) >/proc/sys/vm/dirty_background_bytes
echo $((96 << 20)) >/proc/sys/vm/dirty_bytes
modprobe hddsim depth=1 capacity_mb=8192
load_scheds "$scheds"
modprobe ext4
mkfs.ext4 -q -F /dev/hdd0
mkdir -p /mnt/b3
# noinit_itable: no lazy inode-table zeroing in the background while we
# measure; noatime: no inode write for the reader's first read
mount -t ext4 -o noinit_itable,noatime /dev/hdd0 /mnt/b3
# The reader's file. It reads with O_DIRECT and loops over it: the page
# cache never serves it (written data also sits in the guest's RAM, in hddsim).
dd if=/dev/zero of=/mnt/b3/read.dat bs=1M count=512 status=none
sync
nr_written() { awk '$1 == "nr_written" { print $2 }' /proc/vmstat; }
table "scheduler" "writers" "MB written in $rt s (nr_written)" "reader MB/s" "reader max latency ms"
for s in $scheds; do
	use_sched hdd0 "$s"
	for n in $ns; do
		# the last run's files go, and fstrim frees their blocks in hddsim
		# (its RAM); then a clean, cold start
		rm -f /mnt/b3/w.*; sync; fstrim /mnt/b3; drop_caches
		w0=$(nr_written)
		for i in $(seq "$n"); do
			dd if=/dev/zero of="/mnt/b3/w.$i" bs=1M count=100000 status=none 2>/dev/null &
		done
		res=$(fio --minimal --name=reader --filename=/mnt/b3/read.dat --rw=read --bs=64k \
			--direct=1 --ioengine=psync --runtime="$rt" --time_based |
			awk -F';' 'NF > 100 { printf "%.2f %.1f", $7 / 1000, $39 / 1000 }')
		w1=$(nr_written)
		# shellcheck disable=SC2046
		kill $(jobs -p) 2>/dev/null || true
		wait || true
		read -r mbps maxms <<<"$res"
		row "$s" "$n" "$(((w1 - w0) * 4 / 1024))" "$mbps" "$maxms"
	done
done
table_end
umount /mnt/b3
