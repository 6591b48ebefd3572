# PostGIS points on a sharded table and the same points in two float8
# columns (dpkmeans_postgis; skipped where PostGIS is not installed):
#  - a coordinator's partitioned table of geometry(Point, 3857) with a local
#    partition and a foreign partition on a shard server (postgres_fdw):
#    rows written through the coordinator and straight into the shard are
#    counted once, by the server storing them; a row that is not a point is
#    refused by the shard in the coordinator's statement;
#  - given the same key, a plain table holding the same points as two
#    float8 columns releases exactly the same histogram, centres and costs:
#    a point is counted exactly as its X and Y are.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $coord = PostgreSQL::Test::Cluster->new('coordinator');
$coord->init;
$coord->start;
if ($coord->safe_psql('postgres', "SELECT count(*) FROM pg_available_extensions WHERE name = 'postgis'") eq '0')
{
	$coord->stop;
	plan skip_all => 'PostGIS is not installed';
}
my $shard = PostgreSQL::Test::Cluster->new('shard');
$shard->init;
$shard->start;

sub sql { return $coord->safe_psql('postgres', shift); }

# Points in three blobs; the id says which server stores them.
sub rows
{
	my ($from, $to) = @_;
	return "SELECT i, ST_SetSRID(ST_MakePoint(2e5 + 3e5 * (i % 3) + (i * 37) % 10000, "
	  . "2e5 + 2.5e5 * ((i / 3) % 3) + (i * 91) % 10000), 3857) FROM generate_series($from, $to) i";
}

$shard->safe_psql('postgres', q{
	SET client_min_messages = warning;
	CREATE EXTENSION dpkmeans_postgis CASCADE;
	CREATE TABLE pts (id int, at geometry(Point, 3857));
} . 'INSERT INTO pts ' . rows(100000, 102999));
my ($host, $port) = ($shard->host, $shard->port);
sql(qq{
	SET client_min_messages = warning;
	CREATE EXTENSION postgres_fdw;
	CREATE EXTENSION dpkmeans_postgis CASCADE;
	CREATE SERVER s1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$host', port '$port', dbname 'postgres');
	CREATE USER MAPPING FOR CURRENT_USER SERVER s1;
	CREATE TABLE pts (id int, at geometry(Point, 3857)) PARTITION BY RANGE (id);
	CREATE TABLE pts_local PARTITION OF pts FOR VALUES FROM (0) TO (100000);
	CREATE FOREIGN TABLE pts_s1 PARTITION OF pts FOR VALUES FROM (100000) TO (200000)
		SERVER s1 OPTIONS (schema_name 'public', table_name 'pts');
} . 'INSERT INTO pts ' . rows(1, 2000));

sql(q{SELECT dp_attach('pts', 'at', 3, 1.0, ST_MakeEnvelope(0, 0, 1e6, 1e6, 3857), horizon => 16)});
is($shard->safe_psql('postgres', q{SELECT count(*) FROM dpkmeans_internal.shard_tables}), '1',
	'the shard is attached');
is(sql(q{SELECT dp_verify('pts')}), 't', 'attach counted the points of both servers');

sql('INSERT INTO pts ' . rows(2001, 2999) . ' UNION ALL ' . rows(103000, 103999));
sql(q{
	UPDATE pts SET at = ST_Translate(at, 1000, 0) WHERE id % 5 = 0;
	UPDATE pts SET id = id + 100000 WHERE id BETWEEN 1 AND 200;
	DELETE FROM pts WHERE id % 7 = 0;
});
$shard->safe_psql('postgres', q{
	INSERT INTO pts SELECT id + 50000, ST_Translate(at, 0, 5000) FROM pts WHERE id % 3 = 0;
	DELETE FROM pts WHERE id % 11 = 0;
});
my ($rc, $out, $err) = $coord->psql('postgres',
	q{INSERT INTO pts VALUES (150001, 'SRID=3857;POINT(1 1)'), (150002, 'SRID=3857;POINT EMPTY')});
like($err, qr/a tracked point is empty/, 'an empty point is refused by the shard in the coordinator\'s statement');
is(sql(q{SELECT count(*) FROM pts WHERE id = 150001}), '0', 'nothing of that statement is kept');
is(sql(q{SELECT dp_verify('pts')}), 't', 'writes through the coordinator and into the shard counted once');

# The same points as two float8 columns, the same configuration and key.
sql(q{
	CREATE TABLE ref AS SELECT ST_X(at) AS x, ST_Y(at) AS y FROM pts;
	SELECT dp_attach('ref', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[1e6, 1e6], horizon => 16);
	UPDATE dpkmeans_internal.keys SET key = (SELECT key FROM dpkmeans_internal.keys
		WHERE relid = 'pts'::regclass) WHERE relid = 'ref'::regclass;
});
my $snapshot = q{SELECT (SELECT string_agg(cell::text || ' ' || noisy_count, ';' ORDER BY cell)
		FROM dp_histogram('%1$s'))
	|| '|' || (SELECT string_agg(center::text || ' ' || noisy_size, ';' ORDER BY cluster)
		FROM dp_centers('%1$s', 3))
	|| '|' || (SELECT string_agg(noisy_cost::text, ';' ORDER BY k) FROM dp_cost_curve('%1$s'))};
is(sql(q{SELECT dp_release('pts') || ' ' || dp_release('ref')}), '1 1', 'first releases');
is(sql(sprintf($snapshot, 'pts')), sql(sprintf($snapshot, 'ref')),
	'the sharded point table releases exactly what the float8 table of the same points does');
is(sql(q{SELECT bool_and(ST_X(p.center) = c.center[1] AND ST_Y(p.center) = c.center[2])
	FROM dp_center_points('pts', 3) p JOIN dp_centers('ref', 3) c USING (cluster)}), 't',
	'dp_center_points: the same centres as points');

$shard->stop;
$coord->stop;
done_testing();
