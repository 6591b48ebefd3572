-- Capture from the WAL: bad inputs, on an instance at wal_level = replica
-- (the TAP test test/t/007_wal_capture.pl runs one at wal_level = logical).
CREATE TABLE wpts (x float8, y float8);
INSERT INTO wpts SELECT i % 10, i % 7 FROM generate_series(1, 100) i;
-- wal_level is not logical: refused, nothing stored, no slot.
SELECT dp_attach('wpts', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10], capture => 'wal');
SELECT count(*) AS tracked FROM dpkmeans_internal.tracked WHERE relid = 'wpts'::regclass;
SELECT count(*) AS slots FROM pg_replication_slots;
SELECT relreplident FROM pg_class WHERE relname = 'wpts';
-- Unknown and NULL capture values.
SELECT dp_attach('wpts', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10], capture => 'logical');
SELECT dp_attach('wpts', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10], capture => NULL);
-- dp_capture_sync: a table that is not attached, then one captured by triggers.
SELECT dp_capture_sync('wpts');
SELECT dp_capture_resync('wpts');
SELECT dp_capture_sync(NULL);
SELECT dp_capture_resync(NULL);
SELECT dp_attach('wpts', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10], capture => 'trigger');
SELECT dp_capture_sync('wpts');
SELECT dp_capture_resync('wpts');
SELECT value FROM dp_privacy_report('wpts') WHERE item = 'capture';
SELECT count(*) AS wal_tables FROM dpkmeans_internal.wal_capture;
SELECT dp_verify('wpts');
SELECT dp_detach('wpts');
DROP TABLE wpts;
