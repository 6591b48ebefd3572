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
