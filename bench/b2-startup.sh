# title: B2, start-up under a reader: cold reads of 300 small files on ext4 (hddsim)
# schedulers: mq-deadline,bfq,cfq,cfq:startup_boost=0
# plot: 4,7,10,13,17; names 1 reader,reader in other cgroup,5 readers,10 readers,launcher + 1 reader; ylabel start-up time / idle-disk start-up time; title start-up slowdown (lower is better); goal 1.0; ymax 8; values
# plot: 5,8,11,14,18; names 1 reader,reader in other cgroup,5 readers,10 readers,launcher + 1 reader; ylabel readers' MB/s during the start-up; title the readers' throughput kept (higher is better); values
# The 2009 seed: an application starts (reads its executable and libraries:
# here one process, cat, reads 300 files of 4-96 KiB in a fixed order, cold
# cache) while a background process reads a large file sequentially. Start-up time on an
# idle disk, under the reader, and under the reader with the two in
# separate cgroups (default weights), under 5 and 10 readers, with the
# readers' throughput meanwhile; and a multi-process start-up: a launcher
# starting 6 processes 20 ms apart, each reading its own 50 of the files.
# Medians: the first start-up of a boot is faster than the ones after it
# (cfq on 6.1: the one-process start-up 1688 ms first, 1788 after the
# peers; the launcher 1565 ms, then 1681-1749), so an idle-disk time
# measured once favoured the first scheduler of the boot; and the
# launcher's time depends on where its six processes' first requests
# fall against the reader's turns (6.1, same build, two boots: 1915 and
# 2156 ms under a reader). So the idle-disk times and the launcher's are
# the median of RUNS start-ups in a row (each one's time is in the log);
# one process under readers moved by 2-3 % and is run once.
set -euo pipefail
. /cfq/bench/lib.sh
scheds=$2 # no quick mode: the whole run is short
modprobe hddsim depth=1
load_scheds "$scheds"
modprobe ext4
mkfs.ext4 -q -F /dev/hdd0
mkdir -p /mnt/b2
# noinit_itable: no lazy inode-table zeroing in the background while we
# measure; noatime: the first read of a new file would update its atime
# (relatime) and write, later ones not, so the first run would differ
mount -t ext4 -o noinit_itable,noatime /dev/hdd0 /mnt/b2
# the "application": files spread over directories, sizes from a fixed sequence
mkdir -p /mnt/b2/app
for i in $(seq 0 299); do
	mkdir -p "/mnt/b2/app/d$((i % 17))"
	dd if=/dev/urandom of="/mnt/b2/app/d$((i % 17))/f$i" bs=4k count=$(((i * 7) % 24 + 1)) status=none
done
# The reader's file, written after the application (so it lies beyond it).
# The reader uses O_DIRECT and loops over it: the page cache never serves it,
# and it needs no more of the guest's memory (hddsim keeps data in RAM).
dd if=/dev/zero of=/mnt/b2/big bs=1M count=512 status=none
sync
# read order: a fixed permutation of the files (as the loader jumps around)
order=$(for i in $(seq 0 299); do
	j=$(((i * 131) % 300))
	echo "/mnt/b2/app/d$((j % 17))/f$j"
done)
echo +io >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/bg /sys/fs/cgroup/app

RUNS=5

# sectors read from hdd0 so far
rd_sectors() { awk '{ print $3 }' /sys/block/hdd0/stat; }
# start [launch]: cold start-up (one cat, or with "launch" 6 of them, 20 ms
# apart, each its own 50 files); prints "ms sectors" (guest time, sectors
# read meanwhile)
start() {
	local t0 t1 s0 s1 k
	drop_caches
	s0=$(rd_sectors)
	t0=${EPOCHREALTIME/./}
	if [ "${1:-}" = launch ]; then
		for k in 0 1 2 3 4 5; do
			# shellcheck disable=SC2086
			cat $(echo "$order" | sed -n "$((k * 50 + 1)),$((k * 50 + 50))p") >/dev/null &
			sleep 0.02
		done
		wait
	else
		# one process reads them all, as a loader does: one io_context,
		# so one queue in cfq and bfq
		# shellcheck disable=SC2086
		cat $order >/dev/null
	fi
	t1=${EPOCHREALTIME/./}
	s1=$(rd_sectors)
	echo "$(((t1 - t0) / 1000)) $((s1 - s0))"
}
# median_start RUNS [launch]: RUNS start-ups in a row; prints the "ms
# sectors" of the median one by time, and logs them all
median_start() {
	local runs i
	runs=$(for ((i = 0; i < $1; i++)); do start "${2:-}"; done | sort -n)
	echo "start-up runs${2:+ ($2)}, ms sectors: ${runs//$'\n'/, }" >&2
	echo "$runs" | sed -n "$((($1 + 1) / 2))p"
}
# reader CGROUP N: N background sequential readers of the big file, each
# its own part of it (in CGROUP when not empty); they run until stopped
reader() {
	local part=$((512 / $2))
	bash -c '[ -z "$1" ] || echo $$ >"/sys/fs/cgroup/$1/cgroup.procs"
		exec fio --name=bg --filename=/mnt/b2/big --rw=read --bs=1M --direct=1 \
			--ioengine=psync --time_based --runtime=100000 --numjobs="$2" \
			--size="$3"M --offset_increment="$3"M' _ "$1" "$2" "$part" >/dev/null &
	sleep 1
}
stop_reader() { kill "$(jobs -p)" 2>/dev/null || true; wait || true; }
in_app() { echo $$ >/sys/fs/cgroup/app/cgroup.procs; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# reader_mbps MS SECTORS APP: the readers' MB/s during a start-up, from the
# sectors read meanwhile less those the start-up itself read (APP)
reader_mbps() { awk -v ms="$1" -v s="$2" -v a="$3" 'BEGIN { printf "%.1f", (s - a) * 512 / ms / 1000 }'; }
# under CGROUP N [launch]: "ms ratio MB/s" of a start-up under N readers
under() {
	local ms sec base=$idle app=$app1 runs=1
	[ "${3:-}" = launch ] && base=$lidle app=$lapp runs=$RUNS
	reader "$1" "$2"
	if [ -n "$1" ]; then
		read -r ms sec <<<"$( (in_app; start "${3:-}") )"
	else
		read -r ms sec <<<"$(median_start "$runs" "${3:-}")"
	fi
	stop_reader
	echo "$ms $(ratio "$ms" "$base") $(reader_mbps "$ms" "$sec" "$app")"
}

table "scheduler" "idle disk ms" "under a reader ms" "ratio" "reader MB/s" \
	"reader in other cgroup ms" "ratio" "reader MB/s" \
	"under 5 readers ms" "ratio" "readers MB/s" "under 10 readers ms" "ratio" "readers MB/s" \
	"launcher idle disk ms" "launcher under a reader ms" "ratio" "reader MB/s"
for s in $scheds; do
	use_sched hdd0 "$s"
	read -r idle app1 <<<"$(median_start $RUNS)"
	read -r lidle lapp <<<"$(median_start $RUNS launch)"
	# shellcheck disable=SC2046
	row "$s" "$idle" $(under "" 1) $(under bg 1) $(under "" 5) $(under "" 10) \
		"$lidle" $(under "" 1 launch)
done
table_end
umount /mnt/b2
