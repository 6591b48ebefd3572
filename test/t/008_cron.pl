# Releases on a schedule, as doc/user-guide.md tells owners to make them:
# pg_cron runs dp_release (which makes each release in a background worker of
# its own) and dp_capture_sync from its jobs, in pg_cron's background workers,
# as the table owner who scheduled them, a role that is not a superuser.  Each
# job must succeed, the releases must advance and be readable, and the WAL
# capture must count every committed change.  pg_cron 1.4 fires once a
# minute, so this waits for up to three minutes.
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

sub sql { return $node->safe_psql('postgres', shift); }
sub as_owner { return $node->safe_psql('postgres', shift, extra_params => ['-U', 'trips_owner']); }

sql(q{
	CREATE EXTENSION dpkmeans;
	CREATE EXTENSION pg_cron;
	CREATE ROLE trips_owner LOGIN NOSUPERUSER NOREPLICATION;
	GRANT CREATE ON SCHEMA public TO trips_owner;
	GRANT USAGE ON SCHEMA cron TO trips_owner;
});
as_owner(q{
	CREATE TABLE trips (x float8, y float8);
	CREATE TABLE taxis (x float8, y float8);
	INSERT INTO trips SELECT random() * 100, random() * 100 FROM generate_series(1, 5000);
	INSERT INTO taxis SELECT random() * 100, random() * 100 FROM generate_series(1, 5000);
	SELECT dp_attach('trips', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64);
	SELECT dp_attach('taxis', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64,
	                 capture => 'wal');
});

# The jobs of doc/user-guide.md, scheduled by the owner: they run as the owner.
as_owner(q{
	SELECT cron.schedule('trips-release', '* * * * *', $$SELECT dp_release('trips')$$);
	SELECT cron.schedule('taxis-sync', '* * * * *', $$SELECT dp_capture_sync('taxis')$$);
	SELECT cron.schedule('taxis-release', '* * * * *', $$SELECT dp_release('taxis')$$);
});
# Writes while the jobs may run.
as_owner(q{
	INSERT INTO trips SELECT random() * 100, random() * 100 FROM generate_series(1, 2000);
	DELETE FROM taxis WHERE x < 10;
	UPDATE taxis SET y = 100 - y WHERE x > 90;
});

# Wait until every job has run once; a failed run ends the wait.
my $runs = q{SELECT count(DISTINCT jobid) FILTER (WHERE status = 'succeeded') || ' '
	|| count(*) FILTER (WHERE status = 'failed') FROM cron.job_run_details};
my ($ok, $failed) = (0, 0);
for (my $i = 0; $i < 1800; $i++)
{
	($ok, $failed) = split / /, sql($runs);
	last if $ok == 3 || $failed > 0;
	usleep(100_000);
}
is($failed, 0, 'no job failed')
  or diag(sql(q{SELECT string_agg(command || ': ' || return_message, E'\n') FROM cron.job_run_details
	  WHERE status = 'failed'}));
is($ok, 3, 'every job succeeded at least once');
is(sql(q{SELECT string_agg(DISTINCT u.username, ',') FROM cron.job_run_details d JOIN cron.job u USING (jobid)}),
	'trips_owner', 'as the owner who scheduled them');

# What the jobs made: releases a reader sees, and a WAL capture that counted
# every committed change.
ok(as_owner(q{SELECT count(*) FROM dp_centers('trips', 3)}) == 3, 'the scheduled release of trips is readable');
ok(as_owner(q{SELECT count(*) FROM dp_centers('taxis', 3)}) == 3, 'the scheduled release of taxis is readable');
is(as_owner(q{SELECT value FROM dp_privacy_report('trips') WHERE item = 'releases used'}), '1',
	'one release of trips, made by its job');
is(as_owner("SELECT dp_verify('trips')"), 't', 'trips counted exactly');
is(as_owner("SELECT dp_verify('taxis')"), 't', 'taxis counted exactly from the WAL');

sql("SELECT cron.unschedule(jobid) FROM cron.job");
$node->stop;
done_testing();
