# A table sharded over three servers with postgres_fdw, released as one:
# a coordinator whose partitioned table has a local partition and two
# foreign partitions on two shard servers (Unix sockets, free ports).
#  - rows written through the coordinator (INSERT, COPY, UPDATE also moving
#    rows between servers, DELETE, TRUNCATE of a foreign partition) and
#    straight into the shards are each counted once, by the server storing
#    them: dp_verify recounts every server;
#  - the merged state a release noises equals the per-cell counts of all
#    rows: a plain table holding the same rows, given the same key, releases
#    exactly the same histogram, centres and costs;
#  - the sharded release is about as accurate as a one-shot dp_kmeans of
#    the union;
#  - a stopped shard fails dp_release cleanly, naming the shard, and
#    publishes nothing; once restarted the next release gets the next number;
#  - bad setups are refused with clear errors and leave nothing attached.
# The shards' role is a dedicated non-superuser reached with a password;
# the coordinator's table is owned by a non-superuser too.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $coord = PostgreSQL::Test::Cluster->new('coordinator');
$coord->init;
$coord->start;
my @shards;
for my $name ('shard1', 'shard2')
{
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	# the shards' role must authenticate with its password
	my $hba = $node->data_dir . '/pg_hba.conf';
	my $old = slurp_file($hba);
	open(my $fh, '>', $hba) or die "could not write $hba: $!";
	print $fh "local all dpk_shard scram-sha-256\n$old";
	close $fh;
	$node->start;
	$node->safe_psql('postgres', q{
		CREATE ROLE dpk_shard LOGIN PASSWORD 'shard secret';
		CREATE EXTENSION dpkmeans;
		CREATE TABLE pts (id int, x float8, y float8);
		ALTER TABLE pts OWNER TO dpk_shard;
	});
	push @shards, $node;
}
my ($s1, $s2) = @shards;

# Rows in three blobs; the id says which server stores them.
sub rows
{
	my ($from, $to) = @_;
	return "SELECT i, (20 + 30 * (i % 3) + ((i * 37) % 100) / 10.0 - 5)::float8, "
	  . "(20 + 25 * ((i / 3) % 3) + ((i * 91) % 100) / 10.0 - 5)::float8 "
	  . "FROM generate_series($from, $to) i";
}

# rows on the shards before anything is attached
$s1->safe_psql('postgres', 'INSERT INTO pts ' . rows(100000, 103999));
$s2->safe_psql('postgres', 'INSERT INTO pts ' . rows(200000, 202999));

$coord->safe_psql('postgres', q{
	CREATE ROLE app LOGIN;
	CREATE SCHEMA app AUTHORIZATION app;
	CREATE EXTENSION postgres_fdw;
	CREATE EXTENSION dpkmeans;
});
# A foreign server for database $dbname of $node, usable by app as dpk_shard.
sub add_server
{
	my ($name, $node, $dbname) = @_;
	my ($host, $port) = ($node->host, $node->port);
	$coord->safe_psql('postgres', qq{
		CREATE SERVER $name FOREIGN DATA WRAPPER postgres_fdw
			OPTIONS (host '$host', port '$port', dbname '$dbname');
		GRANT USAGE ON FOREIGN SERVER $name TO app;
		CREATE USER MAPPING FOR app SERVER $name OPTIONS (user 'dpk_shard', password 'shard secret');
	});
}
add_server("s$_", $shards[ $_ - 1 ], 'postgres') for (1, 2);
sub as_app
{
	my ($sql) = @_;
	return $coord->safe_psql('postgres', $sql, extra_params => [ '-U', 'app' ]);
}
sub app_fails
{
	my ($sql, $re, $name) = @_;
	my ($ret, $out, $err) = $coord->psql('postgres', $sql, extra_params => [ '-U', 'app' ]);
	isnt($ret, 0, "$name: fails");
	like($err, $re, "$name: error message");
	return $err;
}

as_app(q{
	CREATE TABLE pts (id int, x float8, y float8) PARTITION BY RANGE (id);
	CREATE TABLE pts_local PARTITION OF pts FOR VALUES FROM (0) TO (100000);
	CREATE FOREIGN TABLE pts_s1 PARTITION OF pts FOR VALUES FROM (100000) TO (200000)
		SERVER s1 OPTIONS (schema_name 'public', table_name 'pts');
	CREATE FOREIGN TABLE pts_s2 PARTITION OF pts FOR VALUES FROM (200000) TO (300000)
		SERVER s2 OPTIONS (schema_name 'public', table_name 'pts');
} . 'INSERT INTO pts ' . rows(1, 2000));

