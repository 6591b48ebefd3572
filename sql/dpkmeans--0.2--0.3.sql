-- dpkmeans 0.2 -> 0.3: partitioned tables and logical replicas; approximate
-- DP with discrete Gaussian noise; k-median.
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.3'" to load this file. \quit

-- Write cost: a writing statement appends its delta by a direct heap
-- insertion of one pre-formed tuple (src/capture_cache.c), with no id to draw
-- from a sequence and no index to maintain.  A release reads the pending
-- deltas of every table to fold its own (they are few: a release folds them
-- away), which costs less than an index entry for every writing statement.
ALTER EXTENSION dpkmeans DROP SEQUENCE dpkmeans_internal.delta_id_seq;
ALTER TABLE dpkmeans_internal.delta DROP COLUMN id;
DROP INDEX dpkmeans_internal.delta_relid;
