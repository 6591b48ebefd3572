-- dpkmeans 0.1: differentially private k-means
\echo Use "CREATE EXTENSION dpkmeans" to load this file. \quit

-- The grid-size rules on public inputs (no data is read).
CREATE FUNCTION dp_grid_size(n float8, epsilon float8, k int, d int,
                             rule text DEFAULT 'rugnik')
RETURNS TABLE(m float8, cells_per_dim int, cells float8)
AS 'MODULE_PATHNAME', 'dp_grid_size'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION dp_grid_size(float8, float8, int, int, text) IS
'RUGNIK (or EUGkM) grid size for N rows, budget epsilon, k clusters, d dimensions';

-- One-shot epsilon-DP k-means of a read-only query; spends epsilon on every call.
CREATE FUNCTION dp_kmeans(query text, k int, epsilon float8,
                          lower float8[], upper float8[], n float8 DEFAULT NULL)
RETURNS TABLE(cluster int, center float8[], noisy_size float8)
AS 'MODULE_PATHNAME', 'dp_kmeans'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8) IS
'one-shot epsilon-DP k-means of the points a SELECT returns (exactly k rows)';

-- ---------------------------------------------------------------------------
-- Live tables: state in an internal schema nobody but the extension's owner
-- can read.  Functions below switch to that owner only after their checks.
-- ---------------------------------------------------------------------------
CREATE SCHEMA dpkmeans_internal;
REVOKE ALL ON SCHEMA dpkmeans_internal FROM PUBLIC;

-- One row per attached table: its public configuration and its true folded
-- counters (state, a serialised cell map of the counted level).
CREATE TABLE dpkmeans_internal.tracked (
    relid       regclass PRIMARY KEY,
    columns     text[] NOT NULL,
    attnums     int2[] NOT NULL,
    d           int NOT NULL,
    k           int NOT NULL,
    epsilon     float8 NOT NULL,
    lower       float8[] NOT NULL,
    upper       float8[] NOT NULL,
    horizon     int NOT NULL,
    mode        text NOT NULL,
    size_hint   float8 NOT NULL,
    level       int NOT NULL,
    sum_share   float8 NOT NULL,
    dhat        int NOT NULL DEFAULT 0,       -- projected dimension (0: none)
    copies      int NOT NULL DEFAULT 1,       -- independent projections
    proj_seed   bigint NOT NULL DEFAULT 0,    -- public seed of the projections
    norm_share  float8 NOT NULL DEFAULT 0,    -- epsilon share of the sum of norms
    releases    int NOT NULL DEFAULT 0,
    state       bytea NOT NULL,
    attached_at timestamptz NOT NULL DEFAULT now()
);

-- The secret PRF key of each table's node noise.
CREATE TABLE dpkmeans_internal.keys (
    relid regclass PRIMARY KEY,
    key   bytea NOT NULL
);

-- Per-statement changes appended by the triggers, folded at the next release.
CREATE TABLE dpkmeans_internal.delta (
    id      bigserial PRIMARY KEY,
    relid   regclass NOT NULL,
    payload bytea NOT NULL
);
CREATE INDEX ON dpkmeans_internal.delta (relid);

-- Snapshots: every release, its centres for every k' and its cost curve.
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
    PRIMARY KEY (relid, t, k, cluster)
);
CREATE TABLE dpkmeans_internal.costs (
    relid      regclass NOT NULL,
    t          int NOT NULL,
    k          int NOT NULL,
    noisy_cost float8 NOT NULL,
    PRIMARY KEY (relid, t, k)
);
-- The noisy counted level of the latest release (serialised cell map).
CREATE TABLE dpkmeans_internal.histogram (
    relid   regclass PRIMARY KEY,
    t       int NOT NULL,
    payload bytea NOT NULL
);

REVOKE ALL ON ALL TABLES IN SCHEMA dpkmeans_internal FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA dpkmeans_internal FROM PUBLIC;

SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.tracked', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.keys', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.delta', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.delta_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.releases', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.centers', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.costs', '');
SELECT pg_catalog.pg_extension_config_dump('dpkmeans_internal.histogram', '');

-- Trigger functions (statement level, transition tables; see src/trigger.c).
CREATE FUNCTION dpkmeans_internal.capture() RETURNS trigger
AS 'MODULE_PATHNAME', 'dpk_capture' LANGUAGE C;
CREATE FUNCTION dpkmeans_internal.capture_truncate() RETURNS trigger
AS 'MODULE_PATHNAME', 'dpk_capture_truncate' LANGUAGE C;
CREATE FUNCTION dpkmeans_internal.refuse() RETURNS trigger
AS 'MODULE_PATHNAME', 'dpk_refuse' LANGUAGE C;
REVOKE ALL ON FUNCTION dpkmeans_internal.capture(), dpkmeans_internal.capture_truncate(),
    dpkmeans_internal.refuse() FROM PUBLIC;

-- Owner side.
CREATE FUNCTION dp_attach(tbl regclass, columns text[], k int, epsilon float8,
                          lower float8[], upper float8[], horizon int DEFAULT 1024,
                          mode text DEFAULT 'insert_delete', size_hint float8 DEFAULT NULL)
RETURNS void AS 'MODULE_PATHNAME', 'dp_attach' LANGUAGE C VOLATILE;
CREATE FUNCTION dp_detach(tbl regclass) RETURNS void
AS 'MODULE_PATHNAME', 'dp_detach' LANGUAGE C VOLATILE STRICT;
CREATE FUNCTION dp_release(tbl regclass) RETURNS int
AS 'MODULE_PATHNAME', 'dp_release' LANGUAGE C VOLATILE STRICT;
CREATE FUNCTION dp_verify(tbl regclass) RETURNS boolean
AS 'MODULE_PATHNAME', 'dp_verify' LANGUAGE C VOLATILE STRICT;

-- Analyst side: post-processing of stored noisy snapshots.
CREATE FUNCTION dp_centers(tbl regclass, k int)
RETURNS TABLE(cluster int, center float8[], noisy_size float8)
AS 'MODULE_PATHNAME', 'dp_centers' LANGUAGE C VOLATILE;
CREATE FUNCTION dp_histogram(tbl regclass, level int DEFAULT NULL)
RETURNS TABLE(level int, cell int[], center float8[], noisy_count float8)
AS 'MODULE_PATHNAME', 'dp_histogram' LANGUAGE C VOLATILE;
CREATE FUNCTION dp_cost_curve(tbl regclass)
RETURNS TABLE(k int, noisy_cost float8)
AS 'MODULE_PATHNAME', 'dp_cost_curve' LANGUAGE C VOLATILE;
CREATE FUNCTION dp_privacy_report(tbl regclass)
RETURNS TABLE(item text, value text)
AS 'MODULE_PATHNAME', 'dp_privacy_report' LANGUAGE C VOLATILE;

-- Dropping an attached table removes its state; dropping a tracked column is
-- refused until the table is detached.
CREATE FUNCTION dpkmeans_internal.on_sql_drop() RETURNS event_trigger
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
        ELSIF obj.object_type = 'table column' AND EXISTS (
                SELECT 1 FROM dpkmeans_internal.tracked
                WHERE relid::oid = obj.objid AND obj.objsubid = ANY (attnums)) THEN
            RAISE EXCEPTION 'cannot drop column % : it is tracked by dpkmeans', obj.object_identity
                USING ERRCODE = 'dependent_objects_still_exist',
                      HINT = 'Run dp_detach on the table first (its releases are then removed).';
        END IF;
    END LOOP;
END
$$;
CREATE EVENT TRIGGER dpkmeans_sql_drop ON sql_drop
EXECUTE FUNCTION dpkmeans_internal.on_sql_drop();
