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


-- ---- Reader grants are PostgreSQL privileges of their roles ----
-- A role granted reading (dp_grant_reader) holds USAGE on the domain
-- dpkmeans_internal.reader_grants (which gives nothing else), so DROP ROLE
-- is refused while it reads a table, as for any grant, and DROP OWNED BY
-- removes its grants; a grant counts only while its role holds it.
CREATE DOMAIN dpkmeans_internal.reader_grants AS boolean;
REVOKE ALL ON TYPE dpkmeans_internal.reader_grants FROM PUBLIC;
COMMENT ON DOMAIN dpkmeans_internal.reader_grants IS
'USAGE on it marks the roles granted reading with dp_grant_reader (it gives nothing else); DROP OWNED BY or dp_revoke_reader removes it';

-- The grants of roles that no longer hold the privilege (after DROP OWNED
-- BY) are removed; a grant whose privilege was revoked by hand counts no
-- more either, and goes at the next DROP OWNED.
CREATE FUNCTION dpkmeans_internal.prune_reader_grants() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    DELETE FROM dpkmeans_internal.readers g
    WHERE NOT EXISTS (SELECT 1 FROM pg_type t, aclexplode(t.typacl) a
                      WHERE t.oid = 'dpkmeans_internal.reader_grants'::regtype
                        AND a.grantee = g.reader::oid);
END
$$;
REVOKE ALL ON FUNCTION dpkmeans_internal.prune_reader_grants() FROM PUBLIC;

-- The privilege of roles that read no table any more (after
-- dp_revoke_reader, dp_detach or DROP TABLE) is revoked.
CREATE FUNCTION dpkmeans_internal.revoke_unused_reader_grants() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    r regrole;
BEGIN
    FOR r IN SELECT a.grantee::regrole FROM pg_type t, aclexplode(t.typacl) a
             WHERE t.oid = 'dpkmeans_internal.reader_grants'::regtype
               AND a.grantee <> t.typowner AND a.grantee <> 0
               AND NOT EXISTS (SELECT 1 FROM dpkmeans_internal.readers g
                               WHERE g.reader::oid = a.grantee) LOOP
        EXECUTE format('REVOKE ALL ON TYPE dpkmeans_internal.reader_grants FROM %s', r);
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION dpkmeans_internal.revoke_unused_reader_grants() FROM PUBLIC;

CREATE FUNCTION dpkmeans_internal.on_reader_privileges() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF TG_EVENT = 'sql_drop' THEN
        PERFORM dpkmeans_internal.revoke_unused_reader_grants();
    ELSE
        PERFORM dpkmeans_internal.prune_reader_grants();
    END IF;
END
$$;
REVOKE ALL ON FUNCTION dpkmeans_internal.on_reader_privileges() FROM PUBLIC;
-- after dpkmeans_sql_drop, which removes a dropped table's grants
CREATE EVENT TRIGGER dpkmeans_sql_drop_readers ON sql_drop
    WHEN TAG IN ('DROP TABLE', 'DROP SCHEMA', 'DROP OWNED')
    EXECUTE FUNCTION dpkmeans_internal.on_reader_privileges();
CREATE EVENT TRIGGER dpkmeans_reader_privileges ON ddl_command_end
    WHEN TAG IN ('DROP OWNED')
    EXECUTE FUNCTION dpkmeans_internal.on_reader_privileges();
ALTER EVENT TRIGGER dpkmeans_sql_drop_readers ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_reader_privileges ENABLE ALWAYS;

-- A grant row inserted otherwise than by dp_grant_reader (the rows of a
-- restored dump) gives its role the privilege too: a grant migrated below
-- holds it as an initial privilege of the extension, which pg_dump leaves
-- out.
CREATE FUNCTION dpkmeans_internal.on_reader_row() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE oid = NEW.reader::oid) THEN
        EXECUTE format('GRANT USAGE ON TYPE dpkmeans_internal.reader_grants TO %s', NEW.reader);
    END IF;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION dpkmeans_internal.on_reader_row() FROM PUBLIC;
