# Crash safety: a backend killed with SIGKILL during a large COPY
# and during a release, and an immediate shutdown during a load.  Afterwards
# the stored state equals a recount, release numbers continue, earlier
# releases read back unchanged and a release made again reuses the same node
# noise (same state, same key, same number -> same histogram).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
$node->append_conf('postgresql.conf', "restart_after_crash = on\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION dpkmeans;
	CREATE TABLE pts (id bigserial, x float8, y float8);
	INSERT INTO pts (x, y) SELECT (i % 97), (i % 89) FROM generate_series(1, 50000) i;
	SELECT dp_attach('pts', ARRAY['x', 'y'], 4, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64);
});
is($node->safe_psql('postgres', "SELECT dp_release('pts')"), '1', 'release 1');
my $centers1 = $node->safe_psql('postgres',
	"SELECT array_agg(center ORDER BY cluster) FROM dp_centers('pts', 4)");

# Kill a backend in the middle of a large load.
sub kill_during {
	my ($sql, $marker) = @_;
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	$bg->query_safe("SET application_name = '$marker'");
	$bg->query_until(qr/started/, "\\echo started\n$sql;\n");
	my $pid;
	for (1 .. 200) {
		$pid = $node->safe_psql('postgres',
			"SELECT pid FROM pg_stat_activity WHERE application_name = '$marker' AND state = 'active'");
		last if $pid;
		usleep(50_000);
	}
	ok($pid, "found the busy backend of $marker");
	usleep(300_000);
	kill 'KILL', $pid if $pid;
	eval { $bg->quit; };
	$node->poll_query_until('postgres', 'SELECT 1', '1');
}

# A large COPY file (COPY fires the same statement-level triggers).
my $copyfile = PostgreSQL::Test::Utils::tempdir . '/load.copy';
$node->safe_psql('postgres',
	"COPY (SELECT random() * 100, random() * 100 FROM generate_series(1, 4000000)) TO '$copyfile'");
kill_during("COPY pts (x, y) FROM '$copyfile'", 'load1');
is($node->safe_psql('postgres', "SELECT dp_verify('pts')"), 't', 'state equals a recount after SIGKILL mid-load');

# Rows written after the crash are counted.
$node->safe_psql('postgres',
	"INSERT INTO pts (x, y) SELECT 10 + i % 5, 90 - i % 7 FROM generate_series(1, 20000) i");

# Kill a backend while it makes a release (a big grid makes it slow).
$node->safe_psql('postgres', q{
	CREATE TABLE big (x float8, y float8);
	INSERT INTO big SELECT random(), random() FROM generate_series(1, 1000);
	SET dpkmeans.max_cells = 4194304;
	SELECT dp_attach('big', ARRAY['x', 'y'], 8, 1.0, ARRAY[0, 0], ARRAY[1, 1], size_hint => 1e12);
});
kill_during(q{SELECT dp_release('big')}, 'release1');
is($node->safe_psql('postgres', "SELECT dp_verify('big')"), 't', 'state intact after SIGKILL mid-release');
is($node->safe_psql('postgres', "SELECT value FROM dp_privacy_report('big') WHERE item = 'releases used'"),
	'0', 'the killed release left no trace');

# Immediate shutdown during a load.
my $bg = $node->background_psql('postgres', on_error_stop => 0);
$bg->query_until(qr/started/,
	"\\echo started\nINSERT INTO pts (x, y) SELECT random() * 100, random() * 100 FROM generate_series(1, 5000000);\n");
usleep(500_000);
$node->stop('immediate');
eval { $bg->quit; };
$node->start;
is($node->safe_psql('postgres', "SELECT dp_verify('pts')"), 't', 'state equals a recount after immediate shutdown');

