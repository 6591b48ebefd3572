-- Every SECURITY DEFINER function of the extension pins its search_path.
SELECT p.oid::regprocedure AS unpinned
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dpkmeans'
WHERE p.prosecdef AND NOT coalesce(p.proconfig @> ARRAY['search_path=pg_catalog, pg_temp'], false);
SELECT count(*) AS security_definer_functions
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dpkmeans'
WHERE p.prosecdef;
-- No internal relation is readable by PUBLIC.
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'dpkmeans_internal' AND has_table_privilege('public', c.oid, 'SELECT');

-- The owner/analyst model: an analyst the owner granted reading of a table
-- (dp_grant_reader) reads its releases, never the table, the state or the
-- key; a role granted nothing reads nothing, even with EXECUTE on the readers.
CREATE ROLE dpk_owner;
CREATE ROLE dpk_analyst;
GRANT CREATE ON SCHEMA public TO dpk_owner;
GRANT EXECUTE ON FUNCTION dp_centers(regclass, int, text, int), dp_histogram(regclass, int, int),
    dp_cost_curve(regclass, text, int), dp_privacy_report(regclass) TO dpk_analyst;
REVOKE EXECUTE ON FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8, boolean),
    dp_detach(regclass), dp_release(regclass), dp_verify(regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8, boolean),
    dp_detach(regclass), dp_release(regclass), dp_verify(regclass) TO dpk_owner, dpk_analyst;

SET ROLE dpk_owner;
CREATE TABLE secret (x float8, y float8);
INSERT INTO secret SELECT i % 100, i % 37 FROM generate_series(1, 5000) i;
SELECT dp_attach('secret', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
SELECT dp_release('secret');
RESET ROLE;

SET ROLE dpk_analyst;
-- not granted yet: denied
SELECT count(*) FROM dp_centers('secret', 3);
RESET ROLE;
SET ROLE dpk_owner;
SELECT dp_grant_reader('secret', 'dpk_analyst');
RESET ROLE;

SET ROLE dpk_analyst;
-- readers work
SELECT count(*) FROM dp_centers('secret', 3);
SELECT count(*) > 0 AS has_cells FROM dp_histogram('secret');
SELECT count(*) FROM dp_cost_curve('secret');
SELECT count(*) > 0 AS has_items FROM dp_privacy_report('secret');
-- the other roles granted reading are the owner's to see (as in dp_tables)
SELECT value FROM dp_privacy_report('secret') WHERE item = 'who reads releases';
SELECT readers FROM dp_tables() WHERE tbl = 'secret'::regclass;
-- the table, the state, the key: denied
SELECT count(*) FROM secret;
SELECT count(*) FROM dpkmeans_internal.tracked;
SELECT count(*) FROM dpkmeans_internal.keys;
SELECT count(*) FROM dpkmeans_internal.delta;
SELECT count(*) FROM dpkmeans_internal.centers;
-- every relation of the internal schema, one by one (schema USAGE granted
-- for the test, so the table privileges themselves are what denies)
RESET ROLE;
GRANT USAGE ON SCHEMA dpkmeans_internal TO dpk_analyst;
SET ROLE dpk_analyst;
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT c.oid::regclass AS rel FROM pg_class c
             JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'dpkmeans_internal' AND c.relkind IN ('r', 'S')
             ORDER BY c.relname LOOP
        BEGIN
            EXECUTE format('SELECT 1 FROM %s LIMIT 1', r.rel);
            RAISE NOTICE '% is readable', r.rel;
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE NOTICE '% denied', r.rel;
        END;
    END LOOP;
END $$;
DELETE FROM dpkmeans_internal.keys;
UPDATE dpkmeans_internal.tracked SET epsilon = 100;
INSERT INTO dpkmeans_internal.delta (relid, payload) VALUES ('secret', '\x00');
RESET ROLE;
REVOKE USAGE ON SCHEMA dpkmeans_internal FROM dpk_analyst;
SET ROLE dpk_analyst;
-- the grid cap is a superuser's setting: it sets how much memory the
-- one-shot every role may run takes
SET dpkmeans.max_cells = 1e9;
SHOW dpkmeans.max_cells;
-- owner-only functions, even with EXECUTE
SELECT dp_release('secret');
SELECT dp_verify('secret');
SELECT dp_detach('secret');
SELECT dp_attach('secret', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
-- the trigger functions are not callable directly
SELECT dpkmeans_internal.capture();
RESET ROLE;

-- a writer without any right on dpkmeans' state still writes through the triggers
GRANT INSERT, DELETE, SELECT ON secret TO dpk_analyst;
SET ROLE dpk_analyst;
INSERT INTO secret VALUES (1, 1), (2, 2);
DELETE FROM secret WHERE x = 1;
RESET ROLE;
SET ROLE dpk_owner;
SELECT dp_verify('secret');
RESET ROLE;

-- A role granted reading is not dropped while it reads, as with any grant;
-- DROP OWNED BY ends its reading, and revoking its last grant frees it.
CREATE ROLE dpk_leaving;
CREATE ROLE dpk_brief;
SET ROLE dpk_owner;
SELECT dp_grant_reader('secret', 'dpk_leaving') AND dp_grant_reader('secret', 'dpk_brief') AS granted;
SELECT value FROM dp_privacy_report('secret') WHERE item = 'who reads releases';
RESET ROLE;
DROP ROLE dpk_leaving;
DROP OWNED BY dpk_leaving;
DROP ROLE dpk_leaving;
SET ROLE dpk_owner;
SELECT value FROM dp_privacy_report('secret') WHERE item = 'who reads releases';
SELECT dp_revoke_reader('secret', 'dpk_brief');
RESET ROLE;
DROP ROLE dpk_brief;
-- a grant whose role was dropped under an older version (a bare OID): not
-- listed, it grants nothing, and its OID revokes it
INSERT INTO dpkmeans_internal.readers (relid, reader) VALUES ('secret', 4000000000::oid::regrole);
SET ROLE dpk_owner;
SELECT value FROM dp_privacy_report('secret') WHERE item = 'who reads releases';
SELECT dp_revoke_reader('secret', '4000000000');
SELECT dp_grant_reader('secret', '4000000000');
RESET ROLE;
SELECT count(*) AS grants FROM dpkmeans_internal.readers WHERE relid = 'secret'::regclass;
-- dropping the table frees its readers too
SET ROLE dpk_owner;
DROP TABLE secret;
RESET ROLE;
REVOKE ALL ON SCHEMA public FROM dpk_owner;
REVOKE EXECUTE ON FUNCTION dp_centers(regclass, int, text, int), dp_histogram(regclass, int, int),
    dp_cost_curve(regclass, text, int), dp_privacy_report(regclass),
    dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8, boolean),
    dp_detach(regclass), dp_release(regclass), dp_verify(regclass) FROM dpk_analyst, dpk_owner;
GRANT EXECUTE ON FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8, boolean),
    dp_detach(regclass), dp_release(regclass), dp_verify(regclass) TO PUBLIC;
