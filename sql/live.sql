-- Live tables: attach, every kind of write, releases, readers, detach.
-- Released values are noisy, so checks are on shape, on invariants and on
-- accuracy bounds that hold with overwhelming probability.
SELECT setseed(0.17);
CREATE TABLE trips (id serial PRIMARY KEY, x float8, y float8, note text);
INSERT INTO trips (x, y)
SELECT (ARRAY[20, 80, 20, 80])[1 + i % 4] + (random() - 0.5) * 4,
       (ARRAY[20, 20, 80, 80])[1 + i % 4] + (random() - 0.5) * 4
FROM generate_series(1, 20000) AS i;

-- existing rows are backfilled as events of release 1
SELECT dp_attach('trips', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 16, size_hint => 40000);
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
SELECT level, count(*) AS cells, abs(sum(noisy_count) - 40000) < 8000 AS total_ok
FROM dp_histogram('trips', 2) GROUP BY level;
SELECT count(DISTINCT level) AS one_level FROM dp_histogram('trips');
SELECT (SELECT array_agg(noisy_count ORDER BY cell) FROM dp_histogram('trips')) =
       (SELECT array_agg(noisy_count ORDER BY cell) FROM dp_histogram('trips')) AS same;
SELECT item, value FROM dp_privacy_report('trips')
WHERE item IN ('guarantee', 'mode', 'horizon T (releases)', 'tree height h = ceil(log2 T) + 1',
               'count sensitivity (L1, one event)', 'releases used', 'releases left',
               'sum sensitivity (l-infinity, one event, fixed-point units)', 'sum noise per tree node')
ORDER BY item;

-- releases continue; TRUNCATE removes every point
SELECT dp_release('trips');
TRUNCATE trips;
SELECT dp_verify('trips');
SELECT dp_release('trips');
SELECT count(*) FROM dp_centers('trips', 4);

-- the horizon: no release beyond it, a notice, the last number
SELECT max(dp_release('trips')) FROM generate_series(1, 20);
SELECT value FROM dp_privacy_report('trips') WHERE item = 'releases left';

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
SELECT count(*) FROM dp_centers('emb', 2);

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

-- a tracked column cannot be dropped while attached; DROP TABLE cleans up
ALTER TABLE logs DROP COLUMN a;
ALTER TABLE logs DROP COLUMN note;
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
