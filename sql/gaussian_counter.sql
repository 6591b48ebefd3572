-- The counter of a Gaussian table (dpkmeans.gaussian_counter, fixed at
-- attach): the square-root factorization for tables whose releases read few
-- enough draws (a projected table's counts), the binary tree otherwise or on
-- request; pure tables always count with their tree.
CREATE FUNCTION gc_error(stmt text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
    hint text;
BEGIN
    EXECUTE stmt;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT;
    RETURN SQLSTATE || ': ' || SQLERRM || CASE WHEN hint <> '' THEN ' (hint: ' || hint || ')' ELSE '' END;
END
$f$;

-- four blobs, no randomness
CREATE TABLE gblobs AS
SELECT (ARRAY[20, 80, 20, 80])[1 + i % 4] + ((i::bigint * 7919) % 1000) / 500.0 - 1 AS x,
       (ARRAY[20, 20, 80, 80])[1 + i % 4] + ((i::bigint * 104729) % 1000) / 500.0 - 1 AS y
FROM generate_series(1, 20000) AS i;
CREATE TABLE gsqrt AS SELECT * FROM gblobs;
CREATE TABLE gtree AS SELECT * FROM gblobs;
CREATE TABLE glong AS SELECT * FROM gblobs;
CREATE TABLE gpure AS SELECT * FROM gblobs;

SELECT dp_attach('gsqrt', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 16, size_hint => 20000, delta => 1e-6);
SHOW dpkmeans.gaussian_counter;
-- a long horizon makes the last release read too many draws: the tree
SELECT dp_attach('glong', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 4096, size_hint => 20000, delta => 1e-6);
SELECT dp_attach('gpure', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 16, size_hint => 20000);
SET dpkmeans.gaussian_counter = 'tree';
SELECT dp_attach('gtree', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 16, size_hint => 20000, delta => 1e-6);
SELECT relid, delta, level, counter FROM dpkmeans_internal.tracked
WHERE relid::text LIKE 'g%' ORDER BY relid::text;

-- forced, it refuses what it cannot do, and nothing is attached
SET dpkmeans.gaussian_counter = 'square_root';
CREATE TABLE gwide (a float8, b float8, c float8, d float8, e float8, f float8);
SELECT gc_error($$SELECT dp_attach('gwide', ARRAY['a', 'b'], 2, 1.0, ARRAY[0, 0], ARRAY[1, 1],
                  horizon => 5000, delta => 1e-6)$$);
SELECT count(*) AS gwide_attached FROM dpkmeans_internal.tracked WHERE relid = 'gwide'::regclass;
-- forced, a long horizon is taken (its releases read about t draws per cell)
SELECT dp_attach('gwide', ARRAY['a', 'b'], 2, 1.0, ARRAY[0, 0], ARRAY[1, 1],
                 horizon => 256, size_hint => 1000, delta => 1e-6);
SELECT counter FROM dpkmeans_internal.tracked WHERE relid = 'gwide'::regclass;
SELECT gc_error($$SET dpkmeans.gaussian_counter = 'binary'$$);
RESET dpkmeans.gaussian_counter;

-- the report names the mechanism and its sensitivities; they add up to rho
SELECT item, value FROM dp_privacy_report('gsqrt')
WHERE item IN ('mechanism', 'counter', 'counts: squared l2 sensitivity (one event, all nodes)')
   OR item LIKE 'counts: sigma%' ORDER BY item;

-- projected tables (6 columns or more): the square root for their counts
-- and lifting sums ('square_root_sums') when 2 x horizon x cells x (1 + d)
-- fit 2^24 draws, for their counts alone ('square_root') when 2 x horizon x
-- cells fit 2^20 (the sums keep the tree); the sum of squared norms keeps
-- the tree; a long horizon: the tree
CREATE TABLE gp6 AS SELECT x AS a, y AS b, x AS c, y AS e, 100 - x AS f, 100 - y AS g FROM gblobs;
CREATE TABLE gp6long AS SELECT * FROM gp6;
CREATE TABLE gp6forced AS SELECT * FROM gp6;
SELECT dp_attach('gp6', ARRAY['a', 'b', 'c', 'e', 'f', 'g'], 4, 1.0, ARRAY[0, 0, 0, 0, 0, 0],
                 ARRAY[100, 100, 100, 100, 100, 100], horizon => 16, size_hint => 20000, delta => 1e-6);
SELECT dp_attach('gp6long', ARRAY['a', 'b', 'c', 'e', 'f', 'g'], 4, 1.0, ARRAY[0, 0, 0, 0, 0, 0],
                 ARRAY[100, 100, 100, 100, 100, 100], horizon => 1024, size_hint => 20000, delta => 1e-6);
-- forced, a projected table takes it too
SET dpkmeans.gaussian_counter = 'square_root';
SELECT dp_attach('gp6forced', ARRAY['a', 'b', 'c', 'e', 'f', 'g'], 4, 1.0, ARRAY[0, 0, 0, 0, 0, 0],
                 ARRAY[100, 100, 100, 100, 100, 100], horizon => 1024, size_hint => 1000, delta => 1e-6);
RESET dpkmeans.gaussian_counter;
-- 32 columns at horizon 64: every cell's sums would read 2 x 64 x 4 096 x
-- 33 draws; its counts fit 2^20, so the lifted cells' sums alone
-- ('square_root_lifted')
CREATE TABLE gp32 (v float8[]);
SELECT dp_attach('gp32', ARRAY['v'], 4, 1.0, array_fill(0::float8, ARRAY[32]),
                 array_fill(100::float8, ARRAY[32]), horizon => 64, size_hint => 100000, delta => 1e-6);
-- 64 columns at horizon 16 in a cube box: the sums on the square root; insert
-- only, the same 4 096 cells as sign cells of 12 projected dimensions at
-- level 1; with deletions, 6 dimensions at level 2
CREATE TABLE gp64 (v float8[]);
CREATE TABLE gp64d (v float8[]);
SELECT dp_attach('gp64', ARRAY['v'], 4, 1.0, array_fill(0::float8, ARRAY[64]),
                 array_fill(100::float8, ARRAY[64]), horizon => 16, size_hint => 100000, delta => 1e-6,
                 mode => 'insert_only');
SELECT dp_attach('gp64d', ARRAY['v'], 4, 1.0, array_fill(0::float8, ARRAY[64]),
                 array_fill(100::float8, ARRAY[64]), horizon => 16, size_hint => 100000, delta => 1e-6);
SELECT relid, dhat, level, counter FROM dpkmeans_internal.tracked
WHERE relid::text LIKE 'gp6%' OR relid IN ('gp32'::regclass, 'gp64'::regclass, 'gp64d'::regclass)
ORDER BY relid::text;
SELECT value FROM dp_privacy_report('gp32') WHERE item = 'counter estimator';
SELECT dp_detach('gp32'), dp_detach('gp64'), dp_detach('gp64d');
DROP TABLE gp32, gp64, gp64d;
SELECT item, value FROM dp_privacy_report('gp6')
WHERE item IN ('mechanism', 'counter', 'counter estimator',
               'count sensitivity (squared l2, one event over every measurement)',
               'sum sensitivity (squared l2, one event, fixed-point units)')
   OR item LIKE '%: sigma%' OR item LIKE '%squared l2 sensitivity%' OR item LIKE 'tree height%'
 ORDER BY item;
UPDATE dpkmeans_internal.keys SET key = decode(repeat('5a', 32), 'hex') WHERE relid = 'gp6'::regclass;
SELECT dp_release('gp6');
SELECT count(*) AS centres,
       bool_and(EXISTS (SELECT 1 FROM (VALUES (20, 20), (80, 20), (20, 80), (80, 80)) b(bx, by)
                        WHERE abs(c.center[1] - bx) < 5 AND abs(c.center[2] - by) < 5
                          AND abs(c.center[6] - (100 - by)) < 5)) AS on_blobs
FROM dp_centers('gp6', 4) c;
SELECT dp_detach('gp6'), dp_detach('gp6long'), dp_detach('gp6forced');
DROP TABLE gp6, gp6long, gp6forced;

-- 128 columns at horizon 16: every cell's sums would read 2 x 16 x 4 096 x
-- 129 draws (over 2^24), so a release draws the sums of the cells it lifts
-- from alone ('square_root_lifted'); four blobs of 500 rows, each far above
-- the coreset threshold, give four centres on the blobs
CREATE TABLE gp128 (v float8[]);
INSERT INTO gp128
SELECT array_agg(CASE WHEN j % 4 = b THEN 80 ELSE 20 END + (random() - 0.5) ORDER BY j)
FROM generate_series(0, 1999) i, LATERAL (SELECT i % 4 AS b) bb, generate_series(0, 127) j
GROUP BY i, b;
-- each centre's nearest blob: every blob has one, nearer than half way to
-- the others (blobs are 480 apart; the centres' noise is about 130)
CREATE FUNCTION gp128_found(OUT centres bigint, OUT blobs bigint, OUT near boolean) LANGUAGE sql AS $f$
SELECT count(*), count(DISTINCT b), max(dist) < 240
FROM (SELECT DISTINCT ON (c.center) b.b, sqrt(sum((c.center[j] - CASE WHEN (j - 1) % 4 = b.b THEN 80 ELSE 20 END) ^ 2)) AS dist
      FROM dp_centers('gp128', 4) c, generate_series(0, 3) b(b), generate_series(1, 128) j
      GROUP BY c.center, b.b ORDER BY c.center, dist) x
$f$;
-- The projection's seed is drawn at attach, and a few projections in a
-- hundred put two of the blobs in one cell, where no counter can part them;
-- so the table is attached afresh (a new projection) up to five times until
-- a release finds the four blobs.  Sums at the cells' middles never do.
CREATE FUNCTION gp128_attach() RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
    IF EXISTS (SELECT 1 FROM dpkmeans_internal.tracked WHERE relid = 'gp128'::regclass) THEN
        PERFORM dp_detach('gp128');
    END IF;
    PERFORM dp_attach('gp128', ARRAY['v'], 4, 1.0, array_fill(0::float8, ARRAY[128]),
                      array_fill(100::float8, ARRAY[128]), horizon => 16, size_hint => 100000, delta => 1e-6);
    UPDATE dpkmeans_internal.keys SET key = decode(repeat('5a', 32), 'hex') WHERE relid = 'gp128'::regclass;
END
$f$;
SELECT gp128_attach();
SELECT dp_release('gp128');
-- the attempts after the first, each only when the last did not find them
-- (neither echoed nor printed: how many ran varies; a new history's ledger
-- NOTICE is not shown)
\set ECHO none
\o /dev/null
SET client_min_messages = warning;
SELECT s FROM gp128_found() f, (VALUES (1, 'SELECT gp128_attach()'), (2, 'SELECT dp_release(''gp128'')')) v(o, s) WHERE NOT (f.centres = 4 AND f.blobs = 4 AND f.near) ORDER BY o \gexec
SELECT s FROM gp128_found() f, (VALUES (1, 'SELECT gp128_attach()'), (2, 'SELECT dp_release(''gp128'')')) v(o, s) WHERE NOT (f.centres = 4 AND f.blobs = 4 AND f.near) ORDER BY o \gexec
SELECT s FROM gp128_found() f, (VALUES (1, 'SELECT gp128_attach()'), (2, 'SELECT dp_release(''gp128'')')) v(o, s) WHERE NOT (f.centres = 4 AND f.blobs = 4 AND f.near) ORDER BY o \gexec
SELECT s FROM gp128_found() f, (VALUES (1, 'SELECT gp128_attach()'), (2, 'SELECT dp_release(''gp128'')')) v(o, s) WHERE NOT (f.centres = 4 AND f.blobs = 4 AND f.near) ORDER BY o \gexec
RESET client_min_messages;
\o
\set ECHO all
SELECT * FROM gp128_found();
SELECT dhat, level, counter FROM dpkmeans_internal.tracked WHERE relid = 'gp128'::regclass;
SELECT value FROM dp_privacy_report('gp128') WHERE item = 'lifting sums read';
SELECT dp_detach('gp128');
DROP TABLE gp128;
DROP FUNCTION gp128_attach(), gp128_found();

-- releases: every read of a release is the same until the next release;
-- the centres find the four blobs
UPDATE dpkmeans_internal.keys SET key = decode(repeat('5a', 32), 'hex')
WHERE relid IN ('gsqrt'::regclass, 'gtree'::regclass);
SELECT dp_release('gsqrt'), dp_release('gtree');
CREATE TEMP TABLE h1 AS SELECT * FROM dp_histogram('gsqrt');
INSERT INTO gsqrt SELECT x + 0.25, y FROM gblobs WHERE x < 50 LIMIT 2000;
SELECT (SELECT count(*) FROM (SELECT * FROM dp_histogram('gsqrt') EXCEPT SELECT * FROM h1) x) AS changed_before_release;
SELECT dp_release('gsqrt');
SELECT (SELECT count(*) FROM (SELECT * FROM dp_histogram('gsqrt') EXCEPT SELECT * FROM h1) x) > 0 AS changed_after_release;
SELECT count(*) AS centres,
       bool_and(EXISTS (SELECT 1 FROM (VALUES (20, 20), (80, 20), (20, 80), (80, 80)) b(bx, by)
                        WHERE abs(c.center[1] - bx) < 3 AND abs(c.center[2] - by) < 3)) AS on_blobs
FROM dp_centers('gsqrt', 4) c;
SELECT count(*) AS centres,
       bool_and(EXISTS (SELECT 1 FROM (VALUES (20, 20), (80, 20), (20, 80), (80, 80)) b(bx, by)
                        WHERE abs(c.center[1] - bx) < 3 AND abs(c.center[2] - by) < 3)) AS on_blobs
FROM dp_centers('gtree', 4) c;

SELECT dp_detach('gsqrt'), dp_detach('gtree'), dp_detach('glong'), dp_detach('gpure'),
       dp_detach('gwide');
DROP TABLE gsqrt, gtree, glong, gpure, gwide, gblobs;
DROP FUNCTION gc_error(text);
