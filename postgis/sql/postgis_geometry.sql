-- dpkmeans_postgis: geometry(Point) columns in a projected SRID (3857) and
-- in longitude/latitude (4326): attach with a geometry box, every write path
-- refusing what is not a point, the readers as geometries and GeoJSON.
SET client_min_messages = warning;
CREATE EXTENSION dpkmeans_postgis CASCADE;
RESET client_min_messages;

-- Three tight clusters of 400 points each around (2e5, 2e5), (8e5, 3e5), (5e5, 8e5).
CREATE TABLE pickups (id serial PRIMARY KEY, at geometry(Point, 3857));
INSERT INTO pickups (at)
SELECT ST_SetSRID(ST_MakePoint(c.x + 5000 * cos(i), c.y + 5000 * sin(i)), 3857)
FROM (VALUES (2e5, 2e5), (8e5, 3e5), (5e5, 8e5)) AS c(x, y), generate_series(1, 400) i;

-- The box must be in the column's SRID, non-empty; the column a point column with an SRID.
SELECT dp_attach('pickups', 'at', 3, 4.0, ST_MakeEnvelope(0, 0, 1e6, 1e6, 4326));
SELECT dp_attach('pickups', 'at', 3, 4.0, ST_MakeEnvelope(0, 0, 1e6, 1e6));
SELECT dp_attach('pickups', 'at', 3, 4.0, 'POINT EMPTY'::geometry);
SELECT dp_attach('pickups', 'id', 3, 4.0, ST_MakeEnvelope(0, 0, 1e6, 1e6, 3857));
CREATE TABLE anysrid (g geometry);
SELECT dp_attach('anysrid', ARRAY['g'], 3, 1.0, ARRAY[0, 0]::float8[], ARRAY[1, 1]::float8[]);
CREATE TABLE areas (g geometry(Polygon, 3857));
SELECT dp_attach('areas', ARRAY['g'], 3, 1.0, ARRAY[0, 0]::float8[], ARRAY[1, 1]::float8[]);
CREATE TABLE heights (g geometry(PointZ, 3857));
SELECT dp_attach('heights', ARRAY['g'], 3, 1.0, ARRAY[0, 0]::float8[], ARRAY[1, 1]::float8[]);
CREATE TABLE twice (g geometry(Point, 3857), h geometry(Point, 3857));
SELECT dp_attach('twice', ARRAY['g', 'h'], 3, 1.0, ARRAY[0, 0, 0, 0]::float8[], ARRAY[1, 1, 1, 1]::float8[]);
SELECT dp_attach('twice', ARRAY['g'], 3, 1.0, ARRAY[0, 0, 0]::float8[], ARRAY[1, 1, 1]::float8[]);

SELECT dp_attach('pickups', 'at', 3, 4.0, ST_MakeEnvelope(0, 0, 1e6, 1e6, 3857), horizon => 8);
SELECT dp_point_srid('pickups');
SELECT lower, upper FROM dp_box('pickups');

-- Writes: rows, statements, COPY; what is not a point is refused in the
-- writer's own statement and nothing already counted is lost.
INSERT INTO pickups (at) VALUES (ST_SetSRID(ST_MakePoint(2e5, 2e5), 3857));
INSERT INTO pickups (at) VALUES ('SRID=3857;POINT EMPTY');
INSERT INTO pickups (at) VALUES (ST_SetSRID(ST_MakePoint('NaN', 1), 3857));
INSERT INTO pickups (at) VALUES (ST_SetSRID(ST_MakePoint(1, 2), 4326));
INSERT INTO pickups (at) VALUES ('SRID=3857;POINT(1 2)'), ('SRID=3857;POINT EMPTY');
COPY pickups (at) FROM stdin;
SRID=3857;POINT(800000 300000)
SRID=3857;POINT EMPTY
\.
COPY pickups (at) FROM stdin;
SRID=3857;POINT(800000 300000)
SRID=3857;POINT(500000 800000)
\N
\.
-- outside the box: clamped, not refused
INSERT INTO pickups (at) VALUES (ST_SetSRID(ST_MakePoint(-5e6, 2e6), 3857));
SELECT column_name, below_lower, above_upper FROM dp_bounds_check('pickups');
UPDATE pickups SET at = ST_Translate(at, 10, 10) WHERE id % 50 = 0;
DELETE FROM pickups WHERE id % 97 = 0;
UPDATE pickups SET at = 'SRID=3857;POINT EMPTY' WHERE id = 1;
SELECT count(*) AS rows, count(at) AS points FROM pickups;
SELECT dp_verify('pickups');