my $attach = q{SELECT dp_attach('%s', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64)};
as_app(sprintf($attach, 'pts'));
for my $node (@shards)
{
	is( $node->safe_psql('postgres', q{SELECT (SELECT count(*) FROM dpkmeans_internal.shard_tables)
		|| ' ' || (SELECT count(*) FROM dpkmeans_internal.tracked)
		|| ' ' || (SELECT count(*) FROM dpkmeans_internal.keys)
		|| ' ' || (SELECT count(*) FROM pg_trigger WHERE tgrelid = 'pts'::regclass AND tgname LIKE 'dpkmeans%')}),
		'1 1 0 5', $node->name . ': shard attached, no key');
}
is(as_app(q{SELECT dp_verify('pts')}), 't', 'attach counted the rows of every server');

# Writes through the coordinator, then straight into the shards.
my $copy = "COPY pts FROM STDIN;\n"
  . join('', map { "$_\t" . (10 + $_ % 80) . "\t" . (90 - $_ % 70) . "\n" }
	  (3000 .. 3099, 104000 .. 104099, 203000 .. 203099))
  . "\\.\n";
as_app('INSERT INTO pts ' . rows(2001, 2999) . ' UNION ALL ' . rows(104100, 104999)
	  . ' UNION ALL ' . rows(203100, 203999));
as_app($copy);
as_app(q{
	UPDATE pts SET y = y + 1 WHERE id % 5 = 0;
	UPDATE pts SET id = id + 100000 WHERE id BETWEEN 1 AND 200;
	UPDATE pts SET id = id - 200000, x = 1 WHERE id BETWEEN 200001 AND 200100;
	DELETE FROM pts WHERE id % 7 = 0;
});
is(as_app(q{SELECT dp_verify('pts')}), 't', 'writes through the coordinator counted once');
for my $node (@shards)
{
	$node->safe_psql('postgres', q{
		SET ROLE dpk_shard;
		INSERT INTO pts SELECT id + 50000, y, x FROM pts WHERE id % 3 = 0;
		UPDATE pts SET x = 100 - x WHERE id % 4 = 1;
		DELETE FROM pts WHERE id % 11 = 0;
	});
}
is(as_app(q{SELECT dp_verify('pts')}), 't', 'writes straight into the shards counted');
as_app('TRUNCATE pts_s2; INSERT INTO pts ' . rows(204000, 206999));
is(as_app(q{SELECT dp_verify('pts')}), 't', 'TRUNCATE of a foreign partition counted by its shard');

# A plain table with the same rows and the same key: the same releases.
as_app('CREATE TABLE ref AS SELECT * FROM pts;' . sprintf($attach, 'ref'));
$coord->safe_psql('postgres', q{
	UPDATE dpkmeans_internal.keys SET key = (SELECT key FROM dpkmeans_internal.keys
		WHERE relid = 'app.pts'::regclass) WHERE relid = 'app.ref'::regclass;
});
my $snapshot = q{SELECT (SELECT string_agg(cell::text || ' ' || noisy_count, ';' ORDER BY cell)
		FROM dp_histogram('%1$s'))
	|| '|' || (SELECT string_agg(center::text || ' ' || noisy_size, ';' ORDER BY cluster)
		FROM dp_centers('%1$s', 3))
	|| '|' || (SELECT string_agg(noisy_cost::text, ';' ORDER BY k) FROM dp_cost_curve('%1$s'))};
is(as_app(q{SELECT dp_release('pts') || ' ' || dp_release('ref')}), '1 1', 'first releases');
my $sharded = as_app(sprintf($snapshot, 'pts'));
is($sharded, as_app(sprintf($snapshot, 'ref')),
	'release 1: merged state of three servers = the counts of all rows (same key, same release)');

as_app('INSERT INTO pts ' . rows(5000, 5999) . ' UNION ALL ' . rows(105000, 105999));
as_app('INSERT INTO ref ' . rows(5000, 5999) . ' UNION ALL ' . rows(105000, 105999));
$s2->safe_psql('postgres', 'SET ROLE dpk_shard; DELETE FROM pts WHERE id % 2 = 0');
as_app('DELETE FROM ref WHERE id >= 200000 AND id % 2 = 0');
is(as_app(q{SELECT dp_release('pts') || ' ' || dp_release('ref')}), '2 2', 'second releases');
is(as_app(sprintf($snapshot, 'pts')), as_app(sprintf($snapshot, 'ref')),
	'release 2: merged state = the counts of all rows');
