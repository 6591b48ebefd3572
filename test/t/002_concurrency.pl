# Concurrency: pgbench clients run single-row INSERT/UPDATE/DELETE and small
# multi-row transactions on an attached table while another session makes a
# release every second (two sessions releasing concurrently).  pgbench must exit 0 with no failed transaction and
# no aborted client, every release asked for must be made, the state must
# equal a recount, and the throughput is reported beside a plain table's.
# DPK_PGBENCH_SECONDS (default 20) and DPK_PGBENCH_CLIENTS (default 8).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep time);
use IPC::Run;

my $seconds = $ENV{DPK_PGBENCH_SECONDS} || 20;
my $clients = $ENV{DPK_PGBENCH_CLIENTS} || 8;

my $node = PostgreSQL::Test::Cluster->new('conc');
$node->init;
$node->append_conf('postgresql.conf', "max_connections = 40\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION dpkmeans;
	CREATE TABLE live (id bigserial PRIMARY KEY, x float8, y float8, note text);
	CREATE TABLE plain (id bigserial PRIMARY KEY, x float8, y float8, note text);
	INSERT INTO live (x, y) SELECT random() * 100, random() * 100 FROM generate_series(1, 20000);
	INSERT INTO plain (x, y) SELECT x, y FROM live;
	SELECT dp_attach('live', ARRAY['x', 'y'], 5, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 4096);
});

my $dir = PostgreSQL::Test::Utils::tempdir;
sub script {
	my ($table) = @_;
	my $f = "$dir/$table.sql";
	open my $fh, '>', $f or die;
	print $fh <<"SQL";
\\set r random(1, 100)
\\set id random(1, 20000)
BEGIN;
INSERT INTO $table (x, y) VALUES (random() * 100, random() * 100);
UPDATE $table SET x = random() * 100 WHERE id = :id;
UPDATE $table SET note = 'n' WHERE id = :id + 1;
DELETE FROM $table WHERE id = :id + 2;
INSERT INTO $table (x, y) SELECT random() * 100, random() * 100 FROM generate_series(1, 1 + :r % 5);
COMMIT;
SQL
	close $fh;
	return $f;
}

sub run_pgbench {
	my ($table, $with_releases) = @_;
	my $f = script($table);
	my @releasers;
	if ($with_releases) {
		# two sessions release concurrently: releases serialise on the
		# table's configuration row, every call gets its own number
		for my $half (1, 2) {
			my $n = $half == 1 ? int($seconds / 2) : $seconds - int($seconds / 2);
			my $releaser = $node->background_psql('postgres', on_error_stop => 1);
			$releaser->query_until(qr/go/, "\\echo go\n" .
				"DO \$\$ BEGIN FOR i IN 1..$n LOOP PERFORM dp_release('live'); COMMIT; PERFORM pg_sleep(1.5); END LOOP; END \$\$;\n");
			push @releasers, $releaser;
		}
	}
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([
		'pgbench', '-n', '-h', $node->host, '-p', $node->port, '-c', $clients, '-j', 2,
		'-T', $seconds, '-f', $f, 'postgres' ], '>', \$out, '2>', \$err);
	# quit waits for the release loops to finish (psql runs its input in
	# order); a loop stopped by an error shows up in the release count below
	for my $releaser (@releasers) {
		eval { $releaser->quit; 1 } or diag("a release session ended early: $@");
	}
	return ($ok, $out, $err);
}

my ($plain_ok, $plain_out) = run_pgbench('plain', 0);
my ($live_ok, $live_out, $live_err) = run_pgbench('live', 1);
my ($plain_tps) = $plain_out =~ /tps = ([0-9.]+)/;
my ($live_tps) = $live_out =~ /tps = ([0-9.]+)/;
my ($failed) = $live_out =~ /number of failed transactions: (\d+)/;
my ($processed) = $live_out =~ /number of transactions actually processed: (\d+)/;