SELECT dp_release('pickups');

-- Centres: points in the column's SRID, each near a true cluster centre.
SELECT count(*) BETWEEN 1 AND 3 AS some_centres,
       bool_and(ST_SRID(center) = 3857) AS srid_3857,
       bool_and(GeometryType(center) = 'POINT') AS points,
       bool_and(noisy_size >= 0) AS sizes
FROM dp_center_points('pickups', 3);
SELECT count(*) = (SELECT count(*) FROM dp_centers('pickups', 3)) AS one_point_per_centre,
       bool_and(ST_X(p.center) = c.center[1] AND ST_Y(p.center) = c.center[2]
                AND p.noisy_size = c.noisy_size) AS same_as_dp_centers
FROM dp_center_points('pickups', 3) p JOIN dp_centers('pickups', 3) c USING (cluster);
SELECT bool_and(ST_Distance(center, ST_ClosestPoint(
           'SRID=3857;MULTIPOINT((200000 200000),(800000 300000),(500000 800000))'::geometry, center)) < 1e5)
       AS near_true_centres
FROM dp_center_points('pickups', 3);

-- Cells: polygons that tile the box, with dp_histogram's noisy counts.
-- (at the level the release chose from its noisy counts)
SELECT count(DISTINCT level) = 1 AS one_level, count(*) = 4 ^ min(level) AS all_cells,
       bool_and(ST_SRID(cell_polygon) = 3857) AS srid_3857,
       round(sum(ST_Area(cell_polygon))::numeric) AS area,
       ST_Equals(ST_Union(cell_polygon), ST_MakeEnvelope(0, 0, 1e6, 1e6, 3857)) AS tiles_box
FROM dp_cell_polygons('pickups');
SELECT bool_and(ST_Contains(p.cell_polygon, ST_SetSRID(ST_MakePoint(h.center[1], h.center[2]), 3857))
                AND p.noisy_count = h.noisy_count) AS cells_match_histogram
FROM dp_cell_polygons('pickups', 2) p JOIN dp_histogram('pickups', 2) h USING (cell);
SELECT ST_AsText(cell_polygon) FROM dp_cell_polygons('pickups', 1) WHERE cell = ARRAY[1, 0];

-- GeoJSON: one FeatureCollection, centres then the cells above min_count,
-- with the SRID named.
SELECT g->>'type' AS type, g->'crs'->'properties'->>'name' AS crs,
       (SELECT count(*) FROM jsonb_array_elements(g->'features') f
         WHERE f->'properties'->>'kind' = 'center') = (SELECT count(*) FROM dp_centers('pickups', 3)) AS centres,
       (SELECT count(*) FROM jsonb_array_elements(g->'features') f
         WHERE f->'properties'->>'kind' = 'cell') =
       (SELECT count(*) FROM dp_histogram('pickups', 2) WHERE noisy_count > 0) AS cells,
       (SELECT bool_and(f->'geometry'->>'type' = CASE f->'properties'->>'kind'
                                                   WHEN 'center' THEN 'Point' ELSE 'Polygon' END)
          FROM jsonb_array_elements(g->'features') f) AS geometry_types
FROM dp_release_geojson('pickups', level => 2) g;
SELECT ST_Equals(ST_GeomFromGeoJSON(f->'geometry'), p.cell_polygon) AS geojson_cell_is_polygon
FROM dp_release_geojson('pickups', level => 1, min_count => -1e9) g,
     jsonb_array_elements(g->'features') f, dp_cell_polygons('pickups', 1) p
WHERE f->'properties'->>'kind' = 'cell' AND f->'properties'->'cell' = to_jsonb(p.cell)
ORDER BY p.cell LIMIT 1;

-- Transformed for a web map: longitude/latitude, no crs member.
SELECT g ? 'crs' AS has_crs,
       (SELECT bool_and(ST_Distance(ST_SetSRID(ST_GeomFromGeoJSON(f->'geometry'), 4326),
                                    ST_Transform(p.center, 4326)) < 1e-9)
          FROM jsonb_array_elements(g->'features') f JOIN dp_center_points('pickups', 3) p
            ON (f->'properties'->>'cluster')::int = p.cluster) AS centres_in_4326
