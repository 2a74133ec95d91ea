#!/bin/bash
# Cgroup life cycle under I/O, 200 rounds: cgroups created, weighted and
# removed; three direct-I/O readers/writers moved into the round's cgroup
# and back every 100 ms; a libaio reader with 16 requests in flight moved
# out right before the rmdir, so the cgroup goes with requests queued; a
# buffered writer per cgroup; the io controller switched off and on in the
# parent and the scheduler switched away and back every few rounds. Then
# no kernel warning (the runner checks), no hang, and no leak: with no
# queue on cfq, cfq's slab caches (cfq_queue, cfq_group; the boot has
# slab_nomerge so they are cfq's alone) hold no object, as before the
# churn; rmmod cfq right after the last rmdir and elevator switch waits
# for the groups the block layer frees late and does not complain.
# vm: --append slab_nomerge
# timeout: 900
set -euo pipefail

rmmod cfq 2>/dev/null || true
modprobe cfq
slab_empty "cfq loaded, not in use"
nullb_load queue_mode=2 irqmode=2 completion_nsec=1000000 gb=1
echo 1 >/sys/block/nullb0/queue/rotational
sched_set nullb0 cfq
echo +io >$CG/cgroup.subtree_control
mkdir -p $CG/p
echo +io >$CG/p/cgroup.subtree_control

# three readers/writers that the cgroup moves follow around; they run
# until killed at the end (600 s ran out on a loaded debug kernel)
pids=
for j in 1 2 3; do
	fio --eta=never --direct=1 --bs=4k --rw=randrw --runtime=3600 --time_based \
		--filename=/dev/nullb0 --name=w$j --size=64M \
		--output=/tmp/churn$j.fio &
	pids="$pids $!"
done
# and one with many requests queued at every rmdir
fio --eta=never --direct=1 --bs=4k --rw=randread --ioengine=libaio --iodepth=16 \
	--runtime=3600 --time_based --filename=/dev/nullb0 --name=aio \
	--offset=512M --size=256M --output=/tmp/churn-aio.fio &
aio=$!
sleep 1

# move DEST PIDS...: move the tasks into cgroup DEST (ignoring exited ones)
move() {
	local d=$1 p
	shift
	for p in "$@"; do echo "$p" >"$d/cgroup.procs" 2>/dev/null || true; done
}

# 200 rounds; 50 on a debug kernel, where each takes 8 times as long
rounds=$((CFQ_SLOW > 1 ? 50 : 200))
for i in $(seq $rounds); do
	d=$CG/p/c$((i % 4))
	mkdir -p $d
	echo $((i * 37 % 1000 + 1)) >$d/io.cfq.weight
	# shellcheck disable=SC2086
	move $d $pids $aio
	# a buffered writer of this cgroup too
	(echo $BASHPID >$d/cgroup.procs
	 exec dd if=/dev/zero of=/dev/nullb0 bs=64k count=32 seek=$((i % 64 * 64)) 2>/dev/null) &
	sleep 0.1
	# shellcheck disable=SC2086
	move $CG/p $pids $aio
	wait $! 2>/dev/null || true
	# the aio reader's requests are still queued for this cgroup
	rmdir $d 2>/dev/null || true
	if [ $((i % 10)) = 0 ]; then
		sched_set nullb0 mq-deadline
		sched_set nullb0 cfq
	fi
	if [ $((i % 15)) = 0 ]; then
		# shellcheck disable=SC2086
		move $CG $pids $aio
		echo -io >$CG/p/cgroup.subtree_control
		echo +io >$CG/p/cgroup.subtree_control
	fi
done
# shellcheck disable=SC2086
move $CG $pids $aio
for p in $pids $aio; do
	kill -0 "$p" 2>/dev/null || fail "fio $p died during the churn"
	kill "$p"
	wait "$p" 2>/dev/null || true
done
rmdir $CG/p/c* 2>/dev/null || true
rmdir $CG/p
log "in use: $(slab_objects cfq_queue) cfq_queue, $(slab_objects cfq_group) cfq_group objects"
sched_set nullb0 none
slab_empty "after the churn, no queue on cfq"
# late frees of removed cgroups' groups (6.1) must not outlive the module
sched_set nullb0 cfq
mkdir $CG/p
dd if=/dev/nullb0 of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null
(echo $BASHPID >$CG/p/cgroup.procs; exec dd if=/dev/nullb0 of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null)
rmdir $CG/p
sched_set nullb0 none
rmmod cfq || fail "rmmod cfq failed"
! dmesg | grep -q 'cfq: .* groups still allocated' || fail "$(dmesg | grep 'groups still allocated')"
rmmod null_blk
