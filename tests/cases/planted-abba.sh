#!/bin/bash
# Temporary: lockdep must fail this case (planted ABBA locking).
# kernels: 6.12-debug 6.1-debug
set -euo pipefail
modprobe planted abba=1
rmmod planted
