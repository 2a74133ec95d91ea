# title: B4n, B4 on an NCQ disk: 4 processes x 10 threads reading random 4-block runs (hddsim, depth 32, NCQ)
# schedulers: none,mq-deadline,kyber,bfq,cfq,cfq:sliding_window=0
# plot: 2; title work done (higher is better); values
# plot: 7; ylabel mean seek (million sectors); scale 1e-6; title mean seek distance (lower is better); values
# The 2005 seed: many concurrent readers of short random runs on a disk
# that reorders up to 32 requests itself (hddsim depth=32): the scheduler
# and the disk share the ordering. Operations completed in a fixed time; the
# fewest and most runs of one thread show whether that order is fair.
set -euo pipefail
. /cfq/bench/lib.sh
quick=$1; scheds=$2
modprobe hddsim depth=32
load_scheds "$scheds"
# 40 threads: each its own io_context, so 40 sync queues (as 4 x 10)
runs_bench "$([ "$quick" = 1 ] && echo 5 || echo 20)" \
	--thread --numjobs=40 --rw=randread:4 --bs=4k
