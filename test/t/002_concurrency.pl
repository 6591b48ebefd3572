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

$node->stop;
done_testing();
