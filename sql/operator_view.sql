-- The operator's view: dp_tables() lists every attached table the caller
-- owns or may read; readers name the release and time they answer from and
-- read any earlier release (release => n).  As the owner, a granted reader
-- and a role granted nothing.
CREATE FUNCTION pg_temp.err(stmt text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
    EXECUTE stmt;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$f$;
CREATE ROLE dpk_ov_owner;
CREATE ROLE dpk_ov_reader;
CREATE ROLE dpk_ov_other;
GRANT CREATE ON SCHEMA public TO dpk_ov_owner;

SET ROLE dpk_ov_owner;
CREATE TABLE ov_pts (x float8, y float8);
INSERT INTO ov_pts SELECT 20 + (i % 7), 30 + (i % 5) FROM generate_series(1, 3000) i;
INSERT INTO ov_pts SELECT 70 + (i % 3), 80 - (i % 11) FROM generate_series(1, 2000) i;
SELECT dp_attach('ov_pts', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 8);
CREATE TABLE ov_quiet (v float8[]);
SELECT dp_attach('ov_quiet', ARRAY['v'], 2, 0.5, ARRAY[0, 0], ARRAY[1, 1], mode => 'insert_only');
SELECT dp_grant_reader('ov_pts', 'dpk_ov_reader');
-- before any release: nothing used, no last release
SELECT tbl, columns, k, epsilon, delta, horizon, releases_used, releases_left, last_release,
       last_release_at, capture, mode, attached_at <= now() AS attached, readers,
       epsilon_spent, delta_spent
FROM dp_tables() ORDER BY tbl::text;
RESET ROLE;

SELECT dp_release('ov_pts');
-- what release 1 answers while it is the latest
CREATE TABLE ov_first AS SELECT * FROM dp_centers('ov_pts', 3);
CREATE TABLE ov_first_hist AS SELECT * FROM dp_histogram('ov_pts');
CREATE TABLE ov_first_cost AS SELECT * FROM dp_cost_curve('ov_pts');
GRANT SELECT ON ov_first, ov_first_hist, ov_first_cost TO dpk_ov_owner;
INSERT INTO ov_pts SELECT 40 + (i % 13), 60 FROM generate_series(1, 500) i;
SELECT dp_release('ov_pts');

SET ROLE dpk_ov_owner;
SELECT tbl, releases_used, releases_left, last_release, readers, epsilon_spent
FROM dp_tables() ORDER BY tbl::text;
-- every reader names its release and time; NULL is the latest
SELECT DISTINCT release, released_at = (SELECT last_release_at FROM dp_tables()
                                        WHERE tbl = 'ov_pts'::regclass) AS last_time
FROM dp_centers('ov_pts', 3);
SELECT DISTINCT release FROM dp_centers('ov_pts', 3, release => NULL);
SELECT DISTINCT release FROM dp_cost_curve('ov_pts');
SELECT DISTINCT release FROM dp_histogram('ov_pts');
-- an earlier release reads exactly as it did when it was the latest
SELECT (SELECT array_agg(c::text ORDER BY cluster) FROM dp_centers('ov_pts', 3, release => 1) c) =
       (SELECT array_agg(c::text ORDER BY cluster) FROM ov_first c) AS centres_kept,
       (SELECT array_agg(h::text ORDER BY cell) FROM dp_histogram('ov_pts', release => 1) h) =
       (SELECT array_agg(h::text ORDER BY cell) FROM ov_first_hist h) AS histogram_kept,
       (SELECT array_agg(c::text ORDER BY k) FROM dp_cost_curve('ov_pts', 'kmeans', 1) c) =
       (SELECT array_agg(c::text ORDER BY k) FROM ov_first_cost c) AS costs_kept,
       (SELECT array_agg(h::text ORDER BY cell) FROM dp_histogram('ov_pts', release => 2) h) <>
       (SELECT array_agg(h::text ORDER BY cell) FROM ov_first_hist h) AS release_2_differs;
SELECT DISTINCT release, level FROM dp_histogram('ov_pts', 1, release => 1);
SELECT (SELECT DISTINCT released_at FROM dp_centers('ov_pts', 3, release => 1)) <
       (SELECT DISTINCT released_at FROM dp_centers('ov_pts', 3, release => 2)) AS in_order;
-- a release the table has not made
SELECT pg_temp.err($$SELECT * FROM dp_centers('ov_pts', 3, release => 3)$$);
SELECT pg_temp.err($$SELECT * FROM dp_cost_curve('ov_pts', release => 0)$$);
SELECT pg_temp.err($$SELECT * FROM dp_histogram('ov_pts', release => -1)$$);
SELECT pg_temp.err($$SELECT * FROM dp_centers('ov_quiet', 2, release => 1)$$);
RESET ROLE;

-- a granted reader: its tables, without their readers; any release
SET ROLE dpk_ov_reader;
SELECT tbl, k, releases_used, last_release, readers, epsilon_spent FROM dp_tables();
SELECT DISTINCT release FROM dp_centers('ov_pts', 2, release => 1);
SELECT count(*) > 0 AS reads FROM dp_histogram('ov_pts', release => 1);
SELECT pg_temp.err($$SELECT * FROM dp_centers('ov_quiet', 2)$$);
RESET ROLE;

-- a role granted nothing: no table listed, no release read
SET ROLE dpk_ov_other;
SELECT count(*) AS tables FROM dp_tables();
SELECT pg_temp.err($$SELECT * FROM dp_centers('ov_pts', 2, release => 1)$$);
SELECT pg_temp.err($$SELECT * FROM dp_histogram('ov_pts', release => 1)$$);
RESET ROLE;

-- a superuser owns everything
SELECT tbl, readers FROM dp_tables() ORDER BY tbl::text;
-- a dropped table is no longer listed
DROP TABLE ov_quiet;
SELECT tbl FROM dp_tables() ORDER BY tbl::text;
SELECT dp_detach('ov_pts');
SELECT count(*) AS tables FROM dp_tables();
DROP TABLE ov_pts, ov_first, ov_first_hist, ov_first_cost;

-- Tables of 0.6: the update keeps the privileges given on the readers and
-- every earlier release's centres; the histogram of releases before the
-- update is kept for the last of them only, every later one is kept.
DROP EXTENSION dpkmeans;
CREATE EXTENSION dpkmeans VERSION '0.6';
REVOKE EXECUTE ON FUNCTION dp_centers(regclass, int, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dp_centers(regclass, int, text) TO dpk_ov_reader;
CREATE TABLE ov_old (x float8, y float8);
INSERT INTO ov_old SELECT 20 + (i % 7), 30 + (i % 5) FROM generate_series(1, 3000) i;
SELECT dp_attach('ov_old', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 8);
SELECT dp_release('ov_old');
SELECT dp_release('ov_old');
ALTER EXTENSION dpkmeans UPDATE TO '0.7';
SELECT p.oid::regprocedure AS function,
       has_function_privilege('dpk_ov_reader', p.oid, 'EXECUTE') AS reader,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public
FROM pg_proc p
WHERE p.proname IN ('dp_centers', 'dp_cost_curve', 'dp_histogram')
  AND p.pronamespace = 'public'::regnamespace
ORDER BY p.proname;
-- releases made before the update are read as every release is
SELECT release, count(*) BETWEEN 1 AND 4 AS centres FROM dp_centers('ov_old', 4, release => 1)
GROUP BY release;
SELECT pg_temp.err($$SELECT * FROM dp_histogram('ov_old', release => 1)$$);
SELECT DISTINCT release FROM dp_histogram('ov_old', release => 2);
SELECT dp_release('ov_old');
SELECT DISTINCT release FROM dp_histogram('ov_old', release => 2);
SELECT DISTINCT release FROM dp_histogram('ov_old', release => 3);
SELECT dp_detach('ov_old');
DROP TABLE ov_old;
DROP EXTENSION dpkmeans;
CREATE EXTENSION dpkmeans;

REVOKE CREATE ON SCHEMA public FROM dpk_ov_owner;
DROP ROLE dpk_ov_owner;
DROP ROLE dpk_ov_reader;
DROP ROLE dpk_ov_other;
