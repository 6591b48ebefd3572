-- Approximate DP: the delta argument of dp_kmeans and dp_attach.  delta = 0
-- (the default) keeps pure epsilon-DP with the same draws; delta in (0, 1)
-- switches every counter to exact discrete Gaussian noise.
CREATE FUNCTION approx_error(stmt text) RETURNS text LANGUAGE plpgsql AS $f$
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

-- points on four blobs, no randomness (the same rows on every platform)
CREATE TABLE ablobs AS
SELECT (ARRAY[20, 80, 20, 80])[1 + i % 4] + ((i::bigint * 7919) % 1000) / 500.0 - 1 AS x,
       (ARRAY[20, 20, 80, 80])[1 + i % 4] + ((i::bigint * 104729) % 1000) / 500.0 - 1 AS y
FROM generate_series(1, 40000) AS i;

-- bad deltas are refused, in dp_kmeans and in dp_attach
SELECT d, approx_error(format($$SELECT * FROM dp_kmeans('SELECT x, y FROM ablobs', 4, 1.0,
                              ARRAY[0, 0], ARRAY[100, 100], delta => %s)$$, d))
FROM unnest(ARRAY['NULL', '-1e-9', '-1', '''NaN''', '1', '1.5', '''Infinity''', '''-Infinity''']) AS d;
SELECT d, approx_error(format($$SELECT dp_attach('ablobs', ARRAY['x', 'y'], 4, 1.0,
                              ARRAY[0, 0], ARRAY[100, 100], delta => %s)$$, d))
FROM unnest(ARRAY['NULL', '-0.5', '''NaN''', '1']) AS d;
SELECT count(*) AS attached FROM dpkmeans_internal.tracked WHERE relid = 'ablobs'::regclass;

-- one-shot with delta: exactly k rows, the four blobs found, sizes about N
-- (low d and the projected pipeline at d = 8)
WITH c AS (SELECT * FROM dp_kmeans('SELECT x, y FROM ablobs', 4, 1.0,
                                   ARRAY[0, 0], ARRAY[100, 100], delta => 1e-6))
SELECT (SELECT count(*) FROM c) AS rows,
       (SELECT count(*) FROM (VALUES (20, 20), (80, 20), (20, 80), (80, 80)) t(a, b)
        WHERE EXISTS (SELECT 1 FROM c WHERE abs(center[1] - a) < 1.5 AND abs(center[2] - b) < 1.5)) AS found,
       abs((SELECT sum(noisy_size) FROM c) - 40000) < 800 AS sizes_ok;
WITH c AS (SELECT * FROM dp_kmeans('SELECT x, y, x, y, x, y, x, y FROM ablobs', 4, 1.0,
                                   ARRAY[0, 0, 0, 0, 0, 0, 0, 0],
                                   ARRAY[100, 100, 100, 100, 100, 100, 100, 100], NULL, 1e-6))
SELECT (SELECT count(*) FROM c) AS rows,
       (SELECT count(*) FROM (VALUES (20, 20), (80, 20), (20, 80), (80, 80)) t(a, b)
        WHERE EXISTS (SELECT 1 FROM c WHERE abs(center[1] - a) < 5 AND abs(center[8] - b) < 5)) AS found;
SELECT count(*) FROM dp_kmeans('SELECT x, y FROM ablobs', 3, 0.5, ARRAY[0, 0], ARRAY[100, 100], n => 40000, delta => 0.01);

-- live tables: three copies of the data under one fixed key (set by the
-- superuser before the first release): pure by default, pure with an explicit
-- delta = 0, and Gaussian
CREATE TABLE apure AS SELECT * FROM ablobs;
CREATE TABLE azero AS SELECT * FROM ablobs;
CREATE TABLE agauss AS SELECT * FROM ablobs;
SELECT dp_attach('apure', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 16, size_hint => 40000);
SELECT dp_attach('azero', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 16, size_hint => 40000, delta => 0);
SELECT dp_attach('agauss', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 16, size_hint => 40000, delta => 1e-6);
SELECT relid, delta, sum_share, level FROM dpkmeans_internal.tracked
WHERE relid IN ('apure'::regclass, 'azero'::regclass, 'agauss'::regclass) ORDER BY relid::text;
UPDATE dpkmeans_internal.keys SET key = decode(repeat('5a', 32), 'hex')
WHERE relid IN ('apure'::regclass, 'azero'::regclass, 'agauss'::regclass);
SELECT dp_release('apure'), dp_release('azero'), dp_release('agauss');
INSERT INTO apure SELECT x + 0.5, y FROM ablobs WHERE x < 50 LIMIT 3000;
INSERT INTO azero SELECT x + 0.5, y FROM ablobs WHERE x < 50 LIMIT 3000;
INSERT INTO agauss SELECT x + 0.5, y FROM ablobs WHERE x < 50 LIMIT 3000;
SELECT dp_release('apure'), dp_release('azero'), dp_release('agauss');

