#!/usr/bin/env bash
# Write cost of a live table inside PostgreSQL, as ratios measured side by
# side in one run (attached table, insert_delete, k = 8, eps = 1, against a
# plain table of the same columns in the same cluster):
#   - pgbench single-row INSERT, CLIENTS clients, SECONDS s (throughput);
#   - INSERT ... SELECT and COPY of ROWS rows, UPDATE of a tracked column and
#     DELETE of UROWS rows, at every d of DIMS (time; best of REPS).
# Run as root (the clusters run as the postgres OS user) or as postgres.
# PG_CONFIG names the installation holding dpkmeans; BASE_PG_CONFIG, when
# set, a second one (e.g. the previous version) measured in the same run on
# a second cluster, its columns beside the first's.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ROWS=${ROWS:-1000000}
UROWS=${UROWS:-100000}
REPS=${REPS:-3}
DIMS=${DIMS:-2 16}
CLIENTS=${CLIENTS:-4}
SECONDS_RUN=${SECONDS_RUN:-10}
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
[ -n "${BASE_PG_CONFIG:-}" ] && { names="A B"; C_BIN[B]=$("$BASE_PG_CONFIG" --bindir); }
for c in $names; do
	mkdir -p "$dir/$c"
	C_DIR[$c]=$dir/$c
	C_PORT[$c]=$((20000 + RANDOM % 20000))
	PGBIN=${C_BIN[$c]}
	cluster_start "${C_DIR[$c]}" "${C_PORT[$c]}"
	CLUSTER_DIR=${C_DIR[$c]} CLUSTER_PORT=${C_PORT[$c]} cluster_psql -c "CREATE EXTENSION dpkmeans" >/dev/null
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
	cluster_psql -c "SELECT dp_attach('$1', $(colnames $2), 8, 1.0, $(bounds $2 0), $(bounds $2 101))" >/dev/null
}
min() { echo "$@" | awk '{m=$1; for(i=2;i<=NF;i++) if($i<m) m=$i; print m}'; }
max() { echo "$@" | awk '{m=$1; for(i=2;i<=NF;i++) if($i>m) m=$i; print m}'; }

# One measurement of operation $2 at dimension $1 on the current cluster:
# "plain_wall att_wall plain_cpu att_cpu" (ms), the plain table first on
# even repetitions.
measure() {
	local d=$1 op=$2 rep=$3 t first second pw aw pc ac
	cluster_psql -c "DROP TABLE IF EXISTS plain, att; CREATE TABLE plain ($(cols $d)); CREATE TABLE att ($(cols $d))" >/dev/null
	case $op in
	update | delete)
		cluster_psql -c "INSERT INTO plain SELECT * FROM src LIMIT $UROWS; INSERT INTO att SELECT * FROM plain" -c "VACUUM ANALYZE plain, att" >/dev/null ;;
	esac
	attach att "$d"
	if ((rep % 2 == 0)); then first=plain second=att; else first=att second=plain; fi
	for t in $first $second; do
		case $op in
		insert) v=$(ms "INSERT INTO $t SELECT * FROM src") ;;
		copy) v=$(ms "COPY $t FROM '$dir/src_$CUR.copy'") ;;
		update) v=$(ms "UPDATE $t SET c1 = c1 + 0.5") ;;
		delete) v=$(ms "DELETE FROM $t") ;;
		esac
		if [ $t = plain ]; then read -r pw pc <<<"$v"; else read -r aw ac <<<"$v"; fi
	done
	echo "$pw $aw $pc $ac"
}

# Throughput (tps) of single-row INSERTs into table $1 with pgbench.
tps() {
	echo "INSERT INTO $1 (c1, c2) VALUES (random() * 100, random() * 100);" >"$dir/pgbench_$1.sql"
	as_postgres "$PGBIN/pgbench" -n -h "$CLUSTER_DIR" -p "$CLUSTER_PORT" -c "$CLIENTS" -j 2 \
		-T "$SECONDS_RUN" -f "$dir/pgbench_$1.sql" postgres | sed -n 's/^tps = \([0-9.]*\).*/\1/p'
}

