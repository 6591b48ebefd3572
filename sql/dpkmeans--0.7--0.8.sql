-- dpkmeans 0.7 -> 0.8
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.8'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- SQL surface: every function has a one-line comment, the internal ones too.
-- (Whatever this file adds must also be in dpkmeans--0.8.sql, the full
-- install script; the pg_regress suite install_script compares the two.)
-- ---------------------------------------------------------------------------
COMMENT ON FUNCTION dpkmeans_internal.capture() IS
'statement trigger of an attached table: appends the statement''s inserted and deleted rows, counted per cell, as one pending delta';
COMMENT ON FUNCTION dpkmeans_internal.capture_truncate() IS
'statement trigger of an attached table: counts TRUNCATE as the deletion of every row';
COMMENT ON FUNCTION dpkmeans_internal.refuse() IS
'trigger of an attached table: refuses the writes its mode forbids (deletes and updates of insert_only tables, tracked columns moved by a trigger or rule)';
COMMENT ON FUNCTION dpkmeans_internal.capture_row() IS
'row trigger enabled on replicas: counts the rows a logical replication worker applies to an attached table';
COMMENT ON FUNCTION dpkmeans_internal.capture_routed() IS
'row trigger of the local tables of a tree with foreign partitions: collects the rows it routes for the statement''s delta';
COMMENT ON FUNCTION dpkmeans_internal.capture_flush() IS
'statement trigger of a tree with foreign partitions: appends the rows capture_routed collected as one pending delta';
COMMENT ON FUNCTION dpkmeans_internal.add_row_capture(regclass) IS
'update helper: gives a table attached before 0.3 the row trigger that counts logical replication';
COMMENT ON FUNCTION dpkmeans_internal.add_moved_refusal(regclass) IS
'update helper: gives an insert_only table attached before 0.6 the refusal of tracked columns moved by a trigger or rule';
COMMENT ON FUNCTION dpkmeans_internal.record_home(regclass) IS
'update helper: records this server as the home of a table attached by 0.1 and not released since';
COMMENT ON FUNCTION dpkmeans_internal.wal_forget(oid) IS
'drops (at commit) the replication slot of a dropped table attached with capture => ''wal''';
COMMENT ON FUNCTION dpkmeans_internal.partition_drop_counted(text, text) IS
'whether the rows of a dropped partition of an attached table were counted as deletions before it went';
COMMENT ON FUNCTION dpkmeans_internal.on_sql_drop() IS
'sql_drop event trigger: removes a dropped table''s state and refuses dropping its tracked columns, its capture triggers or, by a cascade, its partitions';
COMMENT ON FUNCTION dpkmeans_internal.on_sql_drop_shards() IS
'sql_drop event trigger: removes a dropped table''s shard registrations and its mark as a shard table';
COMMENT ON FUNCTION dpkmeans_internal.on_sql_drop_wal() IS
'sql_drop event trigger: drops the replication slot of a dropped table attached with capture => ''wal''';
COMMENT ON FUNCTION dpkmeans_internal.on_sql_drop_regions() IS
'sql_drop event trigger: removes a dropped table''s region state';
COMMENT ON FUNCTION dpkmeans_internal.on_sql_drop_ledger() IS
'sql_drop event trigger: removes a dropped table''s privacy ledger';
COMMENT ON FUNCTION dpkmeans_internal.guard_ddl() IS
'ddl_command_start event trigger: refuses DDL that would let writes to an attached table go uncounted, and counts a dropped partition''s rows';
COMMENT ON FUNCTION dpkmeans_internal.partition_ddl_end() IS
'ddl_command_end event trigger: new partitions of an attached table get the capture, attached and detached partitions'' rows are counted';
COMMENT ON FUNCTION dpkmeans_internal.wal_drop_extension() IS
'ddl_command_start event trigger of DROP EXTENSION dpkmeans: drops every replication slot of tables attached with capture => ''wal''';
COMMENT ON FUNCTION dpkmeans_internal.prune_reader_grants() IS
'removes the reader grants of roles that no longer hold USAGE on dpkmeans_internal.reader_grants';
COMMENT ON FUNCTION dpkmeans_internal.revoke_unused_reader_grants() IS
'revokes USAGE on dpkmeans_internal.reader_grants from roles that read no table any more';
COMMENT ON FUNCTION dpkmeans_internal.on_reader_privileges() IS
'event trigger of DROP TABLE, DROP SCHEMA and DROP OWNED: keeps reader grants and their privileges in step';
COMMENT ON FUNCTION dpkmeans_internal.on_reader_row() IS
'row trigger of dpkmeans_internal.readers: a grant row inserted otherwise than by dp_grant_reader (a restored dump) gives its role the privilege';

-- ---------------------------------------------------------------------------
-- Shards: the shard protocol takes one versioned argument.  A coordinator
-- sends its table's configuration as one jsonb object with a protocol
-- version ({"protocol": 1, "columns": [...], ...}); a shard that does not
-- speak that version refuses it by name.  The positional entry point stays
-- for coordinators still at 0.7 during a rolling update.
-- ---------------------------------------------------------------------------
CREATE FUNCTION dp_shard_attach(tbl regclass, config jsonb)
RETURNS boolean AS 'MODULE_PATHNAME', 'dp_shard_attach_config' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_shard_attach(regclass, jsonb) IS
'shard, owner: capture a table''s rows for a coordinator''s attached table (no key, no release), with the configuration the coordinator sends as one jsonb of shard protocol version 1; true when newly attached';
-- The attached box for readers: the cells of dp_histogram as rectangles
-- (dpkmeans_postgis draws them as polygons).
CREATE FUNCTION dp_box(tbl regclass)
RETURNS TABLE(lower float8[], upper float8[])
AS 'MODULE_PATHNAME', 'dp_box' LANGUAGE C STABLE;
COMMENT ON FUNCTION dp_box(regclass) IS
'reader: the box the table was attached with (public configuration), one bound per dimension';
