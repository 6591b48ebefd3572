-- dpkmeans 0.2 -> 0.3: partitioned tables and logical replicas; approximate
-- DP with discrete Gaussian noise; k-median.
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.3'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Partitioned tables and logical replicas
-- ---------------------------------------------------------------------------

-- Logical replication workers fire row triggers only: this row trigger
-- (enabled on REPLICA) counts what they apply; statement triggers count
-- everything else.
CREATE FUNCTION dpkmeans_internal.capture_row() RETURNS trigger
AS 'MODULE_PATHNAME', 'dpk_capture_row' LANGUAGE C;
REVOKE ALL ON FUNCTION dpkmeans_internal.capture_row() FROM PUBLIC;

CREATE FUNCTION dpkmeans_internal.add_row_capture(tbl regclass) RETURNS void
AS 'MODULE_PATHNAME', 'dpk_add_row_capture' LANGUAGE C STRICT;
REVOKE ALL ON FUNCTION dpkmeans_internal.add_row_capture(regclass) FROM PUBLIC;
SELECT dpkmeans_internal.add_row_capture(relid) FROM dpkmeans_internal.tracked;

-- Partition DDL of an attached partitioned table: new partitions get the
-- capture triggers, ATTACH PARTITION counts the partition's rows as
-- insertions and DETACH PARTITION as deletions (DROP TABLE of a partition is
-- counted at its start, by guard_ddl).
CREATE FUNCTION dpkmeans_internal.partition_ddl_end() RETURNS event_trigger
AS 'MODULE_PATHNAME', 'dpk_partition_ddl_end' LANGUAGE C;
REVOKE ALL ON FUNCTION dpkmeans_internal.partition_ddl_end() FROM PUBLIC;
CREATE EVENT TRIGGER dpkmeans_partition_ddl ON ddl_command_end
    WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE')
    EXECUTE FUNCTION dpkmeans_internal.partition_ddl_end();

