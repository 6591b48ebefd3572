# The noise of an (epsilon, delta) release drawn by parallel workers
# (src/api/release_noise.c) is the release's own: a restored copy of a
# database holds the same key, projection and rows, so its next release
# must publish the same values whether the noise is drawn by the release's
# worker alone (max_parallel_workers_per_gather = 0) or with parallel
# workers, which the server log shows were launched.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('pnoise');
$node->init;
$node->append_conf('postgresql.conf', "log_min_messages = debug1\nmax_worker_processes = 16\n");
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE src');
# 160 columns, 10 clusters; a fine grid (size_hint) so that a release at
# t = 3 (two tree nodes) draws more noise than the split threshold
$node->safe_psql('src', q{
	CREATE EXTENSION dpkmeans;
	CREATE TABLE emb (v float8[]);
	INSERT INTO emb SELECT array_agg((((i % 10) * 9 + j * 7) % 100 + (i * j % 13) / 13.0)::float8 ORDER BY j)
		FROM generate_series(1, 3000) i, generate_series(1, 160) j GROUP BY i;
	SELECT dp_attach('emb', ARRAY['v'], 10, 1.0, array_fill(0::float8, ARRAY[160]),
		array_fill(101::float8, ARRAY[160]), horizon => 16, delta => 1e-6, size_hint => 1e6);
	SELECT dp_release('emb');
	INSERT INTO emb SELECT array_fill(50::float8, ARRAY[160]) FROM generate_series(1, 100);
	SELECT dp_release('emb');
	INSERT INTO emb SELECT array_fill(20::float8, ARRAY[160]) FROM generate_series(1, 100);
});
my $dump = $node->basedir . '/src.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-h', $node->host, '-p', $node->port, '-f', $dump, 'src' ], 'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE dst');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-h', $node->host, '-p', $node->port, '-d', 'dst', $dump ],
	'pg_restore');
$node->safe_psql('dst', "SELECT dp_confirm_history('emb')");

my $q_hist = "SELECT count(*) || ' ' || md5(string_agg(noisy_count::text || ':' || array_to_string(center, ','), ';' "
  . "ORDER BY cell)) FROM dp_histogram('emb')";
my $q_centers = "SELECT md5(string_agg(c.center::text || c.noisy_size::text, ';' ORDER BY c.cluster)) "
  . "FROM dp_centers('emb', 10) c";

# release 3: the original alone, the copy with workers
my $log_at = -s $node->logfile;
is($node->safe_psql('src', "SET max_parallel_workers_per_gather = 0; SELECT dp_release('emb')"),
	'3', 'release 3 without workers');
ok(!$node->log_contains(qr/drawn by \d+ parallel workers/, $log_at), 'no worker drew noise');
$log_at = -s $node->logfile;
is($node->safe_psql('dst', "SET max_parallel_workers_per_gather = 2; SELECT dp_release('emb')"),
	'3', 'release 3 with workers');
ok($node->log_contains(qr/noise of cells \d+ to \d+ of \d+ drawn by [12] parallel workers/, $log_at),
	'workers drew part of the noise');
my $hist = $node->safe_psql('src', $q_hist);
like($hist, qr/^4096 /, 'every cell of the grid released');
is($node->safe_psql('dst', $q_hist), $hist, 'the same noisy histogram with and without workers');
is($node->safe_psql('dst', $q_centers), $node->safe_psql('src', $q_centers), 'the same centres');

# A square_root_lifted table (doc/decisions/084): the lifted cells' sums
# drawn by parallel workers, the other cells masked.  250 corners of the
# box, 150 rows each, lift about 220 cells; from release 6 their sums read
# 385 x 2t draws each, past the split threshold.
$node->safe_psql('postgres', 'CREATE DATABASE lsrc');
$node->safe_psql('lsrc', q{
	CREATE EXTENSION dpkmeans;
	CREATE TABLE emb (v float4[]);
	SELECT setseed(0.5);
	CREATE TEMP TABLE corners AS SELECT i, array_agg(CASE WHEN random() < 0.5 THEN 0 ELSE 100 END::float4 ORDER BY j) AS v
		FROM generate_series(1, 250) i, generate_series(1, 384) j GROUP BY i;
	INSERT INTO emb SELECT v FROM corners, generate_series(1, 150);
	SELECT dp_attach('emb', ARRAY['v'], 10, 4.0, array_fill(0::float8, ARRAY[384]),
		array_fill(100::float8, ARRAY[384]), horizon => 16, delta => 1e-6, size_hint => 100000);
});
is($node->safe_psql('lsrc', "SELECT counter FROM dpkmeans_internal.tracked"), 'square_root_lifted',
	'the 384-column table counts on square_root_lifted');
$dump = $node->basedir . '/lsrc.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-h', $node->host, '-p', $node->port, '-f', $dump, 'lsrc' ], 'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE ldst');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-h', $node->host, '-p', $node->port, '-d', 'ldst', $dump ],
	'pg_restore');
$node->safe_psql('ldst', "SELECT dp_confirm_history('emb')");
my $split = 0;
for my $t (1 .. 8)
{
	$node->safe_psql('lsrc', "SET max_parallel_workers_per_gather = 0; SELECT dp_release('emb')");
	$log_at = -s $node->logfile;
	$node->safe_psql('ldst', "SET max_parallel_workers_per_gather = 2; SELECT dp_release('emb')");
	$split++ if $node->log_contains(qr/drawn by [12] parallel workers/, $log_at);
	is($node->safe_psql('ldst', $q_hist), $node->safe_psql('lsrc', $q_hist),
		"lifted release $t: the same noisy histogram with and without workers");
	is($node->safe_psql('ldst', $q_centers), $node->safe_psql('lsrc', $q_centers),
		"lifted release $t: the same centres");
}
ok($split >= 2, "workers drew the lifted cells' sums at $split of 8 releases");
like($node->safe_psql('lsrc', "SELECT count(*) FROM dp_histogram('emb') WHERE noisy_count > 100"),
	qr/^(1[89]|2\d)\d$/, 'about 220 cells above the noise');

done_testing();
