#!/bin/bash
# cfq's KUnit suites (tests/modules/cfq-kunit): slice scaling, ioprio to
# slice mapping, service-tree keys and order, sliding-window and
# neighbour request selection, the close-cooperator lookup.
set -euo pipefail
kunit_run cfq_kunit