is(as_app(q{SELECT (SELECT count(*) FROM pts) = (SELECT count(*) FROM ref)}), 't',
	'the reference holds the same rows');

# Accuracy: the sharded release against a one-shot dp_kmeans of the union.
my $cost = q{SELECT sum(m) FROM (SELECT min((p.x - c.center[1]) ^ 2 + (p.y - c.center[2]) ^ 2) AS m
	FROM ref p CROSS JOIN (%s) c GROUP BY p.ctid) s};
my $c_sharded = as_app(sprintf($cost, q{SELECT center FROM dp_centers('pts', 3)}));
my $c_oneshot = as_app(sprintf($cost,
	q{SELECT center FROM dp_kmeans('SELECT x, y FROM ref', 3, 1.0, ARRAY[0, 0]::float8[], ARRAY[100, 100]::float8[])}));
note("cost of the sharded release's centres $c_sharded, of a one-shot dp_kmeans $c_oneshot");
cmp_ok($c_sharded / $c_oneshot, '<', 1.5, 'sharded release about as accurate as the one-shot');
cmp_ok($c_oneshot / $c_sharded, '<', 1.5, 'and the other way round');

# A stopped shard: nothing is published; restarted: the next number.
$s2->stop;
my $err = app_fails(q{SELECT dp_release('pts')}, qr/shard "pts_s2" \(server "s2"\)/,
	'release with a stopped shard');
like($err, qr/No release was made; the next successful release of "pts" will be number 3/,
	'the error says nothing was released');
is($coord->safe_psql('postgres', q{SELECT max(t) || ' ' || count(*) FROM dpkmeans_internal.releases
	WHERE relid = 'app.pts'::regclass}), '2 2', 'nothing published');
is(as_app(q{SELECT count(*) FROM dp_centers('pts', 3)}), '3', 'readers still get release 2');
$s2->start;
is(as_app(q{SELECT dp_release('pts')}), '3', 'restarted shard: the next release is number 3');
is(as_app(q{SELECT dp_verify('pts')}), 't', 'and every server recounts');

