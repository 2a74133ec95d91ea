#!/bin/bash
# A sync reader is not starved by 8 buffered (async) writers, and the
# writes still get done. On the emulated disk: a sequential 128k reader's
# throughput alone; then the same reader for 6 s next to 8 fio jobs each
# writing 32 MiB through the page cache (written back by the flusher,
# dirty_background_bytes=1M so write-back starts at once). The reader must
# keep at least 40 % of its solo throughput, at least 16 MiB must reach the
# disk in the first 5 s while it reads, and all 256 MiB must be written
# within 30 s after.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 300
set -euo pipefail

hdd_setup

old_bg=$(cat /proc/sys/vm/dirty_background_bytes)
old_bgr=$(cat /proc/sys/vm/dirty_background_ratio)
restore() {
	if [ "$old_bg" != 0 ]; then
		echo "$old_bg" >/proc/sys/vm/dirty_background_bytes
	else
		echo "$old_bgr" >/proc/sys/vm/dirty_background_ratio
	fi
}
trap restore EXIT

# written: MiB written to hdd0 so far (completed)
written() { awk '{ print int($7 / 2048) }' /sys/block/hdd0/stat; }

# the reader: hdd_reader (sequential, 128k) at 3 GiB, alone for 4 s
hdd_reader solo 3G 4 || fail "solo reader failed"
solo=$(fio_kib solo)

echo 1048576 >/proc/sys/vm/dirty_background_bytes
w0=$(written)
hdd_reader mixed 3G 6 &
rp=$!
fio --eta=never --minimal --output=/tmp/w.fio --bs=128k --rw=write \
	--size=32M --filename=/dev/hdd0 --offset_increment=256M \
	--name=w --numjobs=8 &
wp=$!
# write-back progress in the first 5 s, while the reader surely reads
prog=
for _ in 1 2 3 4 5; do
	sleep 1
	during=$(($(written) - w0))
	prog="$prog $during"
done
wait $rp || fail "reader failed next to the writers"
mixed=$(fio_kib mixed)
log "reader alone $solo KiB/s, next to 8 writers $mixed KiB/s;" \
	"MiB written after 1..5 s:$prog"
wait $wp || fail "a writer failed"
[ "$(awk -F';' '$5 == 0 && $47 == 32768' /tmp/w.fio | wc -l)" = 8 ] ||
	fail "writers: $(awk -F';' '{ printf "%s:%s:%s ", $3, $5, $47 }' /tmp/w.fio)"
t=0
while [ $(($(written) - w0)) -lt 256 ] && [ $t -lt 60 ]; do
	sleep 0.5
	t=$((t + 1))
done
log "write-back done $((t / 2)).$((t % 2 * 5)) s after the writers exited: $(($(written) - w0)) MiB"
[ $((mixed * 10)) -ge $((solo * 4)) ] ||
	fail "reader starved: $mixed KiB/s next to the writers, < 40 % of $solo alone"
[ "$during" -ge 16 ] || fail "async writes starved: $during MiB written in 5 s next to the reader"
[ $(($(written) - w0)) -ge 256 ] || fail "writes not done 30 s after the reader: $(($(written) - w0)) of 256 MiB"

restore
trap - EXIT
sched_set hdd0 none
rmmod hddsim
