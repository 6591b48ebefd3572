# Dump and restore: a database with attached tables and releases, dumped
# with pg_dump and restored into a new database, keeps its releases, its
# triggers, its key and its columns (also when a column was dropped before
# attach, which renumbers columns on restore).  The restored copy is a second
# copy of the key, so it refuses releases until the owner confirms that it
# is the copy that goes on; its next release then equals the one the original
# makes on the same data.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dump');
$node->init;
$node->append_conf('postgresql.conf', "wal_level = logical\nmax_replication_slots = 8\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE DATABASE src;
});
$node->safe_psql('src', q{
	CREATE EXTENSION dpkmeans;
	CREATE ROLE dump_reader;
	CREATE SCHEMA geo;
	CREATE TABLE geo.trips (id bigserial, x float8, y float8);
	INSERT INTO geo.trips (x, y) SELECT i % 97, i % 89 FROM generate_series(1, 30000) i;
	SELECT dp_attach('geo.trips', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 128);
	SELECT dp_release('geo.trips');
	INSERT INTO geo.trips (x, y) SELECT 50, 50 FROM generate_series(1, 1000);
	SELECT dp_release('geo.trips');
	SELECT dp_grant_reader('geo.trips', 'dump_reader');
	GRANT USAGE ON SCHEMA geo TO dump_reader;
	CREATE TABLE emb (v float8[]);
	INSERT INTO emb SELECT ARRAY[i % 5, i % 3, i % 2] FROM generate_series(1, 1000) i;
	SELECT dp_attach('emb', ARRAY['v'], 2, 0.5, ARRAY[0, 0, 0], ARRAY[5, 5, 5], mode => 'insert_only');
	SELECT dp_release('emb');
	INSERT INTO geo.trips (x, y) SELECT 10, 10 FROM generate_series(1, 500);
	CREATE TABLE vec16 (v float8[]);
	INSERT INTO vec16 SELECT array_agg(((i * j) % 100)::float8 ORDER BY j)
		FROM generate_series(1, 3000) i, generate_series(1, 16) j GROUP BY i;
	SELECT dp_attach('vec16', ARRAY['v'], 3, 1.0, array_fill(0::float8, ARRAY[16]),
		array_fill(100::float8, ARRAY[16]));
	SELECT dp_release('vec16');
	INSERT INTO vec16 SELECT array_fill(7::float8, ARRAY[16]) FROM generate_series(1, 200);
	CREATE TABLE dropped (junk int, x1 float8, x2 float8);
	ALTER TABLE dropped DROP COLUMN junk;
	INSERT INTO dropped SELECT i % 50, i % 40 FROM generate_series(1, 2000) i;
	SELECT dp_attach('dropped', ARRAY['x1', 'x2'], 3, 1.0, ARRAY[0, 0], ARRAY[50, 50]);
	SELECT dp_release('dropped');
	CREATE TABLE parts (id int, x float8, y float8) PARTITION BY RANGE (id);
	CREATE TABLE parts_a PARTITION OF parts FOR VALUES FROM (0) TO (1000);
	CREATE TABLE parts_b PARTITION OF parts FOR VALUES FROM (1000) TO (2000);
	INSERT INTO parts SELECT i, i % 100, i % 37 FROM generate_series(0, 1999) i;
	SELECT dp_attach('parts', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
	SELECT dp_release('parts');
	INSERT INTO parts_b VALUES (1999, 5, 5);
	CREATE TABLE reg64 (v float8[]);
	INSERT INTO reg64 SELECT array_agg(((i % 2) * 40 + 30 + j % 5)::float8 ORDER BY j)
		FROM generate_series(1, 600) i, generate_series(1, 64) j GROUP BY i;
	SELECT dp_attach('reg64', ARRAY['v'], 2, 1.0, array_fill(0::float8, ARRAY[64]),
		array_fill(100::float8, ARRAY[64]), mode => 'insert_only');
	SELECT dp_release('reg64');
	INSERT INTO reg64 SELECT array_fill(70::float8, ARRAY[64]) FROM generate_series(1, 50);
	CREATE TABLE gsq (x float8, y float8);
	INSERT INTO gsq SELECT i % 61, i % 53 FROM generate_series(1, 5000) i;
	SELECT dp_attach('gsq', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 16,
		delta => 1e-6);
	SELECT dp_release('gsq');
});
# Two tables captured from the WAL; their slots belong to src.
$node->safe_psql('src', q{
	CREATE TABLE wtab (x float8, y float8);
	CREATE TABLE wtab2 (x float8, y float8);
	INSERT INTO wtab SELECT i % 100, i % 31 FROM generate_series(1, 3000) i;
	INSERT INTO wtab2 SELECT i % 100, i % 29 FROM generate_series(1, 3000) i;
	SELECT dp_attach('wtab', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], capture => 'wal');
	SELECT dp_attach('wtab2', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], capture => 'wal');
	SELECT dp_release('wtab'), dp_release('wtab2');
	INSERT INTO wtab SELECT 5, 5 FROM generate_series(1, 100);
});

