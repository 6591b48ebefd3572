-- dpkmeans 0.3 -> 0.4
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.4'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- A norm bound for projected live tables: dp_attach(..., norm_bound => R)
-- moves every row into the ball of radius R around the box's middle before
-- it is counted (unit-norm embeddings declared in [-1, 1]^d: R = 1).  One
-- row's lifting sums then move by at most about R in l2 instead of
-- sqrt(d) times the box's half-width, and their noise shrinks with it
-- (doc/privacy.md, "A norm bound").  0, the default and every table attached
-- before, keeps the box alone.
-- ---------------------------------------------------------------------------
ALTER TABLE dpkmeans_internal.tracked
    ADD COLUMN norm_bound float8 NOT NULL DEFAULT 0 CHECK (norm_bound >= 0);

SELECT set_config('dpkmeans_upgrade.acl_dp_attach', coalesce(p.proacl::text, ''), true)
FROM pg_catalog.pg_proc p
WHERE p.oid = 'dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text)'::regprocedure;
DROP FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text);
CREATE FUNCTION dp_attach(tbl regclass, columns text[], k int, epsilon float8,
                          lower float8[], upper float8[], horizon int DEFAULT 1024,
                          mode text DEFAULT 'insert_delete', size_hint float8 DEFAULT NULL,
                          delta float8 DEFAULT 0, capture text DEFAULT 'trigger',
                          norm_bound float8 DEFAULT NULL)
RETURNS void AS 'MODULE_PATHNAME', 'dp_attach' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8) IS
'owner: attach a table (existing rows become events of release 1; no release is made); delta > 0: (epsilon, delta)-DP with discrete Gaussian noise; capture ''wal'': changes counted from the WAL by logical decoding (wal_level = logical, own transaction, a replication slot); norm_bound: rows moved into the ball of that radius around the box''s middle (projected tables, 6 or more columns)';
UPDATE pg_catalog.pg_proc p
SET proacl = nullif(current_setting('dpkmeans_upgrade.acl_dp_attach'), '')::aclitem[]
WHERE p.oid = 'dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8)'::regprocedure;

-- The same bound for one-shot releases: dp_kmeans(..., norm_bound => R).
SELECT set_config('dpkmeans_upgrade.acl_dp_kmeans', coalesce(p.proacl::text, ''), true)
FROM pg_catalog.pg_proc p
WHERE p.oid = 'dp_kmeans(text, int, float8, float8[], float8[], float8, float8, text)'::regprocedure;
DROP FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8, float8, text);
CREATE FUNCTION dp_kmeans(query text, k int, epsilon float8,
                          lower float8[], upper float8[], n float8 DEFAULT NULL,
                          delta float8 DEFAULT 0, objective text DEFAULT 'kmeans',
                          norm_bound float8 DEFAULT NULL)
RETURNS TABLE(cluster int, center float8[], noisy_size float8)
AS 'MODULE_PATHNAME', 'dp_kmeans'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8, float8, text, float8) IS
'one-shot k-means (objective ''kmeans'') or k-median (''kmedian'') of the points a SELECT returns (exactly k rows): epsilon-DP, or (epsilon, delta)-DP with discrete Gaussian noise when delta > 0; norm_bound: rows moved into the ball of that radius around the box''s middle (6 or more columns)';
UPDATE pg_catalog.pg_proc p
SET proacl = nullif(current_setting('dpkmeans_upgrade.acl_dp_kmeans'), '')::aclitem[]
WHERE p.oid = 'dp_kmeans(text, int, float8, float8[], float8[], float8, float8, text, float8)'::regprocedure;
