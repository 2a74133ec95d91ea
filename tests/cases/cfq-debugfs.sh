#!/bin/bash
# cfq's debugfs files (/sys/kernel/debug/block/hdd0/sched/state, groups)
# read under load: two cgroups of weights 100 and 200 with a sequential
# reader each, and a seeky reader in the root. Checked: the files say what
# cfq waits for and which queue is active, the groups' weights and their
# queues' trees; each read is short (the lists are bounded). Then two
# loops keep reading them while cfq is switched away and back 10 times
# and a cgroup with I/O is removed: the reads must go on without a kernel
# report (the runner fails the case on one; the debug kernel's KASAN and
# lockdep check the locking).
# timeout: 300
set -euo pipefail

D=/sys/kernel/debug/block/hdd0/sched
hdd_setup
[ -r $D/state ] && [ -r $D/groups ] || fail "no cfq files in $D: $(ls $D 2>&1 | tr '\n' ' ')"
cg_make dbg-a 100
cg_make dbg-b 200
hdd_reader -g dbg-a a 0 12 &
ra=$!
hdd_reader -g dbg-b b 2G 12 &
rb=$!
fio --eta=never --minimal --output=/dev/null --direct=1 --bs=4k \
	--ioengine=psync --filename=/dev/hdd0 --name=seeky --rw=randread \
	--time_based --runtime=12 &
rs=$!
sleep 1

active=0 weights=0 trees=0 big=0 waits=0
# idle waits are short (the readers come back at once): look for one
for _ in $(seq 3000); do
	grep -Eq '^wait=(queue|group)$' $D/state && { waits=1; break; }
done
for _ in $(seq 100); do
	s=$(cat $D/state)
	g=$(cat $D/groups)
	grep -q '^active=cfq[0-9]*S ' <<<"$s" && active=$((active + 1))
	grep -q '^group .*weight=200 ' <<<"$g" && weights=$((weights + 1))
	grep -Eq '^  be/sync(_noidle)?: [0-9]+$' <<<"$g" && trees=$((trees + 1))
	[ $(($(wc -c <<<"$g") + $(wc -c <<<"$s"))) -le 16384 ] || big=$((big + 1))
	sleep 0.03
done
log "100 reads: active queue in $active, weight 200 in $weights, a sync tree in $trees; an idle wait seen: $waits"
log "state: $(tr '\n' ' ' <<<"$s")"
wait $ra $rb $rs || fail "a reader failed"
[ "$active" -ge 10 ] || fail "an active sync queue shown in only $active of 100 reads"
[ "$waits" = 1 ] || fail "no read of 3000 showed cfq idling (wait=queue or wait=group)"
[ "$weights" -ge 10 ] || fail "the weight-200 group shown in only $weights of 100 reads"
[ "$trees" -ge 10 ] || fail "a sync service tree shown in only $trees of 100 reads"
[ "$big" = 0 ] || fail "$big reads printed more than 16 KiB"

# keep reading while cfq comes and goes and a busy cgroup goes away
rm -f /tmp/dbg.stop
loop() {
	local n=0
	while [ ! -e /tmp/dbg.stop ]; do
		cat $D/state $D/groups >/dev/null 2>&1 || true
		n=$((n + 1))
	done
	echo "$n" >"/tmp/dbg.$1"
}
loop 1 &
l1=$!
loop 2 &
l2=$!
cg_make dbg-c 300
in_cgroup dbg-c fio --eta=never --minimal --output=/dev/null --direct=1 \
	--bs=64k --ioengine=libaio --iodepth=4 --filename=/dev/hdd0 --name=c \
	--rw=randread --time_based --runtime=600 &
io=$!
for _ in $(seq 10); do
	sleep 0.3
	sched_set hdd0 mq-deadline
	sleep 0.2
	sched_set hdd0 cfq
done
echo 1 >$CG/dbg-c/cgroup.kill
wait "$io" || true
for _ in $(seq 50); do
	[ -s $CG/dbg-c/cgroup.procs ] || break
	sleep 0.1
done
rmdir $CG/dbg-c
sleep 0.5
touch /tmp/dbg.stop
wait $l1 $l2
log "reads during switches and removal: $(cat /tmp/dbg.1) + $(cat /tmp/dbg.2)"
[ "$(cat /tmp/dbg.1)" -gt 10 ] || fail "the first reader looped only $(cat /tmp/dbg.1) times"
hdd_teardown dbg-a dbg-b
