#!/usr/bin/env bash
# Low-d live tables with delta (A, the Gaussian table as dp_attach configures
# it) against pure ones at the same epsilon (B, the share tree as dp_attach
# configures it), release by release on the same rows: bench_continual
# --verbose once for each, then per (data, epsilon) the geometric means over
# every measured release and seed, the worst release (geometric mean over the
# seeds at one t), the mean over seeds of log(A / B) with its 95 % interval
# (paired over seeds) and the seeds where A's mean is at or below B's.
#   SEEDS (default 30) seeds from SEED_BASE (default 100, the reported ones)
#   ROWS (default "3:6:0.5,3:6:1"), HORIZON (256), N (10000),
#   DATA (mixture,skewed), DELTA (1e-6)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
SEEDS=${SEEDS:-30}
SEED_BASE=${SEED_BASE:-100}
ROWS=${ROWS:-3:6:0.5,3:6:1}
HORIZON=${HORIZON:-256}
N=${N:-10000}
DATA=${DATA:-mixture,skewed}
DELTA=${DELTA:-1e-6}
bin=$top/test/bench/bin/bench_continual
out=$(mktemp -d /tmp/dpkmeans-gauss-lowd.XXXXXX)
trap 'rm -rf "$out"' EXIT
common=(--rows "$ROWS" --data "$DATA" --stream insert --no-del --no-naive
	--horizons "$HORIZON" --releases all --n "$N" --seeds "$SEEDS"
	--seed-base "$SEED_BASE" --verbose)
"$bin" --share-tree "${common[@]}" >"$out/pure" &
"$bin" --delta "$DELTA" "${common[@]}" >"$out/gauss"
wait
# one line per measured release: data eps seed t cost
pick() {
	sed -n 's/^#   \([a-z]*\) insert .* eps=\([0-9.]*\) seed=\([0-9]*\) t=\([0-9]*\) .* '"$2"'=\([0-9.]*\).*/\1 \2 \3 \4 \5/p' "$1"
}
join <(pick "$out/gauss" live | awk '{ print $1 "/" $2 "/" $3 "/" $4, $5 }' | sort) \
	<(pick "$out/pure" old | awk '{ print $1 "/" $2 "/" $3 "/" $4, $5 }' | sort) |
	tr '/' ' ' | awk -v T="$HORIZON" -v N="$N" '
{ c = $1 " " $2; s = c " " $3; r = c " " $4
  la[c] += log($5); lb[c] += log($6); n[c]++
  ds[s] += log($5) - log($6); ns[s]++; cs[s] = c
  ra[r] += log($5); rb[r] += log($6); nr[r]++; cr[r] = c
  if (!(c in seen)) { seen[c] = 1; order[++k] = c } }
END {
  for (s in ds) { c = cs[s]; m = ds[s] / ns[s]; sd[c] += m; sd2[c] += m * m; nseed[c]++; w[c] += (m <= 0) }
  for (r in ra) { c = cr[r]; a = exp(ra[r] / nr[r]); b = exp(rb[r] / nr[r])
    if (a > wa[c]) wa[c] = a; if (b > wb[c]) wb[c] = b }
  printf "# T = %s, N = %s: delta (A) against pure (B), every release from T/4\n", T, N
  printf "%-8s %5s %5s %8s %17s %17s %22s %7s\n", "data", "eps", "seeds", "releases", "A (worst)", "B (worst)", "A / B - 1, 95 %", "A <= B"
  for (i = 1; i <= k; i++) { c = order[i]; split(c, p, " "); m = sd[c] / nseed[c]
    se = sqrt((sd2[c] - nseed[c] * m * m) / (nseed[c] - 1) / nseed[c])
    printf "%-8s %5s %5d %8d %8.4f (%.4f) %8.4f (%.4f) %+8.2f %% +- %.2f %% %5d\n", p[1], p[2], nseed[c],
      n[c] / nseed[c], exp(la[c] / n[c]), wa[c], exp(lb[c] / n[c]), wb[c], 100 * m, 196 * se, w[c] }
}'
