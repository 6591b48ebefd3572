-- The privacy ledger (src/core/privacy/ledger.c, src/store/store_ledger.c): every history of a
-- table's rows adds its epsilon and delta once its first release is made;
-- detach and re-attach keep the ledger, a fresh budget is the owner's
-- explicit choice, the report adds up every history, DROP TABLE forgets it.
CREATE FUNCTION ledger_rows(tbl regclass) RETURNS TABLE(item text, value text)
LANGUAGE sql AS $$
    SELECT item, regexp_replace(value, '\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC', '<time>', 'g')
    FROM dp_privacy_report(tbl) WHERE item ~ '^ledger' ORDER BY item
$$;

-- Tables attached under 0.6 get their current history at the update: the
-- releases made so far, marked as recorded at the update.
DROP EXTENSION dpkmeans;
CREATE EXTENSION dpkmeans VERSION '0.6';
CREATE ROLE ledger_owner;
REVOKE EXECUTE ON FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8) TO ledger_owner;
CREATE TABLE old6 (x float8, y float8);
INSERT INTO old6 SELECT i % 100, (i * 7) % 100 FROM generate_series(1, 500) i;
CREATE TABLE idle6 (x float8, y float8);
SELECT dp_attach('old6', ARRAY['x', 'y'], 2, 0.5, ARRAY[0, 0], ARRAY[100, 100], horizon => 8);
SELECT dp_attach('idle6', ARRAY['x', 'y'], 2, 2.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 8, delta => 1e-6);
SELECT dp_release('old6');
SELECT dp_release('old6');
ALTER EXTENSION dpkmeans UPDATE TO '0.7';
SELECT relid, history, epsilon, delta, horizon, releases, detached_at IS NULL AS open,
       fresh_budget, recorded_at_update
FROM dpkmeans_internal.ledger ORDER BY relid::text;
SELECT * FROM ledger_rows('old6');
-- the privileges given on dp_attach survive its new argument
SELECT p.oid::regprocedure AS function,
       has_function_privilege('ledger_owner', p.oid, 'EXECUTE') AS owner_role,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public
FROM pg_proc p WHERE p.proname = 'dp_attach' AND p.pronamespace = 'public'::regnamespace;
-- the idle table's first release opens its spending; a detach keeps it
SELECT dp_release('idle6');
SELECT dp_detach('idle6');
SELECT dp_attach('idle6', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 8);
SELECT * FROM ledger_rows('idle6');
DROP TABLE old6, idle6;
DROP EXTENSION dpkmeans;
DROP ROLE ledger_owner;
CREATE EXTENSION dpkmeans;

-- attach, release, detach, attach: the histories add up
CREATE TABLE rows5 (x float8, y float8);
INSERT INTO rows5 SELECT i % 100, (i * 7) % 100 FROM generate_series(1, 500) i;
SELECT dp_attach('rows5', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 4);
-- nothing released yet: nothing spent
SELECT * FROM ledger_rows('rows5');
SELECT dp_release('rows5');
SELECT dp_detach('rows5');
-- detach keeps the ledger (and nothing else)
SELECT count(*) AS ledger_rows_after_detach FROM dpkmeans_internal.ledger
WHERE relid = 'rows5'::regclass;
-- the re-attach says what the rows already carry
SELECT dp_attach('rows5', ARRAY['x', 'y'], 2, 0.5, ARRAY[0, 0], ARRAY[100, 100], horizon => 4);
-- a history detached without a release spent nothing
SELECT dp_detach('rows5');
SELECT dp_attach('rows5', ARRAY['x', 'y'], 2, 0.25, ARRAY[0, 0], ARRAY[100, 100], horizon => 4);
SELECT max(dp_release('rows5')) FROM generate_series(1, 2);
SELECT * FROM ledger_rows('rows5');
-- a Gaussian history adds its delta
SELECT dp_detach('rows5');
SELECT dp_attach('rows5', ARRAY['x', 'y'], 2, 0.5, ARRAY[0, 0], ARRAY[100, 100], horizon => 4,
                 delta => 1e-6);
SELECT dp_release('rows5');
SELECT item, value FROM dp_privacy_report('rows5')
WHERE item IN ('guarantee', 'ledger: spent over every history', 'ledger: budget counted')
ORDER BY item;

-- The audit's attack: attach, release, detach, many times over the same
-- rows.  Each history reports its own epsilon; the ledger carries them all.
CREATE PROCEDURE cycles(n int) LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. n LOOP
        PERFORM dp_detach('rows5');
        PERFORM dp_attach('rows5', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                          horizon => 4);
        COMMIT;
        PERFORM dp_release('rows5');
    END LOOP;
