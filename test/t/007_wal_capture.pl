# Capture from the WAL (dp_attach(..., capture => 'wal')): every committed
# change is counted exactly once, whatever writes it (INSERT, COPY, UPDATE,
# DELETE, TRUNCATE, concurrent writers), and nothing else is (rolled-back
# transactions and savepoints, a failing statement); a crash between syncs
# loses nothing and counts nothing twice; the slot goes with dp_detach, DROP
# TABLE and DROP EXTENSION.  dp_verify compares the stored state plus the
# pending deltas (after a sync) with a recount of the table.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('wal');
$node->init;
$node->append_conf('postgresql.conf', "wal_level = logical\nmax_replication_slots = 8\nmax_prepared_transactions = 4\n");
$node->start;

sub sql { return $node->safe_psql('postgres', shift); }
sub slots { return sql("SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE 'dpkmeans\\_%'"); }

sql(q{
	CREATE EXTENSION dpkmeans;
	CREATE TABLE pts (id bigserial, x float8, y float8, note text);
	INSERT INTO pts (x, y) SELECT (i % 97), (i % 89) FROM generate_series(1, 20000) i;
	ALTER TABLE pts REPLICA IDENTITY NOTHING;
});
sql(q{SELECT dp_attach('pts', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100],
                     horizon => 64, capture => 'wal')});
is(slots(), '1', 'dp_attach made one slot');
is(sql("SELECT relreplident FROM pg_class WHERE relname = 'pts'"), 'f', 'REPLICA IDENTITY FULL while attached');
is(sql("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'pts'::regclass"), '0', 'no capture trigger');
is(sql("SELECT dp_verify('pts')"), 't', 'the backfill counts the rows present at attach');

# Every kind of write.
my $copyfile = PostgreSQL::Test::Utils::tempdir . '/load.copy';
sql("COPY (SELECT random() * 100, random() * 100 FROM generate_series(1, 30000)) TO '$copyfile'");
sql(q{
	INSERT INTO pts (x, y) SELECT random() * 100, random() * 100 FROM generate_series(1, 10000);
	UPDATE pts SET x = 100 - x WHERE id % 3 = 0;
	UPDATE pts SET note = 'untracked' WHERE id % 5 = 0;
	DELETE FROM pts WHERE id % 7 = 0;
	INSERT INTO pts (x, y) VALUES (NULL, 1), ('NaN', 2);
	UPDATE pts SET x = 3 WHERE x IS NULL OR x = 'NaN';
});
sql("COPY pts (x, y) FROM '$copyfile'");
is(sql("SELECT dp_verify('pts')"), 't', 'INSERT, COPY, UPDATE, DELETE, NULL and NaN rows counted exactly');
is(sql("SELECT dp_release('pts')"), '1', 'release 1');

# What is rolled back is never counted.
sql(q{
	BEGIN; INSERT INTO pts (x, y) SELECT 1, 1 FROM generate_series(1, 5000); DELETE FROM pts WHERE id < 1000; ROLLBACK;
	BEGIN;
	INSERT INTO pts (x, y) VALUES (50, 50);
	SAVEPOINT s;
	INSERT INTO pts (x, y) SELECT 2, 2 FROM generate_series(1, 3000);
	DELETE FROM pts WHERE id < 5000;
	ROLLBACK TO s;
	UPDATE pts SET y = 99 - y WHERE id % 11 = 0;
	SAVEPOINT t;
	INSERT INTO pts (x, y) VALUES (60, 60);
	RELEASE t;
	COMMIT;
});
my ($rc) = $node->psql('postgres',
	"INSERT INTO pts (x, y) SELECT i % 100, CASE WHEN i = 4000 THEN 1 / 0 ELSE 7 END FROM generate_series(1, 5000) i");
isnt($rc, 0, 'a failing statement fails');
is(sql("SELECT dp_verify('pts')"), 't', 'rollbacks, savepoints and a failing statement leave nothing');

# Two syncs in one transaction, rolled back: the second must not move the
# slot to the first one's position, which the rollback undoes.
sql(q{INSERT INTO pts (x, y) SELECT 9, 9 FROM generate_series(1, 40)});
is(sql(q{BEGIN; SELECT dp_verify('pts'); SELECT dp_verify('pts'); ROLLBACK;}), "t\nt",
	'two syncs in one transaction');
