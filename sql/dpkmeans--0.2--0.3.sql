-- dpkmeans 0.2 -> 0.3: partitioned tables and logical replicas; approximate
-- DP with discrete Gaussian noise; k-median.
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.3'" to load this file. \quit

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

DROP FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8);
CREATE FUNCTION dp_kmeans(query text, k int, epsilon float8,
                          lower float8[], upper float8[], n float8 DEFAULT NULL,
                          objective text DEFAULT 'kmeans')
RETURNS TABLE(cluster int, center float8[], noisy_size float8)
AS 'MODULE_PATHNAME', 'dp_kmeans'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8, text) IS
'one-shot epsilon-DP k-means (objective ''kmeans'') or k-median (''kmedian'') of the points a SELECT returns (exactly k rows)';

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
