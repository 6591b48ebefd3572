# PostGIS point columns through the capture paths pg_regress does not reach
# (dpkmeans_postgis; skipped where PostGIS is not installed):
#  - capture from the WAL: every committed write of a geometry(Point)
#    column is counted once; a value the capture cannot refuse (a plain
#    geography column's point in another SRID, a line, an empty point) is
#    skipped like NULL, by the capture and the recount alike;
#  - a partitioned table: rows routed to partitions present and future,
#    moved between them, and refused in the writer's statement when they are
#    not points.
# dp_bounds_check's true per-side counts, against PostGIS's own ST_X/ST_Y,
# show each point read at its true coordinates.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('postgis');
$node->init;
$node->append_conf('postgresql.conf', "wal_level = logical\nmax_replication_slots = 8\n");
$node->start;

sub sql { return $node->safe_psql('postgres', shift); }

if (sql("SELECT count(*) FROM pg_available_extensions WHERE name = 'postgis'") eq '0')
{
	$node->stop;
	plan skip_all => 'PostGIS is not installed';
}

sql('CREATE EXTENSION dpkmeans_postgis CASCADE');

# dp_bounds_check's counts below lower / above upper of each coordinate
# against the same counts computed by PostGIS, for the box [xlo, xhi] x [ylo, yhi].
sub bounds_agree
{
	my ($tbl, $col, $xlo, $xhi, $ylo, $yhi) = @_;
	my $g = "${col}::geometry";
	my $ours = sql("SELECT string_agg(below_lower || '/' || above_upper, ' ' ORDER BY column_name) "
		  . "FROM dp_bounds_check('$tbl')");
	my $postgis = sql("SELECT (count(*) FILTER (WHERE ST_X($g) < $xlo)) || '/' || "
		  . "(count(*) FILTER (WHERE ST_X($g) > $xhi)) || ' ' || "
		  . "(count(*) FILTER (WHERE ST_Y($g) < $ylo)) || '/' || "
		  . "(count(*) FILTER (WHERE ST_Y($g) > $yhi)) FROM $tbl WHERE $col IS NOT NULL");
	return ($ours, $postgis);
}

# ---- capture from the WAL ----
sql(q{
	CREATE TABLE drops (id bigserial, at geometry(Point, 32633), note text);
	INSERT INTO drops (at) SELECT ST_SetSRID(ST_MakePoint(300000 + (i * 7919) % 400000,
	                                                        5000000 + (i * 104729) % 400000), 32633)
	FROM generate_series(1, 20000) i;
});
sql(q{SELECT dp_attach('drops', 'at', 4, 1.0, ST_MakeEnvelope(350000, 5050000, 650000, 5350000, 32633),
                     horizon => 16, capture => 'wal')});
is(sql("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'drops'::regclass"), '0', 'WAL capture: no trigger');
is(sql("SELECT dp_verify('drops')"), 't', 'WAL capture: the backfill counts the points');

my $copyfile = PostgreSQL::Test::Utils::tempdir . '/drops.copy';
sql("COPY (SELECT ST_SetSRID(ST_MakePoint(300000 + random() * 400000, 5000000 + random() * 400000), 32633) "
	  . "FROM generate_series(1, 20000)) TO '$copyfile'");
sql(q{
	INSERT INTO drops (at) SELECT ST_SetSRID(ST_MakePoint(300000 + random() * 400000,
	                                                        5000000 + random() * 400000), 32633)
	FROM generate_series(1, 10000);
	UPDATE drops SET at = ST_Translate(at, 1000, -2000) WHERE id % 3 = 0;
	UPDATE drops SET note = 'untracked' WHERE id % 5 = 0;
	DELETE FROM drops WHERE id % 7 = 0;
	INSERT INTO drops (at) VALUES (NULL);
	BEGIN; INSERT INTO drops (at) SELECT at FROM drops WHERE id < 5000; ROLLBACK;
});
sql("COPY drops (at) FROM '$copyfile'");
is(sql("SELECT dp_verify('drops')"), 't', 'WAL capture: INSERT, COPY, UPDATE, DELETE, rollback counted exactly');
my ($ours, $postgis) = bounds_agree('drops', 'at', 350000, 650000, 5050000, 5350000);
is($ours, $postgis, "WAL capture: every point read at its coordinates ($ours)");
is(sql("SELECT dp_release('drops')"), '1', 'WAL capture: release 1');
is(sql("SELECT bool_and(ST_SRID(center) = 32633) AND count(*) >= 1 FROM dp_center_points('drops', 4)"), 't',
	'WAL capture: centres in the column\'s SRID');