# The shard side: no release there, and the true state only for readers of the columns.
$s1->safe_psql('postgres', 'CREATE ROLE nobody');
my ($ret, $out);
($ret, $out, $err) = $s1->psql('postgres', q{SET ROLE dpk_shard; SELECT dp_release('pts')});
like($err, qr/table "pts" is a shard of a coordinator's table/, 'a shard makes no release');
($ret, $out, $err) = $s1->psql('postgres', q{SET ROLE nobody; SELECT dp_shard_state('pts', '')});
like($err, qr/permission denied to read the true state of shard table "pts"/,
	'the true state is for roles that can read the tracked columns');
# A role that row-level security confines to some rows reads none of the
# state, which counts every row (with the policy off it gets past the check
# to the fingerprint).
$s1->safe_psql('postgres', q{
	CREATE ROLE tenant;
	GRANT SELECT ON pts TO tenant;
	ALTER TABLE pts ENABLE ROW LEVEL SECURITY;
	CREATE POLICY tenant_rows ON pts FOR SELECT TO tenant USING (id < 0);
});
($ret, $out, $err) = $s1->psql('postgres', q{SET ROLE tenant; SELECT dp_shard_state('pts', '')});
like($err, qr/permission denied to read the true state of shard table "pts"\nDETAIL:  Row-level security/,
	'row-level security keeps the true state from a role it confines');
$s1->safe_psql('postgres', 'ALTER TABLE pts DISABLE ROW LEVEL SECURITY');
($ret, $out, $err) = $s1->psql('postgres', q{SET ROLE tenant; SELECT dp_shard_state('pts', '')});
like($err, qr/attached with another configuration than the coordinator's/,
	'without the policy the same role passes the privilege check');
# A reader that is not the owner takes no lock: with its transaction left
# open after a successful call, the configuration row can still be locked
# (as the coordinator's release does through the owner's role).
my $fp = $s1->safe_psql('postgres', q{
	SELECT format('d=%s level=%s dhat=%s copies=%s seed=%s mode=%s', d, level, dhat, copies,
	              proj_seed, mode)
	       || (SELECT string_agg(format(' box%s=%s:%s', i - 1, lower[i], upper[i]), '' ORDER BY i)
	           FROM generate_subscripts(lower, 1) i)
	       || (SELECT string_agg(' col=' || quote_ident(c), '' ORDER BY n)
	           FROM unnest(columns) WITH ORDINALITY u(c, n))
	FROM dpkmeans_internal.tracked WHERE relid = 'pts'::regclass});
my $tenant = $s1->background_psql('postgres', on_error_stop => 1);
$tenant->query_safe('SET ROLE tenant');
$tenant->query_safe('BEGIN');
is($tenant->query_safe(qq{SELECT length(dp_shard_state('pts', '$fp')) > 0}), 't',
	'a reader of the tracked columns gets the state');
($ret, $out, $err) = $s1->psql('postgres', q{SET lock_timeout = '3s';
	SELECT 1 FROM dpkmeans_internal.tracked WHERE relid = 'pts'::regclass FOR NO KEY UPDATE});
is($ret, 0, 'and holds no lock on the configuration row while its transaction is open')
	or diag($err);
$tenant->query_safe('COMMIT');
$tenant->quit;
is(as_app(q{SELECT dp_release('pts')}), '4', 'the coordinator releases');
is(as_app(q{SELECT dp_verify('pts')}), 't', 'and every server recounts');
$s1->safe_psql('postgres', q{
	DROP POLICY tenant_rows ON pts;
	REVOKE SELECT ON pts FROM tenant;
	DROP ROLE tenant;
});

# An insert_only tree with local and foreign partitions: each local table
# gets the refusal of rows moved by a trigger (the shards put theirs on
# their own tables); dp_detach removes it.
$s1->safe_psql('postgres', q{
	CREATE TABLE iom (id int, x float8, y float8, note text);
	ALTER TABLE iom OWNER TO dpk_shard;
});
as_app(q{
	CREATE TABLE iom (id int, x float8, y float8, note text) PARTITION BY RANGE (id);
	CREATE TABLE iom_local PARTITION OF iom FOR VALUES FROM (0) TO (100000);
	CREATE FOREIGN TABLE iom_s1 PARTITION OF iom FOR VALUES FROM (100000) TO (200000)
		SERVER s1 OPTIONS (schema_name 'public', table_name 'iom');
	INSERT INTO iom VALUES (1, 1, 1, ''), (100001, 2, 2, '');
	SELECT dp_attach('iom', ARRAY['x', 'y'], 2, 1.0, ARRAY[0, 0], ARRAY[10, 10], horizon => 16,
		mode => 'insert_only');
	CREATE FUNCTION iom_shift() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN NEW.x := NEW.x + 5; RETURN NEW; END $$;
	CREATE TRIGGER iom_shift BEFORE UPDATE ON iom_local FOR EACH ROW EXECUTE FUNCTION iom_shift();
});
my $refusals = q{SELECT string_agg(c.relname, ',' ORDER BY c.relname) FROM pg_trigger t
	JOIN pg_class c ON c.oid = t.tgrelid WHERE t.tgname = 'dpkmeans_refuse_moved' AND c.relname LIKE 'iom%'};
is(as_app($refusals), 'iom_local', 'the local partition of a sharded insert_only tree has the refusal');
is($s1->safe_psql('postgres', $refusals), 'iom', 'and so has the shard table');
app_fails(q{UPDATE iom SET note = 'n' WHERE id = 1}, qr/UPDATE of a tracked column is not allowed on "iom_local"/,
	'a row a trigger moved in the local partition');
as_app(q{SELECT dp_detach('iom')});
is(as_app(q{SELECT count(*) FROM pg_trigger WHERE tgrelid = 'iom_local'::regclass AND tgname LIKE 'dpkmeans%'}),
	'0', 'dp_detach removes it');

# Bad setups, refused with clear errors, leaving nothing attached.
$s2->safe_psql('postgres', q{
	CREATE DATABASE plain;
	CREATE TABLE pts2 (id int, x float8, y float8);
	ALTER TABLE pts2 OWNER TO dpk_shard;
});
$s2->safe_psql('plain', q{
	CREATE TABLE pts (id int, x float8, y float8);
	ALTER TABLE pts OWNER TO dpk_shard;
});
$s1->safe_psql('postgres', q{
	CREATE TABLE pts_wrong (id int, x float8, z float8);
	ALTER TABLE pts_wrong OWNER TO dpk_shard;
});
add_server('s3', $s2, 'plain');
as_app(q{
	CREATE TABLE bad1 (id int, x float8, y float8) PARTITION BY RANGE (id);
	CREATE FOREIGN TABLE bad1_s3 PARTITION OF bad1 FOR VALUES FROM (0) TO (10) SERVER s3
		OPTIONS (schema_name 'public', table_name 'pts');
	CREATE TABLE bad2 (id int, x float8, y float8) PARTITION BY RANGE (id);
	CREATE FOREIGN TABLE bad2_s2 PARTITION OF bad2 FOR VALUES FROM (0) TO (10) SERVER s2
		OPTIONS (schema_name 'public', table_name 'pts2');
	CREATE FOREIGN TABLE bad2_s1 PARTITION OF bad2 FOR VALUES FROM (10) TO (20) SERVER s1
		OPTIONS (schema_name 'public', table_name 'pts_wrong');
});
app_fails(sprintf($attach, 'bad1'),
	qr/server "s3" of foreign partition "bad1_s3" does not have dpkmeans.*\n.*\n.*HINT:  Run CREATE EXTENSION dpkmeans/,
	'a foreign partition whose server lacks dpkmeans');
app_fails(sprintf($attach, 'bad2'),
	qr/shard "bad2_s1" \(server "s1"\): column "y" of shard table "pts_wrong" does not exist/,
	'a shard whose columns differ');
# two foreign partitions naming one shard table: refused before any shard
# is touched (the second shard attach would wait on the first's lock)
as_app(q{
	CREATE TABLE bad3 (id int, x float8, y float8) PARTITION BY RANGE (id);
	CREATE FOREIGN TABLE bad3_a PARTITION OF bad3 FOR VALUES FROM (0) TO (10) SERVER s1
		OPTIONS (schema_name 'public', table_name 'pts_wrong');
	CREATE FOREIGN TABLE bad3_b PARTITION OF bad3 FOR VALUES FROM (10) TO (20) SERVER s1
		OPTIONS (table_name 'pts_wrong', schema_name 'public');
});
app_fails(sprintf($attach, 'bad3'),
	qr/partitions "bad3_a" and "bad3_b" store their rows in the same shard table/,
	'two foreign partitions of one shard table');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM dpkmeans_internal.tracked
	WHERE relid IN ('app.bad1'::regclass, 'app.bad2'::regclass, 'app.bad3'::regclass)}), '0',
	'nothing attached on the coordinator');
