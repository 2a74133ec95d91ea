# title: B2, start-up under a reader: cold reads of 300 small files on ext4 (hddsim)
# schedulers: none,mq-deadline,kyber,bfq,cfq
# plot-column: 4
# The 2009 seed: an application starts (reads its executable and libraries:
# here 300 files of 4-96 KiB in a fixed order, cold cache) while a
# background process reads a large file sequentially. Start-up time on an
# idle disk, under the reader, and under the reader with the two in
# separate cgroups.
set -euo pipefail
. /cfq/bench/lib.sh
quick=$1; scheds=$2
modprobe hddsim depth=1
load_scheds "$scheds"
modprobe ext4
mkfs.ext4 -q -F /dev/hdd0
mkdir -p /mnt/b2 && mount -t ext4 /dev/hdd0 /mnt/b2
# the "application": files spread over directories, sizes from a fixed sequence
mkdir -p /mnt/b2/app
for i in $(seq 0 299); do
	mkdir -p "/mnt/b2/app/d$((i % 17))"
	dd if=/dev/urandom of="/mnt/b2/app/d$((i % 17))/f$i" bs=4k count=$(((i * 7) % 24 + 1)) status=none
done
dd if=/dev/zero of=/mnt/b2/big bs=1M count=$([ "$quick" = 1 ] && echo 512 || echo 2048) status=none
sync
order=$(for i in $(seq 0 299); do echo "/mnt/b2/app/d$((i % 17))/f$(((i * 131) % 300))"; done)
echo +io >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/bg /sys/fs/cgroup/app

# start_ms: cold start-up time in ms (guest time)
start_ms() {
	local t0 t1
	drop_caches
	t0=$(date +%s%N)
	echo "$order" | while read -r f; do cat "$f" >/dev/null; done
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}
# reader CGROUP: background sequential reader (in CGROUP when not empty)
reader() {
	bash -c '[ -z "$1" ] || echo $$ >"/sys/fs/cgroup/$1/cgroup.procs"
		exec dd if=/mnt/b2/big of=/dev/null bs=1M status=none' _ "$1" &
	sleep 1
}
stop_reader() { kill "$(jobs -p)" 2>/dev/null; wait 2>/dev/null || true; }
in_app() { echo $$ >/sys/fs/cgroup/app/cgroup.procs; }

table "scheduler" "idle disk ms" "under a reader ms" "ratio" "reader in other cgroup ms" "ratio"
for s in $scheds; do
	use_sched hdd0 "$s"
	idle=$(start_ms)
	reader ""; busy=$(start_ms); stop_reader
	reader bg; grp=$( (in_app; start_ms) ); stop_reader
	row "$s" "$idle" "$busy" "$(awk -v a="$busy" -v b="$idle" 'BEGIN { printf "%.2f", a / b }')" \
		"$grp" "$(awk -v a="$grp" -v b="$idle" 'BEGIN { printf "%.2f", a / b }')"
done
table_end
umount /mnt/b2
