-- dpkmeans 0.9: differentially private k-means of live tables.
--
-- The full install script of the current version: CREATE EXTENSION dpkmeans
-- runs this file alone.  It must define exactly what installing 0.1 and
-- updating step by step to 0.9 defines (every function, its grants and
-- comment, every table, column, constraint, index, type and event trigger):
-- the pg_regress suite install_script compares the two catalogs.  Whatever
-- sql/dpkmeans--0.8--0.9.sql adds belongs here too.
\echo Use "CREATE EXTENSION dpkmeans" to load this file. \quit

-- ===========================================================================
-- One-shot functions (no stored state)
-- ===========================================================================

-- The grid-size rules on public inputs (no data is read).
CREATE FUNCTION dp_grid_size(n float8, epsilon float8, k int, d int,
                             rule text DEFAULT 'rugnik')
RETURNS TABLE(m float8, cells_per_dim int, cells float8)
AS 'MODULE_PATHNAME', 'dp_grid_size'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dp_grid_size(float8, float8, int, int, text) IS
'RUGNIK (or EUGkM) grid size for N rows, budget epsilon, k clusters, d dimensions';

-- One-shot k-means or k-median of a read-only query; spends epsilon (and
-- delta) on every call.
CREATE FUNCTION dp_kmeans(query text, k int, epsilon float8,
                          lower float8[], upper float8[], n float8 DEFAULT NULL,
                          delta float8 DEFAULT 0, objective text DEFAULT 'kmeans',
                          norm_bound float8 DEFAULT NULL)
RETURNS TABLE(cluster int, center float8[], noisy_size float8)
AS 'MODULE_PATHNAME', 'dp_kmeans'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8, float8, text, float8) IS
'one-shot k-means (objective ''kmeans'') or k-median (''kmedian'') of the points a SELECT returns (k up to 1000; only the centres that gather a weighted point, at least one): epsilon-DP, or (epsilon, delta)-DP with discrete Gaussian noise when delta > 0; norm_bound: rows moved into the ball of that radius around the box''s middle (6 or more columns)';

-- ===========================================================================
-- Live tables: state in an internal schema nobody but the extension's owner
-- can read.  Functions below switch to that owner only after their checks.
-- ===========================================================================
CREATE SCHEMA dpkmeans_internal;
REVOKE ALL ON SCHEMA dpkmeans_internal FROM PUBLIC;

-- ---------------------------------------------------------------------------
-- Tables.  Their columns are in the order the updates from 0.1 left them
-- (the defaults of the version columns are those of rows attached by 0.1).
-- ---------------------------------------------------------------------------

