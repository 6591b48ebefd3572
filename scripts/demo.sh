#!/usr/bin/env bash
# dpkmeans demo: build and install, start a throwaway cluster, fill a demo
# table with a Gaussian mixture, attach it, keep writing (inserts, deletes),
# and print private centres beside the true ones and the one-shot mode.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
./scripts/setup.sh
make -s -j2 >/dev/null
make -s install >/dev/null

. ./scripts/cluster.sh
dir=$(mktemp -d /tmp/dpkmeans-demo.XXXXXX)
port=$((20000 + RANDOM % 20000))
trap 'cluster_stop; rm -rf "$dir"' EXIT
cluster_start "$dir" "$port"

cluster_psql <<'SQL'
\pset footer off
CREATE EXTENSION dpkmeans;
-- Six clusters in the box [0,100]^2; the true centres are public here only
-- because this is a demo.
CREATE TABLE truth (cluster int, cx float8, cy float8);
INSERT INTO truth VALUES (1, 20, 20), (2, 80, 20), (3, 50, 50), (4, 20, 80), (5, 80, 80), (6, 50, 90);
CREATE TABLE trips (id bigserial PRIMARY KEY, x float8, y float8, at timestamptz DEFAULT now());
CREATE FUNCTION demo_batch(n int) RETURNS void LANGUAGE sql AS $$
  INSERT INTO trips (x, y)
  SELECT t.cx + 3 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()),
         t.cy + 3 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())
  FROM generate_series(1, n) i JOIN truth t ON t.cluster = 1 + i % 6
$$;
SELECT demo_batch(50000);

\echo '== attach: existing rows become release 1; from now on triggers feed the counters'
SELECT dp_attach('trips', ARRAY['x', 'y'], k => 6, epsilon => 1.0,
                 lower => ARRAY[0, 0], upper => ARRAY[100, 100],
                 horizon => 64, size_hint => 100000);

\echo '== live writes: inserts, deletes of the oldest rows, a release after each batch'
DO $$
BEGIN
  FOR b IN 1..5 LOOP
    PERFORM demo_batch(20000);
    DELETE FROM trips WHERE id IN (SELECT id FROM trips ORDER BY id LIMIT 10000);
    COMMIT;  -- a release runs on its own, after the batch is committed
    PERFORM dp_release('trips');
  END LOOP;
END $$;
SELECT count(*) AS true_rows_now_owner_only FROM trips;

\echo '== private centres (k = 6) of the latest release, next to the nearest true centre'
SELECT c.cluster, round(c.center[1]::numeric, 2) AS x, round(c.center[2]::numeric, 2) AS y,
       round(c.noisy_size) AS noisy_size,
       (SELECT format('(%s, %s)', t.cx, t.cy) FROM truth t
        ORDER BY (t.cx - c.center[1]) ^ 2 + (t.cy - c.center[2]) ^ 2 LIMIT 1) AS nearest_true
FROM dp_centers('trips', 6) c ORDER BY c.cluster;

\echo '== the same release at k = 3 (any k <= 6 at no extra privacy cost)'
SELECT cluster, round(center[1]::numeric, 2) AS x, round(center[2]::numeric, 2) AS y, round(noisy_size) AS noisy_size
FROM dp_centers('trips', 3);

\echo '== private cost curve (elbow at the true k)'
SELECT k, round(noisy_cost::numeric) AS noisy_cost FROM dp_cost_curve('trips');

\echo '== accuracy: k-means cost of the released centres on the true data, relative to the true centres'
WITH c AS (SELECT center FROM dp_centers('trips', 6)),
     costs AS (
       SELECT sum((SELECT min((p.x - c.center[1]) ^ 2 + (p.y - c.center[2]) ^ 2) FROM c)) AS private,
              sum((SELECT min((p.x - t.cx) ^ 2 + (p.y - t.cy) ^ 2) FROM truth t)) AS truth
       FROM trips p)
SELECT round((private / truth)::numeric, 4) AS cost_ratio_private_vs_true_centres FROM costs;

\echo '== one-shot mode (no state, spends its epsilon once) on the same rows'
SELECT cluster, round(center[1]::numeric, 2) AS x, round(center[2]::numeric, 2) AS y, round(noisy_size) AS noisy_size
FROM dp_kmeans('SELECT x, y FROM trips', 6, 1.0, ARRAY[0, 0], ARRAY[100, 100]) ORDER BY 2, 3;

\echo '== grid sizes: RUGNIK vs EUGkM at N = 100000, epsilon = 1, k = 6, d = 2'
SELECT 'rugnik' AS rule, * FROM dp_grid_size(100000, 1, 6, 2)
UNION ALL SELECT 'eugkm', * FROM dp_grid_size(100000, 1, 6, 2, 'eugkm');

\echo '== privacy report (for an auditor)'
SELECT * FROM dp_privacy_report('trips');
\echo '== state matches a fresh recount (owner only)'
SELECT dp_verify('trips');
SQL