my $q_centers = "SELECT array_agg(center ORDER BY cluster) FROM dp_centers('geo.trips', 4)";
my $q_hist = "SELECT md5(string_agg(noisy_count::text, ',' ORDER BY cell)) FROM dp_histogram('geo.trips')";
# high d: projection seed, key and the cube noise of the lifting sums
my $q_vec_hist = "SELECT md5(string_agg(noisy_count::text || ':' || array_to_string(center, ','), ';' ORDER BY cell)) "
  . "FROM dp_histogram('vec16')";
my $q_dropped = "SELECT array_agg(center ORDER BY cluster) FROM dp_centers('dropped', 3)";
my %before = (
	centers => $node->safe_psql('src', $q_centers),
	hist => $node->safe_psql('src', $q_hist),
	costs => $node->safe_psql('src', "SELECT array_agg(noisy_cost ORDER BY k) FROM dp_cost_curve('geo.trips')"),
	emb => $node->safe_psql('src', "SELECT array_agg(center ORDER BY cluster) FROM dp_centers('emb', 2)"),
	vec => $node->safe_psql('src', "SELECT array_agg(center ORDER BY cluster) FROM dp_centers('vec16', 3)"),
	dropped => $node->safe_psql('src', $q_dropped),
	gsq => $node->safe_psql('src', "SELECT md5(string_agg(noisy_count::text, ',' ORDER BY cell)) FROM dp_histogram('gsq')"),
);
is($node->safe_psql('src', "SELECT counter FROM dpkmeans_internal.tracked WHERE relid = 'gsq'::regclass"),
	'square_root', 'a small Gaussian table counts with the square root');

my $dump = PostgreSQL::Test::Utils::tempdir . '/src.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-h', $node->host, '-p', $node->port, '-f', $dump, 'src' ], 'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE dst');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-h', $node->host, '-p', $node->port, '-d', 'dst', $dump ],
	'pg_restore');

is($node->safe_psql('dst', $q_centers), $before{centers}, 'centres of the latest release identical');
is($node->safe_psql('dst', "SELECT counter FROM dpkmeans_internal.tracked WHERE relid = 'gsq'::regclass")
	. ' ' . $node->safe_psql('dst', "SELECT md5(string_agg(noisy_count::text, ',' ORDER BY cell)) FROM dp_histogram('gsq')"),
	"square_root $before{gsq}", 'a square-root table keeps its counter and its release');
# The privacy ledger comes along: every history, its releases, still open.
my $q_ledger = q{SELECT string_agg(format('%s %s %s %s %s %s', relid, history, epsilon, delta, releases,
	detached_at IS NULL), ';' ORDER BY relid::text, history) FROM dpkmeans_internal.ledger};
