-- Every bad argument gets a specific error: expect_error shows its SQLSTATE,
-- message, detail and hint (a statement that does not fail prints 'no error').
CREATE FUNCTION expect_error(stmt text) RETURNS text LANGUAGE plpgsql AS $f$
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
\pset tuples_only on
\pset format unaligned
CREATE TABLE pts (x float8, y float8, label text, v float8[]);
INSERT INTO pts VALUES (1, 2, 'a', ARRAY[1, 2]);

-- dp_grid_size
SELECT expect_error($$SELECT * FROM dp_grid_size(100, 0, 2, 2)$$);
SELECT expect_error($$SELECT * FROM dp_grid_size(100, -1, 2, 2)$$);
SELECT expect_error($$SELECT * FROM dp_grid_size(100, 'NaN', 2, 2)$$);
SELECT expect_error($$SELECT * FROM dp_grid_size(100, 'Infinity', 2, 2)$$);
SELECT expect_error($$SELECT * FROM dp_grid_size(100, 1, 0, 2)$$);
SELECT expect_error($$SELECT * FROM dp_grid_size(100, 1, 2, 0)$$);
SELECT expect_error($$SELECT * FROM dp_grid_size(-1, 1, 2, 2)$$);
SELECT expect_error($$SELECT * FROM dp_grid_size('NaN', 1, 2, 2)$$);
SELECT expect_error($$SELECT * FROM dp_grid_size(100, 1, 2, 2, 'hexagons')$$);
SELECT expect_error($$SELECT * FROM dp_grid_size(1e300, 1, 2, 2)$$);
SELECT expect_error($$SELECT * FROM dp_grid_size(1e300, 1e300, 2, 10)$$);
SELECT expect_error($$SELECT * FROM dp_grid_size(1e100, 1e100, 2, 1100)$$);
SELECT expect_error($$SELECT * FROM dp_grid_size(NULL, 1, 2, 2)$$);

-- dp_kmeans: budget, k, n
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 0, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, -0.5, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 'NaN', ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 'Infinity', ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, NULL, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 0, 1, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', NULL, 1, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 1, ARRAY[0, 0], ARRAY[1, 1], n => -1)$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 1, ARRAY[0, 0], ARRAY[1, 1], n => 'NaN')$$);
SELECT expect_error($$SELECT * FROM dp_kmeans(NULL, 2, 1, ARRAY[0, 0], ARRAY[1, 1])$$);

-- dp_kmeans: the box
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 1, NULL, ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 1, ARRAY[0, 0], NULL)$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 1, ARRAY[0, NULL], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 1, ARRAY[0, 'NaN'::float8], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 1, ARRAY[0, 0], ARRAY[1, 'Infinity'::float8])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 1, ARRAY[0, 0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 1, ARRAY[0, 1], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 1, ARRAY[0, 2], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 1, ARRAY[]::float8[], ARRAY[]::float8[])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts', 2, 1, ARRAY[-1e308, 0], ARRAY[1e308, 1])$$);
-- more dimensions than any function accepts (dp_kmeans is every role's: its
-- memory grows with d)
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT v FROM pts WHERE false', 2, 1, array_fill(0::float8, ARRAY[16385]), array_fill(1::float8, ARRAY[16385]))$$);

-- dp_kmeans: the query
SELECT expect_error($$SELECT * FROM dp_kmeans('DELETE FROM pts RETURNING x, y', 2, 1, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('WITH d AS (DELETE FROM pts RETURNING *) SELECT x, y FROM d', 2, 1, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM pts FOR UPDATE', 2, 1, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT 1; SELECT 2', 2, 1, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('CREATE TABLE t2 (a int)', 2, 1, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELEC x FROM pts', 2, 1, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, label FROM pts', 2, 1, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y, x FROM pts', 2, 1, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x FROM pts', 2, 1, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT v, v FROM pts', 2, 1, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT FROM pts', 2, 1, ARRAY[0, 0], ARRAY[1, 1])$$);
SELECT expect_error($$SELECT * FROM dp_kmeans('SELECT x, y FROM no_such_table', 2, 1, ARRAY[0, 0], ARRAY[1, 1])$$);

-- nothing was changed by the refused statements
SELECT count(*) FROM pts;
DROP TABLE pts;
DROP FUNCTION expect_error(text);
