-- Lifting sums keyed by public regions (src/core/live/live_regions.c): a projected
-- pure table whose per-cell lifting sums would drown in noise (d = 64,
-- horizon 1024, with or without deletions) keeps them per (tree node,
-- region); a table with little sum noise (d = 16, horizon 16) keeps its
-- cells' sums.
SELECT setseed(0.25);
CREATE TABLE reg (id serial, v float8[]);
CREATE TABLE reg16 (id serial, v float8[]);
-- four clusters, 40 apart in every coordinate
INSERT INTO reg (v)
SELECT (SELECT array_agg((i % 4) * 20 + 20 + (random() - 0.5) * 4 ORDER BY j)
        FROM generate_series(1, 64) j)
FROM generate_series(1, 4000) i;
INSERT INTO reg16 (v) SELECT v[1:16] FROM reg;
CREATE TABLE regdel (id serial, v float8[]);
SELECT dp_attach('reg', ARRAY['v'], 4, 1.0,
                 array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]),
                 mode => 'insert_only');
-- (its releases compute k-median too, read below)
SELECT dp_set_objectives('reg', ARRAY['kmeans', 'kmedian']);
SELECT dp_attach('reg16', ARRAY['v'], 4, 1.0,
                 array_fill(0::float8, ARRAY[16]), array_fill(100::float8, ARRAY[16]),
                 horizon => 16, mode => 'insert_only');
SELECT dp_attach('regdel', ARRAY['v'], 4, 1.0,
                 array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]));
-- the choice is public and shown by the privacy report
SELECT relid FROM dpkmeans_internal.regions ORDER BY relid::text;
SELECT t.relname, split_part(r.value, ':', 1) AS lifting
FROM (VALUES ('reg'), ('reg16'), ('regdel')) t(relname), dp_privacy_report(t.relname::regclass) r
WHERE r.item = 'lifting' ORDER BY 1;
SELECT dp_detach('regdel');
DROP TABLE regdel;
-- the configuration row marks the table too (state format 3), so a library
-- that knows only cell releases refuses its releases
SELECT relid, state_format FROM dpkmeans_internal.tracked
WHERE relid IN ('reg'::regclass, 'reg16'::regclass) ORDER BY relid::text;

-- releases with inserts between them, and one without
SELECT dp_release('reg');
-- the privacy report reads the region state (its format): after the first
-- release, as the owner and as a role granted reading only
SELECT count(*) > 20 AS report_rows,
       max(substring(value from 'region state format [0-9]')) AS format
FROM dp_privacy_report('reg');
CREATE ROLE regions_reader;
SELECT dp_grant_reader('reg', 'regions_reader');
SET ROLE regions_reader;
SELECT count(*) > 20 AS report_rows,
       max(substring(value from 'region state format [0-9]')) AS format
FROM dp_privacy_report('reg');
RESET ROLE;
CREATE TABLE len1 AS SELECT length(state) AS len FROM dpkmeans_internal.regions
WHERE relid = 'reg'::regclass;
INSERT INTO reg (v)
SELECT (SELECT array_agg((i % 4) * 20 + 20 + (random() - 0.5) * 4 ORDER BY j)
        FROM generate_series(1, 64) j)
FROM generate_series(1, 400) i;
COPY reg (v) FROM STDIN;
{50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50,50}
\.
SELECT dp_verify('reg');
SELECT dp_release('reg');
SELECT dp_release('reg');
-- every k' <= k has its centres (at most k', those that gather a weighted
-- point) and cost; the histogram has every cell of the counted level;
-- k-median centres come from the same lifted cells
SELECT k, count(*) BETWEEN 1 AND k AS centres, bool_and(array_length(center, 1) = 64) AS dims
FROM generate_series(1, 4) k, dp_centers('reg', k) GROUP BY k ORDER BY k;
-- the cost estimates: one centre costs about the rows' true spread
-- (4401 rows x 64 coordinates x about 501: 1.41e8; 0.93e8 to 1.89e8 seen),
-- four centres less (1/400 of it without noise; at this horizon the noisy
-- counts often merge clusters: 0 to 0.9 of it seen, 0 where the estimate is
-- clamped), and no k' costs more than k' - 1 (the guard)
SELECT count(*) AS costs,
       (SELECT noisy_cost BETWEEN 0.5e8 AND 3.0e8 FROM dp_cost_curve('reg') WHERE k = 1)
         AS one_centre,
       (SELECT noisy_cost FROM dp_cost_curve('reg') WHERE k = 4) <
       (SELECT noisy_cost FROM dp_cost_curve('reg') WHERE k = 1) AS four_centres,
       bool_and(noisy_cost <= prev) AS non_increasing
FROM (SELECT noisy_cost, lag(noisy_cost, 1, 'Infinity') OVER (ORDER BY k) AS prev
      FROM dp_cost_curve('reg')) c;
SELECT count(*) > 0 AS histogram FROM dp_histogram('reg');
SELECT count(*) BETWEEN 1 AND 4 AS kmedian_centres FROM dp_centers('reg', 4, objective => 'kmedian');
-- the stored state's size is a function of public values only (the
-- release and the rows' padding bound): a table of the same rows all in one
-- cluster, so fewer cells and regions hold rows, stores as many bytes
CREATE TABLE regone (id serial, v float8[]);
INSERT INTO regone (v)
SELECT (SELECT array_agg(20 + (random() - 0.5) * 4 ORDER BY j) FROM generate_series(1, 64) j)
FROM generate_series(1, 4000) i;
SELECT dp_attach('regone', ARRAY['v'], 4, 1.0,
                 array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]),
                 mode => 'insert_only');
