-- dpkmeans 0.7 -> 0.8
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.8'" to load this file. \quit

-- The attached box for readers: the cells of dp_histogram as rectangles
-- (dpkmeans_postgis draws them as polygons).
CREATE FUNCTION dp_box(tbl regclass)
RETURNS TABLE(lower float8[], upper float8[])
AS 'MODULE_PATHNAME', 'dp_box' LANGUAGE C STABLE;
COMMENT ON FUNCTION dp_box(regclass) IS
'reader: the box the table was attached with (public configuration), one bound per dimension';
