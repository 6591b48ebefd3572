#!/usr/bin/env bash
# What counting a PostGIS point column costs against counting two float8
# columns holding the same points, side by side in one cluster (PG_CONFIG's
# installation, with dpkmeans and PostGIS installed there):
#   capture  INSERT ... SELECT of ROWS rows into an attached table minus the
#            same into a plain table of the same columns (what the capture
#            triggers add: reading each row's point and counting it);
#   recount  dp_verify of a table of ROWS rows (a scan reading every point
#            and counting it, then the comparison with the stored state);
#   scan     SELECT count(*) of the same table: the scan alone, subtracted
#            from the recount.
# Backend CPU time, best of REPS for each; the tables of a repetition in
# turn, the order alternating.  The last lines are the ratios point / float8
# of the capture's and the recount's counting.
# Run as root (the cluster runs as the postgres OS user) or as postgres.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ROWS=${ROWS:-1000000}
REPS=${REPS:-5}
. "$top/scripts/cluster.sh"
export PGOPTIONS="-c client_min_messages=warning"

dir=$(mktemp -d /tmp/dpkmeans-bench-postgis.XXXXXX)
chmod 755 "$dir"
trap 'cluster_stop; rm -rf "$dir"' EXIT
# the cost of reading and counting points, not of flushing the WAL
CLUSTER_OPTS="-c fsync=off -c synchronous_commit=off -c max_wal_size=10GB -c checkpoint_timeout=1h"
cluster_start "$dir" "${PORT:-55490}"

cluster_psql -o /dev/null <<SQL
CREATE EXTENSION dpkmeans_postgis CASCADE;
CREATE TABLE src AS
SELECT x, y, ST_SetSRID(ST_MakePoint(x, y), 3857) AS g
FROM (SELECT random() * 1e6 AS x, random() * 1e6 AS y FROM generate_series(1, $ROWS)) s;
CREATE TABLE f_plain (x float8, y float8);
CREATE TABLE f_att (x float8, y float8);
CREATE TABLE g_plain (g geometry(Point, 3857));
CREATE TABLE g_att (g geometry(Point, 3857));
SELECT dp_attach('f_att', ARRAY['x', 'y'], 8, 1.0, ARRAY[0, 0], ARRAY[1e6, 1e6], size_hint => $ROWS);
SELECT dp_attach('g_att', 'g', 8, 1.0, ST_MakeEnvelope(0, 0, 1e6, 1e6, 3857), size_hint => $ROWS);
VACUUM ANALYZE src;
SQL

# CPU time (user + system, log_statement_stats) of one statement's backend,
# in ms: on a shared machine far steadier than the wall clock.  A fresh
# session that has loaded the library, after a checkpoint.
cpu_ms() {
	cluster_psql -c "LOAD 'dpkmeans'" -c 'CHECKPOINT' -c 'SET log_statement_stats = on' \
		-c 'SET client_min_messages = log' -c "$1" 2>&1 |
		sed -n 's/^!\t\([0-9.]*\) s user, \([0-9.]*\) s system.*/\1 \2/p' | tail -1 |
		awk '{printf "%.1f", ($1 + $2) * 1000}'
}

declare -A best
keep() {
	local v
	v=$(cpu_ms "$2")
	if [ -z "${best[$1]:-}" ] || awk "BEGIN { exit !($v < ${best[$1]}) }"; then best[$1]=$v; fi
}

for r in $(seq 1 "$REPS"); do
	cluster_psql -c 'TRUNCATE f_plain, g_plain' -c 'TRUNCATE f_att' -c 'TRUNCATE g_att' >/dev/null
	# the order turns with the repetition
	if [ $((r % 2)) = 1 ]; then order="f g"; else order="g f"; fi
	for t in $order; do
		if [ $t = f ]; then sel='x, y'; else sel='g'; fi
		keep "insert ${t}_plain" "INSERT INTO ${t}_plain SELECT $sel FROM src"
		keep "insert ${t}_att" "INSERT INTO ${t}_att SELECT $sel FROM src"
	done
	for t in $order; do
		keep "scan ${t}_att" "SELECT count(*) FROM ${t}_att"
		keep "recount ${t}_att" "SELECT dp_verify('${t}_att')"
	done
done

echo "rows: $ROWS, backend CPU time, best of $REPS (ms)"
for k in "insert f_plain" "insert f_att" "insert g_plain" "insert g_att" "scan f_att" "scan g_att" \
	"recount f_att" "recount g_att"; do
	printf '%-16s %8s\n' "$k" "${best[$k]}"
done
awk -v fp="${best[insert f_plain]}" -v fa="${best[insert f_att]}" -v gp="${best[insert g_plain]}" \
	-v ga="${best[insert g_att]}" -v sf="${best[scan f_att]}" -v sg="${best[scan g_att]}" \
	-v rf="${best[recount f_att]}" -v rg="${best[recount g_att]}" 'BEGIN {
	cf = fa - fp; cg = ga - gp; vf = rf - sf; vg = rg - sg
	printf "capture (att - plain): float8 %.1f ms, point %.1f ms, point / float8 %.3f\n", cf, cg, cg / cf
	printf "recount (dp_verify - scan): float8 %.1f ms, point %.1f ms, point / float8 %.3f\n", vf, vg, vg / vf
}'
