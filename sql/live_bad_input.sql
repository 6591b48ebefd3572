-- Bad input to the live-table functions: each error with its SQLSTATE and
-- hint; nothing already stored is lost.
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
CREATE TABLE t (x float8, y float8, label text, v float8[], w float4[]);
INSERT INTO t SELECT i % 10, i % 7, 'a', ARRAY[i % 10, i % 7], ARRAY[i % 10, i % 7] FROM generate_series(1, 500) i;
CREATE VIEW tv AS SELECT * FROM t;
CREATE TABLE other (x float8, y float8);

-- dp_attach
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'nope'], 3, 1, ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'label'], 3, 1, ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'x'], 3, 1, ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'ctid'], 3, 1, ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', NULL], 3, 1, ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY[]::text[], 3, 1, ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y', 'x'], 3, 1, ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x'], 3, 1, ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['v', 'x'], 3, 1, ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], 0, 1, ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], 3, 0, ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], 3, 'NaN', ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], 3, 'Infinity', ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], 3, 1, ARRAY[0, 0], ARRAY[10, 0])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], 3, 1, ARRAY[0, 0, 0], ARRAY[10, 10, 10])$$);
CREATE TABLE wide (v float8[]);
SELECT expect_error($$SELECT dp_attach('wide', ARRAY['v'], 3, 1, array_fill(0::float8, ARRAY[16385]), array_fill(1::float8, ARRAY[16385]))$$);
-- a projected table whose releases would hold a 1 536-vector for each of
-- 262 144 cells (3 GB): refused, a smaller size_hint attaches
SELECT expect_error($$SELECT dp_attach('wide', ARRAY['v'], 3, 1, array_fill(0::float8, ARRAY[1536]), array_fill(1::float8, ARRAY[1536]), size_hint => 1e6, horizon => 16)$$);
SELECT expect_error($$SELECT dp_attach('wide', ARRAY['v'], 3, 1, array_fill(0::float8, ARRAY[1536]), array_fill(1::float8, ARRAY[1536]), size_hint => 3e5, horizon => 16)$$);
SELECT dp_detach('wide');
DROP TABLE wide;
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], 3, 1, NULL, ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], 3, 1, ARRAY[0, 'NaN'::float8], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], 3, 1, ARRAY[0, 0], ARRAY[10, 10], horizon => 0)$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], 3, 1, ARRAY[0, 0], ARRAY[10, 10], horizon => 2000000)$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], 3, 1, ARRAY[0, 0], ARRAY[10, 10], mode => 'append')$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], 3, 1, ARRAY[0, 0], ARRAY[10, 10], size_hint => 0)$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], 3, 1, ARRAY[0, 0], ARRAY[10, 10], size_hint => 'NaN')$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], NULL, 1, ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('tv', ARRAY['x', 'y'], 3, 1, ARRAY[0, 0], ARRAY[10, 10])$$);
SELECT expect_error($$SELECT dp_attach('no_such_table', ARRAY['x', 'y'], 3, 1, ARRAY[0, 0], ARRAY[10, 10])$$);

-- attach once, then: twice, readers with bad arguments, unattached tables
SELECT expect_error($$SELECT dp_attach('t', ARRAY['x', 'y'], 3, 1, ARRAY[0, 0], ARRAY[10, 10], horizon => 8)$$);
SELECT expect_error($$SELECT dp_attach('t', ARRAY['v'], 2, 1, ARRAY[0, 0], ARRAY[10, 10])$$);
-- before the first release readers refuse (they never make one)
SELECT expect_error($$SELECT count(*) FROM dp_cost_curve('t')$$);
SELECT expect_error($$SELECT count(*) FROM dp_centers('t', 0)$$);
SELECT expect_error($$SELECT count(*) FROM dp_centers('t', 4)$$);
SELECT expect_error($$SELECT count(*) FROM dp_centers('t', NULL)$$);
SELECT expect_error($$SELECT count(*) FROM dp_histogram('t', -1)$$);
SELECT expect_error($$SELECT count(*) FROM dp_histogram('t', 99)$$);
SELECT expect_error($$SELECT count(*) FROM dp_centers('other', 2)$$);
SELECT expect_error($$SELECT count(*) FROM dp_histogram('other')$$);
SELECT expect_error($$SELECT count(*) FROM dp_cost_curve('other')$$);
SELECT expect_error($$SELECT count(*) FROM dp_privacy_report('other')$$);
-- dp_release never runs in a transaction block or subtransaction (so not
-- inside expect_error); at top level its errors come from its worker
SELECT expect_error($$SELECT dp_release('t')$$);
\pset tuples_only off
SELECT dp_release('other');
SELECT dp_release(NULL);
\pset tuples_only on
SELECT expect_error($$SELECT dp_verify('other')$$);
SELECT expect_error($$SELECT dp_detach('other')$$);
SELECT expect_error($$SELECT count(*) FROM dp_centers(NULL, 2)$$);
SELECT expect_error($$SELECT count(*) FROM dp_cost_curve(NULL)$$);
SELECT expect_error($$SELECT dp_verify(NULL)$$);
SELECT expect_error($$SELECT dp_detach(NULL)$$);
SELECT expect_error($$SELECT dp_grant_reader(NULL, current_user::regrole)$$);
SELECT expect_error($$SELECT dp_grant_reader('t', NULL)$$);
SELECT expect_error($$SELECT dp_grant_reader('other', current_user::regrole)$$);
SELECT expect_error($$SELECT dp_revoke_reader('t', 12345::oid::regrole)$$);
SELECT expect_error($$SELECT dp_confirm_history(NULL)$$);
SELECT expect_error($$SELECT dp_confirm_history('other')$$);
SELECT expect_error($$SELECT count(*) FROM dp_centers(12345::oid::regclass, 2)$$);
-- a write with a NaN is refused and loses nothing stored
SELECT expect_error($$INSERT INTO t (x, y) VALUES ('NaN', 1)$$);
SELECT expect_error($$UPDATE t SET x = 'NaN' WHERE x = 1$$);
-- the state survived every error above
SELECT dp_verify('t');
SELECT dp_release('t');
SELECT count(*) FROM dp_centers('t', 3);
SELECT dp_detach('t');
DROP VIEW tv;
DROP TABLE t, other;
DROP FUNCTION expect_error(text);
