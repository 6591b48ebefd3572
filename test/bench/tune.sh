#!/bin/bash
# Tuning sweep of the one-shot defaults: runs bench_oneshot on a subset of
# rows for each variant of A's configuration and prints, per variant, A's
# geometric-mean normalised cost for every row and over all rows.
#
#   ./test/bench/tune.sh [extra bench_oneshot options]
#
# Tuning runs on data seeds 0 .. SEEDS-1; the reported tables use seeds from
# 100 on (the benchmarks' --seed-base default), so they are not the tuned ones.
# ROWS, SEEDS, VARIANTS (';'-separated option lists), JOBS and BENCH (the
# binary) may be set in the environment.  Full outputs go to
# test/bench/out/tune/; reference costs are cached in
# test/bench/out/ref_cache.txt so that each variant only runs the methods.
set -euo pipefail
cd "$(dirname "$0")/../.."
export OPENBLAS_NUM_THREADS=1
ROWS=${ROWS:-2:6:0.1,2:6:0.5,2:6:1,3:8:0.1,3:8:0.5,3:8:1,5:6:0.1,5:6:0.5,5:6:1}
SEEDS=${SEEDS:-10}
VARIANTS=${VARIANTS:-"--restarts 5;--restarts 20;--restarts 20 --grid-scale 1.3;--restarts 20 --grid-scale 1.5;--restarts 20 --sum-share 0.35;--restarts 20 --sum-share 0.65;--restarts 20 --n-share 0.02;--restarts 20 --threshold-log 1.25"}
JOBS=${JOBS:-2}
BENCH=${BENCH:-./test/bench/bin/bench_oneshot}
CACHE=test/bench/out/ref_cache.txt
OUT=test/bench/out/tune
mkdir -p "$OUT"

IFS=';' read -r -a vars <<< "$VARIANTS"
running=0
for v in "${vars[@]}"; do
	name=$(echo "$v" | tr -s ' -' '_' | sed 's/^_//')
	# shellcheck disable=SC2086
	"$BENCH" --no-baselines --ref-cache "$CACHE" --seed-base 0 --seeds "$SEEDS" --rows "$ROWS" $v "$@" \
		> "$OUT/$name.txt" &
	running=$((running + 1))
	if [ "$running" -ge "$JOBS" ]; then
		wait -n || true
		running=$((running - 1))
	fi
done
wait || true

for v in "${vars[@]}"; do
	name=$(echo "$v" | tr -s ' -' '_' | sed 's/^_//')
	printf '%-28s' "$v"
	awk '/^ *[0-9]/ { printf " %s:%s:%s=%s", $1, $2, $3, $5 }
	     /^# geometric mean over/ { printf "  | all %s\n", $NF }' "$OUT/$name.txt"
done
