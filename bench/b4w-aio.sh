# title: B4w, the seed's shape: 4 processes keeping 10 random 4-block runs each in flight (hddsim, depth 1)
# schedulers: none,mq-deadline,kyber,bfq,cfq,cfq:sliding_window=0
# plot: 2; title work done (higher is better); values
# plot: 7; ylabel mean seek (million sectors); scale 1e-6; title mean seek distance (lower is better); values
# The 2005 seed's own shape: a few processes each with many requests
# queued (libaio, 10 in flight, direct), each request a 16 KiB run at a
# random offset, on a disk that does no reordering (hddsim depth=1). Each
# queue holds about 10 requests, so the order inside a queue matters: the
# global sliding window (sliding_window=1) against CFQ 4.20's neighbour
# rule (=0).
set -euo pipefail
. /cfq/bench/lib.sh
quick=$1; scheds=$2
modprobe hddsim depth=1
load_scheds "$scheds"
runs_bench "$([ "$quick" = 1 ] && echo 5 || echo 20)" \
	--numjobs=4 --ioengine=libaio --iodepth=10 --rw=randread --bs=16k