FROM dp_release_geojson('pickups', to_srid => 4326) g;

-- The readers look the SRID up once per call, not once per row (each lookup
-- reads dp_box and dp_tables: a GeoJSON of a few hundred cells took 0.2-1 s).
SET track_functions = 'pl';
BEGIN;
SELECT count(cell_polygon) > 1 AS cells FROM dp_cell_polygons('pickups', 2);
SELECT count(center) > 0 AS centres FROM dp_center_points('pickups', 3);
SELECT calls AS srid_lookups FROM pg_stat_xact_user_functions WHERE funcname = 'dp_point_srid';
COMMIT;
RESET track_functions;
-- dp_box returns one row, which the planner knows (not SETOF's 1000: its
-- join with dp_histogram was costed at a million rows and JIT-compiled).
SELECT prorows AS dp_box_rows FROM pg_proc WHERE oid = 'dp_box(regclass)'::regprocedure;

-- Readers: nothing for a role that was granted nothing, the same as dp_centers.
CREATE ROLE geo_analyst;
GRANT USAGE ON SCHEMA public TO geo_analyst;
SET ROLE geo_analyst;
SELECT * FROM dp_center_points('pickups', 3);
SELECT * FROM dp_cell_polygons('pickups');
SELECT dp_release_geojson('pickups');
RESET ROLE;
SELECT dp_grant_reader('pickups', 'geo_analyst');
SET ROLE geo_analyst;
SELECT count(*) > 0 AS reads_centres FROM dp_center_points('pickups', 3);
SELECT count(*) > 0 AS reads_cells FROM dp_cell_polygons('pickups');
SELECT dp_release_geojson('pickups')->>'type' AS reads_geojson;
RESET ROLE;

-- Longitude/latitude (4326), attached with a box2d (taken in the column's SRID).
CREATE TABLE checkins (g geometry(Point, 4326));
INSERT INTO checkins
SELECT ST_SetSRID(ST_MakePoint(c.lon + 0.05 * cos(i), c.lat + 0.05 * sin(i)), 4326)
FROM (VALUES (2.35, 48.85), (13.4, 52.5), (-3.7, 40.4)) AS c(lon, lat), generate_series(1, 300) i;
SELECT dp_attach('checkins', 'g', 3, 4.0, 'BOX(-10 35,20 60)'::box2d, horizon => 4);
INSERT INTO checkins VALUES (ST_SetSRID(ST_MakePoint(2.3, 48.9), 4326));
INSERT INTO checkins VALUES ('SRID=4326;POINT EMPTY');
SELECT dp_verify('checkins');
SELECT dp_release('checkins');
SELECT bool_and(ST_SRID(center) = 4326) AS srid_4326,
       bool_and(ST_Distance(center, ST_ClosestPoint(
           'SRID=4326;MULTIPOINT((2.35 48.85),(13.4 52.5),(-3.7 40.4))'::geometry, center)) < 3) AS near
FROM dp_center_points('checkins', 3);
SELECT g ? 'crs' AS has_crs, g->>'type' AS type FROM dp_release_geojson('checkins') g;

-- The one-shot k-means of a query's points: rows that are not points in
-- the box's SRID are skipped, silently.
SELECT count(*) BETWEEN 1 AND 3 AS centres,
       bool_and(ST_SRID(center) = 3857) AS srid,
       bool_and(ST_Distance(center, ST_ClosestPoint(
           'SRID=3857;MULTIPOINT((200000 200000),(800000 300000),(500000 800000))'::geometry, center)) < 1e5) AS near
FROM dp_kmeans($$SELECT at FROM pickups
               UNION ALL SELECT 'SRID=3857;LINESTRING(0 0, 1 1)'::geometry
               UNION ALL SELECT 'SRID=3857;POINT EMPTY'::geometry
               UNION ALL SELECT 'SRID=4326;POINT(1 1)'::geometry$$,
               3, 4.0, ST_MakeEnvelope(0, 0, 1e6, 1e6, 3857), n => 1200);
SELECT * FROM dp_kmeans('SELECT at FROM pickups', 3, 1.0, ST_MakeEnvelope(0, 0, 1e6, 1e6));

SELECT dp_detach('pickups');
SELECT dp_detach('checkins');