is($s2->safe_psql('postgres', q{SELECT count(*) FROM dpkmeans_internal.tracked
	WHERE relid = 'pts2'::regclass}), '0', 'the shard attached before the failure was rolled back');

# Citus: a table listed in Citus metadata is refused (the metadata table is
# made here, as Citus cannot be installed in this test).
$coord->safe_psql('postgres', q{
	SET allow_system_table_mods = on;
	CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid regclass, partmethod "char");
	GRANT SELECT ON pg_catalog.pg_dist_partition TO PUBLIC;
});
as_app('CREATE TABLE dist (x float8, y float8)');
$coord->safe_psql('postgres', q{INSERT INTO pg_catalog.pg_dist_partition VALUES ('app.dist', 'h')});
app_fails(sprintf($attach, 'dist'), qr/table "dist" is managed by Citus.*\n.*\n.*HINT:  Use a partitioned table with postgres_fdw/,
	'a Citus table');
$coord->safe_psql('postgres', 'DROP TABLE pg_catalog.pg_dist_partition');

# A norm bound reaches the shards: each moves its rows into the
# coordinator's ball before counting them.  Rows hold direction dir(k)
# (every coordinate 0.2-0.3 of a unit vector) at a scale beyond the radius:
# the same k at 3x in the coordinator's local partition and at 2x straight
# into a shard leave byte-identical deltas (one projection seed and one
# configuration on every server).
my $dir_sql = q{
	CREATE FUNCTION dir(k int) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
	  WITH t AS (SELECT j, 1 + 0.2 * sin(k * (j + 1)) AS x FROM generate_series(0, 15) j)
	  SELECT array_agg(x / (SELECT sqrt(sum(x * x)) FROM t) ORDER BY j) FROM t $$;
	CREATE FUNCTION scaled(v float8[], s float8) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
	  SELECT array_agg(x * s ORDER BY o) FROM unnest(v) WITH ORDINALITY t(x, o) $$;
};
for my $node (@shards)
{
	$node->safe_psql('postgres', $dir_sql . q{
		CREATE TABLE sph (id int, k int, v float8[]);
		ALTER TABLE sph OWNER TO dpk_shard;
	});
}
$s1->safe_psql('postgres',
	'INSERT INTO sph SELECT 100000 + k, k, scaled(dir(k), 2) FROM generate_series(1, 300) k');
