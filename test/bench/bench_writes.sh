#!/usr/bin/env bash
# Write cost of a live table inside PostgreSQL, as ratios measured side by
# side in one run against a plain table of the same columns in the same
# cluster:
#   att    attached (insert_delete, k = 8, eps = 1);
#   floor  a plain table with statement triggers that declare the same
#          transition tables as dpkmeans' and do nothing: what PostgreSQL's
#          capture of the statement's rows costs before any dpkmeans code.
# Measured:
#   - pgbench single-row INSERT, CLIENTS clients, SECONDS_RUN s, with
#     synchronous_commit on and off (throughput; best of REPS);
#   - INSERT ... SELECT and COPY of ROWS rows, UPDATE of a tracked column and
#     DELETE of UROWS rows, at every d of DIMS (wall-clock and backend CPU
#     time; best of REPS).
# With WAL=1 (default) a second cluster L runs at wal_level = logical, beside
# the first (wal_level = replica, PostgreSQL's default), with:
#   plain  the same plain table (lp/p: its cost against cluster A's plain);
#   rif    a plain table with REPLICA IDENTITY FULL while a logical slot
#          exists: the writers' floor of any capture by logical decoding;
#   wal    attached with capture => 'wal' (WAL_TABLES lists L's tables).
# Run as root (the clusters run as the postgres OS user) or as postgres.
# PG_CONFIG names the installation holding dpkmeans; BASE_PG_CONFIG, when
# set, a second one (e.g. the previous version) whose attached table is
# measured in the same run on a second cluster, its columns beside.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ROWS=${ROWS:-1000000}
UROWS=${UROWS:-100000}
REPS=${REPS:-3}
DIMS=${DIMS:-2 16}
CLIENTS=${CLIENTS:-4}
SECONDS_RUN=${SECONDS_RUN:-10}
# OPS: the bulk statements measured; SKIP_PGBENCH=1 leaves out the single-row runs.
OPS=${OPS:-insert copy update delete}
SKIP_PGBENCH=${SKIP_PGBENCH:-0}
# maintenance_work_mem of the WAL capture's sync: its decoding holds a
# transaction's changes in up to that much memory before spilling to disk.
SYNC_MEM=${SYNC_MEM:-2GB}
. "$top/scripts/cluster.sh"
export PGOPTIONS="-c client_min_messages=warning"

# Two clusters at most: A (PG_CONFIG) and B (BASE_PG_CONFIG).
declare -A C_DIR C_PORT C_BIN
names="A"
dir=$(mktemp -d /tmp/dpkmeans-bench.XXXXXX)
chmod 755 "$dir"
[ "$(id -un)" = postgres ] || chown postgres "$dir"
stop_all() {
	for c in $names; do
		CLUSTER_DIR=${C_DIR[$c]:-} PGBIN=${C_BIN[$c]:-}
		[ -n "$CLUSTER_DIR" ] && cluster_stop
	done
	rm -rf "$dir"
}
trap stop_all EXIT
C_BIN[A]=$PGBIN
[ -n "${BASE_PG_CONFIG:-}" ] && { names="$names B"; C_BIN[B]=$("$BASE_PG_CONFIG" --bindir); }
WAL=${WAL:-1}
WAL_TABLES=${WAL_TABLES:-plain rif wal}
[ "$WAL" = 1 ] && { names="$names L"; C_BIN[L]=$PGBIN; }
for c in $names; do
	mkdir -p "$dir/$c"
	C_DIR[$c]=$dir/$c
	C_PORT[$c]=$((20000 + RANDOM % 20000))
	PGBIN=${C_BIN[$c]}
	opts=""
	[ "$c" = L ] && opts="-c wal_level=logical"
	CLUSTER_OPTS=$opts cluster_start "${C_DIR[$c]}" "${C_PORT[$c]}"
	CLUSTER_DIR=${C_DIR[$c]} CLUSTER_PORT=${C_PORT[$c]} cluster_psql -c "CREATE EXTENSION dpkmeans" \
		-c "CREATE FUNCTION noop() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN RETURN NULL; END \$\$" >/dev/null
