#!/bin/bash
# cfq's debugfs files (/sys/kernel/debug/block/hdd0/sched/: state, active,
# service_trees, groups) under I/O on the emulated disk:
# - with a sequential reader in cgroup a (io.cfq.weight 200), a random
#   reader in b, an RT and an IDLE reader in the root, the files name what
#   runs: the active queue is one of the readers' pids, service_trees and
#   groups show /a with weight 200, every reader's pid appears in
#   service_trees over the samples, state names a known wait;
# - with 150 more readers the files stay bounded: service_trees prints at
#   most 64 queues a tree and says how many it left out;
# - a reader loop keeps reading all four files while the scheduler is
#   switched away (to none and to mq-deadline) and back 20 times and
#   cgroups with readers are made and removed: nothing breaks (the runner
#   fails the case on any kernel warning; 7.3 once oopsed reading state
#   after a switch had detached cfq but not yet removed its files), and
#   the files are gone while cfq is not the scheduler; then 100 quick
#   switches of a null_blk disk under two reader loops.
# Files are mode 0400: no write is accepted.
# timeout: 400
set -euo pipefail

D=/sys/kernel/debug/block/hdd0/sched
FILES=(state active service_trees groups)

# rand_reader NAME SECONDS [PREFIX...]: a direct random 4k reader of hdd0
rand_reader() {
	local name=$1 t=$2
	shift 2
	"$@" fio --eta=never --minimal --output="/tmp/$name.fio" --direct=1 \
		--bs=4k --rw=randread --ioengine=psync --runtime="$t" \
		--time_based --filename=/dev/hdd0 --name="$name" \
		--offset=1G --size=1G
}

# read_loop DIR: read the files in DIR over and over, errors ignored
read_loop() {
	while :; do
		for f in "${FILES[@]}"; do
			cat "$1/$f" >/dev/null 2>&1 || true
		done
	done
}

# has FILE REGEX WHAT: fail unless debugfs FILE has a line matching REGEX
has() {
	grep -Eq "$2" "$D/$1" || { cat "$D/$1"; fail "$1 has no $3"; }
}

grep -q ' /sys/kernel/debug ' /proc/mounts ||
	mount -t debugfs debugfs /sys/kernel/debug
hdd_setup
for f in "${FILES[@]}"; do
	[ -f "$D/$f" ] || fail "no $D/$f"
	if echo 1 2>/dev/null >"$D/$f"; then
		fail "$f accepted a write"
	fi
done
cg_make a 200
cg_make b 100

log "phase 1: four readers, what the files name"
# they run until killed: fio may take long to start them all under load
t=600
hdd_reader -g a seq 0 $t &
in_cgroup b bash -c "$(declare -f rand_reader); rand_reader rand $t" &
hdd_reader rt 2G $t -c1 -n4 &
hdd_reader idle 3G $t -c3 &
# fio takes a while to start its workers (long on the debug kernel)
for _ in $(seq 1200); do
	[ "$(awk '$1 == "busy_queues" { print $2 }' "$D/state")" -ge 3 ] && break
	sleep 0.1
done
seen=""
for _ in $(seq 20); do
	cat "$D/service_trees" >>/tmp/trees.txt
	cat "$D/groups" >>/tmp/groups.txt
	a=$(awk 'NR == 1 && $1 == "pid" { print $2 }' "$D/active")
	[ -n "$a" ] && seen="$seen $a"
	sleep 0.1
done
# the readers: fio's commands and the workers they forked
pids=$(pidof fio || true)
for f in "${FILES[@]}"; do
	log "$f:"
	sed 's/^/#   /' "$D/$f"
done
has state '^wait (none|queue|group|idle_class)' "wait state"
has state '^busy_queues [1-9]' "busy queues"
has state '^hw_tag (unknown|no_queueing|queueing) ' "hw_tag"
# groups lists the busy groups: /a is not busy between two of its reads
grep -q '^/a weight 200 ' /tmp/groups.txt || fail "groups never showed /a of weight 200"
has groups '^/ weight ' "root group"
grep -q '^group /a:' /tmp/trees.txt || fail "service_trees never showed /a"
[ -n "$seen" ] || fail "active never named a queue"
for a in $seen; do
	case " $pids " in
	*" $a "*) ;;
	*) fail "active named pid $a, not a reader (readers: $pids)" ;;
	esac
