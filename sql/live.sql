-- Live tables: attach, every kind of write, releases, readers, detach.
-- Released values are noisy, so checks are on shape, on invariants and on
-- accuracy bounds that hold with overwhelming probability.
SELECT setseed(0.17);
CREATE TABLE trips (id serial PRIMARY KEY, x float8, y float8, note text);
INSERT INTO trips (x, y)
SELECT (ARRAY[20, 80, 20, 80])[1 + i % 4] + (random() - 0.5) * 4,
       (ARRAY[20, 20, 80, 80])[1 + i % 4] + (random() - 0.5) * 4
FROM generate_series(1, 20000) AS i;

-- existing rows are backfilled as events of release 1, with a progress
-- notice every dpkmeans.progress_rows rows (1 000 000 by default)
SET dpkmeans.progress_rows = 8000;
-- the k-ary tree, whose report the checks below read (pure_counter covers the share tree)
SET dpkmeans.pure_counter = 'tree';
SELECT dp_attach('trips', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 16, size_hint => 40000);
RESET dpkmeans.progress_rows;
RESET dpkmeans.pure_counter;
SELECT tgname FROM pg_trigger WHERE tgrelid = 'trips'::regclass ORDER BY tgname;

-- INSERT, COPY, UPDATE of tracked and untracked columns, DELETE, NULLs,
-- out-of-box and infinite values, a rolled-back transaction
INSERT INTO trips (x, y)
SELECT (ARRAY[20, 80, 20, 80])[1 + i % 4] + (random() - 0.5) * 4,
       (ARRAY[20, 20, 80, 80])[1 + i % 4] + (random() - 0.5) * 4
FROM generate_series(1, 20000) AS i;
COPY trips (x, y) FROM STDIN;
20.5	20.5
79.5	80.5
\.
UPDATE trips SET note = 'seen' WHERE id % 3 = 0;
UPDATE trips SET x = x + 0.25 WHERE id % 5 = 0;
DELETE FROM trips WHERE id % 7 = 0;
INSERT INTO trips (x, y) VALUES (NULL, 5), (-50, 500), ('Infinity', '-Infinity');
UPDATE trips SET y = NULL WHERE id = 1;
BEGIN;
INSERT INTO trips (x, y) SELECT 50, 50 FROM generate_series(1, 1000);
DELETE FROM trips WHERE id < 100;
ROLLBACK;
SELECT dp_verify('trips');

-- release 1, then readers
SELECT dp_release('trips');
SELECT count(*) AS rows, min(cluster), max(cluster),
       bool_and(array_length(center, 1) = 2) AS dims
FROM dp_centers('trips', 4);
SELECT count(*) FILTER (WHERE EXISTS (
           SELECT 1 FROM dp_centers('trips', 4) c
           WHERE abs(c.center[1] - t.a) < 1.5 AND abs(c.center[2] - t.b) < 1.5)) AS found
FROM (VALUES (20, 20), (80, 20), (20, 80), (80, 80)) AS t(a, b);
SELECT abs(sum(noisy_size) - (SELECT count(*) FROM trips WHERE x IS NOT NULL AND y IS NOT NULL)) < 2000 AS sizes_ok
FROM dp_centers('trips', 4);
SELECT k FROM dp_centers('trips', 1), LATERAL (SELECT 1 AS k) s;
-- every k' <= k from the same release; identical on every read
SELECT count(*) FROM dp_centers('trips', 2);
SELECT (SELECT array_agg(center ORDER BY cluster) FROM dp_centers('trips', 3)) =
       (SELECT array_agg(center ORDER BY cluster) FROM dp_centers('trips', 3)) AS same;
SELECT count(*), bool_and(noisy_cost > 0) AS positive FROM dp_cost_curve('trips');
SELECT (SELECT noisy_cost FROM dp_cost_curve('trips') WHERE k = 1) >
       (SELECT noisy_cost FROM dp_cost_curve('trips') WHERE k = 4) AS elbow;
SELECT level, count(*) AS cells FROM dp_histogram('trips', 2) GROUP BY level;
-- The noisy total is the true row count within 5 noise sd: at release 1 each
-- cell of the counted level carries one tree node's count noise.  The bound
-- is far below the 5714 rows the DELETE removed, so a release that ignored
-- deletions (or counted an UPDATE twice) fails here.
WITH r AS (SELECT item, value FROM dp_privacy_report('trips')),
     v AS (SELECT (regexp_match(value, 'variance ([0-9.e+]+)'))[1]::float8 AS var
           FROM r WHERE item = 'count noise per tree node'),
     c AS (SELECT (regexp_match(value, ', ([0-9]+) cells'))[1]::float8 AS cells
           FROM r WHERE item = 'levels with counters'),
     h AS (SELECT sum(noisy_count) AS total FROM dp_histogram('trips', 2)),
     t AS (SELECT count(*) AS n FROM trips WHERE x IS NOT NULL AND y IS NOT NULL)
SELECT abs(total - n) < 5 * sqrt(cells * var) AS total_ok,
       5 * sqrt(cells * var) < 5714 / 2 AS bound_tighter_than_the_deletes
