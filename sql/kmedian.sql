-- objective => 'kmedian' on dp_kmeans, dp_centers and dp_cost_curve: the
-- same noisy histogram clustered for the sum of distances.  Outputs are
-- random, so the checks are on shape, on accuracy bounds that hold with
-- overwhelming probability, and on equalities that hold by construction.
CREATE FUNCTION expect_error(stmt text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
    hint text;
    detail text;
BEGIN
    EXECUTE stmt;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT, detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || CASE WHEN detail <> '' THEN ' (detail: ' || detail || ')' ELSE '' END
        || CASE WHEN hint <> '' THEN ' (hint: ' || hint || ')' ELSE '' END;
END
$f$;
SELECT setseed(0.31);
-- three tight clusters of unequal size; each has 15 % of its points in a
-- one-sided tail 30 away, which drags the mean 4.5 off the median
CREATE TABLE skew AS
SELECT c.x + (random() - 0.5) + CASE WHEN i % 20 < 3 THEN 30 ELSE 0 END AS x,
       c.y + (random() - 0.5) AS y
FROM generate_series(1, 60000) i
JOIN (VALUES (0, 20.0, 20.0), (1, 20.0, 70.0), (2, 60.0, 45.0)) c(j, x, y)
  ON c.j = (CASE WHEN i % 6 < 3 THEN 0 WHEN i % 6 < 5 THEN 1 ELSE 2 END);

-- one-shot: exactly k rows; k-median finds the three cores (the medians,
-- within 1), k-means the means (dragged by the tails by more than 3)
CREATE TABLE med AS SELECT * FROM dp_kmeans('SELECT x, y FROM skew', 3, 1.0,
    ARRAY[0, 0], ARRAY[100, 100], objective => 'kmedian');
CREATE TABLE mea AS SELECT * FROM dp_kmeans('SELECT x, y FROM skew', 3, 1.0,
    ARRAY[0, 0], ARRAY[100, 100]);
SELECT count(*), min(cluster), max(cluster), bool_and(array_length(center, 1) = 2) AS dims,
       abs(sum(noisy_size) - 60000) < 2000 AS sizes_ok
FROM med;
SELECT (SELECT count(*) FROM (VALUES (20, 20), (20, 70), (60, 45)) t(a, b)
        WHERE EXISTS (SELECT 1 FROM med WHERE abs(center[1] - a) < 1 AND abs(center[2] - b) < 1)) AS medians_found,
       (SELECT count(*) FROM (VALUES (20, 20), (20, 70), (60, 45)) t(a, b)
        WHERE EXISTS (SELECT 1 FROM mea WHERE abs(center[1] - a) < 1 AND abs(center[2] - b) < 1)) AS means_at_medians;
-- the k-median centres cost less than the k-means ones in sum of distances
SELECT (SELECT sum((SELECT min(sqrt((s.x - m.center[1]) ^ 2 + (s.y - m.center[2]) ^ 2)) FROM med m)) FROM skew s)
     < (SELECT sum((SELECT min(sqrt((s.x - m.center[1]) ^ 2 + (s.y - m.center[2]) ^ 2)) FROM mea m)) FROM skew s)
       AS kmedian_cheaper;
-- positional argument, explicit 'kmeans', a public n, no rows, k above the points
SELECT count(*) FROM dp_kmeans('SELECT x, y FROM skew', 2, 1, ARRAY[0, 0], ARRAY[100, 100], 60000, 0, 'kmedian');
SELECT count(*) FROM dp_kmeans('SELECT x, y FROM skew', 2, 1, ARRAY[0, 0], ARRAY[100, 100], objective => 'kmeans');
SELECT count(*) BETWEEN 1 AND 4 AS centres FROM dp_kmeans('SELECT x, y FROM skew WHERE false', 4, 1, ARRAY[0, 0], ARRAY[100, 100], objective => 'kmedian');
SELECT count(*) BETWEEN 1 AND 9 AS centres FROM dp_kmeans('SELECT 1.0::float8, 1.0::float8', 9, 1, ARRAY[0, 0], ARRAY[100, 100], objective => 'kmedian');
SELECT count(*) FROM dp_kmeans('SELECT x FROM skew', 2, 1, ARRAY[0], ARRAY[100], objective => 'kmedian');

-- bad objectives: 22023 with the valid values in the hint
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM skew', 2, 1, ARRAY[0, 0], ARRAY[100, 100], objective => NULL)$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM skew', 2, 1, ARRAY[0, 0], ARRAY[100, 100], objective => 'kmedians')$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM skew', 2, 1, ARRAY[0, 0], ARRAY[100, 100], objective => 'KMEDIAN')$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM skew', 2, 1, ARRAY[0, 0], ARRAY[100, 100], objective => '')$$);
-- high d (projected grids): the lifted cells' k-median finds the three
-- cores in 6 dimensions (the tails drag the means sqrt(3) 4.5 = 7.8 away)
CREATE TABLE med6 AS SELECT * FROM dp_kmeans('SELECT ARRAY[x, y, x, y, x, y] FROM skew', 3, 1,
    array_fill(0::float8, ARRAY[6]), array_fill(100::float8, ARRAY[6]), objective => 'kmedian');