as_app($dir_sql . q{
	CREATE TABLE sph (id int, k int, v float8[]) PARTITION BY RANGE (id);
	CREATE TABLE sph_local PARTITION OF sph FOR VALUES FROM (0) TO (100000);
	CREATE FOREIGN TABLE sph_s1 PARTITION OF sph FOR VALUES FROM (100000) TO (200000)
		SERVER s1 OPTIONS (schema_name 'public', table_name 'sph');
	CREATE FOREIGN TABLE sph_s2 PARTITION OF sph FOR VALUES FROM (200000) TO (300000)
		SERVER s2 OPTIONS (schema_name 'public', table_name 'sph');
	SELECT dp_attach('sph', ARRAY['v'], 4, 1.0, array_fill(-1::float8, ARRAY[16]),
		array_fill(1::float8, ARRAY[16]), horizon => 16, norm_bound => 1);
});
for my $node (@shards)
{
	is( $node->safe_psql('postgres', q{SELECT norm_bound || ' ' || (SELECT DISTINCT
		split_part(encode(tgargs, 'escape'), '\000', 1) FROM pg_trigger
		WHERE tgrelid = 'sph'::regclass AND tgname LIKE 'dpkmeans%')
		FROM dpkmeans_internal.tracked WHERE relid = 'sph'::regclass}),
		'1 dpkmeans:4', $node->name . ': the shard stores the bound, its triggers carry it');
}
as_app('INSERT INTO sph SELECT k, k, scaled(dir(k), 3) FROM generate_series(1, 300) k');
$s2->safe_psql('postgres',
	'SET ROLE dpk_shard; INSERT INTO sph SELECT 200000 + k, k, scaled(dir(k), 2) FROM generate_series(1, 300) k');
my $deltas = q{SELECT string_agg(md5(payload), ' ' ORDER BY md5(payload))
	FROM dpkmeans_internal.delta WHERE relid = '%s'::regclass};
my %local = map { $_ => 1 } split(/ /, $coord->safe_psql('postgres', sprintf($deltas, 'app.sph')));
my @shard = split(/ /, $s2->safe_psql('postgres', sprintf($deltas, 'sph')));
# each side holds its (empty) backfill and the statement's delta
is(scalar(@shard) . ' ' . scalar(grep { $local{$_} } @shard), '2 2',
	'rows at 2x on a shard are counted as the same rows at 3x on the coordinator');
# the backfill on shard 1 (2x) and rows routed through the coordinator at 0.5x
as_app('INSERT INTO sph SELECT 100300 + k, k, scaled(dir(k), 0.5) FROM generate_series(1, 300) k');
is(as_app(q{SELECT dp_verify('sph')}), 't', 'every server counts the bounded rows as the recount does');
is(as_app(q{SELECT dp_release('sph')}), '1', 'the bounded sharded table releases');
is(as_app(q{SELECT bool_and((SELECT sqrt(sum(x * x)) FROM unnest(center) x) <= 1 + 1e-9)
	FROM dp_centers('sph', 4)}), 't', 'its centres lie in the ball');
as_app(q{SELECT dp_detach('sph')});

# A shard still at 0.4: it serves a table without a bound, and a table with
# one is refused naming it, leaving nothing attached.
$s1->safe_psql('postgres', 'CREATE DATABASE old04');
$s1->safe_psql('old04', q{
	CREATE EXTENSION dpkmeans VERSION '0.4';
	CREATE TABLE emb (id int, v float8[]);
	ALTER TABLE emb OWNER TO dpk_shard;
});
add_server('s4', $s1, 'old04');
as_app(q{
	CREATE TABLE emb (id int, v float8[]) PARTITION BY RANGE (id);
	CREATE FOREIGN TABLE emb_s4 PARTITION OF emb FOR VALUES FROM (0) TO (10) SERVER s4
		OPTIONS (schema_name 'public', table_name 'emb');
});
my $attach_emb = q{SELECT dp_attach('emb', ARRAY['v'], 4, 1.0, array_fill(-1::float8, ARRAY[16]),
	array_fill(1::float8, ARRAY[16]), horizon => 16%s)};
app_fails(sprintf($attach_emb, ', norm_bound => 1'),
	qr/dpkmeans on server "s4" of foreign partition "emb_s4" cannot apply a norm bound.*\n.*0\.5 or later.*\n.*HINT:  Run ALTER EXTENSION dpkmeans UPDATE on the shard/,
	'a 0.4 shard and a table with a norm bound');