-- The guard also sees DROP TABLE (partitions' rows), CREATE TABLE
-- (inheritance children of attached tables are refused) and CREATE FOREIGN
-- TABLE (foreign partitions of attached tables are refused).
DROP EVENT TRIGGER dpkmeans_guard_ddl;
CREATE EVENT TRIGGER dpkmeans_guard_ddl ON ddl_command_start
    WHEN TAG IN ('ALTER TABLE', 'ALTER TRIGGER', 'DROP TRIGGER', 'CREATE TABLE',
                 'CREATE FOREIGN TABLE', 'DROP TABLE')
    EXECUTE FUNCTION dpkmeans_internal.guard_ddl();

-- A partition of an attached table dropped without its rows being counted
-- first (by a cascade, e.g. DROP SCHEMA ... CASCADE) is refused: the
-- counters would keep its rows.  DROP TABLE of a partition by name counts
-- them (guard_ddl) and is accepted.
CREATE FUNCTION dpkmeans_internal.partition_drop_counted(nspname text, relname text)
RETURNS boolean AS 'MODULE_PATHNAME', 'dpk_partition_drop_counted' LANGUAGE C STRICT;
REVOKE ALL ON FUNCTION dpkmeans_internal.partition_drop_counted(text, text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION dpkmeans_internal.on_sql_drop() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    obj record;
    root_dropped boolean;
BEGIN
    -- the partitions of a dropped attached table go with it
    SELECT EXISTS (SELECT 1 FROM pg_event_trigger_dropped_objects() o
                   JOIN dpkmeans_internal.tracked t ON t.relid::oid = o.objid
                   WHERE o.object_type = 'table')
    INTO root_dropped;
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
        ELSIF obj.object_type = 'trigger' AND NOT root_dropped
              AND obj.address_names[3] LIKE 'dpkmeans\_%'
              AND EXISTS (SELECT 1
                          FROM (SELECT to_regclass(quote_ident(obj.address_names[1]) || '.' ||
                                                   quote_ident(obj.address_names[2])) AS rel) r,
                               LATERAL (SELECT r.rel AS relid
                                        UNION SELECT relid FROM pg_partition_ancestors(r.rel)) a
                          JOIN dpkmeans_internal.tracked t ON t.relid = a.relid) THEN
            -- a trigger dropped while its table stays attached (a dropped
            -- partition is gone from the catalogs by now): its writes would
            -- no longer be counted, or no longer refused
            RAISE EXCEPTION 'cannot drop trigger %: it belongs to a table attached to dpkmeans',
                    obj.object_identity
                USING ERRCODE = 'dependent_objects_still_exist',
                      HINT = 'Run dp_detach on the attached table first.';
        ELSIF obj.object_type = 'trigger' AND NOT root_dropped
              AND obj.address_names[3] = 'dpkmeans_capture_insert'
              AND NOT dpkmeans_internal.partition_drop_counted(obj.address_names[1], obj.address_names[2]) THEN
            RAISE EXCEPTION 'cannot drop partition %.% of a table attached to dpkmeans by a cascade',
                    obj.address_names[1], obj.address_names[2]
                USING ERRCODE = 'dependent_objects_still_exist',
                      DETAIL = 'Its rows would stay in the counters of the table it belongs to.',
                      HINT = 'Drop or detach the partition by name first (its rows are then counted as deletions).';
        END IF;
    END LOOP;
END
$$;

-- ---------------------------------------------------------------------------
-- k-median: objective => 'kmedian' on dp_kmeans, dp_centers and dp_cost_curve.
-- Post-processing of the same noisy histogram: a one-shot call spends its
-- epsilon once whatever the objective; a live release stores its k-median
-- centres and cost curve beside the k-means ones (no extra privacy cost).
-- ---------------------------------------------------------------------------
ALTER TABLE dpkmeans_internal.centers
    ADD COLUMN objective text NOT NULL DEFAULT 'kmeans'
        CHECK (objective IN ('kmeans', 'kmedian'));
ALTER TABLE dpkmeans_internal.centers DROP CONSTRAINT centers_pkey;
ALTER TABLE dpkmeans_internal.centers ADD PRIMARY KEY (relid, t, objective, k, cluster);
ALTER TABLE dpkmeans_internal.costs
    ADD COLUMN objective text NOT NULL DEFAULT 'kmeans'
        CHECK (objective IN ('kmeans', 'kmedian'));
ALTER TABLE dpkmeans_internal.costs DROP CONSTRAINT costs_pkey;
ALTER TABLE dpkmeans_internal.costs ADD PRIMARY KEY (relid, t, objective, k);

-- dp_kmeans, dp_centers and dp_cost_curve get an objective argument, and
-- dp_kmeans and dp_attach a delta argument (next section): the four are
-- dropped and created again, with the privileges an administrator gave or
-- revoked on them (restored once the last of them is created).
SELECT set_config('dpkmeans_upgrade.grants_' || p.proname,
                  CASE WHEN p.proacl IS NULL THEN 'default'
                       ELSE coalesce((SELECT string_agg(e.grantee::text || '/' || e.is_grantable::text, ',')
                                      FROM pg_catalog.aclexplode(p.proacl) e
                                      WHERE e.privilege_type = 'EXECUTE'), '') END,
                  true)
FROM pg_catalog.pg_proc p
WHERE p.oid IN ('dp_kmeans(text, int, float8, float8[], float8[], float8)'::regprocedure,
                'dp_centers(regclass, int)'::regprocedure,
                'dp_cost_curve(regclass)'::regprocedure,
                'dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8)'::regprocedure);

-- ---------------------------------------------------------------------------
-- Approximate DP with exact discrete Gaussian noise: an optional delta on
-- dp_attach and dp_kmeans (0, the default, keeps pure epsilon-DP and its
-- draws exactly).  Each live table keeps the mechanism it was attached with.
-- ---------------------------------------------------------------------------
ALTER TABLE dpkmeans_internal.tracked
    ADD COLUMN delta float8 NOT NULL DEFAULT 0;

DROP FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8);
CREATE FUNCTION dp_attach(tbl regclass, columns text[], k int, epsilon float8,
                          lower float8[], upper float8[], horizon int DEFAULT 1024,
                          mode text DEFAULT 'insert_delete', size_hint float8 DEFAULT NULL,
                          delta float8 DEFAULT 0)
RETURNS void AS 'MODULE_PATHNAME', 'dp_attach' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8) IS
'owner: attach a table (existing rows become events of release 1; no release is made); delta > 0: (epsilon, delta)-DP with discrete Gaussian noise';

DROP FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8);
CREATE FUNCTION dp_kmeans(query text, k int, epsilon float8,
                          lower float8[], upper float8[], n float8 DEFAULT NULL,
                          delta float8 DEFAULT 0, objective text DEFAULT 'kmeans')
