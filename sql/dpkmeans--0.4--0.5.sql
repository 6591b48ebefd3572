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
SELECT set_config('dpkmeans_upgrade.grants_' || p.proname,
                  CASE WHEN p.proacl IS NULL THEN 'default'
                       ELSE coalesce((SELECT string_agg(e.grantee::text || '/' || e.is_grantable::text, ',')
                                      FROM pg_catalog.aclexplode(p.proacl) e
                                      WHERE e.privilege_type = 'EXECUTE'), '') END,
                  true)
FROM pg_catalog.pg_proc p
WHERE p.oid IN ('dp_shard_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, int, float8, int, int, bigint, float8)'::regprocedure);
DROP FUNCTION dp_shard_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, int, float8, int, int, bigint, float8);
CREATE FUNCTION dp_shard_attach(tbl regclass, columns text[], k int, epsilon float8,
                                lower float8[], upper float8[], horizon int, mode text,
                                size_hint float8, level int, sum_share float8, dhat int,
                                copies int, proj_seed bigint, norm_share float8,
                                norm_bound float8 DEFAULT 0, delta float8 DEFAULT 0)
RETURNS boolean AS 'MODULE_PATHNAME', 'dp_shard_attach' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_shard_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, int, float8, int, int, bigint, float8, float8, float8) IS
'shard, owner: capture a table''s rows for a coordinator''s attached table (no key, no release), rows moved into the coordinator''s norm bound when it has one, squared norms counted in the coordinator''s unit (derived from its delta); true when newly attached';
DO $$
DECLARE
    sig text;
    acl text;
    item text;
    grantee oid;
BEGIN
    FOREACH sig IN ARRAY ARRAY['dp_shard_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, int, float8, int, int, bigint, float8, float8, float8)'] LOOP
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
