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

SELECT set_config('dpkmeans_upgrade.grants_' || p.proname,
                  CASE WHEN p.proacl IS NULL THEN 'default'
                       ELSE coalesce((SELECT string_agg(e.grantee::text || '/' || e.is_grantable::text, ',')
                                      FROM pg_catalog.aclexplode(p.proacl) e
                                      WHERE e.privilege_type = 'EXECUTE'), '') END,
                  true)
FROM pg_catalog.pg_proc p
WHERE p.oid IN ('dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text)'::regprocedure);
DROP FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text);
CREATE FUNCTION dp_attach(tbl regclass, columns text[], k int, epsilon float8,
                          lower float8[], upper float8[], horizon int DEFAULT 1024,
                          mode text DEFAULT 'insert_delete', size_hint float8 DEFAULT NULL,
                          delta float8 DEFAULT 0, capture text DEFAULT 'trigger',
                          norm_bound float8 DEFAULT NULL)
RETURNS void AS 'MODULE_PATHNAME', 'dp_attach' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8) IS
'owner: attach a table (existing rows become events of release 1; no release is made); delta > 0: (epsilon, delta)-DP with discrete Gaussian noise; capture ''wal'': changes counted from the WAL by logical decoding (wal_level = logical, own transaction, a replication slot); norm_bound: rows moved into the ball of that radius around the box''s middle (projected tables, 6 or more columns)';
DO $$
DECLARE
    sig text;
    acl text;
    item text;
    grantee oid;
BEGIN
    FOREACH sig IN ARRAY ARRAY['dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8)'] LOOP
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

-- The same bound for one-shot releases: dp_kmeans(..., norm_bound => R).
SELECT set_config('dpkmeans_upgrade.grants_' || p.proname,
                  CASE WHEN p.proacl IS NULL THEN 'default'
                       ELSE coalesce((SELECT string_agg(e.grantee::text || '/' || e.is_grantable::text, ',')
                                      FROM pg_catalog.aclexplode(p.proacl) e
                                      WHERE e.privilege_type = 'EXECUTE'), '') END,
                  true)
FROM pg_catalog.pg_proc p
WHERE p.oid IN ('dp_kmeans(text, int, float8, float8[], float8[], float8, float8, text)'::regprocedure);
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
DO $$
DECLARE
    sig text;
    acl text;
    item text;
    grantee oid;
BEGIN
    FOREACH sig IN ARRAY ARRAY['dp_kmeans(text, int, float8, float8[], float8[], float8, float8, text, float8)'] LOOP
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
