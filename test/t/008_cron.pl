# Releases on a schedule, as doc/user-guide.md tells owners to make them:
# pg_cron runs dp_release (which makes each release in a background worker of
# its own) and dp_capture_sync from its jobs, as the table owner who
# scheduled them, a role that is not a superuser, on a server that listens on
# its Unix socket only (as every test server here does).  First the guide's
# recipe, cron.use_background_workers = on: each job must succeed, the
# releases must advance and be readable, the WAL capture must count every
# committed change, a job scheduled with cron.schedule_in_database releases
# a table of another database, and a job past its table's horizon must show
# as failed.  Then the other recipe, jobs over a connection to cron.host set
# to the socket directory.  pg_cron 1.4 fires once a minute: each phase polls
# for at most three minutes.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('cron');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'pg_cron'
cron.database_name = 'postgres'
cron.use_background_workers = on
max_worker_processes = 16
wal_level = logical
max_replication_slots = 4
});
$node->start;
is($node->safe_psql('postgres', 'SHOW listen_addresses'), '', 'the server listens on its socket only');

sub sql { return $node->safe_psql(shift, shift); }
sub as_owner
{
	my ($db, $q) = @_;
	return $node->safe_psql($db, $q, extra_params => ['-U', 'trips_owner']);
}

# Poll (every 0.1 s, at most three minutes) until done->(result of the query).
sub poll
{
	my ($q, $done) = @_;
	my $got = '';
	for (my $i = 0; $i < 1800; $i++)
	{
		$got = sql('postgres', $q);
		last if $done->($got);
		usleep(100_000);
	}
	return $got;
}

sql('postgres', q{
	CREATE EXTENSION dpkmeans;
	CREATE EXTENSION pg_cron;
	CREATE ROLE trips_owner LOGIN NOSUPERUSER NOREPLICATION;
	GRANT CREATE ON SCHEMA public TO trips_owner;
	GRANT USAGE ON SCHEMA cron TO trips_owner;
	GRANT EXECUTE ON FUNCTION cron.schedule_in_database(text, text, text, text, text, boolean)
	    TO trips_owner;
	CREATE DATABASE appdb;
});
sql('appdb', q{
	CREATE EXTENSION dpkmeans;
	GRANT CREATE ON SCHEMA public TO trips_owner;
});
as_owner('postgres', q{
	CREATE TABLE trips (x float8, y float8);
	CREATE TABLE taxis (x float8, y float8);
	CREATE TABLE spent (x float8, y float8);
	INSERT INTO trips SELECT random() * 100, random() * 100 FROM generate_series(1, 5000);
	INSERT INTO taxis SELECT random() * 100, random() * 100 FROM generate_series(1, 5000);
	INSERT INTO spent SELECT random() * 100, random() * 100 FROM generate_series(1, 500);
	SELECT dp_attach('trips', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64);
	SELECT dp_attach('taxis', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64,
	                 capture => 'wal');
	SELECT dp_attach('spent', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 1);
});
as_owner('appdb', q{
	CREATE TABLE visits (x float8, y float8);
	INSERT INTO visits SELECT random() * 100, random() * 100 FROM generate_series(1, 2000);
	SELECT dp_attach('visits', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64);
});
# spent makes its one release by hand (with a warning: it was the last)
my ($rc, $out, $err) = $node->psql('postgres', "SELECT dp_release('spent')",
	extra_params => ['-U', 'trips_owner']);
is($out, '1', 'the one release of spent');
like($err, qr/WARNING:  table "spent" made release 1, the last of its horizon/,
	'... with a warning that it was the last');

# The jobs of doc/user-guide.md, scheduled by the owner: they run as the owner.
as_owner('postgres', q{
	SELECT cron.schedule('trips-release', '* * * * *', $$SELECT dp_release('trips')$$);
	SELECT cron.schedule('taxis-sync', '* * * * *', $$SELECT dp_capture_sync('taxis')$$);
	SELECT cron.schedule('taxis-release', '* * * * *', $$SELECT dp_release('taxis')$$);
	SELECT cron.schedule_in_database('visits-release', '* * * * *', $$SELECT dp_release('visits')$$,
	                                 'appdb');
	SELECT cron.schedule('spent-release', '* * * * *', $$SELECT dp_release('spent')$$);
});
# Writes while the jobs may run.
as_owner('postgres', q{
	INSERT INTO trips SELECT random() * 100, random() * 100 FROM generate_series(1, 2000);
	DELETE FROM taxis WHERE x < 10;
	UPDATE taxis SET y = 100 - y WHERE x > 90;
});