done

# Point the cluster helpers at cluster $1.
use() {
	CUR=$1 CLUSTER_DIR=${C_DIR[$1]} CLUSTER_PORT=${C_PORT[$1]} PGBIN=${C_BIN[$1]}
}

# "wall cpu": milliseconds of one SQL statement, wall clock (psql \timing) and
# CPU time of its backend (user + system, from log_statement_stats; on a
# shared machine the steadier figure), in a fresh session after a
# checkpoint so that no checkpoint of earlier writes lands inside the
# measurement.  Both tables' sessions load the library first: loading it
# (OpenBLAS, libcrypto; 30-40 ms) is a once-per-backend cost, not a write's.
ms() {
	local out wall cpu
	out=$(cluster_psql -c "LOAD 'dpkmeans'" -c 'CHECKPOINT' -c 'SET log_statement_stats = on' \
		-c 'SET client_min_messages = log' -c '\timing on' -c "$1" 2>&1)
	wall=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out" | tail -1)
	cpu=$(sed -n 's/^!\t\([0-9.]*\) s user, \([0-9.]*\) s system.*/\1 \2/p' <<<"$out" | tail -1 |
		awk '{printf "%.1f", ($1 + $2) * 1000}')
	echo "$wall $cpu"
}

cols() {
	local d=$1 s="" j
	for ((j = 1; j <= d; j++)); do s+="${s:+, }c$j float8"; done
	echo "$s"
}
colnames() {
	local d=$1 s="" j
	for ((j = 1; j <= d; j++)); do s+="${s:+, }'c$j'"; done
	echo "ARRAY[$s]"
}
gen() {
	local d=$1 s="" j
	for ((j = 1; j <= d; j++)); do s+="${s:+, }(i * $j) % 1000 / 10.0 + random() AS c$j"; done
	echo "$s"
}
bounds() {
	local d=$1 v=$2 s="" j
	for ((j = 1; j <= d; j++)); do s+="${s:+, }$v"; done
	echo "ARRAY[$s]::float8[]"
}
attach() {
	local capture=""
	[ -n "${3:-}" ] && capture=", capture => '$3'"
	cluster_psql -c "SELECT dp_attach('$1', $(colnames $2), 8, 1.0, $(bounds $2 0), $(bounds $2 101)$capture)" >/dev/null
}
# What decoding needs from the writers and nothing more: the old rows of
# UPDATE and DELETE in the WAL, and a logical slot (created once per cluster).
rif() {
	cluster_psql -c "ALTER TABLE $1 REPLICA IDENTITY FULL" >/dev/null
	cluster_psql -tA -c "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'bench_rif'" | grep -q 1 ||
		cluster_psql -c "SELECT pg_create_logical_replication_slot('bench_rif', 'pgoutput')" >/dev/null
}
# Move every slot of cluster L to the current WAL position so that the WAL
# they retain does not grow across the run (the writers' cost is measured;
# decoding is measured apart).
sync_slots() {
	cluster_psql -c "SELECT pg_replication_slot_advance(slot_name, pg_current_wal_insert_lsn()) FROM pg_replication_slots WHERE slot_name = 'bench_rif'" >/dev/null
	local t
	for t in wal pb_wal; do
		cluster_psql -tA -c "SELECT to_regclass('$t') IS NOT NULL" | grep -q t &&
			cluster_psql -c "SELECT dp_capture_sync('$t')" >/dev/null
	done
	return 0
}
# The transition tables of dpkmeans' capture triggers, on a no-op function.
floor_triggers() {
	cluster_psql -c "CREATE TRIGGER i AFTER INSERT ON $1 REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION noop();
		CREATE TRIGGER u AFTER UPDATE ON $1 REFERENCING OLD TABLE AS o NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION noop();
		CREATE TRIGGER d AFTER DELETE ON $1 REFERENCING OLD TABLE AS o FOR EACH STATEMENT EXECUTE FUNCTION noop()" >/dev/null
}
min() { echo "$@" | awk '{m=$1; for(i=2;i<=NF;i++) if($i<m) m=$i; print m}'; }
max() { echo "$@" | awk '{m=$1; for(i=2;i<=NF;i++) if($i>m) m=$i; print m}'; }

