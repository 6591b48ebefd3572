-- The counter of a pure table (dpkmeans.pure_counter, fixed at attach):
-- 'auto' (the default) gives a low-d table the share tree from a horizon of
-- 16, else the k-ary tree; 'tree' the k-ary tree; 'share_tree' the share
-- tree wherever its horizon has one that beats the k-ary tree (its level
-- chosen for the share tree's variance), else the k-ary tree with a notice;
-- Gaussian tables keep their own counter.
CREATE FUNCTION pc_error(stmt text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
    EXECUTE stmt;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$f$;

-- four blobs, no randomness
CREATE TABLE pblobs AS
SELECT (ARRAY[20, 80, 20, 80])[1 + i % 4] + ((i::bigint * 7919) % 1000) / 500.0 - 1 AS x,
       (ARRAY[20, 20, 80, 80])[1 + i % 4] + ((i::bigint * 104729) % 1000) / 500.0 - 1 AS y
FROM generate_series(1, 20000) AS i;
CREATE TABLE pauto AS SELECT * FROM pblobs;
CREATE TABLE pauto12 AS SELECT * FROM pblobs;
CREATE TABLE pkary AS SELECT * FROM pblobs;
CREATE TABLE pshare AS SELECT * FROM pblobs;
CREATE TABLE pshort AS SELECT * FROM pblobs;
CREATE TABLE pgauss AS SELECT * FROM pblobs;
CREATE TABLE pwide AS SELECT x AS a, y AS b, x AS c, y AS e, 100 - x AS f, 100 - y AS g FROM pblobs;

LOAD 'dpkmeans';
SHOW dpkmeans.pure_counter;
-- the default: the share tree at horizon 64, the k-ary tree at 12, no notice
SELECT dp_attach('pauto', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 64, size_hint => 20000) IS NOT NULL AS attached;
SELECT dp_attach('pauto12', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 12, size_hint => 20000) IS NOT NULL AS attached;
SET dpkmeans.pure_counter = 'tree';
SELECT dp_attach('pkary', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 64, size_hint => 20000) IS NOT NULL AS attached;
SET dpkmeans.pure_counter = 'share_tree';
SELECT dp_attach('pshare', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 64, size_hint => 20000) IS NOT NULL AS attached;
-- horizon 8: the share tree does not beat the k-ary tree there
SELECT dp_attach('pshort', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 8, size_hint => 20000) IS NOT NULL AS attached;
-- 6 columns (projected): the k-ary tree
SELECT dp_attach('pwide', ARRAY['a', 'b', 'c', 'e', 'f', 'g'], 4, 1.0, ARRAY[0, 0, 0, 0, 0, 0],
                 ARRAY[100, 100, 100, 100, 100, 100], horizon => 64, size_hint => 20000) IS NOT NULL AS attached;
-- Gaussian: its own counter, no notice
SELECT dp_attach('pgauss', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                 horizon => 64, size_hint => 20000, delta => 1e-6) IS NOT NULL AS attached;
SELECT pc_error($$SET dpkmeans.pure_counter = 'binary'$$);
RESET dpkmeans.pure_counter;
SHOW dpkmeans.pure_counter;
SELECT relid, delta, dhat, level, tree_arity, counter FROM dpkmeans_internal.tracked
WHERE relid::text LIKE 'p%' ORDER BY relid::text;

-- the report: spans, shares, full-budget sensitivities, every node's scales
SELECT item, value FROM dp_privacy_report('pshare')
WHERE item IN ('counter', 'share tree shares s_v (per block, levels 0 up)', 'counter estimator',
               'count sensitivity (L1, one event, whole counter budget)',
               'sum sensitivity (l-infinity, one event, fixed-point units)',
               'count noise per tree node', 'sum noise per tree node', 'tree')
ORDER BY item;

-- releases: the published values on a fixed key, the same on every read
-- until the next release; the centres find the four blobs
UPDATE dpkmeans_internal.keys SET key = decode(repeat('5a', 32), 'hex')
WHERE relid IN ('pshare'::regclass, 'pkary'::regclass);
SELECT dp_release('pshare') IS NOT NULL AS released, dp_release('pkary') IS NOT NULL AS released;
-- the counted level (8 x 8 cells): the four blobs' cells and a few empty ones
SELECT cell, noisy_count FROM dp_histogram('pshare', 3)
WHERE cell IN ('{1,1}', '{6,1}', '{1,6}', '{6,6}', '{0,0}', '{3,4}', '{7,7}') ORDER BY cell;
CREATE TEMP TABLE h1 AS SELECT * FROM dp_histogram('pshare');
-- not the k-ary tree's noise on the same key and rows
SELECT count(*) AS cells, count(*) FILTER (WHERE s.noisy_count <> k.noisy_count) AS differ
FROM dp_histogram('pshare', 3) s JOIN dp_histogram('pkary', 3) k USING (cell);
INSERT INTO pshare SELECT x + 0.25, y FROM pblobs WHERE x < 50 LIMIT 2000;
SELECT (SELECT count(*) FROM (SELECT * FROM dp_histogram('pshare') EXCEPT SELECT * FROM h1) x) AS changed_before_release;
SELECT dp_release('pshare') IS NOT NULL AS released;
SELECT cell, noisy_count FROM dp_histogram('pshare', 3)
WHERE cell IN ('{1,1}', '{6,1}', '{1,6}', '{6,6}', '{0,0}', '{3,4}', '{7,7}') ORDER BY cell;
SELECT count(*) AS centres,
       bool_and(EXISTS (SELECT 1 FROM (VALUES (20, 20), (80, 20), (20, 80), (80, 80)) b(bx, by)
                        WHERE abs(c.center[1] - bx) < 3 AND abs(c.center[2] - by) < 3)) AS on_blobs
FROM dp_centers('pshare', 4) c;

SELECT dp_detach('pkary'), dp_detach('pshare'), dp_detach('pshort'), dp_detach('pwide'),
       dp_detach('pgauss'), dp_detach('pauto'), dp_detach('pauto12');
DROP TABLE pkary, pshare, pshort, pwide, pgauss, pauto, pauto12, pblobs;
DROP FUNCTION pc_error(text);
