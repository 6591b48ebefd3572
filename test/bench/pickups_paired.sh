#!/usr/bin/env bash
# The one-shot (A) against the plain RUGNIK grid (B) on the 2-d pickups,
# K = 10, seed by seed: bench_oneshot once per seed and epsilon, then per
# epsilon the geometric means, the worst seeds, the mean of log(A / B) with
# its 95 % interval (paired over seeds) and the seeds where A <= B.
#   SEEDS (default 200) seeds from SEED_BASE (default 100, the reported ones)
#   EPS (default "0.25 0.5 1 2 4 8")
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
SEEDS=${SEEDS:-200}
SEED_BASE=${SEED_BASE:-100}
EPS=${EPS:-"0.25 0.5 1 2 4 8"}
bin=$top/test/bench/bin/bench_oneshot
cache=$(mktemp /tmp/dpkmeans-pickups.XXXXXX)
trap 'rm -f "$cache"' EXIT
for ((s = SEED_BASE; s < SEED_BASE + SEEDS; s++)); do
	for e in $EPS; do
		"$bin" --data pickups --n 200000 --rows "2:10:$e" --seeds 1 --seed-base "$s" \
			--ref-cache "$cache" | awk -v s="$s" -v e="$e" '$1 == 2 && $2 == 10 { print s, e, $5, $6 }'
	done
done | awk '
{ n[$2]++; la[$2] += log($3); lb[$2] += log($4); d = log($3) - log($4)
  sd[$2] += d; sd2[$2] += d * d; w[$2] += ($3 <= $4)
  if ($3 > wa[$2]) wa[$2] = $3; if ($4 > wb[$2]) wb[$2] = $4
  if (!($2 in seen)) { seen[$2] = 1; order[++k] = $2 } }
END {
  printf "%6s %5s %16s %16s %20s %9s\n", "eps", "seeds", "A (worst)", "grid (worst)", "A / grid - 1, 95 %", "A <= grid"
  for (i = 1; i <= k; i++) { e = order[i]; m = sd[e] / n[e]
    se = sqrt((sd2[e] - n[e] * m * m) / (n[e] - 1) / n[e])
    printf "%6s %5d %8.4f (%.3f) %8.4f (%.3f) %+8.3f %% +- %.3f %% %5d\n", e, n[e], exp(la[e] / n[e]), wa[e],
      exp(lb[e] / n[e]), wb[e], 100 * m, 196 * se, w[e] }
}'
