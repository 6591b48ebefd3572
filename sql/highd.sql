-- High dimensions: projection, lifting by noisy sums (d = 16 and 64).
SELECT setseed(0.5);
-- 4 well-separated clusters in [0,100]^64, one float8[] column
CREATE TABLE emb64 AS
SELECT i, (SELECT array_agg(((i % 4) * 20 + 20) + (random() - 0.5) * 2 + (j % 3) ORDER BY j)
           FROM generate_series(1, 64) j) AS v
FROM generate_series(1, 20000) i;
-- the same points as 64 numeric columns and as float4[]
SELECT format('CREATE TABLE cols64 AS SELECT %s FROM emb64',
              string_agg(format('v[%s] AS c%s', j, j), ', ' ORDER BY j))
FROM generate_series(1, 64) j \gexec
CREATE TABLE emb64f AS SELECT v::float4[] AS v FROM emb64;
CREATE TABLE truth AS
SELECT c, (SELECT array_agg((c * 20 + 20) + (j % 3) ORDER BY j) FROM generate_series(1, 64) j)::float8[] AS center
FROM generate_series(0, 3) c;

-- one-shot at d = 64 from a float8[] column: 4 centres, each within 40 of a
-- true one (clusters are 160 apart; the lifted coordinates carry sum noise)
CREATE TABLE r1 AS SELECT * FROM dp_kmeans('SELECT v FROM emb64', 4, 2.0,
    array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]));
SELECT count(*) AS centres, bool_and(array_length(center, 1) = 64) AS dims FROM r1;
SELECT count(*) AS true_centres_found FROM truth t
WHERE EXISTS (SELECT 1 FROM r1
              WHERE sqrt((SELECT sum((r1.center[j] - t.center[j]) ^ 2) FROM generate_series(1, 64) j)) < 40);
SELECT abs(sum(noisy_size) - 20000) < 2000 AS sizes_ok FROM r1;
-- the same at work_mem 64kB (128 rows of d = 64): the rows beyond it go to a
-- temporary file that every pass reads; the centres and sizes hold as well
-- (rows read wrong from the file, the centres are not found), and the files'
-- bytes show in pg_stat_database (the rows' codes take 2 bytes a coordinate,
-- 2.5 MB here, the projections 1.3 MB); the joint k-means keeps no label per row
-- (its groups' counts and sums are made in its second pass over the rows),
-- only (above 16 columns) every row's projections, in one file beside the
-- rows'
SELECT temp_bytes AS temp_before, temp_files AS files_before
FROM pg_stat_database WHERE datname = current_database() \gset
SET work_mem = '64kB';
CREATE TABLE r1s AS SELECT * FROM dp_kmeans('SELECT v FROM emb64', 4, 2.0,
    array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]));
RESET work_mem;
SELECT count(*) AS true_centres_found FROM truth t
WHERE EXISTS (SELECT 1 FROM r1s
              WHERE sqrt((SELECT sum((r1s.center[j] - t.center[j]) ^ 2) FROM generate_series(1, 64) j)) < 40);
SELECT abs(sum(noisy_size) - 20000) < 2000 AS sizes_ok FROM r1s;
SELECT pg_stat_force_next_flush();
SELECT temp_bytes - :temp_before >= 3000000 AS spilled,
       temp_files - :files_before >= 2 AS rows_and_projections
FROM pg_stat_database WHERE datname = current_database();
DROP TABLE r1s;
-- with delta and a norm bound (the SimHash tree seed, refinement steps) at
-- 64kB: the rows' sign patterns and cells go to files too
SELECT temp_files AS files_before FROM pg_stat_database WHERE datname = current_database() \gset
SET work_mem = '64kB';
CREATE TABLE r1t AS SELECT * FROM dp_kmeans('SELECT v FROM emb64', 4, 2.0,
    array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]),
    delta => 1e-6, norm_bound => 300);
RESET work_mem;
SELECT count(*) AS true_centres_found FROM truth t
WHERE EXISTS (SELECT 1 FROM r1t
              WHERE sqrt((SELECT sum((r1t.center[j] - t.center[j]) ^ 2) FROM generate_series(1, 64) j)) < 40);
SELECT pg_stat_force_next_flush();
SELECT temp_files - :files_before >= 4 AS tree_state_spilled
FROM pg_stat_database WHERE datname = current_database();
DROP TABLE r1t;

-- 64 numeric columns
SELECT count(*) FROM dp_kmeans('SELECT * FROM cols64', 4, 2.0,
    array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]));
-- float4[] of length 64
SELECT count(*) FROM dp_kmeans('SELECT v FROM emb64f', 4, 2.0,
    array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]));
