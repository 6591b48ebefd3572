-- dp_attach's backfill with parallel workers (src/capture/parallel_scan.c).
-- Workers alone read the rows here (parallel_leader_participation off), so
-- every count reaches the stored state through a worker's message: the
-- state must equal the serial recount of dp_verify and the serial
-- backfill's, byte for byte; the rows outside the box are counted by the
-- workers; a worker's error is the attach's and leaves nothing behind.
SET min_parallel_table_scan_size = 0;
SET max_parallel_maintenance_workers = 2;
SET parallel_leader_participation = off;

-- 2-d: 30 000 rows in the box and 40 to its right
CREATE TABLE pb (x float8, y float8);
INSERT INTO pb SELECT (i * 37 % 1000) / 10.0, (i * 91 % 1000) / 10.0
FROM generate_series(1, 30000) i;
INSERT INTO pb SELECT 150, i FROM generate_series(1, 40) i;
SELECT dp_attach('pb', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
SELECT dp_verify('pb') AS parallel_equals_recount;
CREATE TEMP TABLE parallel_delta AS
SELECT payload FROM dpkmeans_internal.delta WHERE relid = 'pb'::regclass;
SELECT dp_detach('pb');

-- the same table read by this session alone
SET max_parallel_maintenance_workers = 0;
SELECT dp_attach('pb', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
SELECT (SELECT payload FROM parallel_delta)
     = (SELECT payload FROM dpkmeans_internal.delta WHERE relid = 'pb'::regclass)
       AS parallel_equals_serial;
SELECT dp_detach('pb');
SET max_parallel_maintenance_workers = 2;

-- projected cells (d = 8, two copies by default): each worker projects its
-- rows with the table's projections
CREATE TABLE pb8 (v float8[]);
INSERT INTO pb8 SELECT ARRAY(SELECT ((i * (j + 3) * 7919) % 1000) / 1000.0
                             FROM generate_series(1, 8) j)
FROM generate_series(1, 6000) i;
SELECT dp_attach('pb8', ARRAY['v'], 3, 1.0, array_fill(0::float8, ARRAY[8]),
                 array_fill(1::float8, ARRAY[8]));
SELECT dp_verify('pb8') AS parallel_equals_recount;

-- a partitioned table: each partition is its own parallel scan
CREATE TABLE pbp (id int, x float8, y float8) PARTITION BY RANGE (id);
CREATE TABLE pbp1 PARTITION OF pbp FOR VALUES FROM (0) TO (20000);
CREATE TABLE pbp2 PARTITION OF pbp FOR VALUES FROM (20000) TO (40000);
INSERT INTO pbp SELECT i, (i * 13 % 1000) / 10.0, (i * 29 % 1000) / 10.0
FROM generate_series(0, 39999) i;
SELECT dp_attach('pbp', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
SELECT dp_verify('pbp') AS parallel_equals_recount;

-- a table created and filled in the attach's own transaction: the workers
-- see its uncommitted rows as the leader does
BEGIN;
CREATE TABLE pbtx (x float8, y float8);
INSERT INTO pbtx SELECT (i * 17 % 1000) / 10.0, (i * 53 % 1000) / 10.0
FROM generate_series(1, 20000) i;
SELECT dp_attach('pbtx', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
SELECT dp_verify('pbtx') AS parallel_equals_recount;
COMMIT;
SELECT dp_verify('pbtx') AS after_commit;
SELECT dp_detach('pbtx');

-- a NaN read by a worker fails the attach; nothing is stored
CREATE TABLE pbnan (x float8, y float8);
INSERT INTO pbnan SELECT i % 100, i % 77 FROM generate_series(1, 20000) i;
INSERT INTO pbnan VALUES ('NaN', 1);
\set VERBOSITY default
SELECT dp_attach('pbnan', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
\set VERBOSITY terse
SELECT count(*) AS stored FROM dpkmeans_internal.tracked WHERE relid = 'pbnan'::regclass;
SELECT count(*) AS triggers FROM pg_trigger WHERE tgrelid = 'pbnan'::regclass;

-- the attached tables keep counting writes and release as usual
INSERT INTO pb8 SELECT ARRAY(SELECT 0.5 FROM generate_series(1, 8)) FROM generate_series(1, 10);
SELECT dp_release('pb8') > 0 AS released, dp_verify('pb8') AS verify;

SELECT dp_detach('pb8');
SELECT dp_detach('pbp');
DROP TABLE pb, pb8, pbp, pbtx, pbnan;
RESET parallel_leader_participation;
RESET max_parallel_maintenance_workers;
RESET min_parallel_table_scan_size;
