# shellcheck shell=bash
# Helpers for guest test cases (sourced before each case runs).

log() { echo "# $*"; }
# fail MSG: the case fails with MSG as its reason
fail() { echo "$*"; exit 1; }

# nullb_load PARAM...: (re)load null_blk with PARAMs; device /dev/nullb0
nullb_load() {
	rmmod null_blk 2>/dev/null || true
	modprobe null_blk "$@" || fail "modprobe null_blk $* failed"
	[ -b /dev/nullb0 ] || fail "no /dev/nullb0"
}

# null_blk devices made through configfs (a directory each)
NULLB_CFS=/sys/kernel/config/nullb
# nullb_configfs: null_blk loaded afresh without devices, configfs mounted
nullb_configfs() {
	rmmod null_blk 2>/dev/null || true
	modprobe null_blk nr_devices=0 || fail "modprobe null_blk failed"
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config
	[ -d "$NULLB_CFS" ] || fail "no $NULLB_CFS"
}
# nullb_make NAME ATTR=VALUE...: a powered-on configfs null_blk device
# /dev/NAME (named after its directory) with ATTRs set, rotational, under
# cfq
nullb_make() {
	local d=$NULLB_CFS/$1 kv
	mkdir "$d" || fail "cannot make $d"
	for kv in "${@:2}"; do
		echo "${kv#*=}" >"$d/${kv%%=*}" || fail "cannot set ${kv%%=*} of $d"
	done
	echo 1 >"$d/power" || fail "cannot power on $d"
	[ -b "/dev/$1" ] || fail "no /dev/$1"
	echo 1 >"/sys/block/$1/queue/rotational"
	sched_set "$1" cfq
}

# sched_set DEV NAME: select scheduler NAME on block device DEV (e.g. nullb0)
sched_set() { echo "$2" >"/sys/block/$1/queue/scheduler" || fail "cannot select $2 on $1"; }
# sched_get DEV: the active scheduler of DEV
sched_get() { sed -E 's/.*\[([^]]+)\].*/\1/' "/sys/block/$1/queue/scheduler"; }

# fio_run ARGS...: run fio with --minimal; prints "read_iops write_iops read_kbps write_kbps"
fio_run() {
	fio --minimal --warnings-fatal "$@" 2>/tmp/fio.err | awk -F';' 'NF > 100 {
		ri += $8; rk += $7; wi += $49; wk += $48 }
		END { printf "%d %d %d %d\n", ri, wi, rk, wk }' ||
		fail "fio failed: $(tail -n 3 /tmp/fio.err)"
}

# CFQ_SLOW is how many times slower this kernel runs than Debian's (8 on
# the KASAN/lockdep kernel, 1 otherwise): size-bound workloads divide by it.
CFQ_SLOW=${CFQ_SLOW:-1}

# kunit_run MODULE: load a KUnit test module; fail unless every suite passed
kunit_run() {
	local before out
	before=$(dmesg | wc -l)
	modprobe "$1" || fail "modprobe $1 failed"
	out=$(dmesg | tail -n +$((before + 1)))
	echo "$out" | grep -E '^\[[^]]*\] *(    )?(not )?ok [0-9]+ ' | sed 's/^\[[^]]*\] *//'
	rmmod "$1"
	if echo "$out" | grep -Eq '\] *(    )?not ok '; then
		fail "$1: $(echo "$out" | grep -E 'EXPECTATION FAILED|ASSERTION FAILED' | head -n 1 | sed 's/^\[[^]]*\] *//')"
	fi
	echo "$out" | grep -Eq '\] *ok [0-9]+ ' || fail "$1: no KUnit suite reported"
}

# trace_start DEV / trace_stop DEV: the kernel's blk tracer (ftrace) on DEV;
# trace_stop leaves the text in /tmp/trace.txt. Unlike Debian 12's blkparse
# 1.2.0, it shows the scheduler's notes ("m N cfq...") on cgroup kernels.
trace_start() {
	echo 0 >/sys/kernel/tracing/tracing_on
	echo blk >/sys/kernel/tracing/current_tracer
	echo 16384 >/sys/kernel/tracing/buffer_size_kb
	echo >/sys/kernel/tracing/trace
	echo 1 >"/sys/block/$1/trace/enable"
	echo 1 >/sys/kernel/tracing/tracing_on
}
trace_stop() {
	echo 0 >"/sys/block/$1/trace/enable"
	cat /sys/kernel/tracing/trace >/tmp/trace.txt
	echo nop >/sys/kernel/tracing/current_tracer
}