-- One row per attached table (or shard table): its public configuration and
-- its true folded counters (state, a serialised cell map of the counted
-- level, stored uncompressed so that its size depends on public bounds only).
--   sampler_version  how stream bytes become noise (1: 0.1's fixed 2^20
--                    denominators; 2: adaptive, never rounded down)
--   state_format     cell-map serialisation of state and deltas
--                    (1: DPKCELL1; 2: DPKCELL2, padded to a public size)
--   trigger_format   trigger arguments (1: attribute numbers; 2: names)
--   home_*           cluster (system identifier), WAL timeline and database
--                    of the history
--   tree_arity       arity of the counter trees, fixed at attach
--   norm_bound       rows moved into this ball around the box's middle (0: none)
--   objectives       what a release computes; NULL: attached before 0.7 (both)
--   counter          continual counter of the table's cells: 'tree' (the
--                    tree of its arity; every table before 0.9), for a
--                    Gaussian table 'square_root' (the square-root
--                    factorization; 'square_root_sums' for a projected
--                    one whose lifting sums count on it too,
--                    'square_root_lifted' when a release draws them only
--                    for the cells it lifts from), for a pure low-d one
--                    'share_tree'
CREATE TABLE dpkmeans_internal.tracked (
    relid           regclass PRIMARY KEY,
    columns         text[] NOT NULL,
    d               int NOT NULL,
    k               int NOT NULL,
    epsilon         float8 NOT NULL,
    lower           float8[] NOT NULL,
    upper           float8[] NOT NULL,
    horizon         int NOT NULL,
    mode            text NOT NULL,
    size_hint       float8 NOT NULL,
    level           int NOT NULL,
    sum_share       float8 NOT NULL,
    dhat            int NOT NULL DEFAULT 0,       -- projected dimension (0: none)
    copies          int NOT NULL DEFAULT 1,       -- independent projections
    proj_seed       bigint NOT NULL DEFAULT 0,    -- public seed of the projections
    norm_share      float8 NOT NULL DEFAULT 0,    -- epsilon share of the sum of norms
    releases        int NOT NULL DEFAULT 0,
    state           bytea NOT NULL,
    attached_at     timestamptz NOT NULL DEFAULT now(),
    sampler_version int NOT NULL DEFAULT 1,
    state_format    int NOT NULL DEFAULT 1,
    trigger_format  int NOT NULL DEFAULT 1,
    home_system_id  bigint,
    home_timeline   int,
    home_database   oid,
    delta           float8 NOT NULL DEFAULT 0,
    tree_arity      int NOT NULL DEFAULT 2 CHECK (tree_arity BETWEEN 2 AND 16),
    norm_bound      float8 NOT NULL DEFAULT 0 CHECK (norm_bound >= 0),
    objectives      text[] CHECK (objectives IN ('{kmeans}', '{kmeans,kmedian}')),
    counter         text NOT NULL DEFAULT 'tree'
                    CHECK (counter IN ('tree', 'square_root', 'share_tree', 'square_root_sums',
                                       'square_root_lifted'))
);
ALTER TABLE dpkmeans_internal.tracked ALTER COLUMN state SET STORAGE EXTERNAL;

-- The secret PRF key of each table's node noise.
CREATE TABLE dpkmeans_internal.keys (
    relid regclass PRIMARY KEY,
    key   bytea NOT NULL
);

-- Per-statement changes appended by the capture, folded at the next release.
-- A writing statement appends its delta by a direct heap insertion of one
-- pre-formed tuple (src/capture/capture_cache.c): no sequence, no index.
CREATE TABLE dpkmeans_internal.delta (
    relid   regclass NOT NULL,
    payload bytea NOT NULL
);
ALTER TABLE dpkmeans_internal.delta ALTER COLUMN payload SET STORAGE EXTERNAL;

-- Snapshots: every release, its centres for every k' and objective, its
-- cost curves and its noisy histogram (padded to every cell of its level,
-- stored uncompressed).
CREATE TABLE dpkmeans_internal.releases (
    relid        regclass NOT NULL,
    t            int NOT NULL,
    made_at      timestamptz NOT NULL,
    level        int NOT NULL,
    noisy_n      float8 NOT NULL,
    PRIMARY KEY (relid, t)
);
CREATE TABLE dpkmeans_internal.centers (
    relid      regclass NOT NULL,
    t          int NOT NULL,
    k          int NOT NULL,
    cluster    int NOT NULL,
    center     float8[] NOT NULL,
    noisy_size float8 NOT NULL,
    objective  text NOT NULL DEFAULT 'kmeans' CHECK (objective IN ('kmeans', 'kmedian')),
    PRIMARY KEY (relid, t, objective, k, cluster)
);
CREATE TABLE dpkmeans_internal.costs (
    relid      regclass NOT NULL,
    t          int NOT NULL,
    k          int NOT NULL,
    noisy_cost float8 NOT NULL,
    objective  text NOT NULL DEFAULT 'kmeans' CHECK (objective IN ('kmeans', 'kmedian')),
    PRIMARY KEY (relid, t, objective, k)
);
CREATE TABLE dpkmeans_internal.histogram (
    relid   regclass NOT NULL,
    t       int NOT NULL,
    payload bytea NOT NULL,
    CONSTRAINT histogram_pkey PRIMARY KEY (relid, t)
);
ALTER TABLE dpkmeans_internal.histogram ALTER COLUMN payload SET STORAGE EXTERNAL;

