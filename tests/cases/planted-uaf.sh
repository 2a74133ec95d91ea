#!/bin/bash
# Temporary: KASAN must fail this case (planted use-after-free).
# kernels: 6.12-debug 6.1-debug
set -euo pipefail
modprobe planted uaf=1
rmmod planted
