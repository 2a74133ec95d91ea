# title: B1d, weight groups on an 8-spindle array: direct sequential readers (128 KiB, one at a time) in cgroups weighted 100 and 200
# schedulers: cfq,cfq:slice_idle=0+group_idle=8,bfq,none+iocost,none,mq-deadline
# plot: 6 by 2; ylabel MB/s of weight 200 / MB/s of weight 100; title share of the weight-200 group (goal 2.0); goal 2.0; ymax 4
# plot: 7 by 2; ylabel total MB/s (both groups); title throughput kept (higher is better)
# B1 with the 2010 seed's readers as the disk sees them: each of the N
# readers per group reads the read-ahead size, 128 KiB, with O_DIRECT and
# one request in flight, so the guest's CPU copies nothing into the page
# cache and a reader's pauses are the disk's, not the emulator's. The same
# script as B1 (bench/b1-groups-array.sh), 4 s runs.
# shellcheck disable=SC2034 # read by the script sourced below
B1_DIRECT=1
. /cfq/bench/b1-groups-array.sh