# An independent recount through the readers after a killed load: with
# epsilon = 1000 the node noise of the counts is zero with overwhelming
# probability, so the released histogram must equal counts computed in SQL
# with width_bucket (not with the triggers' cell mapping).
$node->safe_psql('postgres', q{
	SET dpkmeans.max_cells = 4096;
	CREATE TABLE exact (x float8, y float8);
	INSERT INTO exact SELECT random() * 100, random() ^ 2 * 100 FROM generate_series(1, 20000);
	SELECT dp_attach('exact', ARRAY['x', 'y'], 3, 1000, ARRAY[0, 0], ARRAY[100, 100], horizon => 8);
});
kill_during("INSERT INTO exact SELECT random() * 100, random() * 100 FROM generate_series(1, 3000000)", 'load2');
$node->safe_psql('postgres', "DELETE FROM exact WHERE x < 10; UPDATE exact SET y = 100 - y WHERE x > 90");
is($node->safe_psql('postgres', "SELECT dp_release('exact')"), '1', 'release of the recount table');
is($node->safe_psql('postgres', q{
	WITH truth AS (
		SELECT ARRAY[least(greatest(width_bucket(x, 0, 100, 64), 1), 64) - 1,
		             least(greatest(width_bucket(y, 0, 100, 64), 1), 64) - 1] AS cell, count(*) AS n
		FROM exact GROUP BY 1)
	SELECT count(*) FROM dp_histogram('exact', 6) h FULL JOIN truth t ON t.cell = h.cell
	WHERE coalesce(h.noisy_count, 0) <> coalesce(t.n, 0)}),
	'0', 'released histogram equals an independent SQL recount after a killed load');

# Release 1 reads back unchanged after crashes and restarts.
is($node->safe_psql('postgres',
	"SELECT array_agg(center ORDER BY cluster) FROM dp_centers('pts', 4)"), $centers1, 'release 1 unchanged');

# A release is durable once dp_release returns, even where commits are
# asynchronous: with synchronous_commit = off and a slow WAL writer, an
# immediate shutdown right after the release must not lose it (a lost
# release would be made again on other data with the same node noise).
$node->append_conf('postgresql.conf', "synchronous_commit = off\nwal_writer_delay = 10000\n");
$node->reload;
my $q_hist = "SELECT md5(string_agg(noisy_count::text, ',' ORDER BY cell)) FROM dp_histogram('pts', 3)";
is($node->safe_psql('postgres', "SELECT dp_release('pts')"), '2', 'release numbers continue');
my $hist2 = $node->safe_psql('postgres', $q_hist);
$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres', "SELECT value FROM dp_privacy_report('pts') WHERE item = 'releases used'"),
	'2', 'release 2 survived an immediate shutdown right after dp_release');
is($node->safe_psql('postgres', $q_hist), $hist2, 'release 2 reads back unchanged');
is($node->safe_psql('postgres', "SELECT dp_release('pts')"), '3', 'the next release gets the next number');

# A cancel that reaches the worker while it commits: a synchronous standby
# that never answers holds the worker in its commit, after the commit record
# is flushed (replication waits need max_wal_senders > 0).  The cancelled
# dp_release stops the worker, which leaves the wait with release 4 made;
# the cancel's error says so, and the next release is 5.
$node->append_conf('postgresql.conf',
	"wal_level = replica\nmax_wal_senders = 2\nsynchronous_commit = on\nsynchronous_standby_names = 'nobody'\n");
$node->restart;
my ($ret, $out, $err) = $node->psql('postgres',
	"SET statement_timeout = '3s'; SELECT dp_release('pts')", extra_params => ['-v', 'VERBOSITY=verbose']);
like($err, qr/canceling statement due to statement timeout/, 'the release was cancelled');
like($err, qr/Release 4 of table "pts" was made: its worker had committed it/,
	'and the cancel says the release was made');
$node->append_conf('postgresql.conf', "synchronous_standby_names = ''\n");
$node->restart;
is($node->safe_psql('postgres', "SELECT value FROM dp_privacy_report('pts') WHERE item = 'releases used'"),
	'4', 'release 4 exists');
is($node->safe_psql('postgres', "SELECT dp_release('pts')"), '5', 'the next release is 5');

$node->stop;
done_testing();
