-- dpkmeans_postgis: geography(Point) columns (4326 unless declared), and a
-- plain geography column, whose values PostGIS does not constrain: the
-- capture itself refuses other SRIDs, Z/M points and non-points there.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dpkmeans_postgis CASCADE;
RESET client_min_messages;

CREATE TABLE visits (id serial, place geography(Point));
INSERT INTO visits (place)
SELECT ST_MakePoint(c.lon + 0.1 * cos(i), c.lat + 0.1 * sin(i))::geography
FROM (VALUES (-74.0, 40.7), (-118.2, 34.05), (-87.6, 41.9)) AS c(lon, lat), generate_series(1, 300) i;
SELECT dp_attach('visits', 'place', 3, 4.0, ST_MakeEnvelope(-125, 25, -65, 50, 3857));
SELECT dp_attach('visits', 'place', 3, 4.0, ST_MakeEnvelope(-125, 25, -65, 50, 4326), horizon => 4);
SELECT dp_point_srid('visits');
INSERT INTO visits (place) VALUES ('POINT(-74 40.7)'), (NULL);
INSERT INTO visits (place) VALUES ('POINT EMPTY');
UPDATE visits SET place = ST_Project(place, 1000, 0)::geography WHERE id % 10 = 0;
DELETE FROM visits WHERE id % 7 = 0;
SELECT dp_verify('visits');
SELECT dp_release('visits');
SELECT count(*) BETWEEN 1 AND 3 AS centres, bool_and(ST_SRID(center) = 4326) AS srid_4326,
       bool_and(ST_Distance(center, ST_ClosestPoint(
           'SRID=4326;MULTIPOINT((-74 40.7),(-118.2 34.05),(-87.6 41.9))'::geometry, center)) < 4) AS near
FROM dp_center_points('visits', 3);
SELECT (dp_release_geojson('visits'))->>'type' AS type;

-- A plain geography column: rows in other SRIDs or with Z/M reach the
-- capture, which refuses them.
CREATE TABLE anyplace (g geography);
INSERT INTO anyplace VALUES ('POINT(1 1)'), ('POINT(2 2)'), ('LINESTRING(0 0, 1 1)');
-- a row that is not a point refuses the attach, as a NaN does
SELECT dp_attach('anyplace', 'g', 2, 1.0, ST_MakeEnvelope(-180, -90, 180, 90, 4326), horizon => 4);
DELETE FROM anyplace WHERE GeometryType(g) <> 'POINT';
SELECT dp_attach('anyplace', 'g', 2, 1.0, ST_MakeEnvelope(-180, -90, 180, 90, 4326), horizon => 4);
INSERT INTO anyplace VALUES ('SRID=4269;POINT(1 1)');
INSERT INTO anyplace VALUES ('POINT Z (1 1 5)');
INSERT INTO anyplace VALUES ('POINTM (1 1 5)');
INSERT INTO anyplace VALUES ('LINESTRING(0 0, 1 1)');
INSERT INTO anyplace VALUES ('MULTIPOINT((1 1))');
INSERT INTO anyplace SELECT ST_MakePoint(i, i)::geography FROM generate_series(1, 5) i
UNION ALL SELECT 'SRID=4269;POINT(3 3)'::geography;
COPY anyplace FROM stdin;
POINT(3 3)
SRID=4269;POINT(3 3)
\.
INSERT INTO anyplace VALUES ('POINT(3 3)');
SELECT count(*) AS rows FROM anyplace;
SELECT dp_verify('anyplace');
DELETE FROM anyplace;
SELECT dp_verify('anyplace');
SELECT dp_detach('anyplace');

-- Unattached: the readers say so.
SELECT * FROM dp_center_points('anyplace', 2);
SELECT dp_detach('visits');