-- Roles the owner granted reading of a table's releases.
CREATE TABLE dpkmeans_internal.readers (
    relid      regclass NOT NULL,
    reader     regrole NOT NULL,
    granted_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT readers_pkey PRIMARY KEY (relid, reader)
);

-- Coordinator: the foreign partitions of an attached table whose servers
-- capture their own rows, and the schema of dpkmeans on each of them.
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

-- Tables attached with capture => 'wal': one replication slot each (named
-- dpkmeans_<database oid>_<table oid>), REPLICA IDENTITY FULL while attached.
CREATE TABLE dpkmeans_internal.wal_capture (
    relid         regclass PRIMARY KEY,
    slot_name     name NOT NULL,
    lsn           pg_lsn NOT NULL,   -- every transaction committed up to here is counted
    prev_identity "char" NOT NULL,   -- pg_class.relreplident before dp_attach
    prev_index    regclass           -- its index when that was 'i'
);

-- Projected pure tables lifting by public regions: the true region sums,
-- the public region maps and the previous release's cells, padded to a
-- public size and stored uncompressed.
CREATE TABLE dpkmeans_internal.regions (
    relid regclass PRIMARY KEY,
    state bytea NOT NULL
);
ALTER TABLE dpkmeans_internal.regions ALTER COLUMN state SET STORAGE EXTERNAL;

-- The privacy ledger: one row per history of a table's rows (an attach,
-- with its key and its releases), kept by dp_detach and re-attach, removed
-- with the table.
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

-- (wal_capture keeps the default privileges it was created with, the
-- owner's alone; the others were revoked from PUBLIC explicitly.)
REVOKE ALL ON dpkmeans_internal.tracked, dpkmeans_internal.keys, dpkmeans_internal.delta,
    dpkmeans_internal.releases, dpkmeans_internal.centers, dpkmeans_internal.costs,
    dpkmeans_internal.histogram, dpkmeans_internal.readers, dpkmeans_internal.shards,
    dpkmeans_internal.shard_tables, dpkmeans_internal.regions, dpkmeans_internal.ledger
    FROM PUBLIC;

-- The state is dumped with the tables' data (pg_dump).
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.tracked', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.keys', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.delta', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.releases', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.centers', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.costs', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.histogram', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.readers', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.shards', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.shard_tables', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.wal_capture', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.regions', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.ledger', '');

-- ===========================================================================
-- Owner side
-- ===========================================================================
CREATE FUNCTION dp_attach(tbl regclass, columns text[], k int, epsilon float8,
                          lower float8[], upper float8[], horizon int DEFAULT 1024,
                          mode text DEFAULT 'insert_delete', size_hint float8 DEFAULT NULL,
                          delta float8 DEFAULT 0, capture text DEFAULT 'trigger',
                          norm_bound float8 DEFAULT NULL, fresh_budget boolean DEFAULT false)
RETURNS void AS 'MODULE_PATHNAME', 'dp_attach' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8, boolean) IS
'owner: attach a table, k up to 100 (existing rows become events of release 1; no release is made; rows outside the box are counted for the owner); delta > 0: (epsilon, delta)-DP with discrete Gaussian noise; capture ''wal'': changes counted from the WAL by logical decoding (wal_level = logical, own transaction, a replication slot); norm_bound: rows moved into the ball of that radius around the box''s middle (projected tables, 6 or more columns); the ledger adds this history''s epsilon and delta to the earlier ones, unless fresh_budget => true starts a new budget';

-- Readers and the report check the caller themselves (owner, superuser or a
-- granted reader); NULL arguments are refused with an error, never ignored.
CREATE FUNCTION dp_detach(tbl regclass) RETURNS void
AS 'MODULE_PATHNAME', 'dp_detach' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_detach(regclass) IS
'owner: remove the triggers, the key and every release of a table';

