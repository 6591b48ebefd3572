-- dpkmeans 0.2 -> 0.3: partitioned tables and logical replicas; approximate
-- DP with discrete Gaussian noise; k-median.
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.3'" to load this file. \quit

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
                          delta float8 DEFAULT 0)
RETURNS TABLE(cluster int, center float8[], noisy_size float8)
AS 'MODULE_PATHNAME', 'dp_kmeans'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION dp_kmeans(text, int, float8, float8[], float8[], float8, float8) IS
'one-shot k-means of the points a SELECT returns (exactly k rows): epsilon-DP, or (epsilon, delta)-DP with discrete Gaussian noise when delta > 0';
