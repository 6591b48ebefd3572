# No size channel from shards: a coordinator whose table has a local
# partition and a foreign partition on a shard server stores nothing whose
# size depends on the shard's rows, which its readers cannot see.  Three
# sharded tables lifting by regions hold the same local rows; their shards
# hold 300 rows, the same 300 rows and one more (a neighbouring state), and
# none.  After each release every internal row of the three tables on the
# coordinator has the same size (dpkmeans_internal.regions' state, the
# configuration row's true state, the histogram), so pg_relation_size, the
# TOAST chunks and pg_class.reltuples of the internal tables tell the
# three apart no better than the coordinator's own statistics do.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $coord = PostgreSQL::Test::Cluster->new('coordinator');
$coord->init;
$coord->start;
my $shard = PostgreSQL::Test::Cluster->new('shard');
$shard->init;
$shard->start;

# 64 coordinates in four blobs; row i of blob i % 4
my $point = q{(SELECT array_agg((i % 4) * 20 + 20 + ((i * j * 37) % 100) / 25.0 ORDER BY j)
	FROM generate_series(1, 64) j)::float8[]};
my @tables = ('na', 'nb', 'nc');
$shard->safe_psql('postgres', 'CREATE EXTENSION dpkmeans;'
	  . join('', map { "CREATE TABLE $_ (id int, v float8[]);" } @tables)
	  . "INSERT INTO na SELECT i, $point FROM generate_series(100001, 100300) i;"
	  . 'INSERT INTO nb SELECT * FROM na;'
	  . 'INSERT INTO nb VALUES (100301, array_fill(97::float8, ARRAY[64]));');

my ($host, $port) = ($shard->host, $shard->port);
$coord->safe_psql('postgres', qq{
	CREATE EXTENSION postgres_fdw;
	CREATE EXTENSION dpkmeans;
	CREATE SERVER s1 FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '$host', port '$port', dbname 'postgres');
	CREATE USER MAPPING FOR CURRENT_USER SERVER s1;
});
for my $t (@tables)
{
	$coord->safe_psql('postgres', qq{
		CREATE TABLE $t (id int, v float8[]) PARTITION BY RANGE (id);
		CREATE TABLE ${t}_local PARTITION OF $t FOR VALUES FROM (0) TO (100000);
		CREATE FOREIGN TABLE ${t}_s1 PARTITION OF $t FOR VALUES FROM (100000) TO (200000)
			SERVER s1 OPTIONS (schema_name 'public', table_name '$t');
		INSERT INTO $t SELECT i, $point FROM generate_series(1, 50) i;
		SELECT dp_attach('$t', ARRAY['v'], 4, 1.0, array_fill(0::float8, ARRAY[64]),
			array_fill(100::float8, ARRAY[64]), mode => 'insert_only');
	});
}
is($coord->safe_psql('postgres',
		q{SELECT string_agg(relid::text, ' ' ORDER BY relid::text) FROM dpkmeans_internal.regions}),
	'na nb nc', 'the three sharded tables lift by regions');
is($coord->safe_psql('postgres', q{SELECT (SELECT count(*) FROM na) || ' ' || (SELECT count(*) FROM nb)
	|| ' ' || (SELECT count(*) FROM nc)}), '350 351 50', 'their rows: 300, 301 and 0 on the shard');

# The sizes of every stored row of the three tables, one line per table.
my $sizes = q{SELECT string_agg(format('%s: regions %s, state %s, histogram %s, releases %s, centers %s, costs %s',
		t.relid, (SELECT length(state) FROM dpkmeans_internal.regions r WHERE r.relid = t.relid),
		length(t.state),
		(SELECT sum(length(payload)) FROM dpkmeans_internal.histogram h WHERE h.relid = t.relid),
		(SELECT count(*) FROM dpkmeans_internal.releases x WHERE x.relid = t.relid),
		(SELECT sum(pg_column_size(c.*)) FROM dpkmeans_internal.centers c WHERE c.relid = t.relid),
		(SELECT sum(pg_column_size(c.*)) FROM dpkmeans_internal.costs c WHERE c.relid = t.relid)),
		E'\n' ORDER BY t.relid::text)
	FROM dpkmeans_internal.tracked t};

# Every size with the table's name taken out: the same line thrice.
sub same_sizes
{
	my ($name) = @_;
	my $out = $coord->safe_psql('postgres', $sizes);
	my %lines = map { (my $l = $_) =~ s/^\w+: //; $l => 1 } split(/\n/, $out);
	note($out);
	is(scalar(keys %lines), 1, $name) or diag($out);
}

for my $t (@tables)
{
	is($coord->safe_psql('postgres', "SELECT dp_release('$t')"), '1', "$t: release 1");
}
same_sizes('release 1: shards of 300, 301 and 0 rows leave internal rows of the same sizes');

# One more row on one shard only, straight into it: release 2.
$shard->safe_psql('postgres', 'INSERT INTO nb VALUES (100302, array_fill(3::float8, ARRAY[64]))');
for my $t (@tables)
{
	is($coord->safe_psql('postgres', "SELECT dp_release('$t')"), '2', "$t: release 2");
}
same_sizes('release 2: one more row on one shard changes no size');
is($coord->safe_psql('postgres', q{SELECT dp_verify('na') AND dp_verify('nb') AND dp_verify('nc')}),
	't', 'every server recounts its rows');

done_testing();
