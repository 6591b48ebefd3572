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

done_testing();