DROP ROLE dpk_owner;
DROP ROLE dpk_analyst;

-- What a reader costs does not grow with the true state: a table of 60 rows
-- and one of 20 000 (a state of 20 000 cells, about 80 pages out of line)
-- touch about as many buffers in dp_centers and dp_privacy_report.
CREATE TABLE few (x float8, y float8);
CREATE TABLE many (x float8, y float8);
INSERT INTO few SELECT random() * 10, random() * 10 FROM generate_series(1, 60);
INSERT INTO many SELECT random() * 10, random() * 10 FROM generate_series(1, 20000);
SELECT dp_attach(t, ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[10, 10], horizon => 16,
                 size_hint => 1e8) FROM (VALUES ('few'::regclass), ('many')) v(t);
SELECT dp_release('few') + dp_release('many') AS releases;
CREATE FUNCTION pg_temp.blocks(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE q;  -- warm the caches
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || q INTO plan;
    RETURN (plan->0->'Plan'->>'Shared Hit Blocks')::int + (plan->0->'Plan'->>'Shared Read Blocks')::int;
END
$$;
SELECT abs(pg_temp.blocks('SELECT * FROM dp_centers(''many'', 3)') -
           pg_temp.blocks('SELECT * FROM dp_centers(''few'', 3)')) < 8 AS centres_alike,
       abs(pg_temp.blocks('SELECT * FROM dp_privacy_report(''many'')') -
           pg_temp.blocks('SELECT * FROM dp_privacy_report(''few'')')) < 8 AS report_alike;
-- the stored noisy histograms are as long, compressed or not: every cell of
-- the level, uncompressed, whatever the noise
SELECT count(DISTINCT octet_length(payload)) AS lengths, count(DISTINCT pg_column_size(payload)) AS sizes
FROM dpkmeans_internal.histogram WHERE relid IN ('few'::regclass, 'many'::regclass);
SELECT attstorage FROM pg_attribute
WHERE attrelid = 'dpkmeans_internal.histogram'::regclass AND attname = 'payload';
SELECT dp_detach('few'), dp_detach('many');
DROP TABLE few, many;
