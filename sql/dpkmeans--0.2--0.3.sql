-- dpkmeans 0.2 -> 0.3: partitioned tables and logical replicas; approximate
-- DP with discrete Gaussian noise; k-median.
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.3'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Partitioned tables and logical replicas
-- ---------------------------------------------------------------------------

-- Logical replication workers fire row triggers only: this row trigger
-- (enabled on REPLICA) counts what they apply; statement triggers count
-- everything else.
CREATE FUNCTION dpkmeans_internal.capture_row() RETURNS trigger
AS 'MODULE_PATHNAME', 'dpk_capture_row' LANGUAGE C;
REVOKE ALL ON FUNCTION dpkmeans_internal.capture_row() FROM PUBLIC;

CREATE FUNCTION dpkmeans_internal.add_row_capture(tbl regclass) RETURNS void
AS 'MODULE_PATHNAME', 'dpk_add_row_capture' LANGUAGE C STRICT;
REVOKE ALL ON FUNCTION dpkmeans_internal.add_row_capture(regclass) FROM PUBLIC;
SELECT dpkmeans_internal.add_row_capture(relid) FROM dpkmeans_internal.tracked;

-- Partition DDL of an attached partitioned table: new partitions get the
-- capture triggers, ATTACH PARTITION counts the partition's rows as
-- insertions and DETACH PARTITION as deletions (DROP TABLE of a partition is
-- counted at its start, by guard_ddl).
CREATE FUNCTION dpkmeans_internal.partition_ddl_end() RETURNS event_trigger
AS 'MODULE_PATHNAME', 'dpk_partition_ddl_end' LANGUAGE C;
REVOKE ALL ON FUNCTION dpkmeans_internal.partition_ddl_end() FROM PUBLIC;
CREATE EVENT TRIGGER dpkmeans_partition_ddl ON ddl_command_end
    WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE')
    EXECUTE FUNCTION dpkmeans_internal.partition_ddl_end();

-- The guard also sees DROP TABLE (partitions' rows), CREATE TABLE
-- (inheritance children of attached tables are refused) and CREATE FOREIGN
-- TABLE (foreign partitions of attached tables are refused).
DROP EVENT TRIGGER dpkmeans_guard_ddl;
CREATE EVENT TRIGGER dpkmeans_guard_ddl ON ddl_command_start
    WHEN TAG IN ('ALTER TABLE', 'ALTER TRIGGER', 'DROP TRIGGER', 'CREATE TABLE',
                 'CREATE FOREIGN TABLE', 'DROP TABLE')
    EXECUTE FUNCTION dpkmeans_internal.guard_ddl();