is(sql("SELECT dp_verify('pts')"), 't', 'after its rollback nothing counted in it is lost');
sql(q{INSERT INTO pts (x, y) SELECT 8, 8 FROM generate_series(1, 40)});
($rc) = $node->psql('postgres',
	"SELECT dp_capture_sync('pts') IS NOT NULL, dp_capture_sync('pts') IS NOT NULL, "
	. "1 / (extract(epoch FROM clock_timestamp()) * 0)::int");
isnt($rc, 0, 'a statement with two syncs fails');
is(sql("SELECT dp_verify('pts')"), 't', 'and loses nothing');

# TRUNCATE (its rows are not in the WAL): everything counted before it goes.
sql(q{
	BEGIN;
	INSERT INTO pts (x, y) SELECT 5, 5 FROM generate_series(1, 100);
	TRUNCATE pts;
	INSERT INTO pts (x, y) SELECT random() * 100, random() * 100 FROM generate_series(1, 2000);
	COMMIT;
});
is(sql("SELECT dp_verify('pts')"), 't', 'TRUNCATE inside a transaction counted in its place');
sql(q{INSERT INTO pts (x, y) SELECT random() * 100, random() * 100 FROM generate_series(1, 20000)});
is(sql("SELECT dp_release('pts')"), '2', 'release 2 after TRUNCATE');

# Concurrent writers and syncs.
my $seconds = $ENV{DPK_PGBENCH_SECONDS} || 5;
$node->pgbench(
	"--no-vacuum --client=4 --jobs=2 --time=$seconds",
	0, [qr{processed: [1-9]}], [qr{^$}], 'concurrent writers and syncs',
	{
		'007_write' => q{
			\set i random(1, 100000)
			BEGIN;
			INSERT INTO pts (x, y) VALUES (random() * 100, random() * 100);
			UPDATE pts SET y = random() * 100 WHERE id = :i;
			DELETE FROM pts WHERE id = :i + 1;
			END;
		},
		'007_sync@1' => q{
			SELECT dp_capture_sync('pts');
		},
	});
is(sql("SELECT dp_verify('pts')"), 't', 'concurrent writers and syncs: counted exactly once');
is(sql("SELECT dp_release('pts')"), '3', 'release 3');

# A crash between syncs: the committed position and the state go together;
# the slot, confirmed only up to a committed position, decodes again what
# the stored position then skips.
sql(q{INSERT INTO pts (x, y) SELECT random() * 100, random() * 100 FROM generate_series(1, 5000)});
sql("SELECT dp_capture_sync('pts')");
sql(q{
	INSERT INTO pts (x, y) SELECT random() * 100, random() * 100 FROM generate_series(1, 5000);
	DELETE FROM pts WHERE id % 13 = 0;
});
sql("SELECT dp_capture_sync('pts')");
sql(q{UPDATE pts SET x = x / 2 WHERE id % 17 = 0});
$node->stop('immediate');
$node->start;
is(sql("SELECT dp_verify('pts')"), 't', 'state equals a recount after an immediate stop');
is(sql("SELECT dp_release('pts')"), '4', 'release 4 after the crash');
is(sql("SELECT count(*) FROM dp_centers('pts', 4)"), '4', 'the release answers');

# A rewrite in the middle of a transaction (the type of an untracked column
# changes between two of its rows): each row is read with its own layout.
sql(q{CREATE TABLE lay (id int NOT NULL DEFAULT 0 PRIMARY KEY, z text, x float8, y float8);
	INSERT INTO lay SELECT g, 'a', g % 10, g % 7 FROM generate_series(1, 10) g;
	SELECT dp_attach('lay', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[10, 10], capture => 'wal')});
sql(q{BEGIN;
	INSERT INTO lay SELECT 1000 + g, 'b', 1, 1 FROM generate_series(1, 50) g;
	ALTER TABLE lay ALTER COLUMN z TYPE int USING 2147483644;
	INSERT INTO lay SELECT 2000 + g, 2147483644, 2, 2 FROM generate_series(1, 50) g;
	ALTER TABLE lay ALTER COLUMN z TYPE text;
	INSERT INTO lay SELECT 3000 + g, 'c', 3, 3 FROM generate_series(1, 50) g;
	COMMIT});
