#!/bin/bash
# Start-up boost (startup_boost, on by default): an "application" (one
# process reading 200 small files of ext4 on the emulated disk, cold)
# starts while a sequential direct reader runs. Its start-up must take
# less than 1.6x its idle-disk time, and the reader must keep more than a
# tenth of what it reads alone; under five readers, less than 1.6x too,
# with the readers keeping a twentieth; and five processes started 20 ms
# apart, each reading its own 40 files, under one reader: less than 1.6x
# the idle-disk launch, the reader above a tenth. With startup_boost=0 the start-up is
# slower than with the boost. (The reader's rate during the start-up is
# counted from the disk's sectors read less those the start-up reads.)
# Then the bound: a seeky reader starting next to a sequential one and
# running for 3 s in a cgroup of its own, with startup_boost=1000, is
# served boosted for at most its first second (+ a slice: io.cfq.stat
# boost_ms), and its io.cfq.stat time_ms shows it kept being served after.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 300
set -euo pipefail

hdd_setup depth=1
Q=/sys/block/hdd0/queue/iosched
DEV=$(cat /sys/block/hdd0/dev)
modprobe ext4 || fail "modprobe ext4 failed"
mkfs.ext4 -q -F /dev/hdd0 || fail "mkfs.ext4 failed"
mkdir -p /mnt/sb
mount -t ext4 -o noinit_itable,noatime /dev/hdd0 /mnt/sb || fail "mount failed"
for i in $(seq 0 199); do
	mkdir -p "/mnt/sb/d$((i % 13))"
	dd if=/dev/urandom of="/mnt/sb/d$((i % 13))/f$i" bs=4k \
		count=$(((i * 7) % 24 + 1)) status=none
done
dd if=/dev/zero of=/mnt/sb/big bs=1M count=384 status=none
sync
files=$(for i in $(seq 0 199); do j=$(((i * 131) % 200)); echo "/mnt/sb/d$((j % 13))/f$j"; done)

# sectors read from hdd0 so far
rd_sectors() { awk '{ print $3 }' /sys/block/hdd0/stat; }
# start [launch]: "ms sectors" of a cold start-up (guest time, sectors
# read meanwhile): one cat, or with "launch" 5 of them 20 ms apart, each
# its own 40 files
start() {
	local t0 s0 k
	sync
	echo 3 >/proc/sys/vm/drop_caches
	s0=$(rd_sectors)
	t0=${EPOCHREALTIME/./}
	if [ "${1:-}" = launch ]; then
		for k in 0 1 2 3 4; do
			# shellcheck disable=SC2086
			cat $(echo "$files" | sed -n "$((k * 40 + 1)),$((k * 40 + 40))p") >/dev/null &
			sleep 0.02
		done
		wait
	else
		# shellcheck disable=SC2086
		cat $files >/dev/null
	fi
	echo "$(((${EPOCHREALTIME/./} - t0) / 1000)) $(($(rd_sectors) - s0))"
}
# reader SECONDS [N]: the background reader (N of them, each its own part
# of the file), 1 MiB direct reads, KiB/s in /tmp/bg.fio
reader() {
	local n=${2:-1}
	fio --eta=never --minimal --output=/tmp/bg.fio --name=bg --filename=/mnt/sb/big \
		--rw=read --bs=1M --direct=1 --ioengine=psync --time_based \
		--runtime="$1" --numjobs="$n" --size=$((384 / n))M \
		--offset_increment=$((384 / n))M >/dev/null
}

read -r idle app <<<"$(start)"
read -r lidle lapp <<<"$(start launch)"
reader 3
alone=$(fio_kib bg)
# under_reader [N] [launch]: sets busy (start-up ms) and kib (the N
# readers' KiB/s during the start-up: the sectors read meanwhile less the
# start-up's own)
under_reader() {
	local sec own=$app
	[ "${2:-}" = launch ] && own=$lapp
	reader 8 "${1:-1}" &
	sleep 1
	read -r busy sec <<<"$(start "${2:-}")"
	wait || fail "reader failed"
	kib=$(((sec - own) / 2 * 1000 / busy))
	log "startup_boost=$(cat $Q/startup_boost): ${2:-start-up} ${busy} ms (idle ${idle} ms, launcher ${lidle} ms), ${1:-1} reader(s) $kib KiB/s (one alone $alone)"
}
under_reader
ratio_in "start-up under a reader / idle" "$busy" "$idle" 0 1.6
ratio_in "reader's throughput during it / alone" "$kib" "$alone" 0.1 2
boosted=$busy
# five readers: the boosted side and the readers take turns by time, not
# reader by reader (B2: 1.22x against 1.68x when each reader had a turn
# between two of the start-up's)
under_reader 5
ratio_in "start-up under 5 readers / idle" "$busy" "$idle" 0 1.6
ratio_in "the 5 readers' throughput during it / one alone" "$kib" "$alone" 0.05 2
# five processes starting: the boosted side's time counts the requests
# its queues leave in flight (with it counted from each activation only,
# the reader kept 6.6 % in B2's launcher on 6.1)
under_reader 1 launch
ratio_in "launcher under a reader / idle" "$busy" "$lidle" 0 1.6
ratio_in "reader's throughput during the launcher / alone" "$kib" "$alone" 0.1 2
echo 0 >$Q/startup_boost
under_reader
ratio_in "start-up without the boost / with it" "$busy" "$boosted" 1.05 100
echo 4000 >$Q/startup_boost
umount /mnt/sb

# the bound: a seeky reader that starts while a sequential one reads is
# boosted for its first second only
echo 1000 >$Q/startup_boost
mkdir -p $CG/sk
hdd_reader seq 2G 4 &
sleep 0.5
in_cgroup sk fio --eta=never --minimal --output=/tmp/sk.fio --name=sk \
	--filename=/dev/hdd0 --rw=randread --bs=4k --direct=1 --size=2G \
	--runtime=3 --time_based || fail "seeky fio failed"
wait || fail "sequential reader failed"
b=$(cg_stat sk "$DEV" boost_ms) t=$(cg_stat sk "$DEV" time_ms)
log "seeky reader: boost_ms=$b time_ms=$t"
[ "$b" -ge 500 ] && [ "$b" -le 1400 ] || fail "seeky reader boosted for $b ms, want 500 .. 1400"
[ "$t" -ge $((b + 250)) ] || fail "seeky reader served only $t ms, $b of them boosted"
echo 4000 >$Q/startup_boost
hdd_teardown sk
