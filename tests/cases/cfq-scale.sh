#!/bin/bash
# Scale: many queues, groups and disks under cfq at once, on null_blk
# (memory-backed, 20 us completions, rotational so cfq idles):
# 1. 1000 threads (fio), each its own process context and so its own sync
#    queue, read one disk until all 1000 have read and 1000 queues are
#    live at once (and 5 s more): every one must be served (none starved),
#    with no I/O error;
# 2. 1000 cgroups, each with a reader of 64 KiB, and one 5-deep chain
#    /scale/d1/.../d5 with a reader in its leaf: each cgroup gets its
#    group on the disk (1000 + 5 cfq_group objects more);
# 3. 64 disks under cfq at once, each read by its own reader;
# then all of it is removed: the disks back to none, the cgroups gone, and
# cfq's slabs must be empty. The slab counts and sizes give cfq's memory
# per queue (cfq_queue + cfq_io_cq) and per group (cfq_group) in the log.
# The runner fails it on a soft lockup, RCU stall or hung task. Not on
# the debug kernels: 1000 threads there would take the pass's time.
# It took 214 s on 6.12 alone and 481 s on 7.3 beside a second guest,
# hence the timeout.
# kernels: 6.1 6.12 7.3
# vm: --append slab_nomerge
# timeout: 900
set -euo pipefail
trap 'echo "line $LINENO: command failed (status $?)"' ERR

# obj_size CACHE: the bytes of one object of CACHE, slab metadata included
obj_size() { cat "/sys/kernel/slab/$1/slab_size"; }

modprobe cfq
nullb_configfs
nullb_make scale0 size=256 memory_backed=1 irqmode=2 completion_nsec=20000
echo +io >$CG/cgroup.subtree_control
q0=$(slab_objects cfq_queue) c0=$(slab_objects cfq_io_cq) g0=$(slab_objects cfq_group)

# 1. 1000 queues on one disk. fio starts its threads one by one, which
# took over 10 s under TCG, and over 30 s with three guests on two cores
# (991 live at once at the most): so the threads run until all 1000
# have read and 1000 queues have been live for 5 s (at most 300 s), then
# fio is stopped. The queue count alone was not enough: cfq_queue counts
# every disk's queues, and fio, stopped with 1000 of them live, once
# reported 999 jobs (6.12): its last thread had not read yet, we think,
# and another queue made up the count.
fio --thread --filename=/dev/scale0 --eta=never --minimal \
	--output=/tmp/scale.fio --name=q --numjobs=1000 --rw=randread \
	--bs=4k --direct=1 --ioengine=psync --size=256M --runtime=300 \
	--time_based 2>/tmp/scale.err &
fio_pid=$!
# readers: fio's threads that have read (their read_bytes count direct
# reads at submission)
readers() {
	cat /proc/"$fio_pid"/task/*/io 2>/dev/null | grep -c '^read_bytes: [1-9]' || true
}
qmax=0 cmax=0 full=0
while kill -0 $fio_pid 2>/dev/null; do
	q=$(slab_objects cfq_queue) c=$(slab_objects cfq_io_cq)
	[ "$q" -gt "$qmax" ] && qmax=$q
	[ "$c" -gt "$cmax" ] && cmax=$c
	[ $((q - q0)) -ge 1000 ] && [ "$(readers)" -ge 1000 ] && full=$((full + 1))
	# fio may have ended since kill -0 (its own 300 s ran out)
	if [ $full = 5 ]; then kill -INT $fio_pid 2>/dev/null || true; fi
	sleep 1
done
wait $fio_pid || log "fio ended with status $? (stopped by SIGINT)"
read -r jobs minio sumio <<<"$(awk -F';' 'NF > 100 { n++; s += $6
	if (min == "" || $6 < min) min = $6 } END { print n, min, s }' /tmp/scale.fio)"
log "1. $jobs readers: $sumio KiB in all, the least served read $minio KiB;" \
	"at most $((qmax - q0)) cfq_queue and $((cmax - c0)) cfq_io_cq objects" \
	"live; a queue costs $(obj_size cfq_queue) + $(obj_size cfq_io_cq) bytes"
[ "$jobs" = 1000 ] || fail "1000 readers: fio reported $jobs jobs: $(tail -n 3 /tmp/scale.err)"
[ "$(awk -F';' 'NF > 100 && $5 != 0' /tmp/scale.fio | wc -l)" = 0 ] ||
	fail "1000 readers: jobs with an error: $(tail -n 3 /tmp/scale.err)"
[ "$minio" -gt 0 ] || fail "1000 readers: a reader was never served"
[ $((qmax - q0)) -ge 1000 ] ||
	fail "1000 readers: only $((qmax - q0)) queues were live at once"

# 2. 1000 cgroups and a 5-deep chain
mkdir $CG/scale
echo +io >$CG/scale/cgroup.subtree_control
for ((i = 0; i < 1000; i++)); do
	mkdir "$CG/scale/g$i"
	echo $((100 + i % 10 * 100)) >"$CG/scale/g$i/io.cfq.weight"
done
d=scale
for i in 1 2 3 4 5; do
	d=$d/d$i
	mkdir "$CG/$d"
	[ $i = 5 ] || echo +io >"$CG/$d/cgroup.subtree_control"
done
pids=()
for ((i = 0; i < 1000; i++)); do
	in_cgroup "scale/g$i" dd if=/dev/scale0 of=/dev/null bs=4k count=16 \
		skip=$((i * 16)) iflag=direct 2>/dev/null &
	pids+=($!)
done
in_cgroup "$d" dd if=/dev/scale0 of=/dev/null bs=4k count=16 iflag=direct \
	2>/dev/null || fail "the reader 5 levels deep failed"
for p in "${pids[@]}"; do
	wait "$p" || fail "a reader in one of the 1000 cgroups failed"
done
g=$(slab_objects cfq_group)
dev=$(cat /sys/block/scale0/dev)
grep -q "^$dev " "$CG/$d/io.cfq.stat" || fail "no group for the leaf 5 levels deep"
log "2. 1000 cgroups and a 5-deep chain read: $((g - g0)) cfq_group objects" \
	"more; a group costs $(obj_size cfq_group) bytes"
[ $((g - g0)) -ge 1005 ] || fail "1005 cgroups read, only $((g - g0)) groups made"

# 3. 64 disks
for ((i = 1; i < 64; i++)); do
	nullb_make "scale$i" size=16 memory_backed=1 irqmode=2 completion_nsec=20000
done
pids=()
for ((i = 0; i < 64; i++)); do
	dd if=/dev/scale$i of=/dev/null bs=64k count=64 iflag=direct 2>/dev/null &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p" || fail "a reader of one of the 64 disks failed"
done
n=$(grep -l '\[cfq\]' /sys/block/scale*/queue/scheduler | wc -l)
log "3. 64 disks read at once, $n under cfq; $(slab_objects cfq_group) cfq_group objects"
[ "$n" = 64 ] || fail "only $n of 64 disks under cfq"

# removal
for ((i = 1000 - 1; i >= 0; i--)); do
	rmdir "$CG/scale/g$i"
done
for i in 5 4 3 2 1; do
	rmdir "$CG/$d"
	d=${d%/d$i}
done
rmdir $CG/scale
for ((i = 0; i < 64; i++)); do
	sched_set "scale$i" none
done
slab_empty "after the disks went back to none"
for ((i = 0; i < 64; i++)); do
	rmdir "$NULLB_CFS/scale$i"
done
rmmod cfq || fail "rmmod cfq failed"
rmmod null_blk