CREATE TRIGGER reader_privilege AFTER INSERT ON dpkmeans_internal.readers
    FOR EACH ROW EXECUTE FUNCTION dpkmeans_internal.on_reader_row();
ALTER TABLE dpkmeans_internal.readers ENABLE ALWAYS TRIGGER reader_privilege;

-- Grants made before: those of roles dropped since go, the others get the
-- privilege.
DELETE FROM dpkmeans_internal.readers g
WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE oid = g.reader::oid);
DO $$
DECLARE
    r regrole;
BEGIN
    FOR r IN SELECT DISTINCT reader FROM dpkmeans_internal.readers LOOP
        EXECUTE format('GRANT USAGE ON TYPE dpkmeans_internal.reader_grants TO %s', r);
    END LOOP;
END
$$;


-- ---------------------------------------------------------------------------
-- Readers name their release and read any earlier one; an operator's list
-- of attached tables; the owner's check of the declared box.
-- ---------------------------------------------------------------------------

-- Every release keeps its noisy histogram, as it keeps its centres and cost
-- curves: post-processing of noise, padded to every cell of the counted
-- level, so the stored size depends on the configuration and the number of
-- releases only.  Releases made before keep only the latest one's.
ALTER TABLE dpkmeans_internal.histogram DROP CONSTRAINT histogram_pkey;
ALTER TABLE dpkmeans_internal.histogram ADD CONSTRAINT histogram_pkey PRIMARY KEY (relid, t);

-- dp_centers, dp_cost_curve and dp_histogram get a release argument (NULL:
-- the latest) and two output columns, the release they answer from and its
-- time.  They are dropped and created again; the privileges an
-- administrator gave or revoked on them are granted and revoked again.
-- (Saved as the OIDs of the roles that may execute them, 0 for PUBLIC: a
-- role dropped since is skipped.)
SELECT set_config('dpkmeans_upgrade.acl_' || p.proname,
       CASE WHEN p.proacl IS NULL THEN 'default'
            ELSE coalesce((SELECT string_agg(a.grantee::text, ',')
                           FROM pg_catalog.aclexplode(p.proacl) a
                           WHERE a.privilege_type = 'EXECUTE'), '') END, true)
FROM pg_catalog.pg_proc p
WHERE p.oid IN ('dp_centers(regclass, int, text)'::regprocedure,
                'dp_cost_curve(regclass, text)'::regprocedure,
                'dp_histogram(regclass, int)'::regprocedure);

DROP FUNCTION dp_centers(regclass, int, text);
CREATE FUNCTION dp_centers(tbl regclass, k int, objective text DEFAULT 'kmeans',
                           release int DEFAULT NULL)
RETURNS TABLE(cluster int, center float8[], noisy_size float8, release int,
              released_at timestamptz)
AS 'MODULE_PATHNAME', 'dp_centers' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_centers(regclass, int, text, int) IS
'reader: a release''s k centres (any k up to the attached k; only those that gather a weighted point, at least one), k-means or k-median; release NULL: the latest';

DROP FUNCTION dp_cost_curve(regclass, text);
CREATE FUNCTION dp_cost_curve(tbl regclass, objective text DEFAULT 'kmeans',
                              release int DEFAULT NULL)
RETURNS TABLE(k int, noisy_cost float8, release int, released_at timestamptz)
AS 'MODULE_PATHNAME', 'dp_cost_curve' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_cost_curve(regclass, text, int) IS
'reader: a release''s private cost estimate for k'' = 1..k (sum of squared distances, or of distances for ''kmedian''); release NULL: the latest';

DROP FUNCTION dp_histogram(regclass, int);
CREATE FUNCTION dp_histogram(tbl regclass, level int DEFAULT NULL, release int DEFAULT NULL)
RETURNS TABLE(level int, cell int[], center float8[], noisy_count float8, release int,
              released_at timestamptz)
AS 'MODULE_PATHNAME', 'dp_histogram' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_histogram(regclass, int, int) IS
'reader: a release''s noisy histogram at a level (counts unbiased, so some are negative); release NULL: the latest';

DO $$
DECLARE
    sig text;
    acl text;
    g oid;
