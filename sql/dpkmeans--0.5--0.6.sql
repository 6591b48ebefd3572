-- dpkmeans 0.5 -> 0.6
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.6'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Lifting sums keyed by public regions (doc/design.md, "Lifting sums keyed
-- by public regions"): a new projected pure table whose per-cell lifting
-- sums would drown in their noise keeps them per (tree node, region)
-- instead, a region being a centre of an earlier release.  A row here marks
-- such a table; its state holds the true region sums of the tree nodes a
-- later release can use, the public region maps and the previous release's
-- cells (src/live_regions.c), padded so that its size depends on public
-- bounds only, and stored uncompressed for the same reason.  Tables
-- attached before keep their per-cell sums.
-- ---------------------------------------------------------------------------
CREATE TABLE dpkmeans_internal.regions (
    relid regclass PRIMARY KEY,
    state bytea NOT NULL
);
ALTER TABLE dpkmeans_internal.regions ALTER COLUMN state SET STORAGE EXTERNAL;
REVOKE ALL ON dpkmeans_internal.regions FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.regions', '');

-- Dropping an attached table removes its region state too.
CREATE FUNCTION dpkmeans_internal.on_sql_drop_regions() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    obj record;
BEGIN
    FOR obj IN SELECT * FROM pg_event_trigger_dropped_objects() WHERE object_type = 'table' LOOP
        DELETE FROM dpkmeans_internal.regions WHERE relid::oid = obj.objid;
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION dpkmeans_internal.on_sql_drop_regions() FROM PUBLIC;
CREATE EVENT TRIGGER dpkmeans_sql_drop_regions ON sql_drop
EXECUTE FUNCTION dpkmeans_internal.on_sql_drop_regions();

-- The guard also sees ALTER TYPE (ALTER ATTRIBUTE ... TYPE and RENAME
-- ATTRIBUTE ... CASCADE reach the columns of typed tables) and CREATE SCHEMA
-- (whose CREATE TABLE elements fire no event trigger of their own).
DROP EVENT TRIGGER dpkmeans_guard_ddl;
CREATE EVENT TRIGGER dpkmeans_guard_ddl ON ddl_command_start
    WHEN TAG IN ('ALTER TABLE', 'ALTER TRIGGER', 'DROP TRIGGER', 'CREATE TABLE',
                 'CREATE FOREIGN TABLE', 'DROP TABLE', 'ALTER TYPE', 'CREATE SCHEMA')
    EXECUTE FUNCTION dpkmeans_internal.guard_ddl();

-- ---------------------------------------------------------------------------
-- The guards fire in every session: a session with session_replication_role
-- = replica skips event triggers left at their default, and would otherwise
-- alter or drop tracked columns, disable the capture, attach a partition
-- without capture or leave a dropped table's rows behind.
-- ---------------------------------------------------------------------------
ALTER EVENT TRIGGER dpkmeans_sql_drop ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_guard_ddl ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_partition_ddl ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_sql_drop_shards ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_sql_drop_wal ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_wal_drop_extension ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_sql_drop_regions ENABLE ALWAYS;

-- ---------------------------------------------------------------------------
-- A partition created in or attached to an attached tree gets a clone of
-- the root's row trigger, which PostgreSQL checks EXECUTE for as the role
-- running the DDL: the tables' owners need it.  A trigger function cannot be
-- called outside a trigger, and this one counts only what a logical
-- replication worker applies (src/trigger.c).
-- ---------------------------------------------------------------------------
GRANT EXECUTE ON FUNCTION dpkmeans_internal.capture_row() TO PUBLIC;

-- ---------------------------------------------------------------------------
-- insert_only tables refuse an UPDATE that changes a tracked column the
-- statement did not set (a BEFORE trigger or a rule did): a row trigger on
-- the root, cloned to partitions (hence EXECUTE for the tables' owners; the
-- function only raises errors).  Added to the insert_only tables attached
-- before.
-- ---------------------------------------------------------------------------
GRANT EXECUTE ON FUNCTION dpkmeans_internal.refuse() TO PUBLIC;
CREATE FUNCTION dpkmeans_internal.add_moved_refusal(tbl regclass) RETURNS void
AS 'MODULE_PATHNAME', 'dpk_add_moved_refusal' LANGUAGE C STRICT;
REVOKE ALL ON FUNCTION dpkmeans_internal.add_moved_refusal(regclass) FROM PUBLIC;
SELECT dpkmeans_internal.add_moved_refusal(relid) FROM dpkmeans_internal.tracked
WHERE mode = 'insert_only';

-- ---------------------------------------------------------------------------
-- Tables attached by 0.1 and not released since the update to 0.2 have no
-- recorded home; their first release would make any server their home, so
-- a dump restored elsewhere could publish the same release numbers on other
-- rows.  The home is recorded now, at the update, on this server.
-- ---------------------------------------------------------------------------
CREATE FUNCTION dpkmeans_internal.record_home(tbl regclass) RETURNS void
AS 'MODULE_PATHNAME', 'dpk_record_home' LANGUAGE C STRICT;
REVOKE ALL ON FUNCTION dpkmeans_internal.record_home(regclass) FROM PUBLIC;
SELECT dpkmeans_internal.record_home(relid) FROM dpkmeans_internal.tracked
WHERE home_system_id IS NULL;

-- ---------------------------------------------------------------------------
-- The noisy histogram is stored uncompressed and padded to every cell of
-- its level: a release attempt that aborts after writing it leaves its size
-- in the statistics of the TOAST table, and compression made that size a
-- function of noise a retry would use again.
-- ---------------------------------------------------------------------------
ALTER TABLE dpkmeans_internal.histogram ALTER COLUMN payload SET STORAGE EXTERNAL;

-- ---------------------------------------------------------------------------
-- A table captured from the WAL whose slot is gone (a promoted standby, a
-- restored copy, a dropped slot) or was moved: a new slot, and the
-- difference between a recount and the stored state as one pending delta.
-- ---------------------------------------------------------------------------
CREATE FUNCTION dp_capture_resync(tbl regclass) RETURNS pg_lsn
AS 'MODULE_PATHNAME', 'dp_capture_resync' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_capture_resync(regclass) IS
'owner: a table attached with capture => ''wal'' whose slot is gone or was moved gets a new slot, and the difference between a recount of the table and its stored state becomes one pending delta; returns the new counted WAL position';
-- NULL is refused with 22004, as by every other function (it returned NULL).
ALTER FUNCTION dp_capture_sync(regclass) CALLED ON NULL INPUT;
