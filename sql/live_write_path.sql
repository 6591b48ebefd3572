-- The cheap write path (src/capture/capture_cache.c): a writing statement appends its
-- delta by a direct heap insertion, with the capture trigger's shape cached
-- per backend.  Every check runs in one session, so stale caches would show.
SELECT setseed(0.3);
CREATE TABLE wp (id serial, x float8, y float8, note text);
-- whole numbers, so a change of column type keeps every value exactly
INSERT INTO wp (x, y) SELECT floor(random() * 100), floor(random() * 100) FROM generate_series(1, 500);
SELECT dp_attach('wp', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 16);

-- one delta per writing statement; the delta table has no index
INSERT INTO wp (x, y) VALUES (1, 2);
INSERT INTO wp (x, y) SELECT floor(random() * 100), floor(random() * 100) FROM generate_series(1, 50);
UPDATE wp SET note = 'n' WHERE id < 10;
DELETE FROM wp WHERE id % 7 = 0;
SELECT count(*) AS deltas FROM dpkmeans_internal.delta WHERE relid = 'wp'::regclass;
SELECT count(*) AS delta_indexes FROM pg_index WHERE indrelid = 'dpkmeans_internal.delta'::regclass;
SELECT dp_verify('wp');

-- an index the owner adds is maintained by the direct insertion too
CREATE INDEX delta_by_relid ON dpkmeans_internal.delta (relid);
INSERT INTO wp (x, y) VALUES (9, 9);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM dpkmeans_internal.delta WHERE relid = (SELECT 'wp'::regclass);
SELECT count(*) AS deltas_idx FROM dpkmeans_internal.delta WHERE relid = 'wp'::regclass;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP INDEX dpkmeans_internal.delta_by_relid;

-- aborted writes leave nothing: a rolled-back transaction, a savepoint
BEGIN;
INSERT INTO wp (x, y) VALUES (5, 5);
ROLLBACK;
BEGIN;
INSERT INTO wp (x, y) VALUES (6, 6);
SAVEPOINT s;
INSERT INTO wp (x, y) SELECT 7, 7 FROM generate_series(1, 20);
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT count(*) AS deltas_after_aborts FROM dpkmeans_internal.delta WHERE relid = 'wp'::regclass;
SELECT dp_verify('wp');

-- The guard refuses DDL that changes how tracked columns are found; with it
-- disabled by a superuser, the cached shape must still follow the table.
ALTER EVENT TRIGGER dpkmeans_guard_ddl DISABLE;
-- a column changing type in this session: the shape is rebuilt (reading
-- numeric values as float8 would count the wrong cells or fail)
ALTER TABLE wp ALTER COLUMN x TYPE numeric;
INSERT INTO wp (x, y) SELECT floor(random() * 100)::numeric, floor(random() * 100) FROM generate_series(1, 40);
UPDATE wp SET x = x + 1 WHERE id % 3 = 0;
SELECT dp_verify('wp');
-- a tracked column renamed away: the next write is refused, nothing stored
SELECT count(*) AS deltas_before_rename FROM dpkmeans_internal.delta WHERE relid = 'wp'::regclass;
ALTER TABLE wp RENAME COLUMN y TO y_renamed;
INSERT INTO wp (x, y_renamed) VALUES (1, 1);
ALTER TABLE wp RENAME COLUMN y_renamed TO y;
-- dropping a capture trigger of the attached table itself is still refused
-- (at the end of the command, by the sql_drop event trigger)
DROP TRIGGER dpkmeans_capture_insert ON wp;
ALTER EVENT TRIGGER dpkmeans_guard_ddl ENABLE;
SELECT count(*) AS deltas_after_rename FROM dpkmeans_internal.delta WHERE relid = 'wp'::regclass;
INSERT INTO wp (x, y) VALUES (3, 3);
SELECT dp_verify('wp');

-- a delta table of another layout takes the SPI path (and back again)
-- (existing rows keep NULL, the row written through SPI gets the default)
ALTER TABLE dpkmeans_internal.delta ADD COLUMN extra int;
ALTER TABLE dpkmeans_internal.delta ALTER COLUMN extra SET DEFAULT 42;
INSERT INTO wp (x, y) VALUES (4, 4);
SELECT extra, count(*) FROM dpkmeans_internal.delta WHERE relid = 'wp'::regclass GROUP BY 1 ORDER BY 1;
ALTER TABLE dpkmeans_internal.delta DROP COLUMN extra;
INSERT INTO wp (x, y) VALUES (8, 8);
SELECT count(*) AS deltas_last FROM dpkmeans_internal.delta WHERE relid = 'wp'::regclass;
SELECT dp_verify('wp');

-- detach and attach again in this session: new triggers, a new shape
SELECT dp_detach('wp');
SELECT dp_attach('wp', ARRAY['y', 'x'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 16);
INSERT INTO wp (x, y) SELECT floor(random() * 100)::numeric, floor(random() * 100) FROM generate_series(1, 30);
SELECT dp_verify('wp');
SELECT dp_release('wp');
SELECT count(*) AS deltas_after_release FROM dpkmeans_internal.delta WHERE relid = 'wp'::regclass;
SELECT dp_detach('wp');
DROP TABLE wp;

-- Writes that keep the row count (an UPDATE moves rows to other cells, the
-- padded state keeps its length): the release stores the folded state;
-- after no write the stored state is kept as it is.  dp_verify recounts.
CREATE TABLE same_n (x float8, y float8);
INSERT INTO same_n SELECT g % 10 * 10, g % 7 * 10 FROM generate_series(1, 200) g;
SELECT dp_attach('same_n', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
SELECT dp_release('same_n') AS release;
UPDATE same_n SET x = 100 - x;
SELECT dp_release('same_n') AS release;
SELECT dp_verify('same_n');
SELECT dp_release('same_n') AS release;
SELECT dp_verify('same_n');
SELECT dp_detach('same_n');
DROP TABLE same_n;