my $ledger_src = $node->safe_psql('src', $q_ledger);
like($ledger_src, qr/geo\.trips 1 1 0 2 t/, 'the original\'s ledger: geo.trips spent epsilon 1 in 2 releases');
is($node->safe_psql('dst', $q_ledger), $ledger_src, 'the ledger is restored');
is($node->safe_psql('dst', $q_hist), $before{hist}, 'histogram identical');
is($node->safe_psql('dst', "SET ROLE dump_reader; $q_centers"), $before{centers},
	'a role granted reading reads the restored table');
is($node->safe_psql('dst', "SELECT count(*) FROM dpkmeans_internal.readers WHERE reader = 'dump_reader'::regrole"),
	'1', '... its grant restored');
is($node->safe_psql('dst', "SELECT has_type_privilege('dump_reader', 'dpkmeans_internal.reader_grants', 'USAGE')"),
	't', '... with its privilege, so DROP ROLE is refused while it reads');
is($node->safe_psql('dst', "SELECT array_agg(noisy_cost ORDER BY k) FROM dp_cost_curve('geo.trips')"),
	$before{costs}, 'cost curve identical');
is($node->safe_psql('dst', "SELECT array_agg(center ORDER BY cluster) FROM dp_centers('emb', 2)"),
	$before{emb}, 'array-column table identical');
is($node->safe_psql('dst', "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'geo.trips'::regclass AND tgname LIKE 'dpkmeans%'"),
	'5', 'triggers in place (4 statement triggers, the row trigger for logical replication)');
is($node->safe_psql('dst', "SELECT dp_verify('parts')"), 't', 'partitioned table: state restored');
is($node->safe_psql('dst', "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'parts_b'::regclass "
	. "AND tgname LIKE 'dpkmeans%' AND tgenabled = CASE WHEN tgname = 'dpkmeans_capture_row' THEN 'R' ELSE 'A' END"),
	'5', 'partitioned table: partition triggers restored as they were');
$node->safe_psql('dst', "INSERT INTO parts VALUES (1, 9, 9), (1500, 8, 8); DELETE FROM parts_a WHERE id < 5");
is($node->safe_psql('dst', "SELECT dp_verify('parts')"), 't', 'partitioned table: writes after restore counted');
is($node->safe_psql('dst', "SELECT dp_verify('geo.trips')"), 't', 'state and pending changes restored');
is($node->safe_psql('dst', "SELECT array_agg(center ORDER BY cluster) FROM dp_centers('vec16', 3)"),
	$before{vec}, 'high-dimensional table identical');
is($node->safe_psql('dst', $q_dropped), $before{dropped}, 'table with a dropped column: release identical');
is($node->safe_psql('dst', "SELECT dp_verify('dropped')"), 't', 'dropped column: state restored');

# Writes into the restored tables are counted (columns resolved by name).
$node->safe_psql('dst', "INSERT INTO dropped VALUES (1, 2), (3, 4); DELETE FROM dropped WHERE x1 = 5");
is($node->safe_psql('dst', "SELECT dp_verify('dropped')"), 't', 'dropped column: writes after restore counted');

# A second copy of the key: no release until the owner confirms this copy.
my ($rc, $out, $err) = $node->psql('dst', "SELECT dp_release('geo.trips')");
isnt($rc, 0, 'restored copy refuses a release before dp_confirm_history');
like($err, qr/release history on another server or database/, 'with a clear error');
$node->safe_psql('dst', "SELECT dp_confirm_history(t) FROM unnest(ARRAY['geo.trips', 'vec16', 'dropped', 'reg64']::regclass[]) t");

# Same data, same key, same next node noise: the restored copy's release 3
# equals the original's (the original then never releases again).
is($node->safe_psql('dst', "SELECT dp_release('geo.trips')"), '3', 'release after confirming');
$node->safe_psql('src', "SELECT dp_release('geo.trips')");
is($node->safe_psql('dst', $q_hist), $node->safe_psql('src', $q_hist),
	'key and state kept: the next release is the same');