# One measurement of operation $2 at dimension $1 on the current cluster:
# "wall cpu" (ms) of each table in $4 (plain, att, floor), in that order;
# the order they run in turns with the repetition $3.
measure() {
	local d=$1 op=$2 rep=$3 tabs=($4) t i n v
	declare -A res
	cluster_psql -c "DROP TABLE IF EXISTS plain, att, flo, rif, wal" >/dev/null
	for t in "${tabs[@]}"; do
		cluster_psql -c "CREATE TABLE $t ($(cols $d))" >/dev/null
		[ $t = rif ] && rif rif
		case $op in
		update | delete)
			cluster_psql -c "INSERT INTO $t SELECT * FROM src LIMIT $UROWS" -c "VACUUM ANALYZE $t" >/dev/null ;;
		esac
		[ $t = att ] && attach att "$d"
		[ $t = wal ] && attach wal "$d" wal
		[ $t = flo ] && floor_triggers flo
	done
	[ "$CUR" = L ] && sync_slots
	n=${#tabs[@]}
	for ((i = 0; i < n; i++)); do
		t=${tabs[(i + rep) % n]}
		case $op in
		insert) v=$(ms "INSERT INTO $t SELECT * FROM src") ;;
		copy) v=$(ms "COPY $t FROM '$dir/src_$CUR.copy'") ;;
		update) v=$(ms "UPDATE $t SET c1 = c1 + 0.5") ;;
		delete) v=$(ms "DELETE FROM $t") ;;
		esac
		res[$t]=$v
		# the WAL capture's own cost, paid by the sync, not by the writer
		[ $t = wal ] && echo "$(PGOPTIONS="$PGOPTIONS -c maintenance_work_mem=$SYNC_MEM" \
			ms "SELECT dp_capture_sync('wal')")" >>"$dir/sync_${d}_$op"
	done
	for t in "${tabs[@]}"; do echo -n "${res[$t]} "; done
	echo
}
# Tables measured on cluster $1: the floor on the first cluster only.
tables() {
	case $1 in
	A) echo "plain att flo" ;;
	B) echo "plain att" ;;
	L) echo "$WAL_TABLES" ;;
	esac
}
# Columns of cluster L's tables after plain, in the printed lines.
lcols() { local t; for t in $WAL_TABLES; do [ $t = plain ] || echo -n "$t "; done; }
ratio() { echo "$1 $2" | awk '{printf "%.2f", $1 / $2}'; }

# Throughput (tps) of single-row INSERTs into table $1 with pgbench, commits
# flushed (synchronous_commit $2 = on) or not (off: the CPU cost shows).
tps() {
	echo "INSERT INTO $1 (c1, c2) VALUES (random() * 100, random() * 100);" >"$dir/pgbench_$1.sql"
	PGOPTIONS="$PGOPTIONS -c synchronous_commit=$2" as_postgres "$PGBIN/pgbench" -n \
		-h "$CLUSTER_DIR" -p "$CLUSTER_PORT" -c "$CLIENTS" -j 2 -T "$SECONDS_RUN" \
		-f "$dir/pgbench_$1.sql" postgres | sed -n 's/^tps = \([0-9.]*\).*/\1/p'
}

