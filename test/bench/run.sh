#!/bin/bash
# Run the one-shot accuracy benchmark and keep its table in test/bench/out/.
# Arguments are passed to bench_oneshot (see test/bench/bench_oneshot.c).
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p test/bench/out
export OPENBLAS_NUM_THREADS=1
./test/bench/bin/bench_oneshot "$@" | tee test/bench/out/oneshot.txt