RETURNS TABLE(cluster int, center float8[], noisy_size float8)
AS 'MODULE_PATHNAME', 'dp_kmeans'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8, float8, text) IS
'one-shot k-means (objective ''kmeans'') or k-median (''kmedian'') of the points a SELECT returns (exactly k rows): epsilon-DP, or (epsilon, delta)-DP with discrete Gaussian noise when delta > 0';

DROP FUNCTION dp_centers(regclass, int);
CREATE FUNCTION dp_centers(tbl regclass, k int, objective text DEFAULT 'kmeans')
RETURNS TABLE(cluster int, center float8[], noisy_size float8)
AS 'MODULE_PATHNAME', 'dp_centers' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_centers(regclass, int, text) IS
'reader: the latest release''s k centres (any k up to the attached k), k-means or k-median';

DROP FUNCTION dp_cost_curve(regclass);
CREATE FUNCTION dp_cost_curve(tbl regclass, objective text DEFAULT 'kmeans')
RETURNS TABLE(k int, noisy_cost float8)
AS 'MODULE_PATHNAME', 'dp_cost_curve' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_cost_curve(regclass, text) IS
'reader: the latest release''s private cost estimate for k'' = 1..k (sum of squared distances, or of distances for ''kmedian'')';

DO $$
DECLARE
    sig text;
    acl text;
    item text;
    grantee oid;
BEGIN
    FOREACH sig IN ARRAY ARRAY['dp_kmeans(text, int, float8, float8[], float8[], float8, float8, text)',
                               'dp_centers(regclass, int, text)',
                               'dp_cost_curve(regclass, text)',
                               'dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8)'] LOOP
        acl := pg_catalog.current_setting('dpkmeans_upgrade.grants_' || pg_catalog.split_part(sig, '(', 1));
        CONTINUE WHEN acl = 'default';
        EXECUTE pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM PUBLIC, %s', sig,
            (SELECT p.proowner::regrole FROM pg_catalog.pg_proc p WHERE p.oid = sig::regprocedure));
        FOREACH item IN ARRAY pg_catalog.string_to_array(acl, ',') LOOP
            grantee := pg_catalog.split_part(item, '/', 1)::oid;
            -- entries that earlier releases of this update wrote into pg_proc
            -- directly may name dropped roles
            CONTINUE WHEN grantee <> 0 AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r
                                                       WHERE r.oid = grantee);
            EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %s%s', sig,
                CASE WHEN grantee = 0 THEN 'PUBLIC' ELSE grantee::regrole::text END,
                CASE WHEN pg_catalog.split_part(item, '/', 2)::boolean THEN ' WITH GRANT OPTION' ELSE '' END);
        END LOOP;
    END LOOP;
END
$$;

-- ---------------------------------------------------------------------------
-- Shards: a partitioned table whose partitions are postgres_fdw foreign
-- tables on other servers (see doc/scale-out.md)
-- ---------------------------------------------------------------------------

-- Coordinator: the foreign partitions of an attached table whose servers
-- capture their own rows, and the schema of dpkmeans on each of them.  The
-- server and the remote table are read from the foreign table when used.
CREATE TABLE dpkmeans_internal.shards (
    relid        regclass NOT NULL,
    partition    regclass NOT NULL,
    remote_schema text NOT NULL,
    attached_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT shards_pkey PRIMARY KEY (relid, partition)
);
-- Shard: tables attached for a coordinator.  They have a configuration and a
-- true state in dpkmeans_internal.tracked, but no key and no release.
CREATE TABLE dpkmeans_internal.shard_tables (
    relid       regclass PRIMARY KEY,
    attached_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON dpkmeans_internal.shards, dpkmeans_internal.shard_tables FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.shards', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.shard_tables', '');

-- Coordinator: capture on the local tables of a tree with foreign
-- partitions, which cannot collect transition tables (src/shard_capture.c).
CREATE FUNCTION dpkmeans_internal.capture_routed() RETURNS trigger
AS 'MODULE_PATHNAME', 'dpk_capture_routed' LANGUAGE C;
CREATE FUNCTION dpkmeans_internal.capture_flush() RETURNS trigger
AS 'MODULE_PATHNAME', 'dpk_capture_flush' LANGUAGE C;
REVOKE ALL ON FUNCTION dpkmeans_internal.capture_routed(),
    dpkmeans_internal.capture_flush() FROM PUBLIC;

