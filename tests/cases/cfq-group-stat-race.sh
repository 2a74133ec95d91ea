#!/bin/bash
# The cgroup files read while groups come and go (on 7.2+ their printers
# run under RCU alone, without the queue lock). Two readers loop over
# io.cfq.stat and io.cfq.weight of a parent cgroup and of its children
# while, 20 rounds, a child is made, does direct I/O, and is removed with
# the I/O just done; then while cfq is switched away from the disk and
# back 10 times under I/O. Checked: the parent's bytes (its own and its
# descendants', removed children's kept) never go down while the children
# churn, and each reader finished its loops; the runner fails the case on
# any kernel warning, and the debug kernel's KASAN, lockdep and kmemleak
# check the lifetimes.
# timeout: 300
set -euo pipefail

hdd_setup
DEV=$(cat /sys/block/hdd0/dev)
mkdir -p $CG/sr
echo +io >$CG/sr/cgroup.subtree_control
cg_make sr/keep 100
# a first I/O in sr/keep makes the parent's line appear
in_cgroup sr/keep fio --eta=never --minimal --output=/dev/null --direct=1 \
	--bs=64k --ioengine=psync --filename=/dev/hdd0 --name=r --rw=read \
	--size=1M || fail "fio failed"

# bytes: rbytes + wbytes of sr on the disk, or nothing if no line
bytes() {
	awk -v d="$DEV" '$1 == d { r = 0; for (i = 2; i <= NF; i++)
		if ($i ~ /^[rw]bytes=/) { sub(/^[rw]bytes=/, "", $i); r += $i }
		print r }' $CG/sr/io.cfq.stat
}

# reader MODE: loop until /tmp/sr.stop; MODE mono checks that sr's bytes
# never decrease (until /tmp/sr.nomono appears)
reader() {
	local last=0 b n=0 f
	while [ ! -e /tmp/sr.stop ]; do
		if [ "$1" = mono ] && [ ! -e /tmp/sr.nomono ]; then
			b=$(bytes)
			if [ -n "$b" ]; then
				[ "$b" -ge "$last" ] ||
					{ echo "sr bytes went from $last to $b" >/tmp/sr.bad; return; }
				last=$b
			fi
		fi
		for f in $CG/sr/io.cfq.stat $CG/sr/io.cfq.weight $CG/sr/*/io.cfq.stat \
			$CG/sr/*/io.cfq.weight; do
			cat "$f" >/dev/null 2>&1 || true
		done
		n=$((n + 1))
	done
	echo "$n" >"/tmp/sr.$1.loops"
}
rm -f /tmp/sr.*
reader mono &
r1=$!
reader plain &
r2=$!

for i in $(seq 20); do
	cg_make "sr/c$i" $((100 + i * 10))
	in_cgroup "sr/c$i" fio --eta=never --minimal --output=/dev/null --direct=1 \
		--bs=64k --ioengine=psync --filename=/dev/hdd0 --name=r --rw=randread \
		--size=256M --io_size=1M --offset=$((i * 64))M || fail "fio in sr/c$i failed"
	rmdir "$CG/sr/c$i"
	[ ! -e /tmp/sr.bad ] || break
done
touch /tmp/sr.nomono
[ ! -e /tmp/sr.bad ] || fail "$(cat /tmp/sr.bad)"
log "20 children made, used and removed; sr: $(grep "^$DEV " $CG/sr/io.cfq.stat)"

in_cgroup sr/keep fio --eta=never --minimal --output=/dev/null --direct=1 \
	--bs=64k --ioengine=libaio --iodepth=8 --filename=/dev/hdd0 --name=r \
	--rw=randread --time_based --runtime=600 &
io=$!
for i in $(seq 10); do
	sleep 0.3
	sched_set hdd0 mq-deadline
	sleep 0.2
	sched_set hdd0 cfq
done
echo 1 >$CG/sr/keep/cgroup.kill
wait "$io" || true
for _ in $(seq 50); do
	[ -s $CG/sr/keep/cgroup.procs ] || break
	sleep 0.1
done
touch /tmp/sr.stop
wait "$r1" "$r2"
for m in mono plain; do
	[ -s "/tmp/sr.$m.loops" ] || fail "the $m reader did not finish"
	log "$m reader: $(cat /tmp/sr.$m.loops) loops"
done
hdd_teardown sr/keep sr
