-- dpkmeans 0.2 -> 0.3: partitioned tables and logical replicas; approximate
-- DP with discrete Gaussian noise; k-median.
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.3'" to load this file. \quit