-- d = 16 (first 16 coordinates), k larger than the clusters (at most k
-- centres: those that gather a weighted point)
SELECT count(*) BETWEEN 4 AND 6 AS centres, bool_and(array_length(center, 1) = 16) AS dims
FROM dp_kmeans('SELECT v[1:16] FROM emb64', 6, 1.0,
    array_fill(0::float8, ARRAY[16]), array_fill(100::float8, ARRAY[16]));
-- no rows at d = 64: no error, at most k rows (one when no cell rises
-- above the noise)
SELECT count(*) BETWEEN 1 AND 3 AS centres FROM dp_kmeans('SELECT v FROM emb64 WHERE false', 3, 1.0,
    array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]));
-- a large epsilon (scale per sum coordinate below d / 4): the cube sampler
-- would be slow there, so the sums get per-coordinate Laplace at the l1
-- scale; the centres are then the cluster means, within 10 of the true ones
-- (the grid is capped, else this epsilon asks for millions of cells)
SET dpkmeans.max_cells = 4096;
CREATE TABLE r2 AS SELECT * FROM dp_kmeans('SELECT v FROM emb64', 4, 100,
    array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]));
RESET dpkmeans.max_cells;
SELECT count(*) AS true_centres_found FROM truth t
WHERE EXISTS (SELECT 1 FROM r2
              WHERE sqrt((SELECT sum((r2.center[j] - t.center[j]) ^ 2) FROM generate_series(1, 64) j)) < 10);

-- live tables at d = 64: a float4[] column and 64 numeric columns
SELECT dp_attach('emb64f', ARRAY['v'], 4, 1.0,
    array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]));
INSERT INTO emb64f SELECT v::float4[] FROM emb64 WHERE i <= 5000;
DELETE FROM emb64f WHERE v[1] < 30;
UPDATE emb64f SET v[2] = v[2] + 1 WHERE v[1] > 70;
SELECT dp_verify('emb64f');
SELECT dp_release('emb64f');
-- (at most k: a centre is returned only if it gathers a weighted point)
SELECT count(*) BETWEEN 1 AND 4 AS centres, bool_and(array_length(center, 1) = 64) AS dims,
       bool_and(center[1] BETWEEN 0 AND 100) AS in_box FROM dp_centers('emb64f', 4);
-- The lifted k = 1 centre is the data mean plus lifting noise: measured 30-61
-- from it over 30 releases when this table lifted by cells (sum noise about 6
-- per coordinate; it now lifts by regions, whose centre sums k draws a node
-- instead of one per cell), while a centre not lifted by the sums (the box
-- centre, or the projected centre mapped back) is 88 away.  The noisy sizes add up to the rows present within 15 % (a
-- release that ignored the DELETE would be 33 % over).
WITH m AS (SELECT array_agg(a ORDER BY j) AS mean
           FROM (SELECT j, avg(v[j]) AS a FROM emb64f, generate_series(1, 64) j GROUP BY j) s),
     c AS (SELECT center FROM dp_centers('emb64f', 1))
SELECT sqrt((SELECT sum((c.center[j] - m.mean[j]) ^ 2) FROM generate_series(1, 64) j)) < 75 AS lifted_near_mean,
       sqrt((SELECT sum((50 - m.mean[j]) ^ 2) FROM generate_series(1, 64) j)) > 85 AS box_centre_far
FROM m, c;
SELECT abs(sum(noisy_size) - (SELECT count(*) FROM emb64f)) < 0.15 * (SELECT count(*) FROM emb64f) AS sizes_ok
FROM dp_centers('emb64f', 4);
SELECT count(*) FROM dp_centers('emb64f', 2);
SELECT count(*), bool_and(noisy_cost >= 0) AS nonneg FROM dp_cost_curve('emb64f');
SELECT count(*) > 0 AS cells, bool_and(array_length(cell, 1) = 6) AS projected,
       bool_and(array_length(center, 1) = 64) AS lifted FROM dp_histogram('emb64f');
SELECT item, value FROM dp_privacy_report('emb64f')
WHERE item IN ('copies', 'count sensitivity (L1, one event)', 'epsilon on the lifting sums',
               'sum sensitivity (l-infinity, one event, fixed-point units)',
               'sum noise per tree node') ORDER BY item;
SELECT dp_attach('cols64', (SELECT array_agg('c' || j ORDER BY j) FROM generate_series(1, 64) j), 4, 1.0,
    array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]));
INSERT INTO cols64 SELECT * FROM cols64 LIMIT 1000;
TRUNCATE cols64;
SELECT dp_verify('cols64');
SELECT dp_release('cols64');
SELECT count(*) BETWEEN 1 AND 4 AS centres FROM dp_centers('cols64', 4);
-- d = 16 from the first coordinates, with deletions and a rollback
CREATE TABLE e16 AS SELECT i, v[1:16] AS v FROM emb64;
SELECT dp_attach('e16', ARRAY['v'], 4, 1.0,
    array_fill(0::float8, ARRAY[16]), array_fill(100::float8, ARRAY[16]));
