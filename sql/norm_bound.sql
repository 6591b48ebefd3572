-- A norm bound (0.4): dp_attach(..., norm_bound => R) moves every row into
-- the ball of radius R around the box's middle before it is counted; the
-- lifting sums' noise is then that of the ball, not of the box.
SELECT setseed(0.25);
-- unit vectors of 64 coordinates in 4 groups, and the same directions scaled
CREATE FUNCTION nb_dir(i int) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
    WITH t AS (SELECT j, (CASE WHEN j / 16 = i % 4 THEN 0.25 ELSE 0 END)
                         + 0.01 * sin(i * (j + 1)) AS x
               FROM generate_series(0, 63) j)
    SELECT array_agg(x / (SELECT sqrt(sum(x * x)) FROM t) ORDER BY j) FROM t $$;
CREATE FUNCTION nb_scale(v float8[], s float8) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
    SELECT array_agg(x * s ORDER BY o) FROM unnest(v) WITH ORDINALITY t(x, o) $$;
SELECT round(sqrt(sum(x * x))::numeric, 12) AS unit_norm FROM unnest(nb_dir(7)) x;

CREATE TABLE nb_sph (i int, v float8[]);
CREATE TABLE nb_flat (x float8, y float8);

-- refused, and nothing is attached
SELECT dp_attach('nb_sph', ARRAY['v'], 4, 1.0, array_fill(-1::float8, ARRAY[64]),
                 array_fill(1::float8, ARRAY[64]), horizon => 16, norm_bound => 0);
SELECT dp_attach('nb_sph', ARRAY['v'], 4, 1.0, array_fill(-1::float8, ARRAY[64]),
                 array_fill(1::float8, ARRAY[64]), horizon => 16, norm_bound => -1);
SELECT dp_attach('nb_sph', ARRAY['v'], 4, 1.0, array_fill(-1::float8, ARRAY[64]),
                 array_fill(1::float8, ARRAY[64]), horizon => 16, norm_bound => 'NaN');
SELECT dp_attach('nb_sph', ARRAY['v'], 4, 1.0, array_fill(-1::float8, ARRAY[64]),
                 array_fill(1::float8, ARRAY[64]), horizon => 16, norm_bound => 'Infinity');
SELECT dp_attach('nb_flat', ARRAY['x', 'y'], 2, 1.0, ARRAY[-1, -1], ARRAY[1, 1], norm_bound => 1);
SELECT count(*) AS attached FROM dpkmeans_internal.tracked
WHERE relid::text IN ('nb_sph', 'nb_flat');

-- attached with the ball: stored, in the triggers' arguments and the report
SELECT dp_attach('nb_sph', ARRAY['v'], 4, 1.0, array_fill(-1::float8, ARRAY[64]),
                 array_fill(1::float8, ARRAY[64]), horizon => 16, norm_bound => 1);
SELECT norm_bound FROM dpkmeans_internal.tracked WHERE relid = 'nb_sph'::regclass;
SELECT DISTINCT split_part(encode(tgargs, 'escape'), '\000', 1) AS tag,
       split_part(encode(tgargs, 'escape'), '\000', 9) AS norm_bound
FROM pg_trigger WHERE tgrelid = 'nb_sph'::regclass AND NOT tgisinternal;
SELECT item, value FROM dp_privacy_report('nb_sph')
WHERE item ~ '^(norm bound|sum sensitivity|sum noise)' ORDER BY item;

-- the triggers move rows into the ball: the same directions at twice and
-- three times the radius (inside the box) are the same points, so their statements' pending
-- changes (one row each, beside the empty backfill) are byte for byte the
-- same; at half the radius, inside the ball, they are not
INSERT INTO nb_sph SELECT i, nb_scale(nb_dir(i), 2) FROM generate_series(1, 400) i;
INSERT INTO nb_sph SELECT i, nb_scale(nb_dir(i), 3) FROM generate_series(1, 400) i;
INSERT INTO nb_sph SELECT i, nb_scale(nb_dir(i), 0.5) FROM generate_series(1, 400) i;
SELECT array_agg(n ORDER BY n DESC) AS statements_per_distinct_change
FROM (SELECT count(*) AS n FROM dpkmeans_internal.delta WHERE relid = 'nb_sph'::regclass
      GROUP BY md5(payload)) t;

-- released centres lie in the ball too (each row does, so its nearest
-- point of the ball is nearer to every row)
SELECT dp_release('nb_sph');
SELECT count(*) BETWEEN 1 AND 4 AS centres, bool_and(array_length(center, 1) = 64) AS dims,
       max((SELECT sqrt(sum(x * x)) FROM unnest(center) x)) <= 1 + 1e-9 AS in_ball
FROM dp_centers('nb_sph', 4);
-- and so do the histogram's centres of cells without mass (count below 1),
-- mapped back from the ball's narrower projected box
SELECT count(*) > 0 AS empty_cells,
       max((SELECT sqrt(sum(x * x)) FROM unnest(center) x)) <= 1 AS empty_centres_in_ball
FROM dp_histogram('nb_sph') WHERE noisy_count < 1;

-- a ball around the whole box bounds nothing more: stored as no bound
CREATE TABLE nb_wide (v float8[]);
SELECT dp_attach('nb_wide', ARRAY['v'], 4, 1.0, array_fill(-1::float8, ARRAY[64]),
                 array_fill(1::float8, ARRAY[64]), horizon => 16, norm_bound => 8);