is($s1->safe_psql('old04', q{SELECT count(*) FROM dpkmeans_internal.tracked}), '0',
	'nothing attached on the 0.4 shard');
as_app(sprintf($attach_emb, ''));
is($s1->safe_psql('old04', q{SELECT count(*) FROM dpkmeans_internal.tracked}), '1',
	'the 0.4 shard serves a table without a bound');
as_app(q{SELECT dp_detach('emb')});

# A current shard gets the configuration as one jsonb of shard protocol 1:
# its positional entry point revoked, the coordinator still attaches.  A
# shard refuses a protocol version it does not speak, by name.
my $positional = 'dp_shard_attach(regclass, text[], int, float8, float8[], float8[], int, text, '
  . 'float8, int, float8, int, int, bigint, float8, float8, float8)';
$s2->safe_psql('postgres', qq{
	REVOKE EXECUTE ON FUNCTION $positional FROM PUBLIC;
	CREATE TABLE proto (id int, x float8, y float8);
	ALTER TABLE proto OWNER TO dpk_shard;
});
as_app(q{
	CREATE TABLE proto (id int, x float8, y float8) PARTITION BY RANGE (id);
	CREATE FOREIGN TABLE proto_s2 PARTITION OF proto FOR VALUES FROM (200000) TO (300000)
		SERVER s2 OPTIONS (schema_name 'public', table_name 'proto');
} . sprintf($attach, 'proto'));
is($s2->safe_psql('postgres', q{SELECT count(*) FROM dpkmeans_internal.shard_tables
	WHERE relid = 'proto'::regclass}), '1', 'a 0.8 shard is attached by shard protocol 1');
my ($pret, $pout, $perr) = $s2->psql('postgres', q{
	SET ROLE dpk_shard;
	\set VERBOSITY verbose
	SELECT dp_shard_attach('proto', '{"protocol": 2, "columns": ["x", "y"]}');
});
isnt($pret, 0, 'an unknown shard protocol version fails');
like($perr, qr/ERROR:  0A000: shard protocol version 2 is not supported by dpkmeans on this server\n.*DETAIL:  This server speaks shard protocol version 1\.\n.*HINT:  Install the coordinator's release of dpkmeans on this server/,
	'an unknown shard protocol version: feature_not_supported, naming it, with a hint');
as_app(q{SELECT dp_detach('proto'); DROP TABLE proto});
$s2->safe_psql('postgres', qq{
	GRANT EXECUTE ON FUNCTION $positional TO PUBLIC;
	DROP TABLE proto;
});

# A Gaussian table of 384 columns at epsilon 1 counts its squared norms in
# units of 2^2.  A 0.4 shard cannot: refused naming it, nothing attached
# anywhere.
my $attach_wide = q{SELECT dp_attach('%s', ARRAY['v'], 4, 1.0, array_fill(-1::float8, ARRAY[384]),
	array_fill(1::float8, ARRAY[384]), horizon => 16, delta => 1e-6)};
app_fails(sprintf($attach_wide, 'emb'),
	qr/dpkmeans on server "s4" of foreign partition "emb_s4" cannot count squared norms in units of 2\^2.*\n.*0\.5 or later.*\n.*HINT:  Run ALTER EXTENSION dpkmeans UPDATE on the shard/,
	'a 0.4 shard and a Gaussian table whose norm counter needs a coarser unit');
is($s1->safe_psql('old04', q{SELECT count(*) FROM dpkmeans_internal.tracked}), '0',
	'nothing attached on the 0.4 shard');
is($coord->safe_psql('postgres',
		q{SELECT count(*) FROM dpkmeans_internal.tracked WHERE relid = 'app.emb'::regclass}),
	'0', 'nor on the coordinator');