# Wait until every job has finished a run.
poll(q{SELECT count(DISTINCT jobid) FROM cron.job_run_details WHERE status IN ('succeeded', 'failed')},
	sub { $_[0] == 5 });
my $runs = q{SELECT count(DISTINCT jobid) FILTER (WHERE status = 'succeeded') || ' '
	|| count(DISTINCT jobid) FILTER (WHERE status = 'failed') FROM cron.job_run_details};
is(sql('postgres', $runs), '4 1', 'four jobs succeeded, one failed')
  or diag(sql('postgres', q{SELECT string_agg(command || ': ' || status || ' ' || coalesce(return_message, ''), E'\n')
	  FROM cron.job_run_details}));
is(sql('postgres', q{SELECT string_agg(DISTINCT j.jobname, ',') FROM cron.job_run_details d JOIN cron.job j USING (jobid)
	WHERE d.status = 'failed'}), 'spent-release', 'the failed job is the release past the horizon');
like(sql('postgres', q{SELECT string_agg(return_message, ' ') FROM cron.job_run_details d JOIN cron.job j USING (jobid)
	WHERE j.jobname = 'spent-release'}), qr/table "spent" reached its horizon of 1 releases/,
	'... and says so');
is(sql('postgres', q{SELECT string_agg(DISTINCT u.username, ',') FROM cron.job_run_details d JOIN cron.job u USING (jobid)}),
	'trips_owner', 'as the owner who scheduled them');

# What the jobs made: releases a reader sees, and a WAL capture that counted
# every committed change.
ok(as_owner('postgres', q{SELECT count(*) FROM dp_centers('trips', 3)}) == 3, 'the scheduled release of trips is readable');
ok(as_owner('postgres', q{SELECT count(*) FROM dp_centers('taxis', 3)}) == 3, 'the scheduled release of taxis is readable');
ok(as_owner('appdb', q{SELECT count(*) FROM dp_centers('visits', 3)}) == 3,
	'the release of visits, in another database, is readable');
cmp_ok(as_owner('postgres', q{SELECT value FROM dp_privacy_report('trips') WHERE item = 'releases used'}), '>=', 1,
	'trips released by its job');
is(as_owner('postgres', q{SELECT value FROM dp_privacy_report('spent') WHERE item = 'releases used'}), '1',
	'spent keeps its one release');
is(as_owner('postgres', "SELECT dp_verify('trips')"), 't', 'trips counted exactly');
is(as_owner('postgres', "SELECT dp_verify('taxis')"), 't', 'taxis counted exactly from the WAL');

# The other recipe: jobs connect to cron.host, the socket directory.
sql('postgres', "SELECT cron.unschedule(jobid) FROM cron.job");
$node->append_conf('postgresql.conf', "cron.use_background_workers = off\ncron.host = '" . $node->host . "'\n");
$node->restart;
my $before = as_owner('postgres', q{SELECT value FROM dp_privacy_report('trips') WHERE item = 'releases used'});
sql('postgres', 'TRUNCATE cron.job_run_details');
as_owner('postgres', q{SELECT cron.schedule('trips-release', '* * * * *', $$SELECT dp_release('trips')$$)});
is(poll(q{SELECT count(*) FILTER (WHERE status = 'succeeded') || ' ' || count(*) FILTER (WHERE status = 'failed')
	FROM cron.job_run_details}, sub { $_[0] ne '0 0' }), '1 0', 'a job over a connection to the socket directory succeeded')
  or diag(sql('postgres', q{SELECT string_agg(status || ' ' || coalesce(return_message, ''), E'\n') FROM cron.job_run_details}));
is(as_owner('postgres', q{SELECT value FROM dp_privacy_report('trips') WHERE item = 'releases used'}), $before + 1,
	'... and made the next release of trips');

sql('postgres', "SELECT cron.unschedule(jobid) FROM cron.job");
$node->stop;
done_testing();
