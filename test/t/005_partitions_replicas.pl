# Partitioned tables and logical replicas, where a single server's
# pg_regress cannot go:
#  - a logical-replication subscriber with dpkmeans attached to the
#    subscribed tables (a plain one and a partitioned one) counts the initial
#    copy and every row the apply worker writes (INSERT, UPDATE, DELETE,
#    TRUNCATE), which fire row triggers only;
#  - pg_partman creating daily partitions ahead and dropping old ones by
#    retention, the sliding window most users run, keeps the counters exact;
#  - a partition detached while another session holds a release's worker
#    busy loses nothing.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $pub = PostgreSQL::Test::Cluster->new('publisher');
$pub->init(allows_streaming => 'logical');
$pub->start;
my $sub = PostgreSQL::Test::Cluster->new('subscriber');
$sub->init;
$sub->start;

my $schema = q{
	CREATE TABLE trips (id int PRIMARY KEY, x float8, y float8);
	CREATE TABLE events (id int, x float8, y float8, PRIMARY KEY (id)) PARTITION BY RANGE (id);
	CREATE TABLE events_a PARTITION OF events FOR VALUES FROM (0) TO (5000);
	CREATE TABLE events_b PARTITION OF events FOR VALUES FROM (5000) TO (10000);
};
$pub->safe_psql('postgres', $schema);
$pub->safe_psql('postgres', q{
	INSERT INTO trips SELECT i, (i * 37) % 100, (i * 11) % 100 FROM generate_series(1, 3000) i;
	INSERT INTO events SELECT i, (i * 7) % 100, (i * 13) % 100 FROM generate_series(1, 9000) i;
	CREATE PUBLICATION pub FOR TABLE trips, events WITH (publish_via_partition_root = true);
});
$sub->safe_psql('postgres', 'CREATE EXTENSION dpkmeans;' . $schema);
# rows the subscriber has before the subscription starts are counted too
$sub->safe_psql('postgres', q{
	INSERT INTO trips VALUES (-1, 50, 50);
	SELECT dp_attach('trips', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 32);
	SELECT dp_attach('events', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 32);
});
my $connstr = $pub->connstr . ' dbname=postgres';
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION sub CONNECTION '$connstr' PUBLICATION pub");
$sub->wait_for_subscription_sync($pub, 'sub');

my $check = q{SELECT (SELECT count(*) FROM trips) || ' ' || dp_verify('trips') || ' '
	|| (SELECT count(*) FROM events) || ' ' || dp_verify('events')};
is($sub->safe_psql('postgres', $check), '3001 true 9000 true',
	'initial copy counted on the subscriber');

$pub->safe_psql('postgres', q{
	INSERT INTO trips SELECT i, (i * 3) % 100, (i * 5) % 100 FROM generate_series(3001, 4000) i;
	UPDATE trips SET x = 100 - x WHERE id % 3 = 0;
	DELETE FROM trips WHERE id % 7 = 0;
	UPDATE events SET id = id + 9600, y = 1 WHERE id BETWEEN 1 AND 300;
	DELETE FROM events WHERE id % 11 = 0;
	INSERT INTO events SELECT i, 42, 42 FROM generate_series(9001, 9500) i;
});
$pub->wait_for_catchup('sub');
my ($trips, $events) = map { $pub->safe_psql('postgres', "SELECT count(*) FROM $_") } qw(trips events);
is($sub->safe_psql('postgres', $check), ($trips + 1) . " true $events true",
	'applied INSERT, UPDATE (also moving rows between partitions) and DELETE counted');

$pub->safe_psql('postgres', q{
	TRUNCATE trips;
	INSERT INTO trips VALUES (1, 2, 3);
});
$pub->wait_for_catchup('sub');
is($sub->safe_psql('postgres', $check), "1 true $events true", 'applied TRUNCATE counted (it empties the table)');
is($sub->safe_psql('postgres', "SELECT dp_release('trips') > 0 AND dp_release('events') > 0"),
	't', 'releases on the subscriber');
is($sub->safe_psql('postgres', "SELECT count(*) FROM dp_centers('events', 3)"), '3',
	'centres of the replicated partitioned table');

# An applied UPDATE is padded as two rows whether it moves the point to
# another cell or not: the deltas' sizes do not tell which.
$pub->safe_psql('postgres', 'UPDATE trips SET x = x WHERE id = 1');
$pub->safe_psql('postgres', 'UPDATE trips SET x = 99, y = 99 WHERE id = 1');
$pub->wait_for_catchup('sub');
is($sub->safe_psql('postgres', q{SELECT count(*) || ' ' || count(DISTINCT octet_length(payload))
	FROM dpkmeans_internal.delta WHERE relid = 'trips'::regclass}), '2 1',
	'an applied UPDATE that moves a point is as long as one that does not');
