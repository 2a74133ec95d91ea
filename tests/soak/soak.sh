#!/bin/bash
# The soak workload (run in the guest by scripts/soak): MINUTES of mixed
# I/O on two null_blk disks under cfq, everything a user does at once:
# - fio with crc32c verify: a sequential and a random reader-writer, a
#   buffered writer and an O_DSYNC writer, each in its own cgroup, run
#   round after round (every round verifies what it wrote);
# - ionice class and level changes of the fio processes (RT, BE 0-7, IDLE);
# - scheduler switches (cfq <-> mq-deadline, none) of one disk;
# - tunable writes, good ones and bad ones (which must fail with EINVAL and
#   leave the value as it was);
# - cgroup churn: cgroups made with random weights, a reader moved in,
#   weights changed, removed.
# At the end it prints the totals (SOAK-TOTAL lines) and fails on a fio
# verify error, an accepted bad tunable or a changed value after one; the
# runner fails it on any kernel warning, hang or, on the debug kernel, a
# kmemleak report (scripts/soak scans).
# usage: soak.sh MINUTES
set -euo pipefail
. /cfq/tests/lib/guest.sh

minutes=${1:?usage: soak.sh MINUTES}
end=$((SECONDS + minutes * 60))
CGS=(sq rw buf dsync)
rounds=0 ios=0 switches=0 tun_ok=0 tun_bad=0 cg_made=0 ionices=0 errors=0

# fio_round DEV: one verified round of the four jobs on DEV, each in its
# cgroup; a failed job is a line in /tmp/soak-errors
fio_round() {
	local dev=$1 mb=$((8 / CFQ_SLOW + 1)) i=0 pids=() job
	for job in "--rw=rw --bs=64k" "--rw=randrw --bs=4k --ioengine=libaio --iodepth=8" \
		"--rw=write --bs=16k --direct=0 --end_fsync=1" \
		"--rw=write --bs=4k --sync=dsync"; do
		# shellcheck disable=SC2086
		in_cgroup "${CGS[$i]}" fio --name="${CGS[$i]}" --filename="/dev/$dev" \
			--offset=$((i * 64))M --size=${mb}M --direct=1 $job \
			--verify=crc32c --verify_fatal=1 --do_verify=1 \
			--eta=never --minimal --output="/tmp/soak-$dev-$i.fio" \
			2>"/tmp/soak-$dev-$i.err" &
		pids+=($!)
		i=$((i + 1))
	done
	for i in "${!pids[@]}"; do
		if ! wait "${pids[$i]}"; then
			echo "fio ${CGS[$i]} on $dev failed: $(grep -m1 -iE 'verify|error' "/tmp/soak-$dev-$i.err")" |
				tee -a /tmp/soak-errors
		fi
	done
}

# tunables DEV: a good and a bad write to a few of cfq's tunables
tunables() {
	local d=/sys/block/$1/queue/iosched t v bad before
	[ "$(sched_get "$1")" = cfq ] || return 0
	for t in slice_idle quantum low_latency startup_boost group_idle; do
		v=$(cat "$d/$t")
		echo "$v" >"$d/$t" && tun_ok=$((tun_ok + 1))
		for bad in -1 abc 99999999999999999999 ''; do
			before=$(cat "$d/$t")
			if echo "$bad" 2>/dev/null >"$d/$t"; then
				echo "tunable $t accepted '$bad'"
				errors=$((errors + 1))
			fi
			[ "$(cat "$d/$t")" = "$before" ] || {
				echo "tunable $t changed by the bad write '$bad'"
				errors=$((errors + 1))
			}
			tun_bad=$((tun_bad + 1))
		done
	done
}

# churn: a cgroup with a random weight and a short reader, weight changed
# under it, then removed
churn() {
	local c=churn$cg_made
	cg_make "$c" $((RANDOM % 1000 + 1))
	in_cgroup "$c" fio --name=c --filename=/dev/nullb0 --rw=randread \
		--bs=4k --direct=1 --size=4M --offset=512M --runtime=1 \
		--eta=never --minimal --output=/dev/null &
	echo $((RANDOM % 10000 + 1)) >"$CG/$c/io.cfq.weight"
	wait $! || { echo "churn reader in $c failed"; errors=$((errors + 1)); }
	rmdir "$CG/$c"
	cg_made=$((cg_made + 1))
}

# renice: a random ionice class and level for each fio process
renice() {
	local p
	for p in $(pidof fio 2>/dev/null); do
		case $((RANDOM % 3)) in
		0) ionice -c1 -n$((RANDOM % 8)) -p "$p" 2>/dev/null || true ;;
		1) ionice -c2 -n$((RANDOM % 8)) -p "$p" 2>/dev/null || true ;;
		2) ionice -c3 -p "$p" 2>/dev/null || true ;;
		esac
		ionices=$((ionices + 1))
	done
}

# side DEV: while DEV's round runs, the user's actions on both disks
side() {
	local scheds=(cfq mq-deadline cfq none)
	while :; do
		sleep 0.5
		renice
		tunables nullb0
		sched_set nullb1 "${scheds[$((switches % 4))]}"
		switches=$((switches + 1))
		churn
		[ -e /tmp/soak-stop ] && break
	done
	echo "$switches $tun_ok $tun_bad $cg_made $ionices $errors" >/tmp/soak-side
}

nullb_load nr_devices=2 queue_mode=2 irqmode=2 completion_nsec=200000 \
	gb=1 memory_backed=1
for d in nullb0 nullb1; do
	echo 1 >"/sys/block/$d/queue/rotational"
	sched_set "$d" cfq
done
echo +io >$CG/cgroup.subtree_control
for c in "${CGS[@]}"; do
	cg_make "$c" 100
done
echo 200 >$CG/rw/io.cfq.weight
rm -f /tmp/soak-stop
: >/tmp/soak-errors
side &
side_pid=$!
while [ $SECONDS -lt $end ]; do
	fio_round nullb0 &
	r0=$!
	fio_round nullb1
	wait $r0 || true
	rounds=$((rounds + 1))
	ios=$((ios + $(cat /tmp/soak-nullb*.fio | awk -F';' 'NF > 100 { n += $8 + $49 } END { print n + 0 }')))
done
touch /tmp/soak-stop
wait $side_pid
read -r switches tun_ok tun_bad cg_made ionices side_errors </tmp/soak-side
errors=$((side_errors + $(wc -l </tmp/soak-errors)))
echo "SOAK-TOTAL minutes=$minutes rounds=$rounds ios_verified=$ios switches=$switches tunable_writes_ok=$tun_ok tunable_writes_bad=$tun_bad cgroups=$cg_made ionice=$ionices errors=$errors"
for d in nullb0 nullb1; do
	sched_set "$d" none
done
for c in "${CGS[@]}"; do
	rmdir "$CG/$c"
done
rmmod cfq || fail "rmmod cfq failed after the soak"
[ "$errors" = 0 ] || fail "soak: $errors errors"
