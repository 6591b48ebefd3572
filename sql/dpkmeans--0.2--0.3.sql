-- dpkmeans 0.2 -> 0.3: partitioned tables and logical replicas; approximate
-- DP with discrete Gaussian noise; k-median.
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.3'" to load this file. \quit

-- Write cost: a writing statement appends its delta by a direct heap
-- insertion of one pre-formed tuple (src/capture_cache.c), with no id to draw
-- from a sequence and no primary key to maintain.  Folding reads a table's
-- deltas by relid, so that index stays.
ALTER EXTENSION dpkmeans DROP SEQUENCE dpkmeans_internal.delta_id_seq;
ALTER TABLE dpkmeans_internal.delta DROP COLUMN id;