$node->safe_psql('dst', "SELECT dp_release('vec16')");
$node->safe_psql('src', "SELECT dp_release('vec16')");
my $vec_dst = $node->safe_psql('dst', $q_vec_hist);
is($vec_dst, $node->safe_psql('src', $q_vec_hist),
	'high d: the next release has the same projection and lifting-sum noise');
isnt($vec_dst, '', 'high-d histogram read');
is($node->safe_psql('dst', "SELECT dp_release('dropped')"), '2', 'dropped column: release after restore');
# the square-root counter's next release: the same measurements on both sides
my $q_gsq = "SELECT md5(string_agg(noisy_count::text || ':' || array_to_string(center, ','), ';' ORDER BY cell)) "
  . "FROM dp_histogram('gsq')";
$node->safe_psql('dst', "SELECT dp_confirm_history('gsq'); SELECT dp_release('gsq')");
$node->safe_psql('src', "SELECT dp_release('gsq')");
is($node->safe_psql('dst', $q_gsq), $node->safe_psql('src', $q_gsq),
	'square root: the next release is the same');
# A confirmed copy continues the restored history; a re-attach opens the
# next one and says what the rows spent before the dump.
is($node->safe_psql('dst', q{SELECT releases FROM dpkmeans_internal.ledger
	WHERE relid = 'dropped'::regclass AND detached_at IS NULL}), '2', 'the restored history goes on counting');
$node->safe_psql('dst', "SELECT dp_detach('dropped')");
($rc, $out, $err) = $node->psql('dst',
	"SELECT dp_attach('dropped', ARRAY['x1', 'x2'], 3, 0.5, ARRAY[0, 0], ARRAY[50, 50])");
like($err, qr/the rows of table "dropped" have spent epsilon = 1, delta = 0 in 1 earlier history/,
	're-attach after restore: the NOTICE counts the restored history');
is($node->safe_psql('dst', "SELECT dp_release('dropped')"), '1', 'the new history releases');
like($node->safe_psql('dst', q{SELECT value FROM dp_privacy_report('dropped')
	WHERE item = 'ledger: spent over every history'}), qr/^epsilon = 1\.5, delta = 0 /,
	'and the report adds up both histories');
# lifting by regions: the region state (maps, node sums, last cells) is
# dumped, so the next release is the same in both databases
is($node->safe_psql('dst', "SELECT count(*) FROM dpkmeans_internal.regions WHERE relid = 'reg64'::regclass"),
	'1', 'region state restored');
my $q_reg = "SELECT md5(string_agg(k || ':' || array_to_string(center, ','), ';' ORDER BY k, cluster)) "
  . "FROM generate_series(1, 2) k, dp_centers('reg64', k)";
is($node->safe_psql('dst', "SELECT dp_release('reg64')"), '2', 'regions: release after restore');
$node->safe_psql('src', "SELECT dp_release('reg64')");
is($node->safe_psql('dst', $q_reg), $node->safe_psql('src', $q_reg),
	'regions: the next release is the same');

# New writes and releases work in the restored database.
$node->safe_psql('dst', "INSERT INTO geo.trips (x, y) VALUES (1, 2); DELETE FROM geo.trips WHERE id < 10");
is($node->safe_psql('dst', "SELECT dp_release('geo.trips')"), '4', 'new release after restore');
is($node->safe_psql('dst', "SELECT dp_verify('geo.trips')"), 't', 'writes after restore are counted');
eval { $node->safe_psql('dst', "DELETE FROM emb"); };
like($@, qr/insert_only/, 'insert_only refusal restored');

# Tables captured from the WAL, restored into another database of the same
# cluster: their stored slot names are the originals' slots, which neither
# their syncs, their detach nor their DROP may use or drop.
($rc, $out, $err) = $node->psql('dst', "SELECT dp_confirm_history('wtab'); SELECT dp_release('wtab')");
like($err, qr/table "wtab" has no replication slot of its own/,
	'a restored copy does not decode with the original\'s slot');