ok($plain_ok, 'pgbench on the plain table exits 0');
ok($live_ok, 'pgbench on the attached table exits 0') or diag($live_out . $live_err);
ok(defined $live_tps && ($processed // 0) > 0, 'pgbench ran on the attached table') or diag($live_out . $live_err);
ok(defined $failed, 'pgbench reported its failed transactions') or diag($live_out);
is($failed // -1, 0, 'no failed transaction');
unlike($live_err, qr/abort|error|deadlock/i, 'no client aborted, no error, no deadlock') or diag($live_err);
my $releases = $node->safe_psql('postgres', "SELECT value FROM dp_privacy_report('live') WHERE item = 'releases used'");
is($releases, $seconds, "every release asked for was made ($releases of $seconds)");
is($node->safe_psql('postgres', "SELECT dp_verify('live')"), 't', 'state equals a recount');
diag(sprintf("throughput: plain %.1f tps, attached %.1f tps, ratio %.2f (%d clients, %d s)",
	$plain_tps // 0, $live_tps // 0, ($live_tps // 0) / ($plain_tps || 1), $clients, $seconds));

# TRUNCATE waiting for a writer's lock: the writer's rows, committed while
# TRUNCATE waited, go with the rest, and so must their counts (the trigger
# reads the state and deltas as of after the lock, not as of its statement's
# snapshot).  Then the same in REPEATABLE READ, whose snapshot is older still.
$node->safe_psql('postgres', q{
	CREATE TABLE tr (x float8, y float8);
	INSERT INTO tr SELECT random() * 100, random() * 100 FROM generate_series(1, 100);
	SELECT dp_attach('tr', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[100, 100]);
});
my $writer = $node->background_psql('postgres', on_error_stop => 1);
$writer->query_safe('BEGIN');
$writer->query_safe('INSERT INTO tr SELECT 50, 50 FROM generate_series(1, 7)');
my $truncator = $node->background_psql('postgres', on_error_stop => 1);
$truncator->query_until(qr/go/, "\\echo go\nTRUNCATE tr;\n");
ok($node->poll_query_until('postgres',
	q{SELECT count(*) > 0 FROM pg_locks WHERE relation = 'tr'::regclass AND NOT granted}),
	'TRUNCATE waits for the writer');
$writer->query_safe('COMMIT');
$truncator->quit;
is($node->safe_psql('postgres', 'SELECT count(*) FROM tr'), '0', 'TRUNCATE removed the writer\'s rows');
is($node->safe_psql('postgres', "SELECT dp_verify('tr')"), 't',
	'and their counts: the state equals a recount after TRUNCATE waited');
$node->safe_psql('postgres', 'INSERT INTO tr SELECT random() * 100, random() * 100 FROM generate_series(1, 50)');
$truncator = $node->background_psql('postgres', on_error_stop => 1);
$truncator->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
$truncator->query_safe('SELECT count(*) FROM pg_class');
$node->safe_psql('postgres', 'INSERT INTO tr SELECT 50, 50 FROM generate_series(1, 7)');
$truncator->query_safe('TRUNCATE tr');
$truncator->query_safe('COMMIT');
$truncator->quit;
is($node->safe_psql('postgres', "SELECT count(*), dp_verify('tr') FROM tr"), '0|t',
	'TRUNCATE in REPEATABLE READ negates rows committed after its snapshot');
$writer->quit;

# Two releases of a table lifting by regions, both waiting for the lock on
# its configuration row: the second must read the region state the first
# stored, not the one of its own starting snapshot (else it fails, and so
# does every release after it).
$node->safe_psql('postgres', q{
	CREATE TABLE reg (v float8[]);
	INSERT INTO reg SELECT (SELECT array_agg((i % 4) * 20 + 20 + (random() - 0.5) * 4 + 0 * j)
	                        FROM generate_series(1, 64) j)
	FROM generate_series(1, 2000) i;
	SELECT dp_attach('reg', ARRAY['v'], 4, 1.0, array_fill(0::float8, ARRAY[64]),
	                 array_fill(100::float8, ARRAY[64]), mode => 'insert_only');
});
is($node->safe_psql('postgres', q{SELECT count(*) FROM dpkmeans_internal.regions}), '1',
	'the 64-column insert-only table lifts by regions');
my $locker = $node->background_psql('postgres', on_error_stop => 1);
$locker->query_safe('BEGIN');
$locker->query_safe(q{SELECT 1 FROM dpkmeans_internal.tracked WHERE relid = 'reg'::regclass FOR UPDATE});
my @releasers;
for my $i (1, 2) {
	my $releaser = $node->background_psql('postgres', on_error_stop => 0);
	$releaser->query_until(qr/go/, "\\echo go\nSELECT dp_release('reg');\n");
	push @releasers, $releaser;
}
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 2 FROM pg_stat_activity
	  WHERE backend_type = 'dpkmeans release' AND wait_event_type = 'Lock'}),
	'both release workers wait for the configuration row');
$locker->query_safe('COMMIT');
$locker->quit;
$_->quit for @releasers;
is($node->safe_psql('postgres', q{SELECT string_agg(t::text, ',' ORDER BY t)
	FROM (SELECT DISTINCT t FROM dpkmeans_internal.releases WHERE relid = 'reg'::regclass) r}), '1,2',
	'both releases were made, one after the other');
is($node->safe_psql('postgres', "SELECT dp_release('reg')"), '3', 'and the next one too');

# Two sessions attaching one table: the second waits for the first's lock,
# then finds the table attached (42710), not a unique violation of the
# internal table; the same for two detaches.
$node->safe_psql('postgres', q{
	CREATE TABLE twice (x float8, y float8);
	INSERT INTO twice SELECT random() * 100, random() * 100 FROM generate_series(1, 100);
});
my $attach_sql = q{SELECT dp_attach('twice', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[100, 100])};
for my $step (['attach', $attach_sql, qr/is already attached/],
	['detach', q{SELECT dp_detach('twice')}, qr/is not attached/])
{
	my ($what, $sql, $expect) = @$step;
	my $first = $node->background_psql('postgres', on_error_stop => 1);
	$first->query_safe('BEGIN');
	$first->query_safe($sql);
	my $second = $node->background_psql('postgres', on_error_stop => 0);
	$second->query_until(qr/go/, "\\echo go\n$sql;\n");
	ok($node->poll_query_until('postgres',
		q{SELECT count(*) > 0 FROM pg_locks WHERE relation = 'twice'::regclass AND NOT granted}),
		"a second $what waits for the first");
	$first->query_safe('COMMIT');
	$first->quit;
	$second->query('SELECT 1');
	like($second->{stderr}, $expect, "the second $what says so after the first committed");
	unlike($second->{stderr}, qr/duplicate key|unique/, "the second $what hits no internal constraint");
	$second->quit;
}

$node->stop;
done_testing();
