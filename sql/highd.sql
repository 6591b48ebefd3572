-- High dimensions: projection, lifting by noisy sums (d = 16 and 64).
SELECT setseed(0.5);
-- 4 well-separated clusters in [0,100]^64, one float8[] column
CREATE TABLE emb64 AS
SELECT i, (SELECT array_agg(((i % 4) * 20 + 20) + (random() - 0.5) * 2 + (j % 3) ORDER BY j)
           FROM generate_series(1, 64) j) AS v
FROM generate_series(1, 20000) i;
-- the same points as 64 numeric columns and as float4[]
SELECT format('CREATE TABLE cols64 AS SELECT %s FROM emb64',
              string_agg(format('v[%s] AS c%s', j, j), ', ' ORDER BY j))
FROM generate_series(1, 64) j \gexec
CREATE TABLE emb64f AS SELECT v::float4[] AS v FROM emb64;
CREATE TABLE truth AS
SELECT c, (SELECT array_agg((c * 20 + 20) + (j % 3) ORDER BY j) FROM generate_series(1, 64) j)::float8[] AS center
FROM generate_series(0, 3) c;

-- one-shot at d = 64 from a float8[] column: 4 centres, each within 40 of a
-- true one (clusters are 160 apart; the lifted coordinates carry sum noise)
CREATE TABLE r1 AS SELECT * FROM dp_kmeans('SELECT v FROM emb64', 4, 2.0,
    array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]));
SELECT count(*) AS centres, bool_and(array_length(center, 1) = 64) AS dims FROM r1;
SELECT count(*) AS true_centres_found FROM truth t
WHERE EXISTS (SELECT 1 FROM r1
              WHERE sqrt((SELECT sum((r1.center[j] - t.center[j]) ^ 2) FROM generate_series(1, 64) j)) < 40);
SELECT abs(sum(noisy_size) - 20000) < 2000 AS sizes_ok FROM r1;

-- 64 numeric columns
SELECT count(*) FROM dp_kmeans('SELECT * FROM cols64', 4, 2.0,
    array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]));
-- float4[] of length 64
SELECT count(*) FROM dp_kmeans('SELECT v FROM emb64f', 4, 2.0,
    array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]));
-- d = 16 (first 16 coordinates), k larger than the clusters
SELECT count(*) AS centres, bool_and(array_length(center, 1) = 16) AS dims
FROM dp_kmeans('SELECT v[1:16] FROM emb64', 6, 1.0,
    array_fill(0::float8, ARRAY[16]), array_fill(100::float8, ARRAY[16]));
-- no rows at d = 64: still k rows
SELECT count(*) FROM dp_kmeans('SELECT v FROM emb64 WHERE false', 3, 1.0,
    array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]));
DROP TABLE r1, truth, emb64, emb64f, cols64;
