-- dpkmeans 0.1 -> 0.2: one release number, one data state; per-table readers;
-- columns tracked by name; versioned persistent formats.
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.2'" to load this file. \quit

-- Versions of what a table's history depends on, and where it lives.
--   sampler_version  how stream bytes become noise (1: 0.1's fixed 2^20
--                    denominators; 2: adaptive, never rounded down)
--   state_format     cell-map serialisation of state and deltas
--                    (1: DPKCELL1; 2: DPKCELL2, padded to a public size)
--   trigger_format   trigger arguments (1: attribute numbers; 2: names)
--   home_*           cluster (system identifier), WAL timeline and database
--                    of the history; NULL until a 0.2 release records it
ALTER TABLE dpkmeans_internal.tracked
    ADD COLUMN sampler_version int NOT NULL DEFAULT 1,
    ADD COLUMN state_format    int NOT NULL DEFAULT 1,
    ADD COLUMN trigger_format  int NOT NULL DEFAULT 1,
    ADD COLUMN home_system_id  bigint,
    ADD COLUMN home_timeline   int,
    ADD COLUMN home_database   oid;

-- Stored sizes must not depend on compression of the true state.
ALTER TABLE dpkmeans_internal.tracked ALTER COLUMN state SET STORAGE EXTERNAL;
ALTER TABLE dpkmeans_internal.delta ALTER COLUMN payload SET STORAGE EXTERNAL;

-- The delta index gets an explicit name.
ALTER INDEX dpkmeans_internal.delta_relid_idx RENAME TO delta_relid;

-- Roles the owner granted reading of a table's releases.
CREATE TABLE dpkmeans_internal.readers (
    relid      regclass NOT NULL,
    reader     regrole NOT NULL,
    granted_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT readers_pkey PRIMARY KEY (relid, reader)
);
REVOKE ALL ON dpkmeans_internal.readers FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.readers', '');

CREATE FUNCTION dp_grant_reader(tbl regclass, role regrole) RETURNS boolean
AS 'MODULE_PATHNAME', 'dp_grant_reader' LANGUAGE C VOLATILE;
CREATE FUNCTION dp_revoke_reader(tbl regclass, role regrole) RETURNS boolean
AS 'MODULE_PATHNAME', 'dp_revoke_reader' LANGUAGE C VOLATILE;
CREATE FUNCTION dp_confirm_history(tbl regclass) RETURNS void
AS 'MODULE_PATHNAME', 'dp_confirm_history' LANGUAGE C VOLATILE;

-- Readers and the report check the caller themselves (owner, superuser or a
-- granted reader); NULL arguments are refused with an error, never ignored.
ALTER FUNCTION dp_detach(regclass) CALLED ON NULL INPUT;
ALTER FUNCTION dp_release(regclass) CALLED ON NULL INPUT;
ALTER FUNCTION dp_verify(regclass) CALLED ON NULL INPUT;

COMMENT ON FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8) IS
'owner: attach a table (existing rows become events of release 1; no release is made)';
COMMENT ON FUNCTION dp_detach(regclass) IS
'owner: remove the triggers, the key and every release of a table';
COMMENT ON FUNCTION dp_release(regclass) IS
'owner: make and durably commit the next release (not inside a transaction block); returns its number';
COMMENT ON FUNCTION dp_verify(regclass) IS
'owner: whether the stored true state equals a recount of the table';
COMMENT ON FUNCTION dp_centers(regclass, int) IS
'reader: the latest release''s k centres (any k up to the attached k)';
COMMENT ON FUNCTION dp_histogram(regclass, int) IS
'reader: the latest release''s noisy histogram at a level';
COMMENT ON FUNCTION dp_cost_curve(regclass) IS
'reader: the latest release''s private cost estimate for k'' = 1..k';
COMMENT ON FUNCTION dp_privacy_report(regclass) IS
'reader: the privacy accounting of a table, its readers and its history';
COMMENT ON FUNCTION dp_grant_reader(regclass, regrole) IS
'owner: let a role (and its members) read a table''s releases';
COMMENT ON FUNCTION dp_revoke_reader(regclass, regrole) IS
'owner: stop a role reading a table''s releases';
COMMENT ON FUNCTION dp_confirm_history(regclass) IS
'owner: after a restore, PITR or failover, make this copy the one that goes on releasing';

