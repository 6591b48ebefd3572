-- A release does the work its readers asked for and no more: k-median
-- centres only for tables whose objectives include them (dp_set_objectives),
-- k-means for every k' <= k in work bounded by k and the counted cells.
CREATE OR REPLACE FUNCTION expect_error(stmt text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
    hint text;
    detail text;
BEGIN
    EXECUTE stmt;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT, detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || CASE WHEN detail <> '' THEN ' (detail: ' || detail || ')' ELSE '' END
        || CASE WHEN hint <> '' THEN ' (hint: ' || hint || ')' ELSE '' END;
END
$f$;
SELECT setseed(0.49);

-- k = 1000 on 3000 rows: the release finishes (it took minutes when every
-- release computed k-median for every k' and stored centres one by one;
-- the timeout only keeps a regression from hanging the suite; the release
-- takes about 20 s on a busy 2-core machine, twice that under
-- AddressSanitizer)
CREATE TABLE wbigk (x float8, y float8);
INSERT INTO wbigk SELECT random() * 100, random() * 100 FROM generate_series(1, 3000);
-- above the default largest k (100): a superuser raises dpkmeans.max_k
SET dpkmeans.max_k = 1000;
SELECT dp_attach('wbigk', ARRAY['x', 'y'], 1000, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 8);
SET statement_timeout = '120s';
SELECT dp_release('wbigk');
RESET statement_timeout;
SELECT count(*) BETWEEN 1 AND 1000 AS centres_k1000, count(*) = count(DISTINCT cluster) AS distinct_clusters
FROM dp_centers('wbigk', 1000);
SELECT count(*) AS cost_rows FROM dp_cost_curve('wbigk');
-- a table attached now releases k-means only
SELECT objectives FROM dpkmeans_internal.tracked WHERE relid = 'wbigk'::regclass;
SELECT count(*) AS kmedian_rows FROM dpkmeans_internal.centers
WHERE relid = 'wbigk'::regclass AND objective = 'kmedian';
SELECT expect_error($$SELECT * FROM dp_centers('wbigk', 3, 'kmedian')$$);
SELECT expect_error($$SELECT * FROM dp_cost_curve('wbigk', 'kmedian')$$);
SELECT dp_detach('wbigk');

-- a table that asks for k-median gets it from its next release on, the same
-- answer on every read; asking for k-means alone again stops it
CREATE TABLE wmed (x float8, y float8);
INSERT INTO wmed SELECT c.x + random() * 4, c.y + random() * 4
FROM generate_series(1, 6000) i
JOIN (VALUES (0, 20.0, 20.0), (1, 70.0, 30.0), (2, 40.0, 80.0)) c(j, x, y) ON c.j = i % 3;
SELECT dp_attach('wmed', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 8);
SELECT dp_release('wmed');
SELECT expect_error($$SELECT * FROM dp_centers('wmed', 3, 'kmedian')$$);
SELECT dp_set_objectives('wmed', ARRAY['kmeans', 'kmedian']);
SELECT objectives FROM dpkmeans_internal.tracked WHERE relid = 'wmed'::regclass;
-- the release made before asking has none
SELECT expect_error($$SELECT * FROM dp_centers('wmed', 3, 'kmedian')$$);
SELECT dp_release('wmed');
SELECT k, (SELECT count(*) FROM dp_centers('wmed', k, 'kmedian')) AS kmedian_rows
FROM generate_series(1, 4) k;
CREATE TABLE wfirst_read AS
SELECT (SELECT array_agg(center || noisy_size ORDER BY cluster) FROM dp_centers('wmed', 3, 'kmedian')) AS centers,
       (SELECT array_agg(noisy_cost ORDER BY k) FROM dp_cost_curve('wmed', 'kmedian')) AS costs;
SELECT (SELECT array_agg(center || noisy_size ORDER BY cluster) FROM dp_centers('wmed', 3, 'kmedian')) = f.centers
         AS centers_same_on_reread,
       (SELECT array_agg(noisy_cost ORDER BY k) FROM dp_cost_curve('wmed', 'kmedian')) = f.costs
         AS costs_same_on_reread
FROM wfirst_read f;
-- a reader in another transaction, and after a rolled-back one, reads the same
BEGIN;
SELECT (SELECT array_agg(center || noisy_size ORDER BY cluster) FROM dp_centers('wmed', 3, 'kmedian')) = f.centers
         AS same_in_transaction
FROM wfirst_read f;
ROLLBACK;
SELECT (SELECT array_agg(center || noisy_size ORDER BY cluster) FROM dp_centers('wmed', 3, 'kmedian')) = f.centers
         AS same_after_rollback
FROM wfirst_read f;
-- the k-median centres find the three clusters (within a counted cell)
SELECT (SELECT count(*) FROM (VALUES (22, 22), (72, 32), (42, 82)) t(a, b)
        WHERE EXISTS (SELECT 1 FROM dp_centers('wmed', 3, 'kmedian') m
                      WHERE abs(center[1] - a) < 7 AND abs(center[2] - b) < 7)) AS clusters_found;
SELECT dp_set_objectives('wmed', ARRAY['kmeans']);
SELECT dp_release('wmed');
SELECT expect_error($$SELECT * FROM dp_centers('wmed', 3, 'kmedian')$$);
SELECT count(*) AS kmeans_rows FROM dp_centers('wmed', 3);

-- bad objectives, a table not attached, a caller who does not own it
SELECT expect_error($$SELECT dp_set_objectives('wmed', NULL)$$);
SELECT expect_error($$SELECT dp_set_objectives(NULL, ARRAY['kmeans'])$$);
SELECT expect_error($$SELECT dp_set_objectives('wmed', ARRAY[]::text[])$$);
SELECT expect_error($$SELECT dp_set_objectives('wmed', ARRAY['kmedian'])$$);
SELECT expect_error($$SELECT dp_set_objectives('wmed', ARRAY['kmeans', 'kmedians'])$$);
SELECT expect_error($$SELECT dp_set_objectives('wmed', ARRAY['kmeans', NULL])$$);
SELECT expect_error($$SELECT dp_set_objectives('wmed', ARRAY[['kmeans'], ['kmedian']])$$);
CREATE TABLE wloose (x float8, y float8);
SELECT expect_error($$SELECT dp_set_objectives('wloose', ARRAY['kmeans'])$$);
CREATE ROLE objectives_stranger;
GRANT SELECT ON wmed TO objectives_stranger;
SET ROLE objectives_stranger;
SELECT expect_error($$SELECT dp_set_objectives('wmed', ARRAY['kmeans', 'kmedian'])$$);
RESET ROLE;
REVOKE SELECT ON wmed FROM objectives_stranger;
DROP ROLE objectives_stranger;
-- nothing was changed by the refused calls
SELECT objectives FROM dpkmeans_internal.tracked WHERE relid = 'wmed'::regclass;
SELECT dp_detach('wmed');
