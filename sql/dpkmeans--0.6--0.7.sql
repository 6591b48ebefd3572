-- dpkmeans 0.6 -> 0.7
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.7'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Readers name their release and read any earlier one; an operator's list
-- of attached tables; the owner's check of the declared box.
-- ---------------------------------------------------------------------------

-- Every release keeps its noisy histogram, as it keeps its centres and cost
-- curves: post-processing of noise, padded to every cell of the counted
-- level, so the stored size depends on the configuration and the number of
-- releases only.  Releases made before keep only the latest one's.
ALTER TABLE dpkmeans_internal.histogram DROP CONSTRAINT histogram_pkey;
ALTER TABLE dpkmeans_internal.histogram ADD CONSTRAINT histogram_pkey PRIMARY KEY (relid, t);

-- dp_centers, dp_cost_curve and dp_histogram get a release argument (NULL:
-- the latest) and two output columns, the release they answer from and its
-- time.  They are dropped and created again; the privileges an
-- administrator gave or revoked on them are granted and revoked again.
-- (Saved as the OIDs of the roles that may execute them, 0 for PUBLIC: a
-- role dropped since is skipped.)
SELECT set_config('dpkmeans_upgrade.acl_' || p.proname,
       CASE WHEN p.proacl IS NULL THEN 'default'
            ELSE coalesce((SELECT string_agg(a.grantee::text, ',')
                           FROM pg_catalog.aclexplode(p.proacl) a
                           WHERE a.privilege_type = 'EXECUTE'), '') END, true)
FROM pg_catalog.pg_proc p
WHERE p.oid IN ('dp_centers(regclass, int, text)'::regprocedure,
                'dp_cost_curve(regclass, text)'::regprocedure,
                'dp_histogram(regclass, int)'::regprocedure);

DROP FUNCTION dp_centers(regclass, int, text);
CREATE FUNCTION dp_centers(tbl regclass, k int, objective text DEFAULT 'kmeans',
                           release int DEFAULT NULL)
RETURNS TABLE(cluster int, center float8[], noisy_size float8, release int,
              released_at timestamptz)
AS 'MODULE_PATHNAME', 'dp_centers' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_centers(regclass, int, text, int) IS
'reader: a release''s k centres (any k up to the attached k; only those that gather a weighted point, at least one), k-means or k-median; release NULL: the latest';

DROP FUNCTION dp_cost_curve(regclass, text);
CREATE FUNCTION dp_cost_curve(tbl regclass, objective text DEFAULT 'kmeans',
                              release int DEFAULT NULL)
RETURNS TABLE(k int, noisy_cost float8, release int, released_at timestamptz)
AS 'MODULE_PATHNAME', 'dp_cost_curve' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_cost_curve(regclass, text, int) IS
'reader: a release''s private cost estimate for k'' = 1..k (sum of squared distances, or of distances for ''kmedian''); release NULL: the latest';

DROP FUNCTION dp_histogram(regclass, int);
CREATE FUNCTION dp_histogram(tbl regclass, level int DEFAULT NULL, release int DEFAULT NULL)
RETURNS TABLE(level int, cell int[], center float8[], noisy_count float8, release int,
              released_at timestamptz)
AS 'MODULE_PATHNAME', 'dp_histogram' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_histogram(regclass, int, int) IS
'reader: a release''s noisy histogram at a level (counts unbiased, so some are negative); release NULL: the latest';

DO $$
DECLARE
    sig text;
    acl text;
    g oid;
BEGIN
    FOREACH sig IN ARRAY ARRAY['dp_centers(regclass, int, text, int)',
                               'dp_cost_curve(regclass, text, int)',
                               'dp_histogram(regclass, int, int)'] LOOP
        acl := current_setting('dpkmeans_upgrade.acl_' || split_part(sig, '(', 1), true);
        CONTINUE WHEN acl IS NULL OR acl = 'default';
        EXECUTE pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', sig);
        FOREACH g IN ARRAY pg_catalog.string_to_array(acl, ',')::oid[] LOOP
            IF g = 0 THEN
                EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO PUBLIC', sig);
            ELSIF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE oid = g) THEN
                EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %s', sig, g::regrole);
            END IF;
        END LOOP;
    END LOOP;
END
$$;

-- Every attached table the caller owns or may read, with its public
-- configuration and its release count; readers only for its owner.
CREATE FUNCTION dp_tables()
RETURNS TABLE(tbl regclass, columns text[], k int, epsilon float8, delta float8,
              horizon int, releases_used int, releases_left int, last_release int,
              last_release_at timestamptz, capture text, mode text,
              attached_at timestamptz, readers text[])
AS 'MODULE_PATHNAME', 'dp_tables' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_tables() IS
'anyone: every attached table the caller owns or may read, with epsilon, delta, horizon, releases used and left, the last release and its time, capture, mode, and (owner only) its readers';

-- The owner's check of the declared box: rows outside it are clamped onto
-- it, counted here per column and side (true counts, for the owner only).
CREATE FUNCTION dp_bounds_check(tbl regclass)
RETURNS TABLE(column_name text, lower float8, upper float8, points bigint,
              below_lower bigint, above_upper bigint, below_share float8,
              above_share float8)
AS 'MODULE_PATHNAME', 'dp_bounds_check' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dp_bounds_check(regclass) IS
'owner: per tracked column, how many rows lie below lower and above upper (clamped onto the box), and their shares; a WARNING when a share is large';

-- dp_kmeans returns only the centres that gather a weighted point, at least one
-- (k at most 1000); dp_attach takes k up to 100.
COMMENT ON FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8, float8, text, float8) IS
'one-shot k-means (objective ''kmeans'') or k-median (''kmedian'') of the points a SELECT returns (k up to 1000; only the centres that gather a weighted point, at least one): epsilon-DP, or (epsilon, delta)-DP with discrete Gaussian noise when delta > 0; norm_bound: rows moved into the ball of that radius around the box''s middle (6 or more columns)';
COMMENT ON FUNCTION dp_attach(regclass, text[], int, float8, float8[], float8[], int, text, float8, float8, text, float8) IS
'owner: attach a table, k up to 100 (existing rows become events of release 1; no release is made; rows outside the box are counted for the owner); delta > 0: (epsilon, delta)-DP with discrete Gaussian noise; capture ''wal'': changes counted from the WAL by logical decoding (wal_level = logical, own transaction, a replication slot); norm_bound: rows moved into the ball of that radius around the box''s middle (projected tables, 6 or more columns)';
