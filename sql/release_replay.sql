-- One release number, one data state.  Node noise is a function of the
-- table's key and the tree node, so a release made twice on different data
-- would publish the exact difference of the two states.  Each attack below
-- worked before releases were made only by dp_release, committed by a worker
-- of their own; now each is refused or shows only noise.
SELECT setseed(0.5);
CREATE TABLE pts (id serial, x float8, y float8);
INSERT INTO pts (x, y) SELECT random() * 100, random() * 100 FROM generate_series(1, 2000);
SELECT dp_attach('pts', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64);

-- Attack 1: before the first release, probe a reader inside a transaction
-- (or a failing statement) that rolls back, write one row, probe again.
-- Readers used to make release 1 in the caller's transaction, so the two
-- probes differed by exactly +1 in the new row's cell.  Readers now never
-- make a release: before the first one they refuse, whatever the transaction.
CREATE FUNCTION probe_twice() RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
    a float8[];
    b float8[];
    diff float8[];
BEGIN
    BEGIN
        SELECT array_agg(noisy_count ORDER BY cell) INTO a FROM dp_histogram('pts');
        RAISE EXCEPTION 'roll back';
    EXCEPTION WHEN raise_exception THEN NULL;
    END;
    INSERT INTO pts (x, y) VALUES (42, 42);
    BEGIN
        SELECT array_agg(noisy_count ORDER BY cell) INTO b FROM dp_histogram('pts');
        RAISE EXCEPTION 'roll back';
    EXCEPTION WHEN raise_exception THEN NULL;
    END;
    SELECT array_agg(b[i] - a[i]) INTO diff FROM generate_subscripts(a, 1) i;
    IF (SELECT count(*) FROM unnest(diff) v WHERE v <> 0) = 1 AND
       (SELECT sum(v) FROM unnest(diff) v) = 1 THEN
        RETURN 'leaked: the probes differ by exactly the new row';
    END IF;
    RETURN 'probes differ by noise';
EXCEPTION WHEN OTHERS THEN
    RETURN 'refused: ' || SQLSTATE || ' ' || SQLERRM;
END
$f$;
SELECT probe_twice();
BEGIN;
SELECT count(*) FROM dp_centers('pts', 2);
ROLLBACK;
SELECT count(*) FROM dp_histogram('pts') UNION ALL SELECT 1 / floor(random())::int;
SELECT value FROM dp_privacy_report('pts') WHERE item = 'releases used';

-- Attack 3: the owner makes a release in a transaction that then rolls
-- back, and the same release number is made again on other data.
-- dp_release refuses transaction blocks, savepoints and writing statements;
-- in a statement that fails afterwards, its release is already committed.
BEGIN;
SELECT dp_release('pts');
ROLLBACK;
DO $$ BEGIN PERFORM dp_release('pts'); EXCEPTION WHEN division_by_zero THEN NULL; END $$;
WITH w AS (INSERT INTO pts (x, y) VALUES (1, 1) RETURNING id) SELECT dp_release('pts') FROM w;
SELECT dp_release('pts') AS made, 1 / floor(random())::int AS then_fails;
SELECT value AS releases_used FROM dp_privacy_report('pts') WHERE item = 'releases used';
-- the failed statement's release stays readable, unchanged, and the next
-- release gets the next number
CREATE TEMP TABLE seen AS SELECT center FROM dp_centers('pts', 3);
INSERT INTO pts (x, y) VALUES (90, 90);
SELECT dp_release('pts');
SELECT value AS releases_used FROM dp_privacy_report('pts') WHERE item = 'releases used';
SELECT count(*) AS releases_stored FROM dpkmeans_internal.releases WHERE relid = 'pts'::regclass;

-- Attack 2: a role granted nothing reads every attached table's releases.
-- Readers now check the table: owner, superuser or a granted reader.
CREATE ROLE replay_analyst;
CREATE ROLE replay_team;
GRANT replay_team TO replay_analyst;
SET ROLE replay_analyst;
SELECT count(*) FROM dp_centers('pts', 2);
SELECT count(*) FROM dp_histogram('pts');
SELECT count(*) FROM dp_cost_curve('pts');
SELECT count(*) FROM dp_privacy_report('pts');
SELECT dp_grant_reader('pts', 'replay_analyst');
RESET ROLE;
-- granting to a group role lets its members read
SELECT dp_grant_reader('pts', 'replay_team');
SELECT dp_grant_reader('pts', 'replay_team') AS granted_again;
SET ROLE replay_analyst;
SELECT count(*) FROM dp_centers('pts', 2);
SELECT count(*) > 0 AS has_cells FROM dp_histogram('pts');
SELECT value FROM dp_privacy_report('pts') WHERE item = 'who reads releases';
-- a reader still cannot make releases or read the table
SELECT dp_release('pts');
SELECT count(*) FROM pts;
RESET ROLE;
-- the owner's report names the group (a reader's names no one)
SELECT value FROM dp_privacy_report('pts') WHERE item = 'who reads releases';
SELECT dp_revoke_reader('pts', 'replay_team');
SELECT dp_revoke_reader('pts', 'replay_team') AS revoked_again;
SET ROLE replay_analyst;
SELECT count(*) FROM dp_centers('pts', 2);
RESET ROLE;