sql("TRUNCATE drops");
sql("INSERT INTO drops (at) VALUES ('SRID=32633;POINT(400000 5100000)')");
is(sql("SELECT dp_verify('drops')"), 't', 'WAL capture: TRUNCATE then a row');

# A plain geography column: what the capture cannot refuse is skipped.
sql(q{
	CREATE TABLE seen (id serial, g geography);
	INSERT INTO seen (g) SELECT ST_MakePoint(-10 + (i % 40), 35 + (i % 25))::geography FROM generate_series(1, 2000) i;
	SELECT dp_attach('seen', 'g', 3, 1.0, ST_MakeEnvelope(-10, 35, 30, 60, 4326), horizon => 8, capture => 'wal');
	INSERT INTO seen (g) VALUES ('SRID=4269;POINT(1 50)'), ('LINESTRING(0 40, 1 41)'), ('POINT EMPTY'),
	                            ('POINT Z (1 50 3)'), ('POINT(2 51)');
	UPDATE seen SET g = 'POINT(3 52)' WHERE id % 10 = 0;
	UPDATE seen SET g = 'LINESTRING(0 40, 1 41)' WHERE id % 13 = 0;
	DELETE FROM seen WHERE id % 17 = 0;
});
is(sql("SELECT dp_verify('seen')"), 't', 'WAL capture: values that are not points in 4326 skipped, counted exactly');
is(sql("SELECT dp_release('seen')"), '1', 'WAL capture of geography: release 1');

# ---- a partitioned table ----
sql(q{
	CREATE TABLE stops (id int, at geometry(Point, 4326)) PARTITION BY RANGE (id);
	CREATE TABLE stops_a PARTITION OF stops FOR VALUES FROM (0) TO (5000);
	CREATE TABLE stops_b PARTITION OF stops FOR VALUES FROM (5000) TO (10000);
	INSERT INTO stops SELECT i, ST_SetSRID(ST_MakePoint((i * 37) % 100, (i * 11) % 100), 4326)
	FROM generate_series(1, 9000) i;
	SELECT dp_attach('stops', 'at', 3, 1.0, 'BOX(0 0,90 90)'::box2d, horizon => 8);
	CREATE TABLE stops_c PARTITION OF stops FOR VALUES FROM (10000) TO (20000);
	INSERT INTO stops SELECT i, ST_SetSRID(ST_MakePoint(42, 24), 4326) FROM generate_series(10000, 10500) i;
	UPDATE stops SET id = id + 10000, at = ST_Translate(at, 1, 1) WHERE id BETWEEN 1 AND 300;
	UPDATE stops SET at = ST_SetSRID(ST_MakePoint(95, 5), 4326) WHERE id % 13 = 0;
	DELETE FROM stops WHERE id % 11 = 0;
});
my ($rc, $out, $err) = $node->psql('postgres',
	"INSERT INTO stops VALUES (19999, ST_SetSRID(ST_MakePoint(1, 1), 4326)), (15000, 'SRID=4326;POINT EMPTY')");
like($err, qr/a tracked point is empty/, 'partitions: an empty point is refused in the writer\'s statement');
($rc, $out, $err) = $node->psql('postgres', "UPDATE stops_b SET at = 'SRID=4326;POINT EMPTY' WHERE id = 5001");
like($err, qr/a tracked point is empty/, 'partitions: also when written to a partition directly');
is(sql("SELECT count(*) FROM stops WHERE id = 19999"), '0', 'partitions: nothing of the refused statement is kept');
is(sql("SELECT dp_verify('stops')"), 't', 'partitions: rows present and future, moved and deleted, counted exactly');
($ours, $postgis) = bounds_agree('stops', 'at', 0, 90, 0, 90);
is($ours, $postgis, "partitions: every point read at its coordinates ($ours)");
is(sql("SELECT dp_release('stops')"), '1', 'partitions: release 1');
is(sql("SELECT count(*) = 4 ^ min(level) FROM dp_cell_polygons('stops')"), 't', 'partitions: cells as polygons');

$node->stop;
done_testing();