-- Dropping an attached table removes its state; dropping a tracked column is
-- refused until the table is detached (columns are matched by name).
CREATE OR REPLACE FUNCTION dpkmeans_internal.on_sql_drop() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    obj record;
BEGIN
    FOR obj IN SELECT * FROM pg_event_trigger_dropped_objects() LOOP
        IF obj.object_type = 'table' THEN
            DELETE FROM dpkmeans_internal.tracked WHERE relid::oid = obj.objid;
            DELETE FROM dpkmeans_internal.keys WHERE relid::oid = obj.objid;
            DELETE FROM dpkmeans_internal.delta WHERE relid::oid = obj.objid;
            DELETE FROM dpkmeans_internal.releases WHERE relid::oid = obj.objid;
            DELETE FROM dpkmeans_internal.centers WHERE relid::oid = obj.objid;
            DELETE FROM dpkmeans_internal.costs WHERE relid::oid = obj.objid;
            DELETE FROM dpkmeans_internal.histogram WHERE relid::oid = obj.objid;
            DELETE FROM dpkmeans_internal.readers WHERE relid::oid = obj.objid;
        ELSIF obj.object_type = 'table column' AND EXISTS (
                SELECT 1 FROM dpkmeans_internal.tracked
                WHERE relid::oid = obj.objid
                  AND obj.address_names[array_length(obj.address_names, 1)] = ANY (columns)) THEN
            RAISE EXCEPTION 'cannot drop column % : it is tracked by dpkmeans', obj.object_identity
                USING ERRCODE = 'dependent_objects_still_exist',
                      HINT = 'Run dp_detach on the table first (its releases are then removed).';
        END IF;
    END LOOP;
END
$$;

-- Internal functions are called by the server only (trigger and event
-- trigger), never by a role.
REVOKE ALL ON FUNCTION dpkmeans_internal.on_sql_drop() FROM PUBLIC;

-- Capture triggers fire ALWAYS, so writes under session_replication_role =
-- replica are counted too (tables attached by 0.1 are switched here).
DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT tg.tgrelid::regclass AS rel, tg.tgname
             FROM pg_catalog.pg_trigger tg
             JOIN dpkmeans_internal.tracked tr ON tr.relid = tg.tgrelid
             WHERE tg.tgname LIKE 'dpkmeans\_%' AND tg.tgenabled <> 'A' LOOP
        EXECUTE pg_catalog.format('ALTER TABLE %s ENABLE ALWAYS TRIGGER %I', t.rel, t.tgname);
    END LOOP;
END
$$;

-- DDL that would let writes bypass the capture triggers (disabling them,
-- dropping or renaming them, a column type rewrite) or break how tracked
-- columns are found (renaming them) is refused on attached tables.
CREATE FUNCTION dpkmeans_internal.guard_ddl() RETURNS event_trigger
AS 'MODULE_PATHNAME', 'dpk_guard_ddl' LANGUAGE C;
REVOKE ALL ON FUNCTION dpkmeans_internal.guard_ddl() FROM PUBLIC;
CREATE EVENT TRIGGER dpkmeans_guard_ddl ON ddl_command_start
    WHEN TAG IN ('ALTER TABLE', 'ALTER TRIGGER', 'DROP TRIGGER')
    EXECUTE FUNCTION dpkmeans_internal.guard_ddl();

-- Columns are resolved by name (a restore renumbers them after a dropped
-- column), so attribute numbers are no longer kept (dropped after the
-- sql_drop event trigger stopped reading them).
ALTER TABLE dpkmeans_internal.tracked DROP COLUMN attnums;