sql(q{INSERT INTO lay SELECT 4000 + g, 'd', 4, 4 FROM generate_series(1, 50) g});
my ($lrc, $lout, $lerr) = $node->psql('postgres',
	"SET client_min_messages = debug1; SELECT dp_capture_sync('lay') IS NOT NULL");
is($lout, 't', 'a sync across rewrites in one transaction');
my @binds = $lerr =~ /rows read with a new table layout/g;
is(scalar(@binds), 3, 'four transactions of 50 rows, three layouts: bound three times, not once a row');
is(sql("SELECT dp_verify('lay')"), 't', 'counts every row with its own layout');

# Rewrites that move no row (VACUUM FULL, CLUSTER) count nothing, also
# between writes in one transaction and around a sync.
sql(q{BEGIN; DELETE FROM lay WHERE id % 4 = 0; CLUSTER lay USING lay_pkey;
	INSERT INTO lay SELECT 5000 + g, 'e', 5, 5 FROM generate_series(1, 30) g; COMMIT;
	VACUUM FULL lay});
is(sql("SELECT dp_verify('lay')"), 't', 'CLUSTER and VACUUM FULL are not counted as writes');
sql(q{VACUUM FULL lay; UPDATE lay SET x = 9 WHERE id % 5 = 0});
is(sql("SELECT dp_verify('lay')"), 't', 'nor are they after a sync');
sql("SELECT dp_detach('lay'); DROP TABLE lay");

# Two-phase commit: a prepared transaction is counted when COMMIT PREPARED
# commits it, also when a sync or a release runs in between, and never
# when it is rolled back; the same for a table captured by triggers.
sql(q{CREATE TABLE tpc (x float8, y float8);
	INSERT INTO tpc SELECT g % 10, g % 7 FROM generate_series(1, 100) g;
	SELECT dp_attach('tpc', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[10, 10], capture => 'wal');
	CREATE TABLE tpt (x float8, y float8);
	SELECT dp_attach('tpt', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[10, 10])});
sql(q{BEGIN; INSERT INTO tpc SELECT 1, 1 FROM generate_series(1, 40); DELETE FROM tpc WHERE x = 2;
	INSERT INTO tpt SELECT 1, 1 FROM generate_series(1, 40); PREPARE TRANSACTION 'p1'});
sql(q{BEGIN; INSERT INTO tpc SELECT 3, 3 FROM generate_series(1, 20);
	INSERT INTO tpt SELECT 3, 3 FROM generate_series(1, 20); PREPARE TRANSACTION 'p2'});
sql("SELECT dp_capture_sync('tpc')");
is(sql("SELECT dp_release('tpc') || ',' || dp_release('tpt')"), '1,1', 'releases while two transactions are prepared');
sql("COMMIT PREPARED 'p1'; ROLLBACK PREPARED 'p2'");
is(sql("SELECT dp_verify('tpc')"), 't', 'WAL: the committed prepared transaction counted once, the rolled-back one not');
is(sql("SELECT dp_verify('tpt')"), 't', 'triggers: the same');
is(sql("SELECT dp_release('tpc') || ',' || dp_release('tpt')"), '2,2', 'and released');
is(sql("SELECT dp_verify('tpc') AND dp_verify('tpt')"), 't', 'folded exactly');
sql("SELECT dp_detach('tpc'), dp_detach('tpt'); DROP TABLE tpc, tpt");

# A slot moved by someone else (pg_replication_slot_advance, which any
# REPLICATION role may call) lost changes: the next sync refuses.
sql(q{CREATE TABLE adv (x float8, y float8);
	SELECT dp_attach('adv', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10], capture => 'wal');
	INSERT INTO adv SELECT 1, 1 FROM generate_series(1, 30)});
is(sql("SELECT dp_verify('adv')"), 't', 'counted');
is(sql("SELECT dp_release('adv')"), '1', 'release 1');
my ($arc, $aout, $aerr) = $node->psql('postgres', "SELECT dp_capture_resync('adv')");
like($aerr, qr/replication slot "[^"]+" of table "adv" still holds every change not counted yet/,
	'dp_capture_resync refuses while the slot is whole');
sql(q{INSERT INTO adv SELECT 9, 9 FROM generate_series(1, 40);
	DELETE FROM adv WHERE ctid IN (SELECT ctid FROM adv WHERE x = 1 LIMIT 7);
	SELECT pg_replication_slot_advance(slot_name, pg_current_wal_lsn())
	FROM dpkmeans_internal.wal_capture WHERE relid = 'adv'::regclass});
