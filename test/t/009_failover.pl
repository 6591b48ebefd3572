# Physical replication and failover.  A streaming standby serves the
# readers with the primary's releases and refuses, with its own message,
# every function that writes dpkmeans state.  Promoted, it refuses releases
# until the owner confirms the history (the old primary could otherwise
# publish the same release numbers on other rows); a table captured from the
# WAL has no slot there (PostgreSQL 15 keeps slots on their server), and
# dp_capture_resync gives it one and counts what the lost slot held.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 'logical');
$primary->start;
sub p { return $primary->safe_psql('postgres', shift); }

p(q{
	CREATE EXTENSION dpkmeans;
	CREATE ROLE analyst LOGIN;
	CREATE TABLE trips (x float8, y float8);
	CREATE TABLE taxis (x float8, y float8);
	INSERT INTO trips SELECT random() * 100, random() * 100 FROM generate_series(1, 5000);
	INSERT INTO taxis SELECT random() * 100, random() * 100 FROM generate_series(1, 5000);
	SELECT dp_attach('trips', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64);
	SELECT dp_attach('taxis', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100], horizon => 64,
	                 capture => 'wal');
});
p("SELECT dp_release('trips'), dp_release('taxis')");
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;
p(q{INSERT INTO trips SELECT random() * 100, random() * 100 FROM generate_series(1, 1000);
	INSERT INTO taxis SELECT random() * 100, random() * 100 FROM generate_series(1, 1000);
	DELETE FROM taxis WHERE x < 5});
p("SELECT dp_release('trips'), dp_release('taxis')");
$primary->wait_for_catchup($standby);
sub sb { return $standby->safe_psql('postgres', shift); }

# Readers on the standby see the primary's releases.
for my $q ("SELECT array_agg(center ORDER BY cluster) FROM dp_centers('trips', 3)",
	"SELECT md5(string_agg(noisy_count::text, ',' ORDER BY cell)) FROM dp_histogram('taxis')",
	"SELECT array_agg(noisy_cost ORDER BY k) FROM dp_cost_curve('trips')",
	"SELECT value FROM dp_privacy_report('taxis') WHERE item = 'releases used'")
{
	is(sb($q), p($q), "the standby reads what the primary reads: $q");
}
is(sb("SELECT dp_verify('trips')"), 't', 'a table captured by triggers verifies on the standby');

# Functions that write dpkmeans state refuse with their own message.
for my $f ("dp_capture_sync('taxis')", "dp_capture_resync('taxis')", "dp_detach('trips')",
	"dp_grant_reader('trips', 'analyst')", "dp_confirm_history('trips')",
	"dp_attach('trips', ARRAY['x', 'y'], 3, 1.0, ARRAY[0, 0], ARRAY[100, 100])")
{
	my ($name) = $f =~ /^(\w+)/;
	my ($rc, $out, $err) = $standby->psql('postgres', "SELECT $f");
	like($err, qr/ERROR:  $name cannot run during recovery/, "$name refuses on the standby");
}
my ($rc, $out, $err) = $standby->psql('postgres', "SELECT dp_verify('taxis')");
like($err, qr/dp_verify of table "taxis" cannot run during recovery/,
	'dp_verify of a table captured from the WAL refuses on the standby');
($rc, $out, $err) = $standby->psql('postgres', "SELECT dp_release('trips')");
like($err, qr/dp_release cannot run during recovery/, 'dp_release refuses on the standby');

# Failover.  The old primary is stopped (retired); the promoted standby is
# another timeline, so releases wait for the owner's confirmation.
$primary->stop;
$standby->promote;
($rc, $out, $err) = $standby->psql('postgres', "SELECT dp_release('trips')");
like($err, qr/table "trips" has its release history on another server or database/,
	'the promoted standby refuses a release before dp_confirm_history');
sb("SELECT dp_confirm_history('trips')");
is(sb("SELECT dp_release('trips')"), '3', 'then the history goes on: release 3');
is(sb("SELECT dp_verify('trips')"), 't', 'trips counted exactly');

# The WAL-captured table: rows written on the new primary, no slot.
sb("SELECT dp_confirm_history('taxis')");
sb(q{INSERT INTO taxis SELECT random() * 100, random() * 100 FROM generate_series(1, 700);
	DELETE FROM taxis WHERE y < 3});
($rc, $out, $err) = $standby->psql('postgres', "SELECT dp_release('taxis')");
like($err, qr/replication slot "[^"]+" of table "taxis" does not exist/, 'taxis has no slot after the failover');
like($err, qr/dp_capture_resync\('taxis'\)/, 'the error names dp_capture_resync');
isnt(sb("SELECT dp_capture_resync('taxis')"), '', 'dp_capture_resync gives it a new slot');
is(sb("SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE 'dpkmeans\\_%'"), '1', 'one slot');
is(sb("SELECT dp_release('taxis')"), '3', 'release 3 of taxis');
is(sb("SELECT dp_verify('taxis')"), 't', 'release 3 folded every row, those written after the failover too');
sb(q{INSERT INTO taxis SELECT random() * 100, random() * 100 FROM generate_series(1, 300);
	UPDATE taxis SET x = 100 - x WHERE y > 90});
is(sb("SELECT dp_verify('taxis')"), 't', 'the new slot counts the writes after it');
is(sb("SELECT dp_release('taxis')"), '4', 'release 4');
is(sb("SELECT dp_verify('taxis')"), 't', 'release 4 folded every row');

$standby->stop;
done_testing();