is($sub->safe_psql('postgres', "SELECT dp_verify('trips')"), 't', 'both counted');

# Writes in an ordinary session under session_replication_role = replica
# (no row trigger counts there, the statement triggers still do).
$sub->safe_psql('postgres', q{
	SET session_replication_role = replica;
	INSERT INTO trips VALUES (-2, 10, 10), (-3, 20, 20);
	DELETE FROM trips WHERE id = -1;
});
is($sub->safe_psql('postgres', "SELECT dp_verify('trips')"), 't',
	'replica-role session counted once');
# An insert_only table on the subscriber: the rows the publisher inserts
# are counted; a deletion it publishes is refused (the apply worker fires
# no statement trigger, a row trigger on REPLICA refuses), so nothing the
# accounting has no room for is counted, and the subscription waits.
$pub->safe_psql('postgres', q{
	CREATE TABLE lio (id int PRIMARY KEY, x float8, y float8);
	INSERT INTO lio SELECT i, i % 10, i % 7 FROM generate_series(1, 20) i;
	ALTER PUBLICATION pub ADD TABLE lio;
});
$sub->safe_psql('postgres', q{
	CREATE TABLE lio (id int PRIMARY KEY, x float8, y float8);
	SELECT dp_attach('lio', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10], mode => 'insert_only');
	ALTER SUBSCRIPTION sub REFRESH PUBLICATION;
});
$sub->wait_for_subscription_sync($pub, 'sub');
$pub->safe_psql('postgres', 'INSERT INTO lio SELECT i, 5, 5 FROM generate_series(21, 25) i');
$pub->wait_for_catchup('sub');
is($sub->safe_psql('postgres', "SELECT count(*) || ' ' || dp_verify('lio') FROM lio"), '25 true',
	'insert_only subscriber: the copy and applied inserts counted');
$pub->safe_psql('postgres', 'DELETE FROM lio WHERE id <= 3');
ok($sub->poll_query_until('postgres',
	q{SELECT apply_error_count > 0 FROM pg_stat_subscription_stats WHERE subname = 'sub'}),
	'the applied DELETE is refused');
is($sub->safe_psql('postgres', "SELECT count(*) || ' ' || dp_verify('lio') FROM lio"), '25 true',
	'and nothing was deleted or counted');
$sub->safe_psql('postgres', 'DROP SUBSCRIPTION sub');

# ---- pg_partman: daily partitions ahead, retention drops old ones ----
my $node = $sub;
$node->safe_psql('postgres', q{
	CREATE SCHEMA partman;
	CREATE EXTENSION pg_partman SCHEMA partman;
	CREATE TABLE visits (at timestamptz NOT NULL, x float8, y float8) PARTITION BY RANGE (at);
	SELECT partman.create_parent('public.visits', 'at', 'native', 'daily',
		p_start_partition => (now() - interval '10 days')::date::text, p_premake => 3);
	INSERT INTO visits SELECT now() - (i % 240) * interval '1 hour', (i * 7) % 100, (i * 3) % 100
		FROM generate_series(1, 5000) i;
	SELECT dp_attach('visits', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64);
});
my $n_parts = $node->safe_psql('postgres',
	"SELECT count(*) FROM pg_inherits WHERE inhparent = 'visits'::regclass");
$node->safe_psql('postgres', q{
	UPDATE partman.part_config SET retention = '4 days', retention_keep_table = false,
		premake = 6 WHERE parent_table = 'public.visits';
	CALL partman.run_maintenance_proc();
});
my $n_after = $node->safe_psql('postgres',
	"SELECT count(*) FROM pg_inherits WHERE inhparent = 'visits'::regclass");
ok($n_after != $n_parts, "pg_partman changed the partitions ($n_parts -> $n_after)");
is($node->safe_psql('postgres', "SELECT dp_verify('visits')"), 't',
	'counters exact after pg_partman maintenance (retention drops, premade partitions)');
$node->safe_psql('postgres', q{
	INSERT INTO visits SELECT now() + (i % 72) * interval '1 hour', 60, 60 FROM generate_series(1, 500) i;
});
is($node->safe_psql('postgres', "SELECT dp_verify('visits')"), 't',
	'rows in premade partitions counted');
