-- Upgrade from 0.1: CREATE EXTENSION ... VERSION '0.1' still installs; a
-- table attached and released there (including capture triggers in 0.1's
-- argument format, attribute numbers) reads back identical after ALTER
-- EXTENSION UPDATE, writes keep counting, dp_verify holds and new releases
-- work under 0.2's rules.
DROP EXTENSION dpkmeans;
CREATE EXTENSION dpkmeans VERSION '0.1';
SELECT extversion FROM pg_extension WHERE extname = 'dpkmeans';
SELECT count(*) AS functions_01 FROM pg_proc WHERE proname LIKE 'dp\_%';

SELECT setseed(0.7);
CREATE TABLE up (id serial, gone int, x float8, y float8);
ALTER TABLE up DROP COLUMN gone;
INSERT INTO up (x, y) SELECT (i % 2) * 60 + 20 + random() * 5, 30 + random() * 5
FROM generate_series(1, 4000) i;
SELECT dp_attach('up', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 16);
-- the triggers as 0.1's library wrote them: d, level, attribute numbers, box
DO $$
DECLARE
    lvl int := (SELECT level FROM dpkmeans_internal.tracked WHERE relid = 'up'::regclass);
    args text := format('%L, %L, %L, %L, %L', '2', lvl, '3,4', '0,0', '100,100');
BEGIN
    DROP TRIGGER dpkmeans_capture_insert ON up;
    DROP TRIGGER dpkmeans_capture_update ON up;
    DROP TRIGGER dpkmeans_capture_delete ON up;
    EXECUTE format('CREATE TRIGGER dpkmeans_capture_insert AFTER INSERT ON up REFERENCING NEW TABLE AS dpkmeans_new '
                   'FOR EACH STATEMENT EXECUTE FUNCTION dpkmeans_internal.capture(%s)', args);
    EXECUTE format('CREATE TRIGGER dpkmeans_capture_update AFTER UPDATE ON up REFERENCING OLD TABLE AS dpkmeans_old '
                   'NEW TABLE AS dpkmeans_new FOR EACH STATEMENT EXECUTE FUNCTION dpkmeans_internal.capture(%s)', args);
    EXECUTE format('CREATE TRIGGER dpkmeans_capture_delete AFTER DELETE ON up REFERENCING OLD TABLE AS dpkmeans_old '
                   'FOR EACH STATEMENT EXECUTE FUNCTION dpkmeans_internal.capture(%s)', args);
END $$;
INSERT INTO up (x, y) SELECT 50, 90 FROM generate_series(1, 300);
DELETE FROM up WHERE id % 10 = 0;
SELECT dp_verify('up');
SELECT dp_release('up');
CREATE TABLE before_update AS
SELECT (SELECT array_agg(center ORDER BY cluster) FROM dp_centers('up', 2)) AS centers,
       (SELECT array_agg(noisy_count ORDER BY cell) FROM dp_histogram('up')) AS hist,
       (SELECT array_agg(noisy_cost ORDER BY k) FROM dp_cost_curve('up')) AS costs;
INSERT INTO up (x, y) VALUES (10, 10);

ALTER EXTENSION dpkmeans UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'dpkmeans';
SELECT p.oid::regprocedure AS without_comment
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dpkmeans'
WHERE p.pronamespace = 'public'::regnamespace AND obj_description(p.oid, 'pg_proc') IS NULL;

-- a table attached before the k-ary counter trees keeps the binary tree
SELECT tree_arity FROM dpkmeans_internal.tracked WHERE relid = 'up'::regclass;
SELECT item, value FROM dp_privacy_report('up')
WHERE item IN ('tree height h = ceil(log2 T) + 1', 'tree', 'count sensitivity (L1, one event)')
ORDER BY item;

-- 0.1's triggers now fire always (also under session_replication_role = replica)
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'up'::regclass ORDER BY tgname;
-- the old release reads back identical
SELECT b.centers = (SELECT array_agg(center ORDER BY cluster) FROM dp_centers('up', 2)) AS centers_same,
       b.hist = (SELECT array_agg(noisy_count ORDER BY cell) FROM dp_histogram('up')) AS hist_same,
       b.costs = (SELECT array_agg(noisy_cost ORDER BY k) FROM dp_cost_curve('up')) AS costs_same
