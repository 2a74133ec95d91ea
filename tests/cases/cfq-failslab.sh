#!/bin/bash
# Allocation failure: the kernel's failslab (CONFIG_FAILSLAB, the debug
# kernels) fails allocations from cfq's own slab caches, sleeping ones
# included: cfq_queue (a process's queue), cfq_io_cq (its io context on
# the disk) and cfq_group (a cgroup's group on the disk). The boot's
# slub_debug=A marks the three caches for failslab, which also keeps each
# of them cfq's alone (never merged). From 6.12 on, a cache's failslab
# attribute is writable and each stage fails only the caches it names;
# 6.1's is read-only, so there every stage fails all three (stage 2's
# group failures then come with queue failures, served by the
# out-of-memory queue as in stage 1). On a memory-backed null_blk disk
# under cfq:
# 1. Every queue allocation fails: a new process's requests are served by
#    cfq's out-of-memory queue (debugfs state: oom_requests) and complete;
#    once failures stop, a new process gets its own queue again.
# 2. Every group allocation fails: a new cgroup's reads complete, charged
#    to the root group (the cgroup has no group on the disk); once
#    failures stop, the cgroup's next reads make its group.
# 3. A third of all three caches' allocations fail, for a while: fio
#    writers verify their data (direct and buffered, in cgroups), short
#    processes read in cgroups that are made, weighted and removed, and
#    the scheduler is switched away and back (a switch to cfq may fail
#    with an error: the disk must then be left working under none).
#    Every request completes with its data, and failures were injected.
# 4. Failures off: I/O goes on with no new oom requests, the disk goes
#    back to none with cfq's slabs empty, and cfq unloads.
# KASAN, lockdep and kmemleak watch it all (the runner's checks).
# kernels: 6.12-debug 6.1-debug
# vm: --append slub_debug=A,cfq_queue,cfq_io_cq,cfq_group
# timeout: 300
set -euo pipefail
trap 'echo "line $LINENO: command failed (status $?)"' ERR

fs=/sys/kernel/debug/failslab
if [ ! -d "$fs" ]; then
	log "SKIP: no $fs (CONFIG_FAILSLAB unset)"
	exit 0
fi
disk=nbslab
st=/sys/kernel/debug/block/$disk/sched/state
caches="cfq_queue cfq_io_cq cfq_group"

# fail_on PERCENT CACHE...: fail PERCENT % of the allocations from CACHEs
# (and only theirs where the caches can be chosen, all three's on 6.1), at
# most 1000000 times; fail_off: none any more
fail_on() {
	local c
	echo "$1" >$fs/probability
	shift
	if [ "$choose" = 1 ]; then
		for c in $caches; do
			echo 0 >"/sys/kernel/slab/$c/failslab"
		done
		for c in "$@"; do
			echo 1 >"/sys/kernel/slab/$c/failslab" ||
				fail "cannot set failslab on $c"
		done
	fi
	echo 1000000 >$fs/times
}
fail_off() { echo 0 >$fs/probability; }
# injected: failures since the last fail_on
injected() { echo $((1000000 - $(cat $fs/times))); }
oom_requests() { awk '$1 == "oom_requests" { print $2 }' "$st"; }
# to_cfq: switch the disk from none to cfq, which may fail while cfq's
# groups cannot be allocated: then the disk must be left under none and
# working. Tried until it succeeds (50 times at most); counts the
# failures in switch_failed.
to_cfq() {
	local t
	for ((t = 0; t < 50; t++)); do
		echo cfq >/sys/block/$disk/queue/scheduler 2>/dev/null && return
		switch_failed=$((switch_failed + 1))
		[ "$(sched_get $disk)" = none ] ||
			fail "a failed switch to cfq left $(sched_get $disk)"
		reads 2
	done
	fail "50 switches to cfq failed"
}

# reads N [CGROUP]: N processes, one after another, each reading 16 KiB
# (direct) at its own place, in CGROUP if given; fails on any error
reads() {
	local i
	for ((i = 0; i < $1; i++)); do
		if [ -n "${2:-}" ]; then
			in_cgroup "$2" dd if=/dev/$disk of=/dev/null bs=4k count=4 \
				skip=$((i * 64 % 16384)) iflag=direct 2>/dev/null
		else
			dd if=/dev/$disk of=/dev/null bs=4k count=4 \
				skip=$((i * 64 % 16384)) iflag=direct 2>/dev/null
		fi || fail "a read failed (${2:-root})"
	done
}

echo 0 >$fs/verbose
echo N >$fs/ignore-gfp-wait
echo N >$fs/task-filter
echo 1 >$fs/interval
echo 0 >$fs/space
echo Y >$fs/cache-filter
fail_off