($arc, $aout, $aerr) = $node->psql('postgres', "SELECT dp_release('adv')");
like($aerr, qr/replication slot "[^"]+" of table "adv" was moved past the changes counted so far/,
	'a release after the slot was advanced refuses');
like($aerr, qr/Run dp_capture_resync\('adv'\)/, 'and names dp_capture_resync');
($arc, $aout, $aerr) = $node->psql('postgres',
	"BEGIN; INSERT INTO adv VALUES (2, 2); SELECT dp_capture_resync('adv'); COMMIT");
like($aerr, qr/dp_capture_resync must run in a transaction that has not written yet/,
	'dp_capture_resync refuses a transaction that has written');
isnt(sql("SELECT dp_capture_resync('adv')"), '', 'dp_capture_resync replaces the moved slot');
is(sql("SELECT dp_verify('adv')"), 't', 'the recount brought the rows the slot lost (inserted and deleted)');
is(sql("SELECT dp_release('adv')"), '2', 'and the history goes on: release 2');
is(sql("SELECT dp_verify('adv')"), 't', 'release 2 folded every row of the table into the state');
sql(q{INSERT INTO adv SELECT 5, 5 FROM generate_series(1, 11); DELETE FROM adv WHERE x = 9 AND ctid IN
	(SELECT ctid FROM adv WHERE x = 9 LIMIT 3)});
is(sql("SELECT dp_verify('adv')"), 't', 'the new slot counts the changes after it');

# A dropped slot (as on a promoted standby, test/t/009_failover.pl): the
# same recovery.
sql(q{INSERT INTO adv SELECT 3, 3 FROM generate_series(1, 13)});
sql(q{SELECT pg_drop_replication_slot(slot_name) FROM dpkmeans_internal.wal_capture
	WHERE relid = 'adv'::regclass});
($arc, $aout, $aerr) = $node->psql('postgres', "SELECT dp_release('adv')");
like($aerr, qr/replication slot "[^"]+" of table "adv" does not exist/, 'a release without its slot refuses');
sql("SELECT dp_capture_resync('adv')");
is(sql("SELECT dp_verify('adv')"), 't', 'dp_capture_resync counts the rows written before the slot was dropped');
is(sql("SELECT dp_release('adv')"), '3', 'release 3');
is(sql("SELECT dp_verify('adv')"), 't', 'release 3 folded every row of the table into the state');
sql("SELECT dp_detach('adv'); DROP TABLE adv");

# insert_only: an UPDATE whose tracked values a trigger changed is refused
# (the WAL would show a deletion the accounting has no room for).
sql(q{CREATE TABLE io (id int, x float8, y float8, note text);
	INSERT INTO io SELECT g, 1, 1, '' FROM generate_series(1, 20) g;
	SELECT dp_attach('io', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10], mode => 'insert_only',
	                 capture => 'wal');
	CREATE FUNCTION io_shift() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN NEW.x := NEW.x + 5; RETURN NEW; END $$;
	CREATE TRIGGER io_shift BEFORE UPDATE ON io FOR EACH ROW EXECUTE FUNCTION io_shift()});
my ($iorc, $ioout, $ioerr) = $node->psql('postgres', "UPDATE io SET note = 'n' WHERE id <= 5");
like($ioerr, qr/UPDATE of a tracked column is not allowed on "io"/, 'insert_only refuses a row a trigger moved');
sql("DROP TRIGGER io_shift ON io");
sql("UPDATE io SET note = 'n' WHERE id <= 5");
is(sql("SELECT dp_verify('io')"), 't', 'an UPDATE of other columns is counted as nothing');
sql("SELECT dp_detach('io'); DROP TABLE io; DROP FUNCTION io_shift()");

# Detach: the slot goes (at commit), the replica identity comes back.
sql("BEGIN; SELECT dp_detach('pts'); ROLLBACK");
is(slots(), '1', 'a rolled-back detach keeps the slot');
sql("SELECT dp_detach('pts')");
is(slots(), '0', 'dp_detach dropped the slot');
is(sql("SELECT relreplident FROM pg_class WHERE relname = 'pts'"), 'n', 'the previous replica identity is back');