END
$$;
SET client_min_messages = warning;
CALL cycles(20);
RESET client_min_messages;
SELECT item, value FROM dp_privacy_report('rows5')
WHERE item IN ('guarantee', 'ledger: histories', 'ledger: spent over every history',
               'ledger: budget counted')
ORDER BY item;
-- the report's total is the sum of the ledger's spent histories
SELECT (regexp_match(r.value, 'epsilon = ([0-9.e+-]+)'))[1]::float8 = l.eps AS epsilon_adds_up,
       (regexp_match(r.value, 'delta = ([0-9.e+-]+)'))[1]::float8 = l.delta AS delta_adds_up,
       l.eps AS epsilon, l.spent
FROM dp_privacy_report('rows5') r,
     (SELECT sum(epsilon) AS eps, sum(delta) AS delta, count(*) AS spent
      FROM dpkmeans_internal.ledger WHERE relid = 'rows5'::regclass AND releases > 0) l
WHERE r.item = 'ledger: spent over every history';

-- A fresh budget is an explicit argument; the earlier histories stay listed.
SELECT dp_detach('rows5');
SELECT dp_attach('rows5', ARRAY['x', 'y'], 2, 0.75, ARRAY[0, 0], ARRAY[100, 100], horizon => 4,
                 fresh_budget => true);
SELECT item, value FROM dp_privacy_report('rows5')
WHERE item IN ('ledger: spent over every history', 'ledger: budget counted') ORDER BY item;
SELECT dp_release('rows5');
SELECT item, value FROM dp_privacy_report('rows5')
WHERE item IN ('ledger: spent over every history', 'ledger: budget counted') ORDER BY item;
-- a later attach without the argument counts on from the fresh start
SELECT dp_detach('rows5');
SELECT dp_attach('rows5', ARRAY['x', 'y'], 2, 0.25, ARRAY[0, 0], ARRAY[100, 100], horizon => 4);
SELECT history, epsilon, releases, fresh_budget FROM dpkmeans_internal.ledger
WHERE relid = 'rows5'::regclass AND history > 24 ORDER BY history;
-- NULL is refused, and the refusal leaves the table as it was
SELECT dp_detach('rows5');
DO $$
BEGIN
    PERFORM dp_attach('rows5', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                      fresh_budget => NULL);
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE '%: %', SQLSTATE, SQLERRM;
END
$$;
SELECT count(*) AS histories, count(*) FILTER (WHERE detached_at IS NULL) AS open
FROM dpkmeans_internal.ledger WHERE relid = 'rows5'::regclass;
-- the owner lists the ledger of the detached table
SELECT history, epsilon, delta, horizon, releases, spent, fresh_budget,
       detached_at IS NOT NULL AS detached, recorded_at_update
FROM dp_privacy_ledger('rows5') WHERE history <= 4 OR history >= 23 ORDER BY history;
SELECT sum(epsilon) FILTER (WHERE spent) AS spent_epsilon FROM dp_privacy_ledger('rows5');

-- A granted reader sees the ledger in the report, never the table itself.
SELECT dp_attach('rows5', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 4);
CREATE ROLE ledger_reader;
SELECT dp_grant_reader('rows5', 'ledger_reader');
SET ROLE ledger_reader;
SELECT value FROM dp_privacy_report('rows5') WHERE item = 'ledger: spent over every history';
SELECT count(*) AS histories FROM dp_privacy_ledger('rows5');
SELECT count(*) FROM dpkmeans_internal.ledger;
RESET ROLE;
-- a role granted nothing reads no ledger
CREATE ROLE ledger_stranger;
SET ROLE ledger_stranger;
SELECT count(*) FROM dp_privacy_ledger('rows5');
RESET ROLE;
DROP ROLE ledger_stranger;
SELECT has_table_privilege('public', 'dpkmeans_internal.ledger', 'SELECT') AS public_reads_ledger;
-- the ledger is part of the extension's dumped state
SELECT c.relname FROM pg_extension e, unnest(e.extconfig) AS cfg(oid)
JOIN pg_class c ON c.oid = cfg.oid WHERE e.extname = 'dpkmeans' AND c.relname = 'ledger';

-- DROP TABLE removes the ledger with the table.
DROP TABLE rows5;
SELECT count(*) AS ledger_rows_after_drop FROM dpkmeans_internal.ledger;
DROP ROLE ledger_reader;
DROP PROCEDURE cycles(int);
DROP FUNCTION ledger_rows(regclass);