SELECT dp_release('regone');
SELECT (SELECT length(state) FROM dpkmeans_internal.regions WHERE relid = 'regone'::regclass) =
       (SELECT len FROM len1) AS same_size;
SELECT dp_detach('regone');
DROP TABLE regone;

-- an unreadable state is refused and nothing is released or lost
CREATE TABLE saved AS SELECT state FROM dpkmeans_internal.regions WHERE relid = 'reg'::regclass;
UPDATE dpkmeans_internal.regions SET state = '\x00'::bytea WHERE relid = 'reg'::regclass;
SELECT dp_release('reg');
SELECT max(t) AS releases FROM dpkmeans_internal.releases WHERE relid = 'reg'::regclass;
UPDATE dpkmeans_internal.regions SET state = (SELECT state FROM saved) WHERE relid = 'reg'::regclass;
SELECT dp_release('reg');
-- a missing region state is refused too: a cell release would publish the
-- lifting sums a second time
UPDATE saved SET state = (SELECT state FROM dpkmeans_internal.regions WHERE relid = 'reg'::regclass);
DELETE FROM dpkmeans_internal.regions WHERE relid = 'reg'::regclass;
SELECT dp_release('reg');
SELECT max(t) AS releases FROM dpkmeans_internal.releases WHERE relid = 'reg'::regclass;
INSERT INTO dpkmeans_internal.regions (relid, state) SELECT 'reg'::regclass, state FROM saved;
-- a table attached before the mark (format 2 with a region state) lifts by
-- regions and gets the mark at its next release
UPDATE dpkmeans_internal.tracked SET state_format = 2 WHERE relid = 'reg'::regclass;
SELECT dp_release('reg');
SELECT state_format FROM dpkmeans_internal.tracked WHERE relid = 'reg'::regclass;
SELECT count(*) AS region_rows FROM dpkmeans_internal.regions WHERE relid = 'reg'::regclass;
-- the privacy report gives the scale the region sums are drawn with: the
-- d coordinates and the region's count coordinate
SELECT item, value FROM dp_privacy_report('reg') WHERE item LIKE 'sum %' ORDER BY item;

-- the cells' table releases as before
INSERT INTO reg16 (v) SELECT v[1:16] FROM reg WHERE id <= 100;
SELECT dp_release('reg16');
SELECT count(*) BETWEEN 1 AND 4 AS centres FROM dp_centers('reg16', 4);

-- a sliding window with deletions at d = 128, horizon 16 (a 7-ary tree of
-- two levels): from release 8 on a release sums the signed digits, from
-- release 11 with a node reaching past it and negative nodes not yet open
-- (their draws, no rows); every release checks that the nodes it sums hold
-- exactly the table's rows, and all twelve, with inserts and deletes
-- between them, must succeed (the nodes' signs and draws are checked by
-- the privacy test's signed suites)
CREATE TABLE regwin (id serial, v float8[]);
SELECT dp_attach('regwin', ARRAY['v'], 4, 1.0,
                 array_fill(0::float8, ARRAY[128]), array_fill(100::float8, ARRAY[128]),
                 horizon => 16);
SELECT split_part(value, ':', 1) AS lifting FROM dp_privacy_report('regwin')
WHERE item = 'lifting';
-- the report names the region state's format (2: signed digits)
SELECT substring(value from 'region state format [0-9]') AS format
FROM dp_privacy_report('regwin') WHERE item = 'lifting';
-- (the generated statements are not echoed; each round prints its release)
\set ECHO none
SELECT format($q$INSERT INTO regwin (v)
                SELECT (SELECT array_agg((g %% 4) * 20 + 20 + (random() - 0.5) * 4 ORDER BY j)
                        FROM generate_series(1, 128) j)
                FROM generate_series(1, 200) g$q$),
       format('DELETE FROM regwin WHERE id <= %s', greatest(r - 3, 0) * 200),
       format('SELECT dp_release(%L) AS release', 'regwin')
FROM generate_series(1, 12) r ORDER BY r \gexec
\set ECHO all
SELECT dp_verify('regwin');
SELECT count(*) BETWEEN 1 AND 4 AS centres, bool_and(array_length(center, 1) = 128) AS dims
FROM dp_centers('regwin', 4);
-- its region state is of format 2 (the signed digits; bytes 4-7 the version)
SELECT get_byte(state, 4) AS region_format FROM dpkmeans_internal.regions
WHERE relid = 'regwin'::regclass;
SELECT dp_detach('regwin');
DROP TABLE regwin;

-- detach and DROP TABLE remove the region state
SELECT dp_detach('reg');
SELECT count(*) AS region_rows FROM dpkmeans_internal.regions;
SELECT dp_attach('reg', ARRAY['v'], 4, 1.0,
                 array_fill(0::float8, ARRAY[64]), array_fill(100::float8, ARRAY[64]),
                 mode => 'insert_only');
SELECT count(*) AS region_rows FROM dpkmeans_internal.regions;
DROP TABLE reg;
SELECT count(*) AS region_rows FROM dpkmeans_internal.regions;
DROP ROLE regions_reader;
DROP TABLE reg16, len1, saved;