# A rolled-back attach leaves no slot; DROP TABLE and DROP EXTENSION drop them.
sql(q{BEGIN; SELECT dp_attach('pts', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100], capture => 'wal'); ROLLBACK});
is(slots(), '0', 'a rolled-back dp_attach leaves no slot');
sql(q{SELECT dp_attach('pts', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100], capture => 'wal')});
sql(q{CREATE TABLE other (x float8, y float8);
	SELECT dp_attach('other', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100], capture => 'wal')});
is(slots(), '2', 'two tables, two slots');
sql("DROP TABLE other");
is(slots(), '1', 'DROP TABLE dropped its slot');

# Refusals at wal_level = logical: a partitioned or unlogged table, a
# transaction that has written; nothing is left behind.
sql(q{CREATE TABLE parted (x float8, y float8) PARTITION BY RANGE (x);
	CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (100);
	CREATE UNLOGGED TABLE unlogged (x float8, y float8);
	CREATE TABLE fresh (x float8, y float8)});
my ($ret, $out, $err) = $node->psql('postgres',
	q{SELECT dp_attach('parted', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100], capture => 'wal')});
like($err, qr/capture => 'wal' covers ordinary tables; "parted" is partitioned/, 'partitioned table refused');
($ret, $out, $err) = $node->psql('postgres',
	q{SELECT dp_attach('unlogged', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100], capture => 'wal')});
like($err, qr/needs a logged table/, 'unlogged table refused');
($ret, $out, $err) = $node->psql('postgres',
	q{BEGIN; INSERT INTO pts (x, y) VALUES (1, 1);
	  SELECT dp_attach('fresh', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100], capture => 'wal'); COMMIT});
like($err, qr/must run in a transaction that has not written yet/, 'a transaction that has written is refused');
is(slots(), '1', 'refusals leave no slot');
is(sql("SELECT count(*) FROM dpkmeans_internal.tracked"), '1', 'refusals leave nothing attached');

# A table owner without superuser or REPLICATION attaches, releases, syncs,
# verifies and drops: the decoding runs inside dpkmeans.
sql("CREATE ROLE tab_owner LOGIN NOREPLICATION; GRANT CREATE ON SCHEMA public TO tab_owner");
sub as_owner { return $node->safe_psql('postgres', shift, extra_params => ['-U', 'tab_owner']); }
as_owner(q{CREATE TABLE owned (x float8, y float8);
	INSERT INTO owned SELECT random() * 100, random() * 100 FROM generate_series(1, 1000)});
as_owner(q{SELECT dp_attach('owned', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100], capture => 'wal')});
as_owner(q{UPDATE owned SET x = x / 2 WHERE y < 50});
is(as_owner("SELECT dp_release('owned')"), '1', 'an owner without REPLICATION releases');
as_owner(q{DELETE FROM owned WHERE y > 80});
isnt(as_owner("SELECT dp_capture_sync('owned')"), '', 'and syncs');
is(as_owner("SELECT dp_verify('owned')"), 't', 'and verifies');
is(slots(), '2', 'its slot exists');
as_owner("DROP TABLE owned");
is(slots(), '1', 'DROP TABLE by the owner dropped its slot');

# A norm bound: the decoded rows are moved into the ball as the triggers
# move them.  Rows hold direction dir(k) (every coordinate 0.2-0.3, so 3x
# stays in the box) beyond the radius; the same k at 2x and 3x, each
# committed and synced alone, leave byte-identical deltas; at 0.5x (inside
# the ball) another one.
sql(q{CREATE FUNCTION dir(k int) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
	  WITH t AS (SELECT j, 1 + 0.2 * sin(k * (j + 1)) AS x FROM generate_series(0, 15) j)
	  SELECT array_agg(x / (SELECT sqrt(sum(x * x)) FROM t) ORDER BY j) FROM t $$;
	CREATE FUNCTION scaled(v float8[], s float8) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
	  SELECT array_agg(x * s ORDER BY o) FROM unnest(v) WITH ORDINALITY t(x, o) $$;
	CREATE TABLE sph (k int, v float8[])});
sql(q{SELECT dp_attach('sph', ARRAY['v'], 4, 1.0, array_fill(-1::float8, ARRAY[16]),
	  array_fill(1::float8, ARRAY[16]), horizon => 16, capture => 'wal', norm_bound => 1)});