# hdd_reader [-g CGROUP] [-b BS] NAME OFFSET SECONDS [IONICE-ARGS...]: a
# sequential direct reader (psync, blocks of BS, default 128k) of /dev/hdd0
# at OFFSET for SECONDS, in CGROUP (relative to /sys/fs/cgroup; default: the
# caller's), under ionice IONICE-ARGS if any; terse fio output in
# /tmp/NAME.fio (fio_kib NAME: its KiB/s, fio_total NAME: KiB read)
hdd_reader() {
	local cg='' bs=128k name off t
	while [ $# -gt 0 ]; do
		case $1 in
		-g) cg=$2; shift 2 ;;
		-b) bs=$2; shift 2 ;;
		*) break ;;
		esac
	done
	name=$1 off=$2 t=$3
	shift 3
	local cmd=(fio --eta=never --minimal --output="/tmp/$name.fio"
		--direct=1 --bs="$bs" --rw=read --ioengine=psync --runtime="$t"
		--time_based --filename=/dev/hdd0 --name="$name"
		--offset="$off" --size=512M)
	[ $# = 0 ] || cmd=(ionice "$@" "${cmd[@]}")
	if [ -n "$cg" ]; then
		in_cgroup "$cg" "${cmd[@]}"
	else
		"${cmd[@]}"
	fi
}
# hdd_reader_pair SECONDS CHECK NAME1 IONICE1 NAME2 IONICE2: two hdd_readers
# side by side for SECONDS under ionice IONICE1 and IONICE2 (one word each,
# e.g. "-c2 -n0"), twice: NAME1 at 0 and NAME2 at 2G, then NAME1 at 2G and
# NAME2 at 0. After each run it calls CHECK OFFSET1 KIB1 KIB2 (where NAME1
# read, the two readers' KiB/s), which fails the case or returns.
hdd_reader_pair() {
	local t=$1 chk=$2 n1=$3 n2=$5 o1 o2 p1 p2 a1 a2
	read -ra a1 <<<"$4"
	read -ra a2 <<<"$6"
	for o1 in 0 2G; do
		o2=$([ "$o1" = 0 ] && echo 2G || echo 0)
		hdd_reader "$n1" "$o1" "$t" "${a1[@]}" &
		p1=$!
		hdd_reader "$n2" "$o2" "$t" "${a2[@]}" &
		p2=$!
		wait $p1 || fail "$n1 fio (ionice $4) failed"
		wait $p2 || fail "$n2 fio (ionice $6) failed"
		"$chk" "$o1" "$(fio_kib "$n1")" "$(fio_kib "$n2")"
	done
}
fio_kib() { awk -F';' '{ print $7 }' "/tmp/$1.fio"; }
fio_total() { awk -F';' '{ print $6 }' "/tmp/$1.fio"; }

# Weight-group helpers (cgroup v2 at /sys/fs/cgroup, $CG)
CG=/sys/fs/cgroup
# hdd_setup [HDDSIM-PARAM...]: a fresh emulated disk hdd0 under cfq, and
# the io controller on for the root's children (the cases that run cfq on
# hddsim start with it; one that makes no cgroup runs all in the root,
# where that switch changes nothing)
hdd_setup() {
	rmmod hddsim 2>/dev/null || true
	modprobe hddsim "$@" || fail "modprobe hddsim${*:+ $*} failed"
	sched_set hdd0 cfq
	echo +io >$CG/cgroup.subtree_control
}
# hdd_teardown CGROUP...: remove the cgroups (children first) and hdd0
hdd_teardown() {
	local c
	for c in "$@"; do
		rmdir "$CG/$c"
	done
	sched_set hdd0 none
	rmmod hddsim
}

# in_cgroup DIR CMD...: run CMD in cgroup DIR (relative to /sys/fs/cgroup)
in_cgroup() {
	local d=$1
	shift
	(echo $BASHPID >"/sys/fs/cgroup/$d/cgroup.procs" && exec "$@")
}
# cg_make DIR WEIGHT: create cgroup DIR (parents must exist and delegate
# io) with io.cfq.weight WEIGHT
cg_make() {
	mkdir -p "/sys/fs/cgroup/$1"
	echo "$2" >"/sys/fs/cgroup/$1/io.cfq.weight" ||
		fail "cannot set io.cfq.weight $2 on $1"
}
# cg_stat DIR DEV KEY: the KEY=value of io.cfq.stat of DIR for DEV (MAJ:MIN)
cg_stat() {
	awk -v d="$2" -v k="$3" '$1 == d { for (i = 2; i <= NF; i++)
		if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' \
		"/sys/fs/cgroup/$1/io.cfq.stat"
}
# fio_sum NAME FIELD: terse fio field FIELD summed over the jobs of
# /tmp/NAME.fio (7: read KiB/s, 8: read IOPS, 48: write KiB/s)
fio_sum() { awk -F';' -v f="$2" 'NF > 100 { s += $f } END { print s + 0 }' "/tmp/$1.fio"; }
# ratio_in WHAT NUM DEN LO HI: print NUM/DEN; fail unless in [LO, HI]
ratio_in() {
	awk -v w="$1" -v n="$2" -v d="$3" -v lo="$4" -v hi="$5" 'BEGIN {
		r = d > 0 ? n / d : 0
		printf "# %s: %s / %s = %.3f (want %s .. %s)\n", w, n, d, r, lo, hi
		exit !(d > 0 && r >= lo && r <= hi) }' ||
		fail "$1: ratio $2/$3 outside $4 .. $5"
}

# slab_objects CACHE: live objects of slab cache CACHE (cfq_queue,
# cfq_group), after flushing the per-CPU slabs so the count is exact; the
# boot needs slab_nomerge (# vm: --append slab_nomerge) so the cache is
# cfq's alone
slab_objects() {
	local d=/sys/kernel/slab/$1
	[ -d "$d" ] && [ ! -L "$d" ] || fail "slab cache $1 missing or merged (slab_nomerge?)"
	echo 1 >"$d/shrink"
	awk '{ print $1 }' "$d/objects"
}
# slab_empty WHEN: cfq_queue and cfq_group hold no object, allowing two
# seconds for frees after an RCU grace period; else fail with WHEN
slab_empty() {
	local q g
	for _ in $(seq 20); do
		q=$(slab_objects cfq_queue) g=$(slab_objects cfq_group)
		[ "$q" = 0 ] && [ "$g" = 0 ] && return
		sleep 0.1
	done
	fail "$1: $q cfq_queue and $g cfq_group objects left"
}