FROM before_update b;
SELECT item, value FROM dp_privacy_report('up')
WHERE item IN ('noise sampler version', 'state format', 'releases used') ORDER BY item;
-- a release made before 0.3 has no k-median centres; the next one has
SELECT count(*) FROM dp_centers('up', 2, 'kmedian');
SELECT count(*) FROM dp_cost_curve('up', 'kmedian');
-- its home is recorded by the update (0.6), not left to its next release
SELECT value LIKE 'system %' AS home_recorded_at_update FROM dp_privacy_report('up')
WHERE item = 'release history home';
-- writes keep counting (0.1's triggers), verify holds, releases go on
UPDATE up SET x = x + 1 WHERE id % 7 = 0;
DELETE FROM up WHERE id % 11 = 0;
SELECT dp_verify('up');
SELECT dp_release('up');
SELECT item, value FROM dp_privacy_report('up')
WHERE item IN ('state format', 'releases used') ORDER BY item;
SELECT count(*) AS kmedian_centres FROM dp_centers('up', 2, 'kmedian');
SELECT value LIKE 'system %' AS home_recorded FROM dp_privacy_report('up')
WHERE item = 'release history home';
SELECT dp_verify('up');
-- 0.2's reader rule applies to the old table
CREATE ROLE upgrade_analyst;
SET ROLE upgrade_analyst;
SELECT count(*) FROM dp_centers('up', 2);
RESET ROLE;
SELECT dp_grant_reader('up', 'upgrade_analyst');
SET ROLE upgrade_analyst;
SELECT count(*) FROM dp_centers('up', 2);
RESET ROLE;
SELECT dp_detach('up');
DROP TABLE up, before_update;
DROP ROLE upgrade_analyst;

-- 0.2 -> 0.3 drops and creates the functions that get new arguments: the
-- privileges an administrator set on them survive
DROP EXTENSION dpkmeans;
CREATE EXTENSION dpkmeans VERSION '0.2';
CREATE ROLE upgrade_runner;
REVOKE EXECUTE ON FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8),
    dp_centers(regclass, int), dp_cost_curve(regclass),
    dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8),
    dp_centers(regclass, int), dp_cost_curve(regclass),
    dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8) TO upgrade_runner;
-- a pure table attached under 0.2 (fixed key): its releases before and after
-- the update are those of the binary tree, exactly as 0.2's library drew them
CREATE TABLE old2 (x float8, y float8);
INSERT INTO old2 SELECT 20 + (i % 7), 30 + (i % 5) FROM generate_series(1, 3000) i;
INSERT INTO old2 SELECT 70 + (i % 3), 80 - (i % 11) FROM generate_series(1, 2000) i;
SELECT dp_attach('old2', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64);
UPDATE dpkmeans_internal.keys SET key = decode(repeat('3c', 32), 'hex') WHERE relid = 'old2'::regclass;
SELECT dp_release('old2');
SELECT cluster, array(SELECT round(v::numeric, 6) FROM unnest(center) v) AS center,
       round(noisy_size::numeric, 3) AS noisy_size
FROM dp_centers('old2', 2) ORDER BY cluster;
ALTER EXTENSION dpkmeans UPDATE TO '0.3';
SELECT tree_arity FROM dpkmeans_internal.tracked WHERE relid = 'old2'::regclass;
INSERT INTO old2 SELECT 40 + (i % 13), 60 FROM generate_series(1, 500) i;
SELECT dp_release('old2');
SELECT cluster, array(SELECT round(v::numeric, 6) FROM unnest(center) v) AS center,
       round(noisy_size::numeric, 3) AS noisy_size