# A current shard is given the table's delta and derives the same unit: the
# same rows written on the coordinator and straight into the shard leave
# byte-identical deltas (which hold the squared norms), and the two sides'
# fingerprints, which name the unit, agree at release.
my $wide_sql = q{
	CREATE FUNCTION wide(k int) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
	  SELECT array_agg(0.9 * sin(k * j + 0.5 * k) ORDER BY j) FROM generate_series(1, 384) j $$;
};
$s2->safe_psql('postgres', $wide_sql . q{
	CREATE TABLE gw (id int, v float8[]);
	ALTER TABLE gw OWNER TO dpk_shard;
});
as_app($wide_sql . q{
	CREATE TABLE gw (id int, v float8[]) PARTITION BY RANGE (id);
	CREATE TABLE gw_local PARTITION OF gw FOR VALUES FROM (0) TO (100000);
	CREATE FOREIGN TABLE gw_s2 PARTITION OF gw FOR VALUES FROM (200000) TO (300000)
		SERVER s2 OPTIONS (schema_name 'public', table_name 'gw');
} . sprintf($attach_wide, 'gw'));
is( $s2->safe_psql('postgres', q{SELECT delta || ' ' || (SELECT DISTINCT
		split_part(encode(tgargs, 'escape'), '\000', 1) FROM pg_trigger
		WHERE tgrelid = 'gw'::regclass AND tgname LIKE 'dpkmeans%')
		FROM dpkmeans_internal.tracked WHERE relid = 'gw'::regclass}),
	'1e-06 dpkmeans:5', 'the shard stores delta, its triggers carry the unit');
as_app('INSERT INTO gw SELECT k, wide(k) FROM generate_series(1, 200) k');
$s2->safe_psql('postgres',
	'SET ROLE dpk_shard; INSERT INTO gw SELECT 200000 + k, wide(k) FROM generate_series(1, 200) k');
my %wide_local = map { $_ => 1 } split(/ /, $coord->safe_psql('postgres', sprintf($deltas, 'app.gw')));
my @wide_shard = split(/ /, $s2->safe_psql('postgres', sprintf($deltas, 'gw')));
is(scalar(@wide_shard) . ' ' . scalar(grep { $wide_local{$_} } @wide_shard), '2 2',
	'the shard counts squared norms in the coordinator\'s unit');
is(as_app(q{SELECT dp_verify('gw')}), 't', 'every server counts the rows as the recount does');
is(as_app(q{SELECT dp_release('gw')}), '1', 'the sharded Gaussian table releases');
like(as_app(q{SELECT value FROM dp_privacy_report('gw') WHERE item = 'sum of squared norms: unit'}),
	qr/2\^2/, 'its report names the unit');
# a shard whose configuration gives another unit is not summed
$s2->safe_psql('postgres', q{UPDATE dpkmeans_internal.tracked SET delta = 0 WHERE relid = 'gw'::regclass});
app_fails(q{SELECT dp_release('gw')},
	qr/shard "gw_s2" \(server "s2"\): shard table "gw" is attached with another configuration than the coordinator's\nDETAIL:  They differ in norm_shift: shard none, coordinator 2\.\n/,
	'a shard counting in another unit fails the release');
$s2->safe_psql('postgres', q{UPDATE dpkmeans_internal.tracked SET delta = 1e-6 WHERE relid = 'gw'::regclass});
is(as_app(q{SELECT dp_release('gw')}), '2', 'and the next release, once it agrees, is number 2');
as_app(q{SELECT dp_detach('gw')});

# A fingerprint that disagrees is answered with what it disagrees on (a
# wide table's whole fingerprint would not fit in a relayed error).
my ($fp_ret, $fp_out, $fp_err) = $s1->psql('postgres',
	q{SET ROLE dpk_shard; SELECT dp_shard_state('pts', 'd=2 level=99 extra=1')});
like($fp_err,
	qr/attached with another configuration than the coordinator's\nDETAIL:  They differ in level: shard \d+, coordinator 99; dhat: shard 0, coordinator none; copies: shard 1, coordinator none; seed: shard \d+, coordinator none; mode: shard insert_delete, coordinator none; and \d+ more\.\n/,
	'a disagreeing fingerprint is answered with the differences');

# dp_detach removes the capture on every shard.
as_app(q{SELECT dp_detach('pts')});
for my $node (@shards)
{
	is( $node->safe_psql('postgres', q{SELECT (SELECT count(*) FROM dpkmeans_internal.shard_tables)
		|| ' ' || (SELECT count(*) FROM dpkmeans_internal.tracked)
		|| ' ' || (SELECT count(*) FROM dpkmeans_internal.delta)
		|| ' ' || (SELECT count(*) FROM pg_trigger WHERE tgrelid = 'pts'::regclass AND tgname LIKE 'dpkmeans%')}),
		'0 0 0 0', $node->name . ': shard detached');
}
is($coord->safe_psql('postgres', q{SELECT count(*) FROM dpkmeans_internal.shards}), '0',
	'no shard registered');

done_testing();