-- Attack 4: a noise scale rounded down.  At d = 64 and epsilon = 0.001 the
-- norm counter of the binary tree needs a scale of 7.38e12 per tree node; it
-- used to be capped at 4.398e12 (the table was then 1.034 epsilon-DP).  The
-- 13-ary tree of a new table has 3 levels instead of 11, so epsilon = 0.0002
-- gives such a scale (1.0e13).  The report's scale must cover sensitivity /
-- (epsilon share) for every counter.
CREATE TABLE wide (v float8[]);
SELECT dp_attach('wide', ARRAY['v'], 2, 0.0002,
    array_fill(0::float8, ARRAY[64]), array_fill(1::float8, ARRAY[64]));
WITH r AS (SELECT item, value FROM dp_privacy_report('wide')),
     norm AS (SELECT (regexp_match(value, 'scale ([0-9.e+]+) \(sensitivity ([0-9.e+]+)\)'))::float8[] AS sv
              FROM r WHERE item = 'sum of squared norms noise per tree node'),
     share AS (SELECT (regexp_match(value, '^([0-9.e+-]+)'))[1]::float8 AS eps
               FROM r WHERE item = 'epsilon on the sum of squared norms')
SELECT sv[1] >= sv[2] / eps * (1 - 1e-12) AS norm_scale_covers_sensitivity,
       sv[1] > 7e12 AS above_the_old_cap
FROM norm, share;
-- a configuration whose scales have no exact representation is refused
CREATE TABLE pts2 AS SELECT x, y FROM pts;
SELECT dp_attach('pts2', ARRAY['x', 'y'], 3, 1e-300, ARRAY[0, 0], ARRAY[100, 100]);

-- A table attached under sampler version 1 (fixed 2^20 denominators) keeps
-- releasing where version 2 draws the same noise, and is refused where the
-- old scale was capped (re-drawn node noise could be averaged).
SELECT dp_release('wide');
UPDATE dpkmeans_internal.tracked SET sampler_version = 1 WHERE relid = 'pts'::regclass;
SELECT dp_release('pts') > 0 AS v1_same_draws;
UPDATE dpkmeans_internal.tracked SET sampler_version = 1 WHERE relid = 'wide'::regclass;
SELECT dp_release('wide');
UPDATE dpkmeans_internal.tracked SET sampler_version = 3 WHERE relid = 'pts'::regclass;
SELECT dp_release('pts');
UPDATE dpkmeans_internal.tracked SET sampler_version = 2 WHERE relid = 'pts'::regclass;

-- A copy of the table elsewhere (restored dump, PITR, promoted replica)
-- must not drive a second history with the same key: a release on a server
-- or database other than the table's home is refused until the owner
-- confirms this copy goes on.  (Simulated: the stored home is altered.
-- Terse errors: the detail names this cluster's system identifier.)
\set VERBOSITY terse
UPDATE dpkmeans_internal.tracked SET home_database = (home_database::int8 + 1)::oid WHERE relid = 'pts'::regclass;
SELECT dp_release('pts');
SELECT count(*) FROM dp_centers('pts', 2);
SELECT dp_confirm_history('pts');
SELECT dp_release('pts') > 0 AS released_after_confirm;
UPDATE dpkmeans_internal.tracked SET home_timeline = home_timeline + 1 WHERE relid = 'pts'::regclass;
SELECT dp_release('pts');
SELECT dp_confirm_history('pts');
SET ROLE replay_analyst;
SELECT dp_confirm_history('pts');
RESET ROLE;
\set VERBOSITY default

-- Statistics views and relation sizes: one delta per writing statement,
-- whose size depends on the number of rows written, not on the cells they
-- fall into nor on whether an UPDATE moved any point.
SELECT dp_release('pts');
INSERT INTO pts (x, y) SELECT 50.5, 50.5 FROM generate_series(1, 100);
INSERT INTO pts (x, y) SELECT random() * 100, random() * 100 FROM generate_series(1, 100);
UPDATE pts SET x = x WHERE id <= 50;
UPDATE pts SET x = 100 - x WHERE id > 50 AND id <= 100;
SELECT length(payload) AS bytes, count(*) AS statements
FROM dpkmeans_internal.delta WHERE relid = 'pts'::regclass GROUP BY 1 ORDER BY 1;
SELECT a.attname, a.attstorage FROM pg_attribute a
WHERE (a.attrelid, a.attname) IN (('dpkmeans_internal.delta'::regclass, 'payload'),
                                  ('dpkmeans_internal.tracked'::regclass, 'state'))
ORDER BY 1;
SELECT dp_verify('pts');

DROP TABLE pts, pts2, wide;
DROP FUNCTION probe_twice();
SELECT count(*) AS readers_left FROM dpkmeans_internal.readers;
DROP ROLE replay_analyst;
DROP ROLE replay_team;
