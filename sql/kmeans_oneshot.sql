-- dp_kmeans: one-shot epsilon-DP k-means; outputs are random, so the checks
-- are on shape and on accuracy bounds that hold with overwhelming probability.
SELECT setseed(0.42);
CREATE TABLE blobs AS
SELECT (ARRAY[20, 80, 20, 80])[1 + i % 4] + (random() - 0.5) AS x,
       (ARRAY[20, 20, 80, 80])[1 + i % 4] + (random() - 0.5) AS y,
       i
FROM generate_series(1, 40000) AS i;

-- exactly k rows, numbered 1..k, d coordinates each, inside the box
SELECT count(*), min(cluster), max(cluster),
       bool_and(array_length(center, 1) = 2) AS dims,
       bool_and(center[1] BETWEEN 0 AND 100 AND center[2] BETWEEN 0 AND 100) AS in_box
FROM dp_kmeans('SELECT x, y FROM blobs', 4, 1.0, ARRAY[0, 0], ARRAY[100, 100]);

-- the four blobs are found (each true centre has a released centre within 1)
-- and the noisy sizes add up to about N
WITH c AS (SELECT * FROM dp_kmeans('SELECT x, y FROM blobs', 4, 1.0,
                                   ARRAY[0, 0], ARRAY[100, 100]))
SELECT (SELECT count(*) FROM (VALUES (20, 20), (80, 20), (20, 80), (80, 80)) t(a, b)
        WHERE EXISTS (SELECT 1 FROM c WHERE abs(center[1] - a) < 1 AND abs(center[2] - b) < 1)) AS found,
       abs((SELECT sum(noisy_size) FROM c) - 40000) < 400 AS sizes_ok;

-- with a public n the rows are counted in batches of 8192 as they arrive
-- and none is kept: every batch, the last partial one included, is counted
-- (the noisy sizes add up to about N), and the blobs are found
WITH c AS (SELECT * FROM dp_kmeans('SELECT x, y FROM blobs', 4, 1.0,
                                   ARRAY[0, 0], ARRAY[100, 100], n => 40000))
SELECT (SELECT count(*) FROM (VALUES (20, 20), (80, 20), (20, 80), (80, 80)) t(a, b)
        WHERE EXISTS (SELECT 1 FROM c WHERE abs(center[1] - a) < 1 AND abs(center[2] - b) < 1)) AS found,
       abs((SELECT sum(noisy_size) FROM c) - 40000) < 400 AS sizes_ok;

-- without n the rows are kept up to work_mem and the rest written to a
-- temporary file (4 bytes a coordinate), read back in batches once the noisy
-- N is drawn: at 64kB (8 192 points of d = 2) the 40 000 rows spill, every
-- batch is counted (the noisy sizes add up to about N), the blobs are found,
-- and the file's bytes show in pg_stat_database
SELECT temp_bytes AS temp_before FROM pg_stat_database WHERE datname = current_database() \gset
SET work_mem = '64kB';
WITH c AS (SELECT * FROM dp_kmeans('SELECT x, y FROM blobs', 4, 1.0,
                                   ARRAY[0, 0], ARRAY[100, 100]))
SELECT (SELECT count(*) FROM (VALUES (20, 20), (80, 20), (20, 80), (80, 80)) t(a, b)
        WHERE EXISTS (SELECT 1 FROM c WHERE abs(center[1] - a) < 1 AND abs(center[2] - b) < 1)) AS found,
       abs((SELECT sum(noisy_size) FROM c) - 40000) < 400 AS sizes_ok;
SELECT abs((SELECT sum(noisy_size) FROM dp_kmeans('SELECT x FROM blobs', 2, 1.0, ARRAY[0], ARRAY[100]))
           - 40000) < 400 AS sizes_ok_d1;
RESET work_mem;
SELECT pg_stat_force_next_flush();
SELECT temp_bytes - :temp_before >= 250000 AS spilled
FROM pg_stat_database WHERE datname = current_database();

-- one float8[] column, a float4[] column, integer and numeric columns, a public n
SELECT count(*) FROM dp_kmeans('SELECT ARRAY[x, y] FROM blobs', 4, 1, ARRAY[0, 0], ARRAY[100, 100], n => 40000);
SELECT count(*) FROM dp_kmeans('SELECT ARRAY[x, y]::float4[] FROM blobs', 3, 1, ARRAY[0, 0], ARRAY[100, 100]);
SELECT count(*) FROM dp_kmeans('SELECT x::int, y::numeric FROM blobs', 2, 1, ARRAY[0, 0], ARRAY[100, 100]);
SELECT count(*) FROM dp_kmeans('SELECT x FROM blobs', 2, 1, ARRAY[0], ARRAY[100]);