FROM dp_centers('old2', 2) ORDER BY cluster;
SELECT level, count(*), round(sum(noisy_count)::numeric, 3) AS noisy_n
FROM dp_histogram('old2') GROUP BY level;
-- a table attached now gets the k-ary tree its horizon calls for
CREATE TABLE new3 (x float8, y float8);
SELECT dp_attach('new3', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64);
SELECT tree_arity FROM dpkmeans_internal.tracked WHERE relid = 'new3'::regclass;
SELECT item, value FROM dp_privacy_report('new3')
WHERE item IN ('tree', 'count sensitivity (L1, one event)') ORDER BY item;
-- 0.3 -> 0.4: a norm_bound column (0 for every table attached before, whose
-- releases go on as they were) and dp_attach's norm_bound argument, with the
-- privileges given on dp_attach kept
ALTER EXTENSION dpkmeans UPDATE TO '0.4';
SELECT relid, norm_bound FROM dpkmeans_internal.tracked ORDER BY relid::text;
INSERT INTO old2 SELECT 45, 65 FROM generate_series(1, 200) i;
SELECT dp_release('old2');
SELECT count(*) AS centres FROM dp_centers('old2', 2);
SELECT dp_detach('old2'), dp_detach('new3');
DROP TABLE old2, new3;
SELECT p.oid::regprocedure AS function,
       has_function_privilege('upgrade_runner', p.oid, 'EXECUTE') AS runner,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public
FROM pg_proc p
WHERE p.proname IN ('dp_kmeans', 'dp_centers', 'dp_cost_curve', 'dp_attach')
  AND p.pronamespace = 'public'::regnamespace
ORDER BY p.proname;
-- 0.4 -> 0.5: dp_shard_attach gets norm_bound and delta arguments
-- (default 0: a table without a bound, squared norms in unit steps), with
-- the privileges given on it kept
REVOKE EXECUTE ON FUNCTION dp_shard_attach(regclass, text[], int, float8, float8[], float8[],
    int, text, float8, int, float8, int, int, bigint, float8) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dp_shard_attach(regclass, text[], int, float8, float8[], float8[],
    int, text, float8, int, float8, int, int, bigint, float8) TO upgrade_runner;
ALTER EXTENSION dpkmeans UPDATE TO '0.5';
SELECT extversion FROM pg_extension WHERE extname = 'dpkmeans';
SELECT p.oid::regprocedure AS function,
       has_function_privilege('upgrade_runner', p.oid, 'EXECUTE') AS runner,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public
FROM pg_proc p
WHERE p.proname = 'dp_shard_attach' AND p.pronamespace = 'public'::regnamespace;
-- 0.5 -> 0.6: lifting sums keyed by regions for new insert-only tables
-- with much sum noise; a table attached before keeps its cells' sums and
-- its releases
CREATE TABLE up64 AS
SELECT i, (SELECT array_agg((i % 2) * 40 + 30 + (j % 3) ORDER BY j) FROM generate_series(1, 64) j)::float8[] AS v
FROM generate_series(1, 300) i;
SELECT dp_attach('up64', ARRAY['v'], 2, 1.0, array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]), mode => 'insert_only');
SELECT dp_release('up64');
-- a table whose home is not recorded (attached by 0.1, not released since)
-- gets it at the update, not at its next release
UPDATE dpkmeans_internal.tracked SET home_system_id = NULL, home_timeline = NULL,
    home_database = NULL WHERE relid = 'up64'::regclass;
ALTER EXTENSION dpkmeans UPDATE TO '0.6';
SELECT home_system_id IS NOT NULL AND home_database = (SELECT oid FROM pg_database
       WHERE datname = current_database()) AS home_recorded
FROM dpkmeans_internal.tracked WHERE relid = 'up64'::regclass;
SELECT extversion FROM pg_extension WHERE extname = 'dpkmeans';
SELECT count(*) AS region_tables FROM dpkmeans_internal.regions;
-- the insert_only table gets the refusal of rows moved by a trigger
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'up64'::regclass
AND tgname = 'dpkmeans_refuse_moved';
INSERT INTO up64 SELECT 301, v FROM up64 WHERE i = 1;
SELECT dp_release('up64');
SELECT count(*) AS centres FROM dp_centers('up64', 2);
SELECT split_part(value, ':', 1) AS lifting FROM dp_privacy_report('up64') WHERE item = 'lifting';
SELECT dp_detach('up64');
SELECT dp_attach('up64', ARRAY['v'], 2, 1.0, array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]), mode => 'insert_only');
SELECT relid FROM dpkmeans_internal.regions;
DROP TABLE up64;
DROP OWNED BY upgrade_runner;
DROP ROLE upgrade_runner;
-- 0.6 -> 0.7: reader grants become privileges of their roles; a grant
-- whose role was dropped under 0.6 goes
CREATE TABLE upr (x float8, y float8);
SELECT dp_attach('upr', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[1, 1]);
CREATE ROLE upgrade_reader;
CREATE ROLE upgrade_gone;
SELECT dp_grant_reader('upr', 'upgrade_reader') AND dp_grant_reader('upr', 'upgrade_gone') AS granted;
DROP ROLE upgrade_gone;
ALTER EXTENSION dpkmeans UPDATE TO '0.7';
SELECT extversion FROM pg_extension WHERE extname = 'dpkmeans';
SELECT reader FROM dpkmeans_internal.readers WHERE relid = 'upr'::regclass;
DROP ROLE upgrade_reader;
DROP TABLE upr;
DROP ROLE upgrade_reader;
-- 0.7 -> 0.8
ALTER EXTENSION dpkmeans UPDATE TO '0.8';
SELECT extversion FROM pg_extension WHERE extname = 'dpkmeans';