if [ "$SKIP_PGBENCH" != 1 ]; then
echo "# single-row INSERT, pgbench $CLIENTS clients, ${SECONDS_RUN} s, best of $REPS (tps);"
echo "# synchronous_commit on (durable commits) and off (the writers' CPU cost shows)"
line=$(printf '%3s %-8s %9s %9s %9s %6s %6s' d commit plain att floor att/p flo/p)
[ -n "${BASE_PG_CONFIG:-}" ] && line+=$(printf ' | %9s %9s %6s' base_p base_att att/p)
if [ "$WAL" = 1 ]; then
	line+=$(printf ' | %9s' l_plain)
	for t in $(lcols); do line+=$(printf ' %9s' "l_$t"); done
	line+=$(printf ' %6s' lp/p)
	for t in $(lcols); do line+=$(printf ' %6s' "$t/lp"); done
fi
echo "$line"
declare -A BEST
for c in $names; do
	use "$c"
	for t in $(tables "$c"); do
		cluster_psql -c "CREATE TABLE pb_$t (c1 float8, c2 float8)" >/dev/null
	done
	case $c in
	A) attach pb_att 2; floor_triggers pb_flo ;;
	B) attach pb_att 2 ;;
	L)
		for t in $(tables L); do
			[ $t = rif ] && rif pb_rif
			[ $t = wal ] && attach pb_wal 2 wal
		done ;;
	esac
done
for mode in on off; do
	for ((r = 0; r < REPS; r++)); do
		for c in $names; do
			use "$c"
			for t in $(tables "$c"); do
				[ "$c" = L ] && sync_slots
				cluster_psql -c "TRUNCATE pb_$t; CHECKPOINT" >/dev/null
				BEST[$mode$c$t]=$(max "$(tps pb_$t $mode)" ${BEST[$mode$c$t]:-})
			done
		done
	done
	line=$(printf '%3d %-8s %9.1f %9.1f %9.1f %6s %6s' 2 "sync_$mode" "${BEST[${mode}Aplain]}" \
		"${BEST[${mode}Aatt]}" "${BEST[${mode}Aflo]}" "$(ratio "${BEST[${mode}Aatt]}" "${BEST[${mode}Aplain]}")" \
		"$(ratio "${BEST[${mode}Aflo]}" "${BEST[${mode}Aplain]}")")
	[ -n "${BASE_PG_CONFIG:-}" ] && line+=$(printf ' | %9.1f %9.1f %6s' "${BEST[${mode}Bplain]}" \
		"${BEST[${mode}Batt]}" "$(ratio "${BEST[${mode}Batt]}" "${BEST[${mode}Bplain]}")")
	if [ "$WAL" = 1 ]; then
		line+=$(printf ' | %9.1f' "${BEST[${mode}Lplain]}")
		for t in $(lcols); do line+=$(printf ' %9.1f' "${BEST[${mode}L$t]}"); done
		line+=$(printf ' %6s' "$(ratio "${BEST[${mode}Lplain]}" "${BEST[${mode}Aplain]}")")
		for t in $(lcols); do line+=$(printf ' %6s' "$(ratio "${BEST[${mode}L$t]}" "${BEST[${mode}Lplain]}")"); done
	fi
	echo "$line"
done

echo
fi
echo "# bulk writes: INSERT ... SELECT and COPY of $ROWS rows, UPDATE and DELETE of $UROWS rows,"
echo "# best of $REPS: wall-clock ms and ratios to plain, then the same ratios of the backends' CPU time"
line=$(printf '%3s %-7s %8s %8s %8s %6s %6s %6s %6s' d op plain att floor att/p flo/p cpu_a cpu_f)
[ -n "${BASE_PG_CONFIG:-}" ] && line+=$(printf ' | %8s %8s %6s %6s' base_p base_att att/p cpu_a)
if [ "$WAL" = 1 ]; then
	line+=$(printf ' | %8s %6s %6s' l_plain lp/p cpu_lp)
	for t in $(lcols); do line+=$(printf ' %8s %6s %6s' "l_$t" "$t/lp" "cpu"); done
