-- dpkmeans 0.6 -> 0.7
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.7'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- A privacy ledger per table (doc/privacy.md, "The ledger"): one row per
-- history of a table's rows (an attach, with its key and its releases), kept
-- by dp_detach and re-attach, removed with the table, dumped with the rest of
-- the state.  A history spends its epsilon and delta in full once its first
-- release is made, none before; dp_privacy_report adds up every history.
-- dp_attach(..., fresh_budget => true) is the owner's explicit choice to
-- count a new budget from that history on (the earlier ones stay listed).
-- ---------------------------------------------------------------------------
CREATE TABLE dpkmeans_internal.ledger (
    relid              regclass NOT NULL,
    history            int NOT NULL CHECK (history >= 1),
    epsilon            float8 NOT NULL,
    delta              float8 NOT NULL,
    horizon            int NOT NULL,
    releases           int NOT NULL DEFAULT 0,
    attached_at        timestamptz NOT NULL,
    detached_at        timestamptz,
    fresh_budget       boolean NOT NULL DEFAULT false,
    recorded_at_update boolean NOT NULL DEFAULT false,  -- history open at the update to 0.7
    CONSTRAINT ledger_pkey PRIMARY KEY (relid, history)
);
REVOKE ALL ON dpkmeans_internal.ledger FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.ledger', '');

-- Tables attached now: their current history is what is known (histories
-- detached before this update were not recorded).  Shard tables make no
-- release and have no ledger.
INSERT INTO dpkmeans_internal.ledger (relid, history, epsilon, delta, horizon, releases,
                                      attached_at, recorded_at_update)
SELECT t.relid, 1, t.epsilon, t.delta, t.horizon, t.releases, t.attached_at, true
FROM dpkmeans_internal.tracked t
WHERE NOT EXISTS (SELECT 1 FROM dpkmeans_internal.shard_tables s WHERE s.relid = t.relid);

-- Dropping a table removes its ledger (dp_detach does not).
CREATE FUNCTION dpkmeans_internal.on_sql_drop_ledger() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    obj record;
BEGIN
    FOR obj IN SELECT * FROM pg_event_trigger_dropped_objects() WHERE object_type = 'table' LOOP
        DELETE FROM dpkmeans_internal.ledger WHERE relid::oid = obj.objid;
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION dpkmeans_internal.on_sql_drop_ledger() FROM PUBLIC;
CREATE EVENT TRIGGER dpkmeans_sql_drop_ledger ON sql_drop
EXECUTE FUNCTION dpkmeans_internal.on_sql_drop_ledger();
ALTER EVENT TRIGGER dpkmeans_sql_drop_ledger ENABLE ALWAYS;

-- dp_attach gets fresh_budget, with the privileges an administrator gave or
-- revoked on it kept: its EXECUTE grants are noted (grantee OIDs; '' for the
-- default privileges) and given again by GRANT and REVOKE.
SELECT set_config('dpkmeans_upgrade.acl_dp_attach',
                  CASE WHEN p.proacl IS NULL THEN ''
                       ELSE 'acl:' || coalesce((SELECT string_agg(e.grantee::text || '/' || e.is_grantable::text, ',')
                                                FROM pg_catalog.aclexplode(p.proacl) e
                                                WHERE e.privilege_type = 'EXECUTE'), '') END,
                  true)
FROM pg_catalog.pg_proc p
WHERE p.oid = 'dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8)'::regprocedure;
DROP FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8);
CREATE FUNCTION dp_attach(tbl regclass, columns text[], k int, epsilon float8,
                          lower float8[], upper float8[], horizon int DEFAULT 1024,
                          mode text DEFAULT 'insert_delete', size_hint float8 DEFAULT NULL,
                          delta float8 DEFAULT 0, capture text DEFAULT 'trigger',
                          norm_bound float8 DEFAULT NULL, fresh_budget boolean DEFAULT false)
RETURNS void AS 'MODULE_PATHNAME', 'dp_attach' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8, boolean) IS
'owner: attach a table (existing rows become events of release 1; no release is made); delta > 0: (epsilon, delta)-DP with discrete Gaussian noise; capture ''wal'': changes counted from the WAL by logical decoding (wal_level = logical, own transaction, a replication slot); norm_bound: rows moved into the ball of that radius around the box''s middle (projected tables, 6 or more columns); the ledger adds this history''s epsilon and delta to the earlier ones, unless fresh_budget => true starts a new budget';
DO $$
DECLARE
    acl text := current_setting('dpkmeans_upgrade.acl_dp_attach');
    fn constant text := 'dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8, boolean)';
    item text;
    grantee oid;
BEGIN
    IF acl = '' THEN
        RETURN;                 -- the default privileges
    END IF;
    EXECUTE pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', fn);
    FOREACH item IN ARRAY pg_catalog.string_to_array(pg_catalog.substr(acl, 5), ',') LOOP
        grantee := pg_catalog.split_part(item, '/', 1)::oid;
        -- entries an earlier update wrote into pg_proc may name dropped roles
        CONTINUE WHEN grantee <> 0 AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r
                                                   WHERE r.oid = grantee);
        EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %s%s', fn,
            CASE WHEN grantee = 0 THEN 'PUBLIC' ELSE grantee::regrole::text END,
            CASE WHEN pg_catalog.split_part(item, '/', 2)::boolean THEN ' WITH GRANT OPTION' ELSE '' END);
    END LOOP;
END
$$;

-- The ledger's rows for the table's owner and granted readers, attached or
-- not (readers only while granted: dp_detach removes the grants).
CREATE FUNCTION dp_privacy_ledger(tbl regclass)
RETURNS TABLE(history int, epsilon float8, delta float8, horizon int, releases int,
              spent boolean, fresh_budget boolean, attached_at timestamptz,
              detached_at timestamptz, recorded_at_update boolean)
AS 'MODULE_PATHNAME', 'dp_privacy_ledger' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_privacy_ledger(regclass) IS
'owner and granted readers: every history of a table''s rows in its privacy ledger (also after dp_detach): epsilon, delta, releases, whether it counts, fresh budgets';