-- 0.8 -> 0.9: a Gaussian table attached before keeps its counter, and its
-- releases their noise (the same histogram as before the update)
CREATE TABLE upg (x float8, y float8);
INSERT INTO upg SELECT (i % 7) / 7.0, (i % 5) / 5.0 FROM generate_series(1, 300) i;
SELECT dp_attach('upg', ARRAY['x', 'y'], k => 2, epsilon => 1, delta => 1e-6,
                 lower => ARRAY[0, 0], upper => ARRAY[1, 1], horizon => 8) IS NOT NULL AS attached;
SELECT dp_release('upg') IS NOT NULL AS released;
CREATE TEMP TABLE upg_hist AS SELECT * FROM dp_histogram('upg');
-- and a pure low-d table (a horizon the share tree would take) keeps its
-- k-ary tree and its published values, even with dpkmeans.pure_counter
-- set; under 0.8's objects the share tree is refused
CREATE TABLE upp (x float8, y float8);
INSERT INTO upp SELECT (i % 7) / 7.0, (i % 5) / 5.0 FROM generate_series(1, 3000) i;
SET dpkmeans.pure_counter = 'share_tree';
DO $$
BEGIN
    PERFORM dp_attach('upp', ARRAY['x', 'y'], k => 2, epsilon => 1,
                      lower => ARRAY[0, 0], upper => ARRAY[1, 1], horizon => 64);
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'refused: %', SQLERRM;
END $$;
RESET dpkmeans.pure_counter;
SELECT dp_attach('upp', ARRAY['x', 'y'], k => 2, epsilon => 1,
                 lower => ARRAY[0, 0], upper => ARRAY[1, 1], horizon => 64) IS NOT NULL AS attached;
SELECT dp_release('upp') IS NOT NULL AS released;
CREATE TEMP TABLE upp_hist AS SELECT * FROM dp_histogram('upp');
ALTER EXTENSION dpkmeans UPDATE TO '0.9';
SELECT extversion FROM pg_extension WHERE extname = 'dpkmeans';
SELECT counter FROM dpkmeans_internal.tracked WHERE relid = 'upg'::regclass;
SELECT count(*) AS changed_cells FROM
  ((SELECT * FROM dp_histogram('upg') EXCEPT SELECT * FROM upg_hist)
   UNION ALL (SELECT * FROM upg_hist EXCEPT SELECT * FROM dp_histogram('upg'))) x;
SELECT dp_release('upg') IS NOT NULL AS released_again;
SELECT dp_detach('upg');
DROP TABLE upg;
SET dpkmeans.pure_counter = 'share_tree';
SELECT counter FROM dpkmeans_internal.tracked WHERE relid = 'upp'::regclass;
SELECT count(*) AS changed_cells FROM
  ((SELECT * FROM dp_histogram('upp') EXCEPT SELECT * FROM upp_hist)
   UNION ALL (SELECT * FROM upp_hist EXCEPT SELECT * FROM dp_histogram('upp'))) x;
SELECT item, value FROM dp_privacy_report('upp') WHERE item IN ('tree', 'counter') ORDER BY item;
SELECT dp_release('upp') IS NOT NULL AS released_again;
RESET dpkmeans.pure_counter;
SELECT dp_detach('upp');
DROP TABLE upp;

-- a fresh install is the newest version directly
DROP EXTENSION dpkmeans;
CREATE EXTENSION dpkmeans;
SELECT extversion FROM pg_extension WHERE extname = 'dpkmeans';
