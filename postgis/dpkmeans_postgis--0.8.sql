-- dpkmeans_postgis 0.8: PostGIS point columns for dpkmeans.
--
-- dpkmeans itself counts a geometry(Point, srid) / geography(Point) column
-- as two coordinates (its X and Y, in the column's SRID).  This companion
-- adds what needs PostGIS's functions: a box given as a geometry, the
-- one-shot k-means of a query returning points, and the readers' results
-- as geometries (centres as points, histogram cells as polygons) and as a
-- GeoJSON FeatureCollection.  Every reader here calls dpkmeans's own
-- readers, so it returns only released (noisy) values, to those who may
-- read them, and runs with the caller's rights.
\echo Use "CREATE EXTENSION dpkmeans_postgis CASCADE" to load this file. \quit

-- The SRID a PostGIS column type declares (geography: 4326 unless it says).
CREATE FUNCTION dpk_postgis_column_srid(tbl regclass, col text)
RETURNS int LANGUAGE plpgsql STABLE AS $$
DECLARE
    typ text;
    tm int;
    s int;
BEGIN
    SELECT pg_catalog.format_type(COALESCE(NULLIF(t.typbasetype, 0), a.atttypid), NULL),
           CASE WHEN t.typbasetype <> 0 AND a.atttypmod < 0 THEN t.typtypmod ELSE a.atttypmod END
      INTO typ, tm
      FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
     WHERE a.attrelid = tbl AND a.attname = col AND NOT a.attisdropped;
    IF typ IS NULL THEN
        RAISE EXCEPTION 'column "%" of table % does not exist', col, tbl
            USING ERRCODE = 'undefined_column';
    END IF;
    IF pg_catalog.split_part(typ, '.', -1) NOT IN ('geometry', 'geography') THEN
        RAISE EXCEPTION 'column "%" of table % has type %, not geometry or geography', col, tbl, typ
            USING ERRCODE = 'datatype_mismatch',
                  HINT = 'These functions are for tables tracking one PostGIS point column; use dpkmeans''s own for numeric columns.';
    END IF;
    s := CASE WHEN tm < 0 THEN 0 ELSE postgis_typmod_srid(tm) END;
    IF s = 0 AND pg_catalog.split_part(typ, '.', -1) = 'geography' THEN
        s := 4326;
    END IF;
    IF s = 0 THEN
        RAISE EXCEPTION 'column "%" of table % has type %, which fixes no SRID', col, tbl, typ
            USING ERRCODE = 'datatype_mismatch',
                  HINT = 'Declare the column with its SRID, e.g. geometry(Point, 4326).';
    END IF;
    RETURN s;
END $$;
COMMENT ON FUNCTION dpk_postgis_column_srid(regclass, text) IS
'the SRID a geometry/geography column type declares (geography: 4326 unless it says); an error for other columns';

-- The tracked point column of an attached table and its SRID, for a caller
-- who may read the table (dp_box raises the readers' own errors first).
CREATE FUNCTION dp_point_srid(tbl regclass)
RETURNS int LANGUAGE plpgsql STABLE AS $$
DECLARE
    cols text[];
BEGIN
    PERFORM dp_box(tbl);
    SELECT t.columns INTO cols FROM dp_tables() t WHERE t.tbl = dp_point_srid.tbl;
    IF cols IS NULL OR pg_catalog.cardinality(cols) <> 1 THEN
        RAISE EXCEPTION 'table % does not track one PostGIS point column', tbl
            USING ERRCODE = 'datatype_mismatch',
                  HINT = 'Attach the table with its point column: dp_attach(tbl, column, k, epsilon, box).';
    END IF;
    RETURN dpk_postgis_column_srid(tbl, cols[1]);
END $$;
COMMENT ON FUNCTION dp_point_srid(regclass) IS
'reader: the SRID of the point column an attached table tracks (the SRID of every geometry its readers return)';

-- lower/upper of a box geometry in an expected SRID.
CREATE FUNCTION dpk_postgis_box(box geometry, srid int, OUT lower float8[], OUT upper float8[])
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF box IS NULL THEN
        RAISE EXCEPTION 'box must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Declare the data box, e.g. ST_MakeEnvelope(xmin, ymin, xmax, ymax, srid); it must not come from the data.';
    END IF;
    IF ST_IsEmpty(box) THEN
        RAISE EXCEPTION 'box must not be empty'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Give an envelope, e.g. ST_MakeEnvelope(xmin, ymin, xmax, ymax, srid).';
    END IF;
    IF ST_SRID(box) <> srid THEN
        RAISE EXCEPTION 'the box has SRID %, the points SRID %', ST_SRID(box), srid
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = pg_catalog.format('Give the box in the points'' SRID, e.g. ST_MakeEnvelope(xmin, ymin, xmax, ymax, %s), or ST_Transform(box, %s).', srid, srid);
    END IF;
    lower := ARRAY[ST_XMin(box), ST_YMin(box)];
    upper := ARRAY[ST_XMax(box), ST_YMax(box)];
END $$;
COMMENT ON FUNCTION dpk_postgis_box(geometry, int) IS
'lower and upper of a box geometry after checking its SRID against the points''';

-- Attach a table's point column with the box as a geometry (an envelope in
-- the column's SRID): dpkmeans's dp_attach on that column.
CREATE FUNCTION dp_attach(tbl regclass, column_name text, k int, epsilon float8, box geometry,
                          horizon int DEFAULT 1024, mode text DEFAULT 'insert_delete',
                          size_hint float8 DEFAULT NULL, delta float8 DEFAULT 0,
                          capture text DEFAULT 'trigger', fresh_budget boolean DEFAULT false)
RETURNS void LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    b record;
BEGIN
    SELECT * INTO b FROM dpk_postgis_box(box, dpk_postgis_column_srid(tbl, column_name));
    PERFORM dp_attach(tbl, ARRAY[column_name], k, epsilon, b.lower, b.upper, horizon, mode,
                      size_hint, delta, capture, NULL::float8, fresh_budget);
END $$;
COMMENT ON FUNCTION dp_attach(regclass, text, int, float8, geometry, int, text, float8, float8, text, boolean) IS
'table owner: dp_attach of one geometry/geography point column, the box an envelope in the column''s SRID';

-- The same with a box2d, which carries no SRID: taken in the column's.
CREATE FUNCTION dp_attach(tbl regclass, column_name text, k int, epsilon float8, box box2d,
                          horizon int DEFAULT 1024, mode text DEFAULT 'insert_delete',
                          size_hint float8 DEFAULT NULL, delta float8 DEFAULT 0,
                          capture text DEFAULT 'trigger', fresh_budget boolean DEFAULT false)
RETURNS void LANGUAGE sql VOLATILE AS $$
    SELECT dp_attach(tbl, column_name, k, epsilon,
                     ST_SetSRID(box::geometry, dpk_postgis_column_srid(tbl, column_name)),
                     horizon, mode, size_hint, delta, capture, fresh_budget);
$$;
COMMENT ON FUNCTION dp_attach(regclass, text, int, float8, box2d, int, text, float8, float8, text, boolean) IS
'table owner: dp_attach of one geometry/geography point column, the box a box2d in the column''s units';

-- One-shot k-means of a query's points: the first column of `query` is a
-- geometry or geography; rows that are not a non-empty 2-D point in the
-- box's SRID are skipped like NULL (no error depends on row values).
CREATE FUNCTION dp_kmeans(query text, k int, epsilon float8, box geometry,
                          n float8 DEFAULT NULL, delta float8 DEFAULT 0,
                          objective text DEFAULT 'kmeans')
RETURNS TABLE(cluster int, center geometry, noisy_size float8)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    b record;
    s int;
    q text;
BEGIN
    IF query IS NULL OR box IS NULL THEN
        RAISE EXCEPTION 'query and box must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    s := ST_SRID(box);
    IF s = 0 THEN
        RAISE EXCEPTION 'the box has no SRID'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Give the box in the points'' SRID, e.g. ST_MakeEnvelope(xmin, ymin, xmax, ymax, 4326); points in other SRIDs are skipped.';
    END IF;
    SELECT * INTO b FROM dpk_postgis_box(box, s);
    q := pg_catalog.format(
        'SELECT CASE WHEN ok THEN ST_X(g) END AS x, CASE WHEN ok THEN ST_Y(g) END AS y '
        'FROM (SELECT g, (ST_SRID(g) = %s AND GeometryType(g) = ''POINT'' AND NOT ST_IsEmpty(g) '
        'AND ST_NDims(g) = 2) AS ok FROM (SELECT q.p::geometry AS g FROM (%s) AS q(p)) AS r) AS s',
        s, query);
    RETURN QUERY
    SELECT o.cluster, ST_SetSRID(ST_MakePoint(o.center[1], o.center[2]), s), o.noisy_size
      FROM dp_kmeans(q, k, epsilon, b.lower, b.upper, n, delta, objective) o;
END $$;
COMMENT ON FUNCTION dp_kmeans(text, int, float8, geometry, float8, float8, text) IS
'caller''s rights: one-shot epsilon-DP k-means of the points of a query''s first column, centres as points in the box''s SRID';

-- A release's centres as points in the column's SRID.
CREATE FUNCTION dp_center_points(tbl regclass, k int, objective text DEFAULT 'kmeans',
                                 release int DEFAULT NULL)
RETURNS TABLE(cluster int, center geometry, noisy_size float8, release int,
              released_at timestamptz)
LANGUAGE sql STABLE AS $$
    SELECT c.cluster, ST_SetSRID(ST_MakePoint(c.center[1], c.center[2]), dp_point_srid(tbl)),
           c.noisy_size, c.release, c.released_at
      FROM dp_centers(tbl, k, objective, release) c;
$$;
COMMENT ON FUNCTION dp_center_points(regclass, int, text, int) IS
'reader: dp_centers of a point column as points in its SRID';

-- A release's noisy histogram cells as rectangles in the column's SRID.
CREATE FUNCTION dp_cell_polygons(tbl regclass, level int DEFAULT NULL, release int DEFAULT NULL)
RETURNS TABLE(level int, cell int[], cell_polygon geometry, noisy_count float8, release int,
              released_at timestamptz)
LANGUAGE sql STABLE AS $$
    SELECT h.level, h.cell,
           ST_MakeEnvelope(b.lower[1] + (b.upper[1] - b.lower[1]) * h.cell[1] / (2 ^ h.level),
                           b.lower[2] + (b.upper[2] - b.lower[2]) * h.cell[2] / (2 ^ h.level),
                           b.lower[1] + (b.upper[1] - b.lower[1]) * (h.cell[1] + 1) / (2 ^ h.level),
                           b.lower[2] + (b.upper[2] - b.lower[2]) * (h.cell[2] + 1) / (2 ^ h.level),
                           s.srid),
           h.noisy_count, h.release, h.released_at
      FROM dp_box(tbl) b, (SELECT dp_point_srid(tbl) AS srid) s,
           dp_histogram(tbl, level, release) h;
$$;
COMMENT ON FUNCTION dp_cell_polygons(regclass, int, int) IS
'reader: dp_histogram of a point column, each cell a polygon in its SRID with its noisy count';

-- A release as one GeoJSON FeatureCollection: its centres (Point features)
-- and the cells of its histogram whose noisy count is above min_count
-- (Polygon features), in the column's SRID or transformed to to_srid (e.g.
-- 4326, which RFC 7946 and web maps expect); a "crs" member names the SRID
-- when it is not 4326.
CREATE FUNCTION dp_release_geojson(tbl regclass, k int DEFAULT NULL, level int DEFAULT NULL,
                                   release int DEFAULT NULL, min_count float8 DEFAULT 0,
                                   to_srid int DEFAULT NULL)
RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
    s int := dp_point_srid(tbl);
    out_srid int := COALESCE(to_srid, s);
    kk int := k;
    fc jsonb;
BEGIN
    IF kk IS NULL THEN
        SELECT t.k INTO kk FROM dp_tables() t WHERE t.tbl = dp_release_geojson.tbl;
    END IF;
    SELECT pg_catalog.jsonb_build_object(
               'type', 'FeatureCollection',
               'features', COALESCE(pg_catalog.jsonb_agg(f.feature ORDER BY f.ord), '[]'::jsonb))
      INTO fc
      FROM (SELECT 0 AS kind, c.cluster AS ord,
                   pg_catalog.jsonb_build_object(
                       'type', 'Feature',
                       'geometry', ST_AsGeoJSON(CASE WHEN out_srid = s THEN c.center
                                                     ELSE ST_Transform(c.center, out_srid) END)::jsonb,
                       'properties', pg_catalog.jsonb_build_object(
                           'kind', 'center', 'cluster', c.cluster, 'noisy_size', c.noisy_size,
                           'release', c.release)) AS feature
              FROM dp_center_points(tbl, kk, 'kmeans', release) c
            UNION ALL
            SELECT 1, 1000000 + row_number() OVER (ORDER BY h.cell),
                   pg_catalog.jsonb_build_object(
                       'type', 'Feature',
                       'geometry', ST_AsGeoJSON(CASE WHEN out_srid = s THEN h.cell_polygon
                                                     ELSE ST_Transform(h.cell_polygon, out_srid) END)::jsonb,
                       'properties', pg_catalog.jsonb_build_object(
                           'kind', 'cell', 'level', h.level, 'cell', pg_catalog.to_jsonb(h.cell),
                           'noisy_count', h.noisy_count, 'release', h.release))
              FROM dp_cell_polygons(tbl, level, release) h
             WHERE h.noisy_count > min_count) f;
    IF out_srid <> 4326 THEN
        fc := fc || pg_catalog.jsonb_build_object(
            'crs', pg_catalog.jsonb_build_object(
                'type', 'name',
                'properties', pg_catalog.jsonb_build_object('name', 'EPSG:' || out_srid)));
    END IF;
    RETURN fc;
END $$;
COMMENT ON FUNCTION dp_release_geojson(regclass, int, int, int, float8, int) IS
'reader: a release as a GeoJSON FeatureCollection: centres (points) and cells above min_count (polygons with noisy counts), in the column''s SRID or to_srid';
