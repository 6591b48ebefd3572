# Release time of a table on two shards (postgres_fdw foreign partitions of
# a coordinator's table, no local rows) against the same rows on a single
# server: 1M rows, 256 cells, the same number of writing statements (deltas)
# between releases.  Prints the median release time of each and their ratio
# (doc/benchmarks.md).  Run with: make bench-shards PG_CONFIG=...
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $rows = $ENV{DPK_BENCH_ROWS} // 1000000;
my $releases = $ENV{DPK_BENCH_RELEASES} // 7;
my $stmts = 100;    # writing statements between two releases, in all

my $coord = PostgreSQL::Test::Cluster->new('coordinator');
$coord->init;
# the single server preloads the library too, so both sides start equal
$coord->append_conf('postgresql.conf', "shared_preload_libraries = 'dpkmeans'\n")
  unless $ENV{DPK_BENCH_NO_PRELOAD};
$coord->start;
my @shards = map { PostgreSQL::Test::Cluster->new("shard$_") } (1, 2);
for my $node (@shards)
{
	$node->init;
	# as doc/scale-out.md recommends: a coordinator's release opens a session
	# on each shard, which then need not load the library (and OpenBLAS)
	$node->append_conf('postgresql.conf', "shared_preload_libraries = 'dpkmeans'\n")
	  unless $ENV{DPK_BENCH_NO_PRELOAD};
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION dpkmeans; CREATE TABLE pts (x float8, y float8)');
}
$coord->safe_psql('postgres', 'CREATE EXTENSION postgres_fdw; CREATE EXTENSION dpkmeans;
	CREATE TABLE single (x float8, y float8);
	CREATE TABLE sharded (s int, x float8, y float8) PARTITION BY LIST (s);');
for my $i (1, 2)
{
	my ($host, $port) = ($shards[ $i - 1 ]->host, $shards[ $i - 1 ]->port);
	$coord->safe_psql('postgres', qq{
		CREATE SERVER s$i FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$host', port '$port', dbname 'postgres');
		CREATE USER MAPPING FOR CURRENT_USER SERVER s$i;
		CREATE FOREIGN TABLE sharded_$i PARTITION OF sharded FOR VALUES IN ($i) SERVER s$i
			OPTIONS (schema_name 'public', table_name 'pts');
	});
}
# Rows in statements of equal size: the single table gets all, each shard half.
sub load
{
	my ($node, $table, $n, $nstmt, $seed) = @_;
	my $per = int($n / $nstmt);
	my $sql = join('', map {
		"INSERT INTO $table SELECT 100 * random(), 100 * random() FROM generate_series(1, $per);\n"
	} 1 .. $nstmt);
	$node->safe_psql('postgres', "SELECT setseed($seed);\n$sql");
}
load($coord, 'single', $rows, $stmts, 0.1);
load($_, 'pts', $rows / 2, $stmts / 2, 0.2) for @shards;
my $attach = q{SET dpkmeans.max_cells = 256;
	SELECT dp_attach('%s', ARRAY['x', 'y'], 5, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 1024, size_hint => 1e6)};
$coord->safe_psql('postgres', sprintf($attach, 'single'));
$coord->safe_psql('postgres', sprintf($attach, 'sharded'));
my $cells = $coord->safe_psql('postgres', q{SELECT value FROM dp_privacy_report('sharded') WHERE item = 'levels with counters'});
note("sharded: $cells");
$coord->safe_psql('postgres', q{SELECT dp_release('single'), dp_release('sharded')});

sub timed_release
{
	my ($table) = @_;
	my @t = split /\n/, $coord->safe_psql('postgres',
		"SELECT extract(epoch FROM clock_timestamp());\nSELECT dp_release('$table');\n"
		  . "SELECT extract(epoch FROM clock_timestamp());");
	return 1000 * ($t[2] - $t[0]);
}
sub median { my @s = sort { $a <=> $b } @_; return $s[ int(@s / 2) ]; }
my (@single, @sharded);
for my $r (1 .. $releases)
{
	load($coord, 'single', 10000, $stmts, 0.3);
	load($_, 'pts', 5000, $stmts / 2, 0.4) for @shards;
	push @single, timed_release('single');
	push @sharded, timed_release('sharded');
}
is($coord->safe_psql('postgres', q{SELECT dp_verify('single') AND dp_verify('sharded')}), 't', 'both recount');
my ($ms1, $ms2) = (median(@single), median(@sharded));
diag(sprintf("release time, %d rows, 256 cells, %d deltas per release: single server %.1f ms, "
	  . "2 shards %.1f ms (median of %d), ratio %.2f",
	$rows, $stmts, $ms1, $ms2, $releases, $ms2 / $ms1));
diag('single:  ' . join(' ', map { sprintf('%.1f', $_) } @single));
diag('sharded: ' . join(' ', map { sprintf('%.1f', $_) } @sharded));
done_testing();
