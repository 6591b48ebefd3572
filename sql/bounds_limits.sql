-- The owner is told how many rows the declared box clamps (at attach, by
-- dp_bounds_check, and the caller of dp_kmeans); readers see nothing of it.
-- k is bounded, and no more centres are returned than a release supports;
-- released sizes are never negative.
CREATE FUNCTION pg_temp.err(stmt text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
    EXECUTE stmt;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$f$;
CREATE ROLE dpk_bl_owner;
CREATE ROLE dpk_bl_reader;
GRANT CREATE ON SCHEMA public TO dpk_bl_owner;

SET ROLE dpk_bl_owner;
-- a taxi-like table of (lat, lon)
CREATE TABLE bl_trips (lat float8, lon float8);
INSERT INTO bl_trips SELECT 40.55 + (i % 300) / 1000.0, -74.25 + (i % 500) / 1000.0
FROM generate_series(1, 20000) i;
-- a box given as (lon, lat): every row clamped onto one corner, a WARNING
SELECT dp_attach('bl_trips', ARRAY['lat', 'lon'], 4, 1.0, ARRAY[-74.3, 40.5], ARRAY[-73.7, 40.9]);
SELECT * FROM dp_bounds_check('bl_trips');
SELECT dp_detach('bl_trips');
-- the right box: nothing to say
SELECT dp_attach('bl_trips', ARRAY['lat', 'lon'], 4, 1.0, ARRAY[40.5, -74.3], ARRAY[40.9, -73.7]);
SELECT column_name, lower, upper, points, below_lower, above_upper, below_share, above_share
FROM dp_bounds_check('bl_trips');
-- a few bad GPS rows at (0, 0) (0.05 %): below lower on lat, above upper on
-- lon, a NOTICE
INSERT INTO bl_trips SELECT 0, 0 FROM generate_series(1, 10);
SELECT column_name, points, below_lower, above_upper, round(below_share::numeric, 5) AS below,
       round(above_share::numeric, 5) AS above
FROM dp_bounds_check('bl_trips');
-- 0.5 % of them, enough for a centre of their own: a WARNING
INSERT INTO bl_trips SELECT 0, 0 FROM generate_series(1, 90);
SELECT column_name, below_lower, above_upper FROM dp_bounds_check('bl_trips');
SELECT dp_grant_reader('bl_trips', 'dpk_bl_reader');
SELECT dp_detach('bl_trips');
-- at attach too
SELECT dp_attach('bl_trips', ARRAY['lat', 'lon'], 4, 1.0, ARRAY[40.5, -74.3], ARRAY[40.9, -73.7]);
SELECT dp_grant_reader('bl_trips', 'dpk_bl_reader');
-- data wholly outside the box (other units): every row in a corner
CREATE TABLE bl_far (x float8, y float8);
INSERT INTO bl_far SELECT 150 + i % 5, 200 + i % 3 FROM generate_series(1, 1000) i;
SELECT dp_attach('bl_far', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
SELECT column_name, below_lower, above_upper, above_share FROM dp_bounds_check('bl_far');
-- one array column: coordinates named by index
CREATE TABLE bl_vec (v float8[]);
INSERT INTO bl_vec SELECT ARRAY[i % 10, 5, 0.5] FROM generate_series(1, 1000) i;
SELECT dp_attach('bl_vec', ARRAY['v'], 2, 1.0, ARRAY[0, 0, 0], ARRAY[8, 10, 1]);
SELECT column_name, below_lower, above_upper FROM dp_bounds_check('bl_vec');
SELECT dp_detach('bl_vec');
DROP TABLE bl_vec;
RESET ROLE;
SELECT dp_release('bl_trips');

-- readers: no access to the counts, and no trace of them anywhere they read
SET ROLE dpk_bl_reader;
SELECT pg_temp.err($$SELECT * FROM dp_bounds_check('bl_trips')$$);
SELECT count(*) AS clamp_items FROM dp_privacy_report('bl_trips')
WHERE item ~* 'clamp|outside|bound' OR value ~* 'clamped|outside the';
SELECT count(*) > 0 AS reads FROM dp_centers('bl_trips', 2);
RESET ROLE;
-- a role granted nothing cannot check either
SELECT pg_temp.err($$SET ROLE dpk_bl_reader; SELECT * FROM dp_bounds_check('bl_far')$$);
RESET ROLE;

-- dp_kmeans tells its caller, who ran the query (warnings only here)
SET client_min_messages = warning;
SELECT count(*) > 0 AS centres FROM dp_kmeans('SELECT lat, lon FROM bl_trips', 3, 1.0,
    ARRAY[40.5, -74.3], ARRAY[40.9, -73.7]);
SELECT count(*) > 0 AS centres FROM dp_kmeans('SELECT lat, lon FROM bl_trips', 3, 1.0,
    ARRAY[-74.3, 40.5], ARRAY[-73.7, 40.9]);
SELECT count(*) > 0 AS centres FROM dp_kmeans('SELECT lat, lon FROM bl_trips WHERE lat > 1', 3, 1.0,
    ARRAY[40.5, -74.3], ARRAY[40.9, -73.7]);
-- ... but not a role that calls it through a SECURITY DEFINER function
-- and could not read the rows itself
SET ROLE dpk_bl_owner;
CREATE FUNCTION bl_wrapped() RETURNS bigint LANGUAGE sql SECURITY DEFINER
SET search_path = public, pg_catalog AS $$
    SELECT count(*) FROM dp_kmeans('SELECT lat, lon FROM bl_trips', 3, 1.0,
                                   ARRAY[-74.3, 40.5], ARRAY[-73.7, 40.9])
$$;
SELECT bl_wrapped() > 0 AS owner_told;
RESET ROLE;
SET ROLE dpk_bl_reader;
SELECT bl_wrapped() > 0 AS reader_not_told;
RESET ROLE;
RESET client_min_messages;

-- from 6 columns on a row is read once into its position in the box (a
-- float8[] of 16 from the array in place): a row with a NaN is not a point,
-- a row on the faces is inside, the clamped coordinates are counted from
-- the values as they came; the same from float8 columns
CREATE FUNCTION pg_temp.row16(at int, x float8) RETURNS float8[] LANGUAGE sql AS
$$ SELECT array_agg(CASE WHEN j = at THEN x ELSE 5 END ORDER BY j) FROM generate_series(1, 16) j $$;
CREATE TABLE bl_hd AS
SELECT ARRAY(SELECT 10 + (i * j) % 70 FROM generate_series(1, 16) j)::float8[] AS v
FROM generate_series(1, 300) i;
INSERT INTO bl_hd
SELECT ARRAY(SELECT 100 * (j % 2) FROM generate_series(1, 16) j)::float8[]
UNION ALL SELECT pg_temp.row16(2, 'NaN') UNION ALL SELECT pg_temp.row16(16, 'NaN');
INSERT INTO bl_hd SELECT pg_temp.row16(2, 150) FROM generate_series(1, 4);
INSERT INTO bl_hd SELECT pg_temp.row16(16, -1) FROM generate_series(1, 3);
SELECT count(*) > 0 AS centres FROM dp_kmeans('SELECT v FROM bl_hd', 3, 1.0,
    array_fill(0::float8, ARRAY[16]), array_fill(100::float8, ARRAY[16]));
SELECT count(*) > 0 AS centres
FROM dp_kmeans('SELECT v[1] c1, v[2] c2, v[3] c3, v[4] c4, v[5] c5, v[6] c6, v[7] c7, v[8] c8, v[9] c9, v[10] c10, v[11] c11, v[12] c12, v[13] c13, v[14] c14, v[15] c15, v[16] c16
                FROM bl_hd', 3, 1.0,
    array_fill(0::float8, ARRAY[16]), array_fill(100::float8, ARRAY[16]));
DROP TABLE bl_hd;

-- Limits on k: 100 for live tables, 1000 for dp_kmeans
SELECT pg_temp.err($$SELECT dp_attach('bl_far', ARRAY['x', 'y'], 101, 1.0, ARRAY[0, 0], ARRAY[100, 100])$$);
SELECT pg_temp.err($$SELECT * FROM dp_kmeans('SELECT x, y FROM bl_far', 1001, 1.0, ARRAY[0, 0], ARRAY[100, 100])$$);
SELECT pg_temp.err($$SELECT * FROM dp_kmeans('SELECT x, y FROM bl_far', 5000, 1.0, ARRAY[0, 0], ARRAY[100, 100])$$);
SELECT dp_detach('bl_far');
SELECT pg_temp.err($$SELECT dp_attach('bl_far', ARRAY['x', 'y'], 100, 1.0, ARRAY[0, 0], ARRAY[1000, 1000])$$);
-- no more centres than the release clustered weighted points: one tight
-- blob gives a few (at most one per distinct point), not 1000 nor 100
CREATE TABLE bl_blob AS SELECT 5 + (i % 3) * 0.01 AS x, 5 + (i % 5) * 0.01 AS y
FROM generate_series(1, 2000) i;
SET client_min_messages = warning;
SELECT count(*) BETWEEN 1 AND 50 AS few, bool_and(noisy_size >= 0) AS sizes_not_negative,
       count(DISTINCT center) = count(*) AS distinct_centres
FROM dp_kmeans('SELECT x, y FROM bl_blob', 1000, 1.0, ARRAY[0, 0], ARRAY[10, 10]);
RESET client_min_messages;
SELECT dp_release('bl_far');
-- (noise lets a few dozen cells of this 1000-wide box rise above the
-- threshold at some keys: fewer than k, never k duplicates)
SELECT count(*) BETWEEN 1 AND 99 AS few, bool_and(noisy_size >= 0) AS sizes_not_negative,
       count(DISTINCT center) = count(*) AS distinct_centres, min(cluster) AS first,
       max(cluster) = count(*) AS numbered
FROM dp_centers('bl_far', 100);
-- k' within the release's support: all k' centres
SELECT count(*) FROM dp_centers('bl_far', 1);
-- a negative stored size is read as 0 (sums of noisy counts can be negative)
UPDATE dpkmeans_internal.centers SET noisy_size = -671
WHERE relid = 'bl_far'::regclass AND k = 1;
SELECT noisy_size FROM dp_centers('bl_far', 1);

SELECT dp_detach('bl_far'), dp_detach('bl_trips');
DROP TABLE bl_far, bl_trips, bl_blob;
DROP FUNCTION bl_wrapped();
REVOKE CREATE ON SCHEMA public FROM dpk_bl_owner;
DROP ROLE dpk_bl_owner;
DROP ROLE dpk_bl_reader;
