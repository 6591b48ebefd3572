-- dpkmeans 0.4 -> 0.5
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.5'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Shards of a table with a norm bound: a coordinator passes the table's
-- norm_bound to every shard, whose capture then moves rows into the same
-- ball before counting them (doc/scale-out.md).  0, the default, is a table
-- without a bound: a coordinator calls such shards with the 15 arguments of
-- 0.3 and 0.4, so shards still at 0.4 keep serving tables without a bound.
-- Shards of a Gaussian table whose norm counter counts in units of 2^s
-- (s > 0: many columns, a small epsilon) get its delta, from which they
-- derive s as the coordinator does; the fingerprint compares the two.
-- ---------------------------------------------------------------------------
SELECT set_config('dpkmeans_upgrade.acl_dp_shard_attach', coalesce(p.proacl::text, ''), true)
FROM pg_catalog.pg_proc p
WHERE p.oid = 'dp_shard_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, int, float8, int, int, bigint, float8)'::regprocedure;
DROP FUNCTION dp_shard_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, int, float8, int, int, bigint, float8);
CREATE FUNCTION dp_shard_attach(tbl regclass, columns text[], k int, epsilon float8,
                                lower float8[], upper float8[], horizon int, mode text,
                                size_hint float8, level int, sum_share float8, dhat int,
                                copies int, proj_seed bigint, norm_share float8,
                                norm_bound float8 DEFAULT 0, delta float8 DEFAULT 0)
RETURNS boolean AS 'MODULE_PATHNAME', 'dp_shard_attach' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_shard_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, int, float8, int, int, bigint, float8, float8, float8) IS
'shard, owner: capture a table''s rows for a coordinator''s attached table (no key, no release), rows moved into the coordinator''s norm bound when it has one, squared norms counted in the coordinator''s unit (derived from its delta); true when newly attached';
UPDATE pg_catalog.pg_proc p
SET proacl = nullif(current_setting('dpkmeans_upgrade.acl_dp_shard_attach'), '')::aclitem[]
WHERE p.oid = 'dp_shard_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, int, float8, int, int, bigint, float8, float8, float8)'::regprocedure;