hdr_base=""
[ -n "${BASE_PG_CONFIG:-}" ] && hdr_base=$(printf ' | %10s %10s %7s' base_plain base_att ratio)

echo "# single-row INSERT, pgbench $CLIENTS clients, ${SECONDS_RUN} s, best of $REPS (tps)"
printf '%3s %-10s %10s %10s %7s%s\n' d operation plain att ratio "$hdr_base"
declare -A BEST
for c in $names; do
	use "$c"
	cluster_psql -c "CREATE TABLE pb_plain (c1 float8, c2 float8); CREATE TABLE pb_att (c1 float8, c2 float8)" >/dev/null
	attach pb_att 2
done
for ((r = 0; r < REPS; r++)); do
	for c in $names; do
		use "$c"
		for t in pb_plain pb_att; do
			cluster_psql -c "TRUNCATE $t; CHECKPOINT" >/dev/null
			BEST[$c$t]=$(max "$(tps $t)" ${BEST[$c$t]:-})
		done
	done
done
line=$(printf '%3d %-10s %10.1f %10.1f %7.2f' 2 pgbench "${BEST[Apb_plain]}" "${BEST[Apb_att]}" \
	"$(echo "${BEST[Apb_att]} ${BEST[Apb_plain]}" | awk '{print $1/$2}')")
[ -n "${BASE_PG_CONFIG:-}" ] && line+=$(printf ' | %10.1f %10.1f %7.2f' "${BEST[Bpb_plain]}" "${BEST[Bpb_att]}" \
	"$(echo "${BEST[Bpb_att]} ${BEST[Bpb_plain]}" | awk '{print $1/$2}')")
echo "$line"

echo
echo "# bulk writes: INSERT ... SELECT and COPY of $ROWS rows, UPDATE and DELETE of $UROWS rows,"
echo "# best of $REPS: wall-clock ms, their ratio, and the ratio of the backends' CPU time"
hdr_base=""
[ -n "${BASE_PG_CONFIG:-}" ] && hdr_base=$(printf ' | %10s %10s %7s %7s' base_plain base_att ratio cpu)
printf '%3s %-10s %10s %10s %7s %7s%s\n' d operation plain_ms att_ms ratio cpu "$hdr_base"
for d in $DIMS; do
	for c in $names; do
		use "$c"
		cluster_psql -c "DROP TABLE IF EXISTS src; CREATE TABLE src AS SELECT $(gen $d) FROM generate_series(1, $ROWS) i" >/dev/null
		cluster_psql -c "COPY src TO '$dir/src_$c.copy'" >/dev/null
	done
	for op in insert copy update delete; do
		unset BEST
		declare -A BEST
		for ((r = 0; r < REPS; r++)); do
			for c in $names; do
				use "$c"
				read -r pw aw pc ac < <(measure "$d" "$op" "$r")
				BEST[${c}pw]=$(min "$pw" ${BEST[${c}pw]:-})
				BEST[${c}aw]=$(min "$aw" ${BEST[${c}aw]:-})
				BEST[${c}pc]=$(min "$pc" ${BEST[${c}pc]:-})
				BEST[${c}ac]=$(min "$ac" ${BEST[${c}ac]:-})
			done
		done
		line=$(printf '%3d %-10s' "$d" "$op")
		for c in $names; do
			[ "$c" = B ] && line+=" |"
			line+=$(printf ' %10.1f %10.1f %7.2f %7.2f' "${BEST[${c}pw]}" "${BEST[${c}aw]}" \
				"$(echo "${BEST[${c}aw]} ${BEST[${c}pw]}" | awk '{print $1/$2}')" \
				"$(echo "${BEST[${c}ac]} ${BEST[${c}pc]}" | awk '{print $1/$2}')")
		done
		echo "$line"
	done
done