CREATE FUNCTION dp_release(tbl regclass) RETURNS int
AS 'MODULE_PATHNAME', 'dp_release' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_release(regclass) IS
'owner: make and durably commit the next release (not inside a transaction block); returns its number';

CREATE FUNCTION dp_verify(tbl regclass) RETURNS boolean
AS 'MODULE_PATHNAME', 'dp_verify' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_verify(regclass) IS
'owner: whether the stored true state equals a recount of the table';

CREATE FUNCTION dp_grant_reader(tbl regclass, role regrole) RETURNS boolean
AS 'MODULE_PATHNAME', 'dp_grant_reader' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_grant_reader(regclass, regrole) IS
'owner: let a role (and its members) read a table''s releases';

CREATE FUNCTION dp_revoke_reader(tbl regclass, role regrole) RETURNS boolean
AS 'MODULE_PATHNAME', 'dp_revoke_reader' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_revoke_reader(regclass, regrole) IS
'owner: stop a role reading a table''s releases';

CREATE FUNCTION dp_confirm_history(tbl regclass) RETURNS void
AS 'MODULE_PATHNAME', 'dp_confirm_history' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_confirm_history(regclass) IS
'owner: after a restore, PITR or failover, make this copy the one that goes on releasing';

CREATE FUNCTION dp_capture_sync(tbl regclass) RETURNS pg_lsn
AS 'MODULE_PATHNAME', 'dp_capture_sync' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_capture_sync(regclass) IS
'owner: count the committed changes of a table attached with capture => ''wal'' into its pending deltas; returns the WAL position they are counted to';

CREATE FUNCTION dp_capture_resync(tbl regclass) RETURNS pg_lsn
AS 'MODULE_PATHNAME', 'dp_capture_resync' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_capture_resync(regclass) IS
'owner: a table attached with capture => ''wal'' whose slot is gone or was moved gets a new slot, and the difference between a recount of the table and its stored state becomes one pending delta; returns the new counted WAL position';

CREATE FUNCTION dp_bounds_check(tbl regclass)
RETURNS TABLE(column_name text, lower float8, upper float8, points bigint,
              below_lower bigint, above_upper bigint, below_share float8,
              above_share float8)
AS 'MODULE_PATHNAME', 'dp_bounds_check' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_bounds_check(regclass) IS
'owner: per tracked column, how many rows lie below lower and above upper (clamped onto the box), and their shares; a WARNING when a share is large';

CREATE FUNCTION dp_set_objectives(tbl regclass, objectives text[]) RETURNS void
AS 'MODULE_PATHNAME', 'dp_set_objectives' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_set_objectives(regclass, text[]) IS
'owner: what the next releases compute: ARRAY[''kmeans''] (the default of tables attached from 0.7 on) or ARRAY[''kmeans'', ''kmedian''] (k-median centres and costs too, for dp_centers and dp_cost_curve with objective => ''kmedian'')';

-- ===========================================================================
-- Reader side: post-processing of stored noisy releases
-- ===========================================================================
CREATE FUNCTION dp_centers(tbl regclass, k int, objective text DEFAULT 'kmeans',
                           release int DEFAULT NULL)
RETURNS TABLE(cluster int, center float8[], noisy_size float8, release int,
              released_at timestamptz)
AS 'MODULE_PATHNAME', 'dp_centers' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_centers(regclass, int, text, int) IS
'reader: a release''s k centres (any k up to the attached k; only those that gather a weighted point, at least one), k-means or k-median; release NULL: the latest';

CREATE FUNCTION dp_histogram(tbl regclass, level int DEFAULT NULL, release int DEFAULT NULL)
RETURNS TABLE(level int, cell int[], center float8[], noisy_count float8, release int,
              released_at timestamptz)
AS 'MODULE_PATHNAME', 'dp_histogram' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_histogram(regclass, int, int) IS
'reader: a release''s noisy histogram at a level (counts unbiased, so some are negative); release NULL: the latest';

CREATE FUNCTION dp_cost_curve(tbl regclass, objective text DEFAULT 'kmeans',
                              release int DEFAULT NULL)