fi
echo "$line"
for d in $DIMS; do
	for c in $names; do
		use "$c"
		cluster_psql -c "DROP TABLE IF EXISTS src; CREATE TABLE src AS SELECT $(gen $d) FROM generate_series(1, $ROWS) i" >/dev/null
		cluster_psql -c "COPY src TO '$dir/src_$c.copy'" >/dev/null
	done
	for op in $OPS; do
		unset BEST
		declare -A BEST
		for ((r = 0; r < REPS; r++)); do
			for c in $names; do
				use "$c"
				tabs=($(tables "$c"))
				vals=($(measure "$d" "$op" "$r" "${tabs[*]}"))
				for ((i = 0; i < ${#tabs[@]}; i++)); do
					t=${tabs[i]}
					BEST[$c${t}w]=$(min "${vals[2 * i]}" ${BEST[$c${t}w]:-})
					BEST[$c${t}c]=$(min "${vals[2 * i + 1]}" ${BEST[$c${t}c]:-})
				done
			done
		done
		line=$(printf '%3d %-7s %8.1f %8.1f %8.1f %6s %6s %6s %6s' "$d" "$op" "${BEST[Aplainw]}" \
			"${BEST[Aattw]}" "${BEST[Aflow]}" "$(ratio "${BEST[Aattw]}" "${BEST[Aplainw]}")" \
			"$(ratio "${BEST[Aflow]}" "${BEST[Aplainw]}")" "$(ratio "${BEST[Aattc]}" "${BEST[Aplainc]}")" \
			"$(ratio "${BEST[Afloc]}" "${BEST[Aplainc]}")")
		[ -n "${BASE_PG_CONFIG:-}" ] && line+=$(printf ' | %8.1f %8.1f %6s %6s' "${BEST[Bplainw]}" \
			"${BEST[Battw]}" "$(ratio "${BEST[Battw]}" "${BEST[Bplainw]}")" \
			"$(ratio "${BEST[Battc]}" "${BEST[Bplainc]}")")
		if [ "$WAL" = 1 ]; then
			line+=$(printf ' | %8.1f %6s %6s' "${BEST[Lplainw]}" "$(ratio "${BEST[Lplainw]}" "${BEST[Aplainw]}")" \
				"$(ratio "${BEST[Lplainc]}" "${BEST[Aplainc]}")")
			for t in $(lcols); do
				line+=$(printf ' %8.1f %6s %6s' "${BEST[L${t}w]}" "$(ratio "${BEST[L${t}w]}" "${BEST[Lplainw]}")" \
					"$(ratio "${BEST[L${t}c]}" "${BEST[Lplainc]}")")
			done
		fi
		echo "$line"
	done
done

if [ "$WAL" = 1 ] && [[ " $WAL_TABLES " == *" wal "* ]]; then
	echo
	echo "# the WAL capture's sync (dp_capture_sync right after each bulk statement on table wal,"
	echo "# cluster L; paid at release, dp_verify or dp_capture_sync time, not by writers), best of $REPS:"
	echo "# rows = row images decoded (UPDATE: old and new), ms and backend CPU ms, then per 1M rows;"
	echo "# maintenance_work_mem = $SYNC_MEM"
	printf '%3s %-7s %8s %8s %8s %9s %9s\n' d op rows wall_ms cpu_ms wall/1M cpu/1M
	for d in $DIMS; do
		for op in $OPS; do
			case $op in
			insert | copy) n=$ROWS ;;
			update) n=$((2 * UROWS)) ;;
			delete) n=$UROWS ;;
			esac
			w=$(min $(awk '{print $1}' "$dir/sync_${d}_$op"))
			c=$(min $(awk '{print $2}' "$dir/sync_${d}_$op"))
			printf '%3d %-7s %8d %8.1f %8.1f %9.1f %9.1f\n' "$d" "$op" "$n" "$w" "$c" \
				"$(echo "$w $n" | awk '{print $1 * 1e6 / $2}')" "$(echo "$c $n" | awk '{print $1 * 1e6 / $2}')"
		done
	done
fi