-- Shard side, called by a coordinator through the user mapping's role.
CREATE FUNCTION dp_shard_attach(tbl regclass, columns text[], k int, epsilon float8,
                                lower float8[], upper float8[], horizon int, mode text,
                                size_hint float8, level int, sum_share float8, dhat int,
                                copies int, proj_seed bigint, norm_share float8)
RETURNS boolean AS 'MODULE_PATHNAME', 'dp_shard_attach' LANGUAGE C VOLATILE;
CREATE FUNCTION dp_shard_state(tbl regclass, fingerprint text) RETURNS bytea
AS 'MODULE_PATHNAME', 'dp_shard_state' LANGUAGE C VOLATILE;
CREATE FUNCTION dp_shard_detach(tbl regclass) RETURNS boolean
AS 'MODULE_PATHNAME', 'dp_shard_detach' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_shard_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, int, float8, int, int, bigint, float8) IS
'shard, owner: capture a table''s rows for a coordinator''s attached table (no key, no release); true when newly attached';
COMMENT ON FUNCTION dp_shard_state(regclass, text) IS
'shard, roles that can read the tracked columns: fold the deltas and return the true (un-noised) per-cell state';
COMMENT ON FUNCTION dp_shard_detach(regclass) IS
'shard, owner: remove the capture of a shard table; false when it was not attached as a shard';

-- Dropping an attached table also removes its shards' registration (and a
-- shard table's mark).
CREATE FUNCTION dpkmeans_internal.on_sql_drop_shards() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    obj record;
BEGIN
    FOR obj IN SELECT * FROM pg_event_trigger_dropped_objects() WHERE object_type = 'table' LOOP
        DELETE FROM dpkmeans_internal.shards WHERE relid::oid = obj.objid;
        DELETE FROM dpkmeans_internal.shard_tables WHERE relid::oid = obj.objid;
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION dpkmeans_internal.on_sql_drop_shards() FROM PUBLIC;
CREATE EVENT TRIGGER dpkmeans_sql_drop_shards ON sql_drop
EXECUTE FUNCTION dpkmeans_internal.on_sql_drop_shards();

-- Write cost: a writing statement appends its delta by a direct heap
-- insertion of one pre-formed tuple (src/capture_cache.c), with no id to draw
-- from a sequence and no index to maintain.  A release reads the pending
-- deltas of every table to fold its own (they are few: a release folds them
-- away), which costs less than an index entry for every writing statement.
ALTER EXTENSION dpkmeans DROP SEQUENCE dpkmeans_internal.delta_id_seq;
ALTER TABLE dpkmeans_internal.delta DROP COLUMN id;
DROP INDEX dpkmeans_internal.delta_relid;

-- ---------------------------------------------------------------------------
-- k-ary counter trees with negative digits ("Count on your elders",
-- Andersson, Pagh, Steiner and Torkamani): a new pure-epsilon table gets the
-- arity that minimizes the counters' release variance for its horizon
-- (doc/privacy.md, "k-ary trees"); Gaussian tables keep the binary tree.
-- The arity is fixed at attach: every table attached before this version
-- keeps the binary tree (2), so its releases replay exactly the same noise.
-- ---------------------------------------------------------------------------
ALTER TABLE dpkmeans_internal.tracked
    ADD COLUMN tree_arity int NOT NULL DEFAULT 2
        CHECK (tree_arity BETWEEN 2 AND 16);

-- ---------------------------------------------------------------------------
-- Capture from the WAL: dp_attach(..., capture => 'wal') counts a table's
-- changes by logical decoding at each release, dp_verify or dp_capture_sync
-- instead of in its writers (src/wal_capture.c).  One replication slot per
-- such table (named dpkmeans_<database oid>_<table oid>), REPLICA IDENTITY
-- FULL while attached (the previous identity is restored by dp_detach).
-- ---------------------------------------------------------------------------
CREATE TABLE dpkmeans_internal.wal_capture (
    relid         regclass PRIMARY KEY,
    slot_name     name NOT NULL,
    lsn           pg_lsn NOT NULL,   -- every transaction committed up to here is counted
    prev_identity "char" NOT NULL,   -- pg_class.relreplident before dp_attach
    prev_index    regclass           -- its index when that was 'i'
);
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.wal_capture', '');

