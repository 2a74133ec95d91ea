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