-- the pure releases under the fixed key, as tables attached without delta
-- make them (the counter of dpkmeans.counter_estimator); listed by centre,
-- since which of k' = k's equal-cost optima (and so the clusters' order)
-- a release keeps is not what this suite is about
SELECT array(SELECT round(v::numeric, 6) FROM unnest(center) v) AS center,
       round(noisy_size::numeric, 3) AS noisy_size
FROM dp_centers('apure', 4) ORDER BY center;
SELECT level, count(*), round(sum(noisy_count)::numeric, 3) AS noisy_n FROM dp_histogram('apure') GROUP BY level;
-- delta = 0 draws exactly the same; the Gaussian table draws other noise
SELECT (SELECT array_agg(center ORDER BY center) FROM dp_centers('apure', 4)) =
       (SELECT array_agg(center ORDER BY center) FROM dp_centers('azero', 4)) AS zero_is_pure,
       (SELECT array_agg(noisy_count ORDER BY cell) FROM dp_histogram('apure')) =
       (SELECT array_agg(noisy_count ORDER BY cell) FROM dp_histogram('azero')) AS same_histogram,
       (SELECT array_agg(noisy_count ORDER BY cell) FROM dp_histogram('apure')) <>
       (SELECT array_agg(noisy_count ORDER BY cell) FROM dp_histogram('agauss')) AS gauss_differs;
-- the Gaussian release finds the blobs
SELECT count(*) AS found
FROM (VALUES (20, 20), (80, 20), (20, 80), (80, 80)) t(a, b)
WHERE EXISTS (SELECT 1 FROM dp_centers('agauss', 4) c
              WHERE abs(c.center[1] - a) < 1.5 AND abs(c.center[2] - b) < 1.5);
-- the report names the mechanism, delta, rho and each family's sigma
SELECT item, value FROM dp_privacy_report('agauss')
WHERE item ~ '^(guarantee|mechanism|delta|rho|counts|sums)' ORDER BY item;
SELECT item, value FROM dp_privacy_report('apure') WHERE item IN ('guarantee', 'epsilon on counts');
-- a Gaussian table attached under the earlier default (half of rho on the
-- sums) keeps its stored share: its releases use it, not today's default
UPDATE dpkmeans_internal.tracked SET sum_share = 0.5 WHERE relid = 'agauss'::regclass;
SELECT dp_release('agauss');
SELECT item, value FROM dp_privacy_report('agauss') WHERE item ~ '^rho on';

-- 384 columns, Gaussian, epsilon 1: the norm counter's variance in unit
-- steps has no exact representation, so the table counts squared norms in
-- units of 2^s (s > 0, in its triggers' arguments); the triggers, the scan
-- of dp_verify and the backfill count alike
CREATE TABLE awide (i int, v float4[]);
CREATE FUNCTION awide_row(i int) RETURNS float4[] LANGUAGE sql IMMUTABLE AS $$
    SELECT array_agg(((i % 4) * 0.25 + 0.1 + 0.05 * sin(i * j))::float4 ORDER BY j)
    FROM generate_series(1, 384) j $$;
INSERT INTO awide SELECT i, awide_row(i) FROM generate_series(1, 120) i;
SELECT dp_attach('awide', ARRAY['v'], 4, 1.0, array_fill(0::float8, ARRAY[384]),
                 array_fill(1::float8, ARRAY[384]), horizon => 16, size_hint => 1000,
                 delta => 1e-6);
SELECT DISTINCT split_part(encode(tgargs, 'escape'), '\000', 1) AS tag,
       split_part(encode(tgargs, 'escape'), '\000', 9) AS norm_bound,
       split_part(encode(tgargs, 'escape'), '\000', 10) AS norm_shift
FROM pg_trigger WHERE tgrelid = 'awide'::regclass AND NOT tgisinternal;
INSERT INTO awide SELECT i, awide_row(i) FROM generate_series(121, 200) i;
DELETE FROM awide WHERE i % 5 = 0;
UPDATE awide SET v = awide_row(i + 1) WHERE i % 7 = 0;
SELECT dp_verify('awide') AS counted_exactly;
SELECT dp_release('awide') IS NOT NULL AS released;
SELECT count(*) BETWEEN 1 AND 4 AS centres FROM dp_centers('awide', 4);
SELECT item, value FROM dp_privacy_report('awide') WHERE item ~ '^sum of squared norms' ORDER BY item;
-- the same table pure: unit steps, the usual trigger
CREATE TABLE awide_pure AS SELECT * FROM awide;
SELECT dp_attach('awide_pure', ARRAY['v'], 4, 1.0, array_fill(0::float8, ARRAY[384]),
                 array_fill(1::float8, ARRAY[384]), horizon => 16, size_hint => 1000);
SELECT DISTINCT split_part(encode(tgargs, 'escape'), '\000', 1) AS tag
FROM pg_trigger WHERE tgrelid = 'awide_pure'::regclass AND NOT tgisinternal;
SELECT dp_detach('awide'), dp_detach('awide_pure');
DROP TABLE awide, awide_pure;
DROP FUNCTION awide_row(int);

SELECT dp_detach('apure'), dp_detach('azero'), dp_detach('agauss');
DROP TABLE apure, azero, agauss, ablobs;
DROP FUNCTION approx_error(text);