SELECT set_config('dpkmeans_upgrade.grants_' || p.proname,
                  CASE WHEN p.proacl IS NULL THEN 'default'
                       ELSE coalesce((SELECT string_agg(e.grantee::text || '/' || e.is_grantable::text, ',')
                                      FROM pg_catalog.aclexplode(p.proacl) e
                                      WHERE e.privilege_type = 'EXECUTE'), '') END,
                  true)
FROM pg_catalog.pg_proc p
WHERE p.oid IN ('dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8)'::regprocedure);
DROP FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8);
CREATE FUNCTION dp_attach(tbl regclass, columns text[], k int, epsilon float8,
                          lower float8[], upper float8[], horizon int DEFAULT 1024,
                          mode text DEFAULT 'insert_delete', size_hint float8 DEFAULT NULL,
                          delta float8 DEFAULT 0, capture text DEFAULT 'trigger')
RETURNS void AS 'MODULE_PATHNAME', 'dp_attach' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text) IS
'owner: attach a table (existing rows become events of release 1; no release is made); delta > 0: (epsilon, delta)-DP with discrete Gaussian noise; capture ''wal'': changes counted from the WAL by logical decoding (wal_level = logical, own transaction, a replication slot)';
DO $$
DECLARE
    sig text;
    acl text;
    item text;
    grantee oid;
BEGIN
    FOREACH sig IN ARRAY ARRAY['dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text)'] LOOP
        acl := pg_catalog.current_setting('dpkmeans_upgrade.grants_' || pg_catalog.split_part(sig, '(', 1));
        CONTINUE WHEN acl = 'default';
        EXECUTE pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM PUBLIC, %s', sig,
            (SELECT p.proowner::regrole FROM pg_catalog.pg_proc p WHERE p.oid = sig::regprocedure));
        FOREACH item IN ARRAY pg_catalog.string_to_array(acl, ',') LOOP
            grantee := pg_catalog.split_part(item, '/', 1)::oid;
            -- entries that earlier releases of this update wrote into pg_proc
            -- directly may name dropped roles
            CONTINUE WHEN grantee <> 0 AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r
                                                       WHERE r.oid = grantee);
            EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %s%s', sig,
                CASE WHEN grantee = 0 THEN 'PUBLIC' ELSE grantee::regrole::text END,
                CASE WHEN pg_catalog.split_part(item, '/', 2)::boolean THEN ' WITH GRANT OPTION' ELSE '' END);
        END LOOP;
    END LOOP;
END
$$;

CREATE FUNCTION dp_capture_sync(tbl regclass) RETURNS pg_lsn
AS 'MODULE_PATHNAME', 'dp_capture_sync' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION dp_capture_sync(regclass) IS
'owner: count the committed changes of a table attached with capture => ''wal'' into its pending deltas; returns the WAL position they are counted to';

-- A dropped table's slot goes with it (at commit), and so do every table's
-- slots with DROP EXTENSION dpkmeans.
CREATE FUNCTION dpkmeans_internal.wal_forget(relid oid) RETURNS void
AS 'MODULE_PATHNAME', 'dpk_wal_forget' LANGUAGE C STRICT;
REVOKE ALL ON FUNCTION dpkmeans_internal.wal_forget(oid) FROM PUBLIC;
CREATE FUNCTION dpkmeans_internal.on_sql_drop_wal() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    obj record;
BEGIN
    FOR obj IN SELECT o.objid FROM pg_event_trigger_dropped_objects() o
               JOIN dpkmeans_internal.wal_capture w ON w.relid::oid = o.objid
               WHERE o.object_type = 'table' LOOP
        PERFORM dpkmeans_internal.wal_forget(obj.objid);
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION dpkmeans_internal.on_sql_drop_wal() FROM PUBLIC;
CREATE EVENT TRIGGER dpkmeans_sql_drop_wal ON sql_drop
EXECUTE FUNCTION dpkmeans_internal.on_sql_drop_wal();
CREATE FUNCTION dpkmeans_internal.wal_drop_extension() RETURNS event_trigger
AS 'MODULE_PATHNAME', 'dpk_wal_drop_extension' LANGUAGE C;
REVOKE ALL ON FUNCTION dpkmeans_internal.wal_drop_extension() FROM PUBLIC;
CREATE EVENT TRIGGER dpkmeans_wal_drop_extension ON ddl_command_start
    WHEN TAG IN ('DROP EXTENSION')
    EXECUTE FUNCTION dpkmeans_internal.wal_drop_extension();