like($err, qr/dp_capture_resync\('wtab'\)/, 'and names dp_capture_resync');
$node->safe_psql('dst', "SELECT dp_capture_resync('wtab')");
$node->safe_psql('dst', "SELECT dp_detach('wtab2')");
my $q_slots = "SELECT string_agg(database::text, ',' ORDER BY database::text) FROM pg_replication_slots WHERE slot_name LIKE 'dpkmeans\\_%'";
is($node->safe_psql('postgres', $q_slots), 'dst,src,src',
	'the copy has a slot of its own; its detach left the original\'s slots');
$node->safe_psql('dst', "INSERT INTO wtab SELECT 7, 7 FROM generate_series(1, 70); DELETE FROM wtab WHERE x = 5");
is($node->safe_psql('dst', "SELECT dp_release('wtab')"), '2', 'the copy releases');
is($node->safe_psql('dst', "SELECT dp_verify('wtab')"), 't', 'and counts its own rows');
$node->safe_psql('src', "INSERT INTO wtab2 SELECT 9, 9 FROM generate_series(1, 90); DELETE FROM wtab WHERE x = 1");
is($node->safe_psql('src', "SELECT dp_verify('wtab')"), 't', 'the original still counts wtab from its slot');
is($node->safe_psql('src', "SELECT dp_verify('wtab2')"), 't', 'and wtab2');
$node->safe_psql('dst', "DROP TABLE wtab");
is($node->safe_psql('postgres', $q_slots), 'src,src', 'DROP TABLE of the copy dropped its own slot only');

# A table dumped alone (pg_dump -t) comes with its capture triggers but
# without its dpkmeans state: its triggers can be dropped, or dp_attach
# replaces them and forgets what they appended.
my $one = PostgreSQL::Test::Utils::tempdir . "/one.sql";
$node->command_ok([ 'pg_dump', '-h', $node->host, '-p', $node->port, '-t', 'emb', '-f', $one, 'src' ],
	'pg_dump -t of an attached table');
$node->safe_psql('postgres', 'CREATE DATABASE solo');
$node->safe_psql('solo', 'CREATE EXTENSION dpkmeans');
$node->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=0', '-h', $node->host, '-p', $node->port,
	'-f', $one, 'solo' ], 'restored into a database of its own');
$node->safe_psql('solo', "INSERT INTO emb SELECT ARRAY[1, 1, 1] FROM generate_series(1, 50)");
is($node->safe_psql('solo', "SELECT count(*) > 0 FROM pg_trigger WHERE tgrelid = 'emb'::regclass "
	. "AND tgname LIKE 'dpkmeans%'"), 't', 'its dpkmeans triggers came along');
$node->safe_psql('solo', q{
	SELECT dp_attach('emb', ARRAY['v'], 2, 0.5, ARRAY[0, 0, 0], ARRAY[5, 5, 5], mode => 'insert_only')});
is($node->safe_psql('solo', "SELECT dp_verify('emb')"), 't', 'dp_attach replaced them and their deltas');
$node->safe_psql('solo', "SELECT dp_detach('emb')");
$node->command_ok([ 'psql', '-X', '-q', '-h', $node->host, '-p', $node->port, '-c', 'DROP TABLE emb', 'solo' ],
	'drop it');
$node->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=0', '-h', $node->host, '-p', $node->port,
	'-f', $one, 'solo' ], 'restore it again');
$node->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', $node->host, '-p', $node->port, '-c',
	'DROP TRIGGER dpkmeans_capture_insert ON emb', 'solo' ],
	'a leftover capture trigger of a table not attached can be dropped');
$node->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', $node->host, '-p', $node->port, '-c',
	'DROP TABLE emb', 'solo' ], 'and so can the table with the others');

$node->stop;
done_testing();
