# shellcheck shell=bash
# Helpers for the guest side of the benchmarks (sourced by bench/b*.sh).

# load_scheds LIST: load the scheduler modules a list names
load_scheds() {
	local s
	for s in $1; do
		case $s in
		bfq) modprobe bfq ;;
		kyber) modprobe kyber-iosched ;;
		cfq*) modprobe cfq ;;
		esac
	done
}

# use_sched DEV CONFIG: select a scheduler configuration on DEV. CONFIG is a
# scheduler name, or NAME:TUNABLE=VALUE+TUNABLE=VALUE... with tunables set
use_sched() {
	local dev=$1 cfg=$2 kv
	echo "${cfg%%:*}" >"/sys/block/$dev/queue/scheduler"
	[ "$cfg" = "${cfg#*:}" ] && return 0
	for kv in ${cfg#*:}; do
		kv=${kv//+/ }
		for k in $kv; do
			echo "${k#*=}" >"/sys/block/$dev/queue/iosched/${k%%=*}"
		done
	done
}

# table HEADER...: start a Markdown table; row CELL...: one row of it
table() {
	echo TABLE-BEGIN
	row "$@"
	printf '|'; for _ in "$@"; do printf -- '---|'; done; echo
}
row() { printf '|'; printf ' %s |' "$@"; echo; }
table_end() { echo TABLE-END; }

# drop_caches: cold page cache
drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }

# runs_bench RUNTIME FIO_ARGS...: for each scheduler of $scheds, the fio
# job FIO_ARGS on hdd0 (hddsim, already loaded) for RUNTIME s; a row of
# runs done (16 KiB each: a 4-block run), MB/s, the fewest and the most
# runs of one job (fairness), and hddsim's seek count and mean seek
runs_bench() {
	local rt=$1 s res runs kbps lo hi seeks dist
	shift
	table "scheduler" "operations (4-block runs)" "MB/s" "fewest runs of a job" \
		"most runs of a job" "seeks" "mean seek (sectors)"
	for s in $scheds; do
		use_sched hdd0 "$s"
		echo 1 >/sys/block/hdd0/hddsim/reset
		res=$(fio --minimal --filename=/dev/hdd0 --direct=1 --size=2G \
			--runtime="$rt" --time_based --name=runs "$@" |
			awk -F';' 'NF > 100 { r = $6 / 16; io += $6; kb += $7
				if (n++ == 0 || r < lo) lo = r; if (r > hi) hi = r }
				END { printf "%d %d %d %d\n", io / 16, kb, lo, hi }')
		read -r runs kbps lo hi <<<"$res"
		seeks=$(awk '$1 == "seeks" { print $2 }' /sys/block/hdd0/hddsim/stats)
		dist=$(awk '$1 == "seek_sectors" { print $2 }' /sys/block/hdd0/hddsim/stats)
		row "$s" "$runs" "$(awk -v k="$kbps" 'BEGIN { printf "%.2f", k / 1000 }')" \
			"$lo" "$hi" "$seeks" "$((dist / (seeks > 0 ? seeks : 1)))"
	done
	table_end
}

# wb_writers SCHED RUNTIME [FIO_OPTION...]: B8's writers, started in the
# background (wait for them): ext4 on hdd0 at /mnt/b8, cgroups b8w100 and
# b8w200 weighted 100 and 200 for SCHED (io and memory controllers on, so
# write-back carries the cgroup), and in each a fio writing 1 MiB blocks
# through the page cache, looping over a 160 MiB file for RUNTIME s
wb_writers() {
	local s=$1 rt=$2 w cg=/sys/fs/cgroup
	shift 2
	mkfs.ext4 -q -F /dev/hdd0
	mkdir -p /mnt/b8
	mount -t ext4 /dev/hdd0 /mnt/b8
	echo "+io +memory" >$cg/cgroup.subtree_control
	for w in 100 200; do
		mkdir -p $cg/b8w$w
		echo $w >"$cg/b8w$w/io.${s%%:*}.weight"
	done
	for w in 100 200; do
		(echo $BASHPID >$cg/b8w$w/cgroup.procs && exec fio --eta=never \
			--minimal --output=/tmp/b8w$w.fio --name=b8w$w --rw=write \
			--bs=1M --size=160M --fallocate=none --runtime="$rt" \
			--time_based --filename=/mnt/b8/f$w "$@") &
	done
}

# blk_trace_ready KB: the blk tracer for hdd0 with cgroup names, a buffer
# of KB per CPU, emptied; tracing stays off until the caller turns it on
blk_trace_ready() {
	local T=/sys/kernel/tracing
	echo 0 >$T/tracing_on
	echo blk >$T/current_tracer
	echo 1 >$T/options/blk_cgroup
	echo 1 >$T/options/blk_cgname
	echo "$1" >$T/buffer_size_kb
	echo >$T/trace
	echo 1 >/sys/block/hdd0/trace/enable
}