CREATE TABLE mea6 AS SELECT * FROM dp_kmeans('SELECT ARRAY[x, y, x, y, x, y] FROM skew', 3, 1,
    array_fill(0::float8, ARRAY[6]), array_fill(100::float8, ARRAY[6]));
SELECT count(*), bool_and(array_length(center, 1) = 6) AS dims,
       abs(sum(noisy_size) - 60000) < 6000 AS sizes_ok FROM med6;
SELECT (SELECT count(*) FROM (VALUES (20, 20), (20, 70), (60, 45)) t(a, b)
        WHERE EXISTS (SELECT 1 FROM med6 m WHERE sqrt((m.center[1] - a) ^ 2 + (m.center[2] - b) ^ 2 + (m.center[3] - a) ^ 2
                      + (m.center[4] - b) ^ 2 + (m.center[5] - a) ^ 2 + (m.center[6] - b) ^ 2) < 3)) AS medians_found_6d,
       (SELECT sum((SELECT min(sqrt((s.x - m.center[1]) ^ 2 + (s.y - m.center[2]) ^ 2 + (s.x - m.center[3]) ^ 2
                                    + (s.y - m.center[4]) ^ 2 + (s.x - m.center[5]) ^ 2 + (s.y - m.center[6]) ^ 2)) FROM med6 m)) FROM skew s)
     < (SELECT sum((SELECT min(sqrt((s.x - m.center[1]) ^ 2 + (s.y - m.center[2]) ^ 2 + (s.x - m.center[3]) ^ 2
                                    + (s.y - m.center[4]) ^ 2 + (s.x - m.center[5]) ^ 2 + (s.y - m.center[6]) ^ 2)) FROM mea6 m)) FROM skew s)
       AS kmedian_cheaper_6d;
SELECT count(*) FROM dp_kmeans('SELECT ARRAY[x, y, x, y, x, y] FROM skew', 2, 1, array_fill(0::float8, ARRAY[6]),
    array_fill(100::float8, ARRAY[6]), 60000, 1e-6, 'kmedian');
SELECT count(*) BETWEEN 1 AND 4 AS centres FROM dp_kmeans('SELECT ARRAY[x, y, x, y, x, y] FROM skew WHERE false', 4, 1,
    array_fill(0::float8, ARRAY[6]), array_fill(100::float8, ARRAY[6]), objective => 'kmedian');
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT ARRAY[x, y, x, y, x, y] FROM skew', 2, 1, ARRAY[0, 0, 0, 0, 0, 0], ARRAY[100, 100, 100, 100, 100, 100], objective => 'kmedians')$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT ARRAY[x, y, x, y, x, y] FROM skew', 2, 1, ARRAY[0, 0, 0, 0, 0, 0], ARRAY[100, 100, 100, 100, 100, 100], objective => NULL)$$);

-- live: a table that asks for k-median (dp_set_objectives) gets both
-- objectives stored by every release; readers never compute
CREATE TABLE live_skew AS SELECT * FROM skew WHERE random() < 0.5;
SELECT dp_attach('live_skew', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 32);
SELECT dp_set_objectives('live_skew', ARRAY['kmeans', 'kmedian']);
SELECT expect_error($$SELECT * FROM dp_centers('live_skew', 3, 'kmedian')$$);
SELECT expect_error($$SELECT * FROM dp_cost_curve('live_skew', 'kmedian')$$);
SELECT dp_release('live_skew');
INSERT INTO live_skew SELECT * FROM skew WHERE random() < 0.2;
SELECT dp_release('live_skew');
-- the default is k-means, identical to objective 'kmeans'
SELECT (SELECT array_agg(center ORDER BY cluster) FROM dp_centers('live_skew', 3))
     = (SELECT array_agg(center ORDER BY cluster) FROM dp_centers('live_skew', 3, 'kmeans')) AS centers_default_kmeans,
       (SELECT array_agg(noisy_cost ORDER BY k) FROM dp_cost_curve('live_skew'))
     = (SELECT array_agg(noisy_cost ORDER BY k) FROM dp_cost_curve('live_skew', objective => 'kmeans')) AS costs_default_kmeans;
-- k-median: k rows for every k' <= k, the cores found within half a counted
-- cell (the means sit 4.5 away), the same answer on every read
SELECT k, (SELECT count(*) FROM dp_centers('live_skew', k, 'kmedian')) AS rows
FROM generate_series(1, 4) k;
-- (at least 2 of the 3 cores: a key in ~30 lands in a local optimum that
-- misses the smallest core; the k-means centres, dragged by the tails, find
-- at most 1)
SELECT (SELECT count(*) FROM (VALUES (20, 20), (20, 70), (60, 45)) t(a, b)
        WHERE EXISTS (SELECT 1 FROM dp_centers('live_skew', 3, 'kmedian') m
                      WHERE abs(center[1] - a) < 3 AND abs(center[2] - b) < 3)) >= 2 AS live_medians_found;
