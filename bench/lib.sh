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