BEGIN;
DELETE FROM e16;
ROLLBACK;
DELETE FROM e16 WHERE i % 3 = 0;
SELECT dp_verify('e16');
SELECT dp_release('e16');
-- (13 000 rows are few for live lifting at d = 16: the check is on the noisy
-- sizes, the accuracy is in doc/benchmarks.md)
SELECT count(*) BETWEEN 1 AND 4 AS centres, abs(sum(noisy_size) - 13334) < 4000 AS sizes_ok
FROM dp_centers('e16', 4);
-- Columns of very different scales: clustering in the columns' units.  One
-- wide column (box side 1000, spread evenly) and five narrow ones (sides 1,
-- two tight groups): the best two centres split the wide column near 250 and
-- 750; two centres on the narrow groups would both sit near 500.  Live
-- (trigger format 4: metric positions; this box's lifting sums get one
-- discrete Laplace per coordinate at its l1 bound) and one-shot.
CREATE TABLE scales AS
SELECT i, 1000 * ((i * 7919) % 40000) / 40000.0 AS w,
       CASE WHEN i % 2 = 0 THEN 0.2 ELSE 0.8 END + ((i * 31) % 61 - 30) / 1000.0 AS n1,
       CASE WHEN i % 2 = 0 THEN 0.2 ELSE 0.8 END + ((i * 37) % 61 - 30) / 1000.0 AS n2,
       CASE WHEN i % 2 = 0 THEN 0.2 ELSE 0.8 END + ((i * 41) % 61 - 30) / 1000.0 AS n3,
       CASE WHEN i % 2 = 0 THEN 0.2 ELSE 0.8 END + ((i * 43) % 61 - 30) / 1000.0 AS n4,
       CASE WHEN i % 2 = 0 THEN 0.2 ELSE 0.8 END + ((i * 47) % 61 - 30) / 1000.0 AS n5
FROM generate_series(1, 40000) i;
SELECT dp_attach('scales', ARRAY['w', 'n1', 'n2', 'n3', 'n4', 'n5'], 2, 1.0,
    ARRAY[0, 0, 0, 0, 0, 0], ARRAY[1000, 1, 1, 1, 1, 1], 16, 'insert_only');
SELECT trigger_format FROM dpkmeans_internal.tracked WHERE relid = 'scales'::regclass;
-- one wide side and the default size hint (100 000 rows): 3 projected dimensions
SELECT dhat FROM dpkmeans_internal.tracked WHERE relid = 'scales'::regclass;
SELECT item, value ~ '^discrete Laplace per coordinate' AS per_coordinate
FROM dp_privacy_report('scales') WHERE item = 'sum noise per tree node';
SELECT dp_release('scales');
SELECT min(center[1]) < 400 AND max(center[1]) > 600 AS live_splits_wide_column
FROM dp_centers('scales', 2);
SELECT min(center[1]) < 400 AND max(center[1]) > 600 AS oneshot_splits_wide_column
FROM dp_kmeans('SELECT w, n1, n2, n3, n4, n5 FROM scales', 2, 1.0,
    ARRAY[0, 0, 0, 0, 0, 0], ARRAY[1000, 1, 1, 1, 1, 1]);
-- a size hint too small for any cluster's lifted mean to beat the noise
-- (DPK_LIVE_MEAN_ONLY_SD): one counted cell, and releases give the noisy
-- mean (every other centre empty, and left out); the same columns with a large hint get
-- a finer grid
CREATE TABLE few64 (v float8[]);
INSERT INTO few64 SELECT array_fill((i % 2)::float8 * 0.5 + 0.25, ARRAY[64])
FROM generate_series(1, 300) i;
SELECT dp_attach('few64', ARRAY['v'], 4, 1.0, array_fill(0::float8, ARRAY[64]),
    array_fill(1::float8, ARRAY[64]), 16, 'insert_only', 300);
CREATE TABLE many64 (v float8[]);
SELECT dp_attach('many64', ARRAY['v'], 4, 1.0, array_fill(0::float8, ARRAY[64]),
    array_fill(1::float8, ARRAY[64]), 16, 'insert_only', 1e6);
SELECT relid, level FROM dpkmeans_internal.tracked
WHERE relid IN ('few64'::regclass, 'many64'::regclass) ORDER BY relid::text;
SELECT dp_release('few64');
SELECT count(*) FILTER (WHERE noisy_size > 0) AS counted_centres, count(*) AS centres
FROM dp_centers('few64', 4);
SELECT dp_detach('few64'), dp_detach('many64');
DROP TABLE r1, r2, truth, emb64, emb64f, cols64, e16, scales, few64, many64;