done
grep -Eq '^  rt sync' /tmp/trees.txt || fail "service_trees never showed the RT reader's tree"
grep -Eq '^  idle any' /tmp/trees.txt || fail "service_trees never showed the IDLE tree"
kill $(pidof fio)
wait
log "active in $(echo $seen | wc -w) of 20 samples:$(echo $seen | tr ' ' '\n' | sort | uniq -c | awk '{ printf " pid %s %d times", $2, $1 }')"

log "phase 2: 150 random readers (threads of one fio), the output is bounded"
fio --eta=never --minimal --output=/tmp/many.fio --thread --numjobs=150 \
	--group_reporting --direct=1 --bs=4k --rw=randread --ioengine=psync \
	--runtime=$((8 * CFQ_SLOW)) --time_based --filename=/dev/hdd0 --name=many \
	--offset=1G --size=1G &
p_many=$!
# the threads start one by one: sample until a tree holds more than 64
for _ in $(seq $((80 * CFQ_SLOW))); do
	grep -Eq '^    \.\.\. [0-9]+ more$' "$D/service_trees" && break
	sleep 0.1
done
lines=$(wc -l <"$D/service_trees")
bytes=$(wc -c <"$D/service_trees")
log "service_trees: $lines lines, $bytes bytes, busy queues: $(awk '$1 == "busy_queues" { print $2 }' "$D/state")"
has service_trees '^    \.\.\. [0-9]+ more$' "'... N more' line"
[ "$lines" -le $((64 * 7 + 20)) ] || fail "service_trees has $lines lines"
wait "$p_many" || fail "the phase 2 readers failed: $(tail -n 2 /tmp/many.fio)"

log "phase 3: reading while the scheduler switches and cgroups come and go"
read_loop "$D" &
loop=$!
hdd_reader -g a seq 0 30 &
p_seq=$!
for i in $(seq 20); do
	cg_make "c$i" $((100 * (i % 3 + 1)))
	in_cgroup "c$i" bash -c "$(declare -f rand_reader); rand_reader c$i 1" &
	sleep 0.3
	other=none
	[ $((i % 2)) = 0 ] && other=mq-deadline
	sched_set hdd0 $other
	[ ! -e "$D/state" ] || fail "round $i: $D/state left under $other"
	sleep 0.1
	sched_set hdd0 cfq
	wait $! || fail "round $i: the reader of c$i failed"
	rmdir "$CG/c$i"
done
kill "$p_seq" 2>/dev/null || true
wait "$p_seq" || true
kill "$loop"
wait "$loop" || true
[ -f "$D/state" ] || fail "no $D/state after the switches"
hdd_teardown b a

log "phase 4: 100 quick switches of a null_blk disk under two reader loops"
# phase 3's 20 switches hit the window between detaching cfq and removing
# its files once in CI; this loop hit it within a second every time
nullb_configfs
nullb_make nbdbg size=64 irqmode=0
DN=/sys/kernel/debug/block/nbdbg/sched
readers=()
for _ in 1 2; do
	read_loop "$DN" &
	readers+=($!)
done
fio --eta=never --minimal --output=/dev/null --name=nb --filename=/dev/nbdbg \
	--rw=randread --direct=1 --bs=4k --time_based --runtime=600 &
p_fio=$!
for i in $(seq 100); do
	if [ $((i % 2)) = 0 ]; then
		sched_set nbdbg mq-deadline
	else
		sched_set nbdbg none
	fi
	sched_set nbdbg cfq
done
kill "${readers[@]}" "$p_fio" 2>/dev/null || true
wait "${readers[@]}" "$p_fio" 2>/dev/null || true
grep -q '^busy_queues ' "$DN/state" || fail "$DN/state unreadable after the switches"
sched_set nbdbg none
rmdir "$NULLB_CFS/nbdbg"
rmmod null_blk