FROM v, c, h, t;
SELECT count(DISTINCT level) AS one_level FROM dp_histogram('trips');
SELECT (SELECT array_agg(noisy_count ORDER BY cell) FROM dp_histogram('trips')) =
       (SELECT array_agg(noisy_count ORDER BY cell) FROM dp_histogram('trips')) AS same;
SELECT item, value FROM dp_privacy_report('trips')
WHERE item IN ('guarantee', 'mode', 'horizon T (releases)', 'tree height h = ceil(log2 T) + 1', 'tree',
               'count sensitivity (L1, one event)', 'releases used', 'releases left',
               'sum sensitivity (l-infinity, one event, fixed-point units)', 'sum noise per tree node')
ORDER BY item;

-- releases continue; TRUNCATE removes every point
SELECT dp_release('trips');
TRUNCATE trips;
SELECT dp_verify('trips');
SELECT dp_release('trips');
-- (no row left: at most k centres, those that gather a weighted point)
SELECT count(*) BETWEEN 1 AND 4 AS centres FROM dp_centers('trips', 4);

-- the horizon: a warning from 90 % of it on (releases 15 and 16 of 16),
-- then an error past it (a scheduler shows the job failed), readers keep
-- the last release
SELECT max(dp_release('trips')) FROM generate_series(1, 13);
SELECT dp_release('trips');
SELECT value FROM dp_privacy_report('trips') WHERE item = 'releases left';
SELECT count(*) BETWEEN 1 AND 4 AS centres FROM dp_centers('trips', 4);

-- An independent recount through the readers: with epsilon = 1000 the node
-- count noise is zero with overwhelming probability (discrete Laplace of
-- scale 0.011: P[non-zero] < 1e-40), so the released histogram must equal
-- counts computed in SQL with width_bucket, not with the triggers' cell
-- mapping, at every level.
SELECT setseed(0.3);
CREATE TABLE exact (id serial, x float8, y float8, note text);
INSERT INTO exact (x, y) SELECT random() * 100, random() ^ 3 * 100 FROM generate_series(1, 3000);
SET dpkmeans.max_cells = 4096;
SELECT dp_attach('exact', ARRAY['x', 'y'], 3, 1000, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 8, size_hint => 5000);
RESET dpkmeans.max_cells;
SELECT value FROM dp_privacy_report('exact') WHERE item = 'levels with counters';
INSERT INTO exact (x, y) SELECT random() * 100, 50 + random() * 10 FROM generate_series(1, 2000);
COPY exact (x, y) FROM STDIN;
99.9	0.1
-5	250
\.
UPDATE exact SET x = 100 - x WHERE id % 4 = 0;
UPDATE exact SET note = 'n' WHERE id % 5 = 0;
UPDATE exact SET y = NULL WHERE id % 11 = 0;
DELETE FROM exact WHERE id % 6 = 0;
INSERT INTO exact (x, y) VALUES ('Infinity', '-Infinity'), (NULL, 3);
BEGIN;
DELETE FROM exact;
ROLLBACK;
SELECT dp_release('exact');
CREATE FUNCTION exact_mismatches(lvl int) RETURNS bigint LANGUAGE sql AS $f$
    WITH truth AS (
        SELECT ARRAY[least(greatest(width_bucket(x, 0, 100, 1 << lvl), 1), 1 << lvl) - 1,
                     least(greatest(width_bucket(y, 0, 100, 1 << lvl), 1), 1 << lvl) - 1] AS cell,
               count(*) AS n
        FROM exact WHERE x IS NOT NULL AND y IS NOT NULL GROUP BY 1)
    SELECT count(*) FROM dp_histogram('exact', lvl) h FULL JOIN truth t ON t.cell = h.cell
    WHERE coalesce(h.noisy_count, 0) <> coalesce(t.n, 0)
$f$;
SELECT lvl, exact_mismatches(lvl) FROM unnest(ARRAY[0, 1, 3, 6]) lvl;
TRUNCATE exact;
INSERT INTO exact (x, y) VALUES (10, 10), (90, 90);
SELECT dp_release('exact');
SELECT exact_mismatches(6) AS after_truncate, sum(noisy_count) AS total FROM dp_histogram('exact', 6);
SELECT dp_detach('exact');
DROP FUNCTION exact_mismatches(int);
DROP TABLE exact;

-- NaN and malformed arrays are refused at write time; NULL arrays are no point
CREATE TABLE emb (id int, v float4[]);
INSERT INTO emb SELECT i, ARRAY[i % 10, i % 7, i % 3]::float4[] FROM generate_series(1, 100) i;
SELECT dp_attach('emb', ARRAY['v'], 2, 0.5, ARRAY[0, 0, 0], ARRAY[10, 10, 10]);
INSERT INTO emb VALUES (1, NULL);
INSERT INTO emb VALUES (2, ARRAY[1, 2]::float4[]);
INSERT INTO emb VALUES (3, ARRAY[1, NULL, 2]::float4[]);
INSERT INTO emb VALUES (4, ARRAY[1, 'NaN', 2]::float4[]);
DELETE FROM emb WHERE id < 10;
SELECT dp_verify('emb');
SELECT count(*) FROM dp_centers('emb', 2);
SELECT dp_release('emb');
-- (at most k: centres that gather no weighted point are left out)
SELECT count(*) BETWEEN 1 AND 2 AS centres FROM dp_centers('emb', 2);