modprobe cfq
nullb_configfs
nullb_make $disk size=64 memory_backed=1 irqmode=2 completion_nsec=20000
echo +io >$CG/cgroup.subtree_control
for c in $caches; do
	[ -d "/sys/kernel/slab/$c" ] && [ ! -L "/sys/kernel/slab/$c" ] ||
		fail "slab cache $c missing or merged"
	[ "$(cat "/sys/kernel/slab/$c/failslab")" = 1 ] ||
		fail "$c is not marked for failslab (slub_debug=A at boot?)"
done
# choose: 1 when each cache's failslab can be set at run time
choose=1
[ -n "$(find /sys/kernel/slab/cfq_queue/failslab -perm -200)" ] || choose=0
log "caches chosen per stage: $([ $choose = 1 ] && echo yes || echo 'no (all three fail)')"

# 1. queues
before=$(oom_requests)
fail_on 100 cfq_queue cfq_io_cq
reads 20
fail_off
n=$(injected) oom=$(($(oom_requests) - before))
log "1. all queue allocations failing: $n failed, 20 readers served, $oom oom requests"
[ "$n" -gt 0 ] && [ "$oom" -ge 20 ] ||
	fail "queues: $n allocations failed, $oom oom requests (want > 0, >= 20)"
before=$(oom_requests)
reads 20
[ "$(oom_requests)" = "$before" ] ||
	fail "queues: $(($(oom_requests) - before)) oom requests after failures stopped"

# 2. groups
cg_make slabcg 200
fail_on 100 cfq_group
reads 10 slabcg
fail_off
n=$(injected)
grep -q "^$(cat /sys/block/$disk/dev) " $CG/slabcg/io.cfq.stat &&
	fail "groups: slabcg has a group on $disk although all allocations failed"
log "2. all group allocations failing: $n failed, 10 readers in a new cgroup served"
[ "$n" -gt 0 ] || fail "groups: no group allocation failed"
reads 10 slabcg
grep -q "^$(cat /sys/block/$disk/dev) " $CG/slabcg/io.cfq.stat ||
	fail "groups: slabcg has no group on $disk after failures stopped"
rmdir $CG/slabcg

# 3. a third of everything, under a mixed load
mkdir $CG/fio
fail_on 33 $caches
in_cgroup fio fio --filename=/dev/$disk --eta=never --minimal \
	--output=/tmp/slab.fio \
	--verify=crc32c --verify_fatal=1 --bs=4k --size=4M \
	--name=direct --direct=1 --rw=randwrite --ioengine=libaio --iodepth=8 \
	--numjobs=3 --offset_increment=4M \
	--name=buffered --direct=0 --rw=write --offset=16M --end_fsync=1 \
	2>/tmp/slab.err &
fio_pid=$!
switches=0 switch_failed=0 oom=0
for ((i = 0; i < 40; i++)); do
	cg_make "slab$i" $((100 + i * 20))
	reads 3 "slab$i"
	echo $((1000 - i * 20)) >"$CG/slab$i/io.cfq.weight"
	rmdir "$CG/slab$i"
	if ((i % 8 == 7)); then
		oom=$((oom + $(oom_requests)))	# a new cfq counts from 0
		sched_set $disk none
		to_cfq
		switches=$((switches + 1))
	fi
done
wait $fio_pid || fail "fio under failing allocations: $(tail -n 3 /tmp/slab.err)"
n=$(injected)
fail_off
log "3. a third failing: $n allocations failed; fio wrote and verified" \
	"$(fio_sum slab 47) KiB;" \
	"40 cgroups made and removed, 120 readers," \
	"$switches switches ($switch_failed to cfq failed), $((oom + $(oom_requests))) oom requests"
[ "$n" -gt 0 ] || fail "mixed: no allocation failed"
rmdir $CG/fio

# 4. recovery
before=$(oom_requests)
fio --filename=/dev/$disk --eta=never --minimal --output=/tmp/after.fio \
	--name=after --direct=1 --rw=randwrite --bs=4k --size=8M \
	--verify=crc32c --verify_fatal=1 --numjobs=2 --offset_increment=8M \
	2>/tmp/after.err || fail "fio after the failures: $(tail -n 3 /tmp/after.err)"
reads 10
[ "$(oom_requests)" = "$before" ] ||
	fail "recovery: $(($(oom_requests) - before)) oom requests after failures stopped"
sched_set $disk none
slab_empty "after the switch to none"
rmdir "$NULLB_CFS/$disk"
rmmod cfq || fail "rmmod cfq failed"
rmmod null_blk