sub sph_deltas { return sql("SELECT count(*) FROM dpkmeans_internal.delta WHERE relid = 'sph'::regclass"); }
is(sph_deltas(), 1, 'the attach left its (empty) backfill');
for my $scale (2, 3, 0.5)
{
	sql("INSERT INTO sph SELECT k, scaled(dir(k), $scale) FROM generate_series(1, 300) k");
	sql("SELECT dp_capture_sync('sph')");
}
is(sph_deltas(), 4, 'one delta per sync');
is(sql(q{SELECT array_agg(n ORDER BY n DESC) FROM
	  (SELECT count(*) AS n FROM dpkmeans_internal.delta WHERE relid = 'sph'::regclass
	   GROUP BY md5(payload)) t}),
	'{2,1,1}', 'rows at 2x and 3x the radius are the same points');
is(sql("SELECT dp_verify('sph')"), 't', 'the capture counts as the recount does');
sql("SELECT dp_detach('sph')");

# A slot invalidated by max_slot_wal_keep_size lost the WAL of changes not
# counted yet: the next release refuses, dp_capture_resync recovers.
sql(q{CREATE TABLE inv (x float8, y float8);
	SELECT dp_attach('inv', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10], capture => 'wal');
	INSERT INTO inv SELECT 1, 1 FROM generate_series(1, 30)});
is(sql("SELECT dp_release('inv')"), '1', 'inv: release 1');
$node->append_conf('postgresql.conf', "max_slot_wal_keep_size = 1MB\n");
$node->reload;
my $inv_slot = q{SELECT wal_status FROM pg_replication_slots s JOIN dpkmeans_internal.wal_capture w
	ON w.slot_name = s.slot_name WHERE w.relid = 'inv'::regclass};
for (my $i = 0; $i < 20 && sql($inv_slot) ne 'lost'; $i++)
{
	sql(q{INSERT INTO inv SELECT 2, 2 FROM generate_series(1, 2000); SELECT pg_switch_wal(); CHECKPOINT});
}
is(sql($inv_slot), 'lost', 'the slot of inv was invalidated');
($arc, $aout, $aerr) = $node->psql('postgres', "SELECT dp_release('inv')");
like($aerr, qr/replication slot "[^"]+" of table "inv" was invalidated/, 'a release after the invalidation refuses');
$node->append_conf('postgresql.conf', "max_slot_wal_keep_size = -1\n");
$node->reload;
sql("SELECT dp_capture_resync('inv')");
is(sql($inv_slot), 'reserved', 'dp_capture_resync made a new slot');
is(sql("SELECT dp_release('inv')"), '2', 'inv: release 2');
is(sql("SELECT dp_verify('inv')"), 't', 'release 2 folded every row written while the slot was lost');
sql("SELECT dp_detach('inv'); DROP TABLE inv");

# DROP EXTENSION gives every table captured from the WAL its previous
# replica identity back, as dp_detach does: pts had NOTHING, ind an index.
sql(q{CREATE TABLE ind (id int NOT NULL, x float8, y float8);
	CREATE UNIQUE INDEX ind_id ON ind (id);
	ALTER TABLE ind REPLICA IDENTITY USING INDEX ind_id;
	SELECT dp_attach('ind', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100], capture => 'wal')});
sub identities { return sql(q{SELECT string_agg(relname || ':' || relreplident::text, ',' ORDER BY relname)
	  FROM pg_class WHERE relname IN ('pts', 'ind')}); }
is(identities(), 'ind:f,pts:f', 'both captured with REPLICA IDENTITY FULL');
sql("BEGIN; DROP EXTENSION dpkmeans; ROLLBACK");
is(identities(), 'ind:f,pts:f', 'a rolled-back DROP EXTENSION keeps them FULL');
is(slots(), '2', 'and keeps the slots');
sql("DROP EXTENSION dpkmeans");
is(slots(), '0', 'DROP EXTENSION dropped every slot');
is(identities(), 'ind:i,pts:n', 'DROP EXTENSION gave back the previous replica identities');
is(sql(q{SELECT indexrelid::regclass FROM pg_index WHERE indrelid = 'ind'::regclass AND indisreplident}),
	'ind_id', 'with the same index');

$node->stop;
done_testing();