SELECT norm_bound FROM dpkmeans_internal.tracked WHERE relid = 'nb_wide'::regclass;
SELECT count(*) AS norm_bound_rows FROM dp_privacy_report('nb_wide') WHERE item ~ '^norm bound';

-- under (epsilon, delta) the sums' l2 sensitivity is the ball's
CREATE TABLE nb_gsph (v float8[]);
SELECT dp_attach('nb_gsph', ARRAY['v'], 4, 1.0, array_fill(-1::float8, ARRAY[64]),
                 array_fill(1::float8, ARRAY[64]), horizon => 16, norm_bound => 1, delta => 1e-6);
SELECT item, value FROM dp_privacy_report('nb_gsph')
WHERE item ~ '^(norm bound|sum sensitivity)' ORDER BY item;

-- one-shot: dp_kmeans(..., norm_bound => 1) on the same rows; at most k rows
-- (how many gather a cell above the noise varies with the noise), every
-- centre in the ball, and the same refusals
SELECT count(*) BETWEEN 1 AND 4 AS centres,
       max((SELECT sqrt(sum(x * x)) FROM unnest(center) x)) <= 1 + 1e-9 AS in_ball
FROM dp_kmeans('SELECT v FROM nb_sph', 4, 1.0, array_fill(-1::float8, ARRAY[64]),
               array_fill(1::float8, ARRAY[64]), norm_bound => 1);
SELECT count(*) BETWEEN 1 AND 4 AS centres FROM dp_kmeans('SELECT v FROM nb_sph', 4, 1.0, array_fill(-1::float8, ARRAY[64]),
               array_fill(1::float8, ARRAY[64]), delta => 1e-6, norm_bound => 1);
SELECT count(*) BETWEEN 1 AND 4 AS centres FROM dp_kmeans('SELECT v FROM nb_sph', 4, 1.0, array_fill(-1::float8, ARRAY[64]),
               array_fill(1::float8, ARRAY[64]), objective => 'kmedian', norm_bound => 1);
SELECT count(*) FROM dp_kmeans('SELECT v FROM nb_sph', 4, 1.0, array_fill(-1::float8, ARRAY[64]),
               array_fill(1::float8, ARRAY[64]), norm_bound => -2);
SELECT count(*) FROM dp_kmeans('SELECT x, y FROM nb_flat', 2, 1.0, ARRAY[-1, -1], ARRAY[1, 1],
               norm_bound => 1);

-- partitions: every path into a partitioned table moves rows into the ball.
-- Rows hold direction nb_dir(k) at a scale beyond the radius; the same k
-- at 2x and 3x through two paths must leave byte-identical deltas.
CREATE TABLE nb_part (i int, k int, v float8[]) PARTITION BY RANGE (i);
CREATE TABLE nb_part1 PARTITION OF nb_part FOR VALUES FROM (0) TO (1000);
CREATE TABLE nb_part2 PARTITION OF nb_part FOR VALUES FROM (1000) TO (2000);
INSERT INTO nb_part SELECT k, k, nb_scale(nb_dir(k), 2) FROM generate_series(1, 300) k;
-- the backfill: k = 1..300 at 2x
SELECT dp_attach('nb_part', ARRAY['v'], 4, 1.0, array_fill(-1::float8, ARRAY[64]),
                 array_fill(1::float8, ARRAY[64]), horizon => 16, norm_bound => 1);
-- partitions attached with their rows: k = 1..300 at 3x, then at 2x
CREATE TABLE nb_part3 (i int, k int, v float8[]);
INSERT INTO nb_part3 SELECT 2000 + k, k, nb_scale(nb_dir(k), 3) FROM generate_series(1, 300) k;
ALTER TABLE nb_part ATTACH PARTITION nb_part3 FOR VALUES FROM (2000) TO (3000);
CREATE TABLE nb_part4 (i int, k int, v float8[]);
INSERT INTO nb_part4 SELECT 3000 + k, k, nb_scale(nb_dir(k), 2) FROM generate_series(1, 300) k;
ALTER TABLE nb_part ATTACH PARTITION nb_part4 FOR VALUES FROM (3000) TO (4000);
-- rows routed through the root at 2x, written into a partition at 3x, and
-- through the root at 0.5x (inside the ball: not the same points)
INSERT INTO nb_part SELECT 1000 + k, k, nb_scale(nb_dir(k), 2) FROM generate_series(1, 300) k;
INSERT INTO nb_part2 SELECT 1000 + k, k, nb_scale(nb_dir(k), 3) FROM generate_series(1, 300) k;
INSERT INTO nb_part SELECT 1000 + k, k, nb_scale(nb_dir(k), 0.5) FROM generate_series(1, 300) k;
-- the scans (backfill, two attaches) and the two statements: two groups
SELECT array_agg(n ORDER BY n DESC) AS deltas_per_distinct_change
FROM (SELECT count(*) AS n FROM dpkmeans_internal.delta WHERE relid = 'nb_part'::regclass
      GROUP BY md5(payload)) t;
SELECT dp_verify('nb_part') AS counted_exactly;
SELECT dp_detach('nb_part');
DROP TABLE nb_part;

SELECT dp_detach('nb_sph'), dp_detach('nb_wide'), dp_detach('nb_gsph');
DROP TABLE nb_sph, nb_flat, nb_wide, nb_gsph;
DROP FUNCTION nb_dir(int), nb_scale(float8[], float8);
