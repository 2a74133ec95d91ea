#!/bin/bash
# FIFO expiry bounds the wait of a request behind a long sequential stream.
# One process (one cfq queue) on the emulated disk, libaio at depth 8, 1 MiB
# direct I/O over 2 GiB: 90 % sequential reads, 10 % sequential writes that
# fall ever further behind the reads, so the sector sweep never comes back
# to them; only the FIFO serves them. The longest write latency must stay
# within fifo_expire_sync + slice_sync + 50 ms (275 ms); with
# fifo_expire_sync=1000 it must grow past 400 ms (so the bound comes from
# the FIFO, not from the sweep or the queue depth).
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 240
set -euo pipefail

hdd_setup
Q=/sys/block/hdd0/queue/iosched

# stream: 4 s of it; sets rk (read KiB/s), wkb (KiB written), wmax (max write
# latency, ms), rmax (max read latency, ms)
stream() {
	fio --eta=never --minimal --output=/tmp/fifo.fio --direct=1 --bs=1M \
		--rw=rw --rwmixread=90 --ioengine=libaio --iodepth=8 \
		--runtime=4 --time_based --filename=/dev/hdd0 --name=s \
		--size=2G || fail "fio failed"
	# terse v3: read KiB/s $7, read total-latency max $39 (us);
	# write KiB $47, write total-latency max $80 (us)
	read -r rk rmax wkb wmax <<<"$(awk -F';' '{ printf "%d %d %d %d\n",
		$7, $39 / 1000, $47, $80 / 1000 }' /tmp/fifo.fio)"
	log "fifo_expire_sync=$(cat $Q/fifo_expire_sync): reads $rk KiB/s (max latency $rmax ms)," \
		"writes $wkb KiB (max latency $wmax ms)"
	[ "$wkb" -ge $((16 * 1024)) ] || fail "only $wkb KiB written: too few writes to judge"
}

stream
bound=$(($(cat $Q/fifo_expire_sync) + $(cat $Q/slice_sync) + 50))
[ "$wmax" -le "$bound" ] || fail "a write waited $wmax ms > fifo_expire_sync + slice_sync + 50 = $bound ms"

echo 1000 >$Q/fifo_expire_sync
stream
[ "$wmax" -ge 400 ] || fail "fifo_expire_sync=1000: writes still served within $wmax ms"

echo 125 >$Q/fifo_expire_sync
sched_set hdd0 none
rmmod hddsim