RETURNS TABLE(k int, noisy_cost float8, release int, released_at timestamptz)
AS 'MODULE_PATHNAME', 'dp_cost_curve' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_cost_curve(regclass, text, int) IS
'reader: a release''s private cost estimate for k'' = 1..k (sum of squared distances, or of distances for ''kmedian''); release NULL: the latest';

CREATE FUNCTION dp_box(tbl regclass)
RETURNS TABLE(lower float8[], upper float8[])
AS 'MODULE_PATHNAME', 'dp_box' LANGUAGE C STABLE ROWS 1;
COMMENT ON FUNCTION dp_box(regclass) IS
'reader: the box the table was attached with (public configuration), one bound per dimension';

CREATE FUNCTION dp_privacy_report(tbl regclass)
RETURNS TABLE(item text, value text)
AS 'MODULE_PATHNAME', 'dp_privacy_report' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_privacy_report(regclass) IS
'reader: the privacy accounting of a table, its readers and its history';

CREATE FUNCTION dp_privacy_ledger(tbl regclass)
RETURNS TABLE(history int, epsilon float8, delta float8, horizon int, releases int,
              spent boolean, fresh_budget boolean, attached_at timestamptz,
              detached_at timestamptz, recorded_at_update boolean)
AS 'MODULE_PATHNAME', 'dp_privacy_ledger' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_privacy_ledger(regclass) IS
'owner and granted readers: every history of a table''s rows in its privacy ledger (also after dp_detach): epsilon, delta, releases, whether it counts, fresh budgets';

CREATE FUNCTION dp_tables()
RETURNS TABLE(tbl regclass, columns text[], k int, epsilon float8, delta float8,
              horizon int, releases_used int, releases_left int, last_release int,
              last_release_at timestamptz, capture text, mode text,
              attached_at timestamptz, readers text[], epsilon_spent float8,
              delta_spent float8)
AS 'MODULE_PATHNAME', 'dp_tables' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_tables() IS
'anyone: every attached table the caller owns or may read, with epsilon, delta, horizon, releases used and left, the last release and its time, capture, mode, (owner only) its readers, and the epsilon and delta its rows spent over every history (the privacy ledger)';

-- ===========================================================================
-- Shard side, called by a coordinator through its user mapping's role
-- (doc/scale-out.md)
-- ===========================================================================
-- The shard protocol takes one versioned argument: a coordinator sends its
-- table's configuration as one jsonb object with a protocol version
-- ({"protocol": 1, "columns": [...], ...}); a shard that does not speak
-- that version refuses it by name.  The positional entry point stays for
-- coordinators still at 0.7 during a rolling update.
CREATE FUNCTION dp_shard_attach(tbl regclass, config jsonb)
RETURNS boolean AS 'MODULE_PATHNAME', 'dp_shard_attach_config' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_shard_attach(regclass, jsonb) IS
'shard, owner: capture a table''s rows for a coordinator''s attached table (no key, no release), with the configuration the coordinator sends as one jsonb of shard protocol version 1; true when newly attached';

-- The positional entry point of coordinators at 0.5 to 0.7.
CREATE FUNCTION dp_shard_attach(tbl regclass, columns text[], k int, epsilon float8,
                                lower float8[], upper float8[], horizon int, mode text,
                                size_hint float8, level int, sum_share float8, dhat int,
                                copies int, proj_seed bigint, norm_share float8,
                                norm_bound float8 DEFAULT 0, delta float8 DEFAULT 0)
RETURNS boolean AS 'MODULE_PATHNAME', 'dp_shard_attach' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_shard_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, int, float8, int, int, bigint, float8, float8, float8) IS
'shard, owner: capture a table''s rows for a coordinator''s attached table (no key, no release), rows moved into the coordinator''s norm bound when it has one, squared norms counted in the coordinator''s unit (derived from its delta); true when newly attached';