SELECT (SELECT array_agg(center ORDER BY cluster) FROM dp_centers('live_skew', 3, 'kmedian'))
     = (SELECT array_agg(center ORDER BY cluster) FROM dp_centers('live_skew', 3, 'kmedian')) AS same_on_reread,
       (SELECT array_agg(center ORDER BY cluster) FROM dp_centers('live_skew', 3, 'kmedian'))
    <> (SELECT array_agg(center ORDER BY cluster) FROM dp_centers('live_skew', 3)) AS differs_from_kmeans;
-- the k-median cost curve: private sums of distances, k rows, nonnegative,
-- far below the k-means curve (sums of squares) and within the noise of
-- the true sum of distances at k' = 3
SELECT count(*), bool_and(noisy_cost >= 0) AS nonneg,
       bool_and(noisy_cost < (SELECT noisy_cost FROM dp_cost_curve('live_skew') m WHERE m.k = c.k)) AS below_kmeans
FROM dp_cost_curve('live_skew', 'kmedian') c;
SELECT noisy_cost / (SELECT sum((SELECT min(sqrt((s.x - m.center[1]) ^ 2 + (s.y - m.center[2]) ^ 2))
                                 FROM dp_centers('live_skew', 3, 'kmedian') m)) FROM live_skew s)
       BETWEEN 0.5 AND 2 AS cost_tracks_truth
FROM dp_cost_curve('live_skew', 'kmedian') WHERE k = 3;
-- bad objectives on readers
SELECT expect_error($$SELECT * FROM dp_centers('live_skew', 3, NULL)$$);
SELECT expect_error($$SELECT * FROM dp_centers('live_skew', 3, 'median')$$);
SELECT expect_error($$SELECT * FROM dp_cost_curve('live_skew', NULL)$$);
SELECT expect_error($$SELECT * FROM dp_cost_curve('live_skew', 'kmeans++')$$);
-- a reader without the grant is refused before anything is read
CREATE ROLE kmedian_stranger;
SET ROLE kmedian_stranger;
SELECT expect_error($$SELECT * FROM dp_centers('live_skew', 3, 'kmedian')$$);
RESET ROLE;
DROP ROLE kmedian_stranger;
SELECT dp_detach('live_skew');

-- projected (high-dimensional) tables: the release stores the k-median of
-- its lifted cells too when asked; k-means as before
CREATE TABLE live_hd AS SELECT ARRAY[x, y, x, y, x, y, x, y] AS v FROM skew;
SELECT dp_attach('live_hd', ARRAY['v'], 3, 1.0, array_fill(0::float8, ARRAY[8]),
                 array_fill(100::float8, ARRAY[8]), horizon => 8);
SELECT dp_set_objectives('live_hd', ARRAY['kmeans', 'kmedian']);
SELECT dp_release('live_hd');
-- 1 or 2 k-means centres: how many clear the noise depends on the key (the
-- mean guard, or a second cluster whose cells stay below the noise)
SELECT count(*) BETWEEN 1 AND 2 AS kmeans_rows FROM dp_centers('live_hd', 2);
SELECT k, (SELECT count(*) FROM dp_centers('live_hd', k, 'kmedian')) AS rows,
       (SELECT bool_and(array_length(center, 1) = 8) FROM dp_centers('live_hd', k, 'kmedian')) AS dims
FROM generate_series(1, 3) k;
-- (whether the 8-d k-median finds the cores is not checked here: with a
-- random key and projection it misses one or two of them for some keys, a
-- local optimum of the lifted k-median; bench_kmedian --d 8 measures it)
SELECT (SELECT array_agg(center ORDER BY cluster) FROM dp_centers('live_hd', 3, 'kmedian'))
     = (SELECT array_agg(center ORDER BY cluster) FROM dp_centers('live_hd', 3, 'kmedian')) AS same_on_reread,
       (SELECT array_agg(center ORDER BY cluster) FROM dp_centers('live_hd', 3, 'kmedian'))
    <> (SELECT array_agg(center ORDER BY cluster) FROM dp_centers('live_hd', 3)) AS differs_from_kmeans;
SELECT count(*), bool_and(noisy_cost >= 0) AS nonneg,
       bool_and(noisy_cost < (SELECT noisy_cost FROM dp_cost_curve('live_hd') m WHERE m.k = c.k)) AS below_kmeans
FROM dp_cost_curve('live_hd', 'kmedian') c;
SELECT expect_error($$SELECT * FROM dp_centers('live_hd', 2, 'kmedians')$$);
SELECT expect_error($$SELECT * FROM dp_cost_curve('live_hd', NULL)$$);
SELECT dp_detach('live_hd');