BEGIN
    FOREACH sig IN ARRAY ARRAY['dp_centers(regclass, int, text, int)',
                               'dp_cost_curve(regclass, text, int)',
                               'dp_histogram(regclass, int, int)'] LOOP
        acl := current_setting('dpkmeans_upgrade.acl_' || split_part(sig, '(', 1), true);
        CONTINUE WHEN acl IS NULL OR acl = 'default';
        EXECUTE pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', sig);
        FOREACH g IN ARRAY pg_catalog.string_to_array(acl, ',')::oid[] LOOP
            IF g = 0 THEN
                EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO PUBLIC', sig);
            ELSIF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE oid = g) THEN
                EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %s', sig, g::regrole);
            END IF;
        END LOOP;
    END LOOP;
END
$$;

-- Every attached table the caller owns or may read, with its public
-- configuration and its release count; readers only for its owner.
CREATE FUNCTION dp_tables()
RETURNS TABLE(tbl regclass, columns text[], k int, epsilon float8, delta float8,
              horizon int, releases_used int, releases_left int, last_release int,
              last_release_at timestamptz, capture text, mode text,
              attached_at timestamptz, readers text[], epsilon_spent float8,
              delta_spent float8)
AS 'MODULE_PATHNAME', 'dp_tables' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_tables() IS
'anyone: every attached table the caller owns or may read, with epsilon, delta, horizon, releases used and left, the last release and its time, capture, mode, (owner only) its readers, and the epsilon and delta its rows spent over every history (the privacy ledger)';

-- The owner's check of the declared box: rows outside it are clamped onto
-- it, counted here per column and side (true counts, for the owner only).
CREATE FUNCTION dp_bounds_check(tbl regclass)
RETURNS TABLE(column_name text, lower float8, upper float8, points bigint,
              below_lower bigint, above_upper bigint, below_share float8,
              above_share float8)
AS 'MODULE_PATHNAME', 'dp_bounds_check' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_bounds_check(regclass) IS
'owner: per tracked column, how many rows lie below lower and above upper (clamped onto the box), and their shares; a WARNING when a share is large';

-- dp_kmeans returns only the centres that gather a weighted point, at least one
-- (k at most 1000); dp_attach takes k up to 100.
COMMENT ON FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8, float8, text, float8) IS
'one-shot k-means (objective ''kmeans'') or k-median (''kmedian'') of the points a SELECT returns (k up to 1000; only the centres that gather a weighted point, at least one): epsilon-DP, or (epsilon, delta)-DP with discrete Gaussian noise when delta > 0; norm_bound: rows moved into the ball of that radius around the box''s middle (6 or more columns)';
COMMENT ON FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8, boolean) IS
'owner: attach a table, k up to 100 (existing rows become events of release 1; no release is made; rows outside the box are counted for the owner); delta > 0: (epsilon, delta)-DP with discrete Gaussian noise; capture ''wal'': changes counted from the WAL by logical decoding (wal_level = logical, own transaction, a replication slot); norm_bound: rows moved into the ball of that radius around the box''s middle (projected tables, 6 or more columns); the ledger adds this history''s epsilon and delta to the earlier ones, unless fresh_budget => true starts a new budget';

-- ---------------------------------------------------------------------------
-- Objectives a release computes: k-means always, k-median only for tables
-- that ask for it with dp_set_objectives (computing it for every k' cost
-- many times the rest of a release).  NULL: attached before 0.7, whose
-- releases keep computing both; dp_attach writes '{kmeans}'.
-- ---------------------------------------------------------------------------
ALTER TABLE dpkmeans_internal.tracked ADD COLUMN objectives text[]
    CHECK (objectives IN ('{kmeans}', '{kmeans,kmedian}'));
CREATE FUNCTION dp_set_objectives(tbl regclass, objectives text[]) RETURNS void
AS 'MODULE_PATHNAME', 'dp_set_objectives' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_set_objectives(regclass, text[]) IS
'owner: what the next releases compute: ARRAY[''kmeans''] (the default of tables attached from 0.7 on) or ARRAY[''kmeans'', ''kmedian''] (k-median centres and costs too, for dp_centers and dp_cost_curve with objective => ''kmedian'')';