CREATE FUNCTION dp_shard_state(tbl regclass, fingerprint text) RETURNS bytea
AS 'MODULE_PATHNAME', 'dp_shard_state' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_shard_state(regclass, text) IS
'shard, roles that can read the tracked columns: fold the deltas and return the true (un-noised) per-cell state';

CREATE FUNCTION dp_shard_detach(tbl regclass) RETURNS boolean
AS 'MODULE_PATHNAME', 'dp_shard_detach' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_shard_detach(regclass) IS
'shard, owner: remove the capture of a shard table; false when it was not attached as a shard';

-- ===========================================================================
-- Capture: trigger functions (statement level with transition tables, a row
-- trigger for logical replication workers, src/capture/trigger.c) and the helpers
-- that install them on tables attached by older versions.  Called by the
-- server only, never by a role, except the two that partitions' clones of
-- the root's row triggers need EXECUTE on for the tables' owners.
-- ===========================================================================
CREATE FUNCTION dpkmeans_internal.capture() RETURNS trigger
AS 'MODULE_PATHNAME', 'dpk_capture' LANGUAGE C;
CREATE FUNCTION dpkmeans_internal.capture_truncate() RETURNS trigger
AS 'MODULE_PATHNAME', 'dpk_capture_truncate' LANGUAGE C;
CREATE FUNCTION dpkmeans_internal.refuse() RETURNS trigger
AS 'MODULE_PATHNAME', 'dpk_refuse' LANGUAGE C;
CREATE FUNCTION dpkmeans_internal.capture_row() RETURNS trigger
AS 'MODULE_PATHNAME', 'dpk_capture_row' LANGUAGE C;
CREATE FUNCTION dpkmeans_internal.capture_routed() RETURNS trigger
AS 'MODULE_PATHNAME', 'dpk_capture_routed' LANGUAGE C;
CREATE FUNCTION dpkmeans_internal.capture_flush() RETURNS trigger
AS 'MODULE_PATHNAME', 'dpk_capture_flush' LANGUAGE C;
CREATE FUNCTION dpkmeans_internal.add_row_capture(tbl regclass) RETURNS void
AS 'MODULE_PATHNAME', 'dpk_add_row_capture' LANGUAGE C STRICT;
CREATE FUNCTION dpkmeans_internal.add_moved_refusal(tbl regclass) RETURNS void
AS 'MODULE_PATHNAME', 'dpk_add_moved_refusal' LANGUAGE C STRICT;
CREATE FUNCTION dpkmeans_internal.record_home(tbl regclass) RETURNS void
AS 'MODULE_PATHNAME', 'dpk_record_home' LANGUAGE C STRICT;
CREATE FUNCTION dpkmeans_internal.wal_forget(relid oid) RETURNS void
AS 'MODULE_PATHNAME', 'dpk_wal_forget' LANGUAGE C STRICT;
CREATE FUNCTION dpkmeans_internal.partition_drop_counted(nspname text, relname text)
RETURNS boolean AS 'MODULE_PATHNAME', 'dpk_partition_drop_counted' LANGUAGE C STRICT;
REVOKE ALL ON FUNCTION dpkmeans_internal.capture(), dpkmeans_internal.capture_truncate(),
    dpkmeans_internal.refuse(), dpkmeans_internal.capture_row(),
    dpkmeans_internal.capture_routed(), dpkmeans_internal.capture_flush(),
    dpkmeans_internal.add_row_capture(regclass), dpkmeans_internal.add_moved_refusal(regclass),
    dpkmeans_internal.record_home(regclass), dpkmeans_internal.wal_forget(oid),
    dpkmeans_internal.partition_drop_counted(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dpkmeans_internal.capture_row(), dpkmeans_internal.refuse() TO PUBLIC;

-- ===========================================================================
-- Event triggers: they fire in every session (also under
-- session_replication_role = replica), in the order of their names.
-- ===========================================================================

-- Dropping an attached table removes its state; dropping a tracked column is
-- refused until the table is detached (columns are matched by name); a
-- capture trigger dropped while its table stays attached, or a partition
-- dropped by a cascade without its rows counted, is refused.
CREATE FUNCTION dpkmeans_internal.on_sql_drop() RETURNS event_trigger
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
REVOKE ALL ON FUNCTION dpkmeans_internal.on_sql_drop() FROM PUBLIC;
CREATE EVENT TRIGGER dpkmeans_sql_drop ON sql_drop
    EXECUTE FUNCTION dpkmeans_internal.on_sql_drop();

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

-- A dropped table's replication slot goes with it (at commit).
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

-- DDL that would let writes bypass the capture (disabling, dropping or
-- renaming its triggers, a column type rewrite, inheritance children,
-- foreign partitions, typed tables' attributes, CREATE SCHEMA's table
-- elements) or break how tracked columns are found is refused on attached
-- tables; DROP TABLE of a partition counts its rows first.
CREATE FUNCTION dpkmeans_internal.guard_ddl() RETURNS event_trigger
AS 'MODULE_PATHNAME', 'dpk_guard_ddl' LANGUAGE C;
REVOKE ALL ON FUNCTION dpkmeans_internal.guard_ddl() FROM PUBLIC;
CREATE EVENT TRIGGER dpkmeans_guard_ddl ON ddl_command_start
    WHEN TAG IN ('ALTER TABLE', 'ALTER TRIGGER', 'DROP TRIGGER', 'CREATE TABLE',
                 'CREATE FOREIGN TABLE', 'DROP TABLE', 'ALTER TYPE', 'CREATE SCHEMA')
    EXECUTE FUNCTION dpkmeans_internal.guard_ddl();

-- Partition DDL of an attached partitioned table: new partitions get the
-- capture triggers, ATTACH PARTITION counts the partition's rows as
-- insertions and DETACH PARTITION as deletions.
CREATE FUNCTION dpkmeans_internal.partition_ddl_end() RETURNS event_trigger
AS 'MODULE_PATHNAME', 'dpk_partition_ddl_end' LANGUAGE C;
REVOKE ALL ON FUNCTION dpkmeans_internal.partition_ddl_end() FROM PUBLIC;
CREATE EVENT TRIGGER dpkmeans_partition_ddl ON ddl_command_end
    WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE')
    EXECUTE FUNCTION dpkmeans_internal.partition_ddl_end();

-- DROP EXTENSION dpkmeans drops every table's replication slot.
CREATE FUNCTION dpkmeans_internal.wal_drop_extension() RETURNS event_trigger
AS 'MODULE_PATHNAME', 'dpk_wal_drop_extension' LANGUAGE C;
REVOKE ALL ON FUNCTION dpkmeans_internal.wal_drop_extension() FROM PUBLIC;
CREATE EVENT TRIGGER dpkmeans_wal_drop_extension ON ddl_command_start
    WHEN TAG IN ('DROP EXTENSION')
    EXECUTE FUNCTION dpkmeans_internal.wal_drop_extension();

-- ===========================================================================
-- Reader grants are PostgreSQL privileges of their roles: a role granted
-- reading (dp_grant_reader) holds USAGE on the domain
-- dpkmeans_internal.reader_grants (which gives nothing else), so DROP ROLE
-- is refused while it reads a table, as for any grant, and DROP OWNED BY
-- removes its grants; a grant counts only while its role holds it.
-- ===========================================================================
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

-- A grant row inserted otherwise than by dp_grant_reader (the rows of a
-- restored dump) gives its role the privilege too.
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

ALTER EVENT TRIGGER dpkmeans_sql_drop ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_sql_drop_shards ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_sql_drop_wal ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_sql_drop_regions ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_sql_drop_ledger ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_sql_drop_readers ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_guard_ddl ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_partition_ddl ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_wal_drop_extension ENABLE ALWAYS;
ALTER EVENT TRIGGER dpkmeans_reader_privileges ENABLE ALWAYS;

-- ===========================================================================
-- One line of COMMENT ON for every internal function
-- ===========================================================================
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