-- insert_only: deletions are refused, inserts and other columns are fine
CREATE TABLE logs (a int, b int, note text);
SELECT dp_attach('logs', ARRAY['a', 'b'], 3, 1, ARRAY[0, 0], ARRAY[10, 10], mode => 'insert_only');
INSERT INTO logs SELECT i % 10, i % 9, 'x' FROM generate_series(1, 1000) i;
UPDATE logs SET note = 'y' WHERE a = 1;
UPDATE logs SET a = 2 WHERE a = 1;
DELETE FROM logs WHERE a = 1;
TRUNCATE logs;
SELECT dp_verify('logs');
SELECT value FROM dp_privacy_report('logs') WHERE item = 'deletion factor';
-- nor can a trigger move a row whose UPDATE sets other columns only
CREATE FUNCTION logs_shift() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.a := (NEW.a + 5) % 10; RETURN NEW; END $$;
CREATE TRIGGER logs_shift BEFORE UPDATE ON logs FOR EACH ROW EXECUTE FUNCTION logs_shift();
UPDATE logs SET note = 'z' WHERE a = 3;
DROP TRIGGER logs_shift ON logs;
DROP FUNCTION logs_shift();
UPDATE logs SET note = 'z' WHERE a = 3;
SELECT dp_verify('logs');

-- a tracked column cannot be dropped while attached; DROP TABLE cleans up
ALTER TABLE logs DROP COLUMN a;
ALTER TABLE logs DROP COLUMN a CASCADE;
ALTER TABLE logs DROP COLUMN note;
-- nor can the triggers be switched off, dropped or renamed, nor a tracked
-- column retyped or renamed: each would let writes go uncounted
ALTER TABLE logs DISABLE TRIGGER ALL;
ALTER TABLE logs DISABLE TRIGGER USER;
ALTER TABLE logs DISABLE TRIGGER dpkmeans_capture_insert;
ALTER TABLE logs ENABLE TRIGGER dpkmeans_capture_insert;
ALTER TABLE logs ENABLE REPLICA TRIGGER dpkmeans_capture_insert;
ALTER TABLE logs ENABLE TRIGGER ALL;
DROP TRIGGER dpkmeans_capture_insert ON logs;
ALTER TRIGGER dpkmeans_capture_insert ON logs RENAME TO other;
ALTER TABLE logs ALTER COLUMN a TYPE numeric USING a * 2;
ALTER TABLE logs RENAME COLUMN b TO bb;
-- nor made unlogged: a crash would empty it while its counters keep its rows
ALTER TABLE logs SET UNLOGGED;
SELECT relpersistence FROM pg_class WHERE oid = 'logs'::regclass;
-- an unlogged or temporary table is not attached; once logged it is
CREATE UNLOGGED TABLE scratch (a float8, b float8);
SELECT dp_attach('scratch', ARRAY['a', 'b'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10]);
CREATE TEMP TABLE scratch_tmp (a float8, b float8);
SELECT dp_attach('scratch_tmp', ARRAY['a', 'b'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10]);
ALTER TABLE scratch SET LOGGED;
SELECT dp_attach('scratch', ARRAY['a', 'b'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10]);
ALTER TABLE scratch SET LOGGED;
DROP TABLE scratch, scratch_tmp;
-- writes under session_replication_role = replica are counted too
SET session_replication_role = replica;
INSERT INTO logs (a, b) VALUES (3, 3), (4, 4);
RESET session_replication_role;
SELECT dp_verify('logs') AS replica_writes_counted;
-- what stays allowed: other columns, ENABLE ALWAYS (as pg_dump writes it)
ALTER TABLE logs ADD COLUMN extra int;
ALTER TABLE logs ALTER COLUMN extra TYPE bigint;
ALTER TABLE logs RENAME COLUMN extra TO remark;
ALTER TABLE logs ENABLE ALWAYS TRIGGER dpkmeans_capture_insert;
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'logs'::regclass ORDER BY tgname;
SELECT dp_verify('logs');
DROP TABLE logs;
SELECT count(*) FROM dpkmeans_internal.tracked WHERE relid::oid NOT IN (SELECT oid FROM pg_class);

-- detach removes triggers and state; readers then refuse
SELECT dp_detach('emb');
SELECT count(*) FROM pg_trigger WHERE tgrelid = 'emb'::regclass;
SELECT count(*) FROM dp_centers('emb', 2);
INSERT INTO emb VALUES (5, ARRAY[1, 2]::float4[]);
DROP TABLE emb;
ALTER TABLE trips DROP COLUMN y;
SELECT dp_detach('trips');
SELECT (SELECT count(*) FROM dpkmeans_internal.tracked) + (SELECT count(*) FROM dpkmeans_internal.delta)
     + (SELECT count(*) FROM dpkmeans_internal.keys) + (SELECT count(*) FROM dpkmeans_internal.centers) AS leftovers;
DROP TABLE trips;