-- no rows, NULLs, NaN, infinities, bad arrays: no error; at most k rows, one at
-- the box's middle when no cell rises above the noise
SELECT count(*) BETWEEN 1 AND 5 AS centres FROM dp_kmeans('SELECT x, y FROM blobs WHERE false', 5, 1, ARRAY[0, 0], ARRAY[100, 100]);
SELECT count(*) BETWEEN 1 AND 7 AS centres FROM dp_kmeans($$SELECT * FROM (VALUES (NULL::float8, 1::float8), ('NaN', 2),
                                 ('Infinity', '-Infinity'), (1e300, 5)) v$$,
                               7, 1, ARRAY[0, 0], ARRAY[100, 100]);
SELECT count(*) BETWEEN 1 AND 3 AS centres FROM dp_kmeans($$SELECT * FROM (VALUES (ARRAY[1, 2]::float8[]), (ARRAY[1]::float8[]),
                                 (ARRAY[1, NULL]::float8[]), (NULL)) v$$,
                               3, 1, ARRAY[0, 0], ARRAY[100, 100]);
-- float8 columns are read from the executor's slot in place: NULL and NaN
-- rows are not points, and the warning counts the rows outside the box
-- exactly (10 of 980 points)
SELECT count(*) > 0 AS centres FROM dp_kmeans($$SELECT CASE i % 100 WHEN 0 THEN NULL WHEN 1 THEN 'NaN'
                                   WHEN 2 THEN -1 ELSE (i % 97)::float8 END AS x, (i % 89)::float8 AS y
                                 FROM generate_series(1, 1000) i$$,
                               2, 1, ARRAY[0, 0], ARRAY[100, 100]);
-- the rows of a table of float8 columns are read from its heap tuples in
-- place (os_heap2), those with a NULL (x or y) and those of a query that
-- projects (os_heap, before and after a dropped column) from the slot: the
-- same points each time (x: 10 below, y: 10 above, of 970 points)
CREATE TABLE os_heap (z int, x float8, y float8);
INSERT INTO os_heap SELECT i, CASE i % 100 WHEN 0 THEN NULL WHEN 2 THEN -1 ELSE (i % 97)::float8 END,
                           CASE i % 100 WHEN 1 THEN 'NaN' WHEN 3 THEN 200 WHEN 4 THEN NULL ELSE (i % 89)::float8 END
                    FROM generate_series(1, 1000) i;
SELECT count(*) > 0 AS centres FROM dp_kmeans('SELECT x, y FROM os_heap', 2, 1, ARRAY[0, 0], ARRAY[100, 100]);
ALTER TABLE os_heap DROP COLUMN z;
SELECT count(*) > 0 AS centres FROM dp_kmeans('SELECT x, y FROM os_heap', 2, 1, ARRAY[0, 0], ARRAY[100, 100]);
CREATE TABLE os_heap2 AS SELECT x, y FROM os_heap;
SELECT count(*) > 0 AS centres FROM dp_kmeans('SELECT x, y FROM os_heap2', 2, 1, ARRAY[0, 0], ARRAY[100, 100]);
DROP TABLE os_heap, os_heap2;
-- more clusters than occupied cells is not an error: fewer rows
SELECT count(*) BETWEEN 1 AND 20 AS centres FROM dp_kmeans('SELECT 1.0::float8, 1.0::float8', 20, 1, ARRAY[0, 0], ARRAY[100, 100]);

-- the query runs read-only: a function that writes fails
CREATE TABLE sink (v int);
CREATE FUNCTION writes() RETURNS float8 LANGUAGE sql AS 'INSERT INTO sink VALUES (1) RETURNING 1.0::float8';
SELECT count(*) FROM dp_kmeans('SELECT writes(), 1.0::float8', 2, 1, ARRAY[0, 0], ARRAY[100, 100]);
SELECT count(*) FROM sink;

-- the query runs with the caller's rights
CREATE ROLE dpk_noread;
GRANT EXECUTE ON FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8, float8, text, float8) TO dpk_noread;
SET ROLE dpk_noread;
SELECT count(*) FROM dp_kmeans('SELECT x, y FROM blobs', 2, 1, ARRAY[0, 0], ARRAY[100, 100]);
RESET ROLE;
REVOKE EXECUTE ON FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8, float8, text, float8) FROM dpk_noread;
DROP ROLE dpk_noread;
DROP FUNCTION writes();
DROP TABLE sink, blobs;