is($node->safe_psql('postgres', "SELECT dp_release('visits')"), '1', 'release of the partman table');

# ---- detaching a partition while a release is being made ----
# A session holds the partition lock of a DETACH in an open transaction;
# a release meanwhile folds only committed deltas; the detach's deltas are
# counted once it commits, by the next release.
my $bg = $node->background_psql('postgres');
$bg->query_safe('BEGIN');
$bg->query_safe(q{ALTER TABLE events DETACH PARTITION events_b});
is($node->safe_psql('postgres', "SELECT dp_release('events')"), '2',
	'release while a DETACH is uncommitted');
$bg->query_safe('COMMIT');
$bg->quit;
is($node->safe_psql('postgres', "SELECT dp_verify('events') AND NOT EXISTS "
	. "(SELECT 1 FROM pg_trigger WHERE tgrelid = 'events_b'::regclass AND tgname LIKE 'dpkmeans%')"),
	't', 'detached partition: its rows left the counters, its triggers are gone');
is($node->safe_psql('postgres', "SELECT dp_release('events')"), '3', 'next release');

# ---- DETACH CONCURRENTLY cancelled ----
# Its partition stays detach-pending: still in the counters, so in the
# recount too; FINALIZE takes its rows out; dp_detach removes its triggers;
# dp_attach waits for FINALIZE (the server gives a detach-pending partition
# no row trigger of its parent).
$node->safe_psql('postgres', q{
	CREATE TABLE c (id int, x float8, y float8) PARTITION BY RANGE (id);
	CREATE TABLE c1 PARTITION OF c FOR VALUES FROM (0) TO (100);
	CREATE TABLE c3 PARTITION OF c FOR VALUES FROM (300) TO (400);
	CREATE TABLE c4 PARTITION OF c FOR VALUES FROM (400) TO (500);
	INSERT INTO c SELECT i, i % 10, i % 7 FROM generate_series(0, 99) i;
	INSERT INTO c SELECT i, 5, 5 FROM generate_series(300, 339) i;
	INSERT INTO c SELECT i, 6, 6 FROM generate_series(400, 429) i;
	SELECT dp_attach('c', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[10, 10]);
});
# A DETACH CONCURRENTLY of $p cancelled by a snapshot held open meanwhile.
sub cancel_detach {
	my ($p) = @_;
	my $reader = $node->background_psql('postgres');
	$reader->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$reader->query_safe('SELECT count(*) FROM c');
	my ($drc, $dout, $derr) = $node->psql('postgres',
		"SET statement_timeout = '2s'; ALTER TABLE c DETACH PARTITION $p CONCURRENTLY");
	like($derr, qr/statement timeout/, "DETACH CONCURRENTLY of $p cancelled while a snapshot is open");
	$reader->query_safe('COMMIT');
	$reader->quit;
	is($node->safe_psql('postgres',
		"SELECT inhdetachpending FROM pg_inherits WHERE inhrelid = '$p'::regclass"), 't',
		"$p is left detach-pending");
}
cancel_detach('c3');
is($node->safe_psql('postgres', "SELECT dp_verify('c')"), 't', 'the recount includes it');
$node->safe_psql('postgres', "SELECT dp_detach('c')");
is($node->safe_psql('postgres',
	"SELECT count(*) FROM pg_trigger WHERE tgrelid = 'c3'::regclass AND tgname LIKE 'dpkmeans%'"),
	'0', 'dp_detach removes its triggers too');
my ($arc, $aout, $aerr) = $node->psql('postgres',
	"SELECT dp_attach('c', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[10, 10])");
like($aerr, qr/partition "c3" is being detached.*\n.*\nHINT:  Run ALTER TABLE c DETACH PARTITION c3 FINALIZE first/,
	'dp_attach waits for FINALIZE');
$node->safe_psql('postgres', q{
	ALTER TABLE c DETACH PARTITION c3 FINALIZE;
	SELECT dp_attach('c', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[10, 10]);
	INSERT INTO c VALUES (5, 1, 1);
});
is($node->safe_psql('postgres', "SELECT dp_verify('c') || ' ' || (SELECT count(*) FROM c)"),
	'true 131', 'then it attaches and counts');
cancel_detach('c4');
$node->safe_psql('postgres', 'ALTER TABLE c DETACH PARTITION c4 FINALIZE');
is($node->safe_psql('postgres', "SELECT dp_verify('c') || ' ' || (SELECT count(*) FROM c)"),
	'true 101', 'FINALIZE of an attached tree takes the rows out of the counters');

done_testing();
