#!/usr/bin/env bash
# Speed of releases and one-shots inside PostgreSQL, each figure beside a
# plain-SQL reference measured in the same run (run as root or postgres;
# needs dpkmeans installed in PG_CONFIG's installation):
#  (a) dp_release at 256 and 16384 counted cells (d = 2, k = 8) against the
#      row count, beside SELECT sum(x + y) over the same table;
#  (b) dp_release against the release number t (256 cells, every release
#      up to T_MAX, summarised per range of t);
#  (c) one-shot dp_kmeans (k = 10) beside SELECT sum(x + y) over the same
#      query, without and with a public n (then no row is kept: the
#      session's peak memory is printed beside), and the attach backfill
#      beside the same scan, with parallel workers (the default) and with
#      none (d = 2 at each row count of ONESHOT_ROWS, and
#      the one-shot at d = 16 from a float8[] column at the first);
#  (d) dp_release of high-dimensional tables (d = 384 and 1536, 50 000
#      rows, k = 10, pure and delta = 1e-6): time, and the peak resident
#      memory (VmHWM) and minor page faults of the release worker, sampled
#      from /proc while it runs; the rows "+w" release again after 200
#      more rows were inserted (the state folds them and is written anew).
# PARTS (default abcd) picks the parts to run.
# The release rows of (a) also give the worker's peak memory and page faults.
# Times are the best of REPS runs, in milliseconds; only the ratios mean
# anything across machines.  Nothing is asserted.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ROWS_LIST=${ROWS_LIST:-"10000 100000 1000000"}
ONESHOT_ROWS=${ONESHOT_ROWS:-"1000000 10000000"}
HIGHD_LIST=${HIGHD_LIST:-"384 1536"}
HIGHD_ROWS=${HIGHD_ROWS:-50000}
REPS=${REPS:-3}
T_MAX=${T_MAX:-1024}
PARTS=${PARTS:-abcd}
. "$top/scripts/cluster.sh"
dir=$(mktemp -d /tmp/dpkmeans-speed.XXXXXX)
port=$((20000 + RANDOM % 20000))
trap 'cluster_stop; rm -rf "$dir"' EXIT
cluster_start "$dir" "$port"
cluster_psql -c "CREATE EXTENSION dpkmeans" >/dev/null

# Milliseconds of one SQL statement (psql \timing), best of REPS.
best_ms() {
	local best="" r t
	for ((r = 0; r < REPS; r++)); do
		t=$(cluster_psql -c '\timing on' -c "$1" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
		best=$(echo "$t $best" | awk '{m=$1; for(i=2;i<=NF;i++) if($i<m) m=$i; print m}')
	done
	echo "$best"
}
# Milliseconds of one run of a statement.
one_ms() {
	cluster_psql -c '\timing on' -c "$1" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1
}
ratio() { echo "$1 $2" | awk '{printf "%.3f", $1 / $2}'; }
# Peak resident memory (VmHWM, MB) of a fresh session that ran one statement.
session_peak_mb() {
	cluster_psql -At -c "$1" -c "SELECT substring(pg_read_file('/proc/self/status') from 'VmHWM:\s*([0-9]+) kB')::int / 1024" | tail -1
}

# Run one statement while sampling /proc every 10 ms; prints "ms peak_mb
# minflt": the statement's time, and the largest VmHWM and minor page
# faults of any server process started meanwhile (the release worker; the
# session's own backend is started before, by a first statement).
sampled() {
	local pm pids0 out="$dir/sampled" pid hwm flt
	pm=$(head -1 "$CLUSTER_DIR/data/postmaster.pid")
	pids0=" $(pgrep -P "$pm" | tr '\n' ' ') "
	: >"$dir/samples"
	cluster_psql -c 'SELECT pg_sleep(0.3)' -c '\timing on' -c "$1" >"$out" &
	local job=$!
	sleep 0.2
	pids0="$pids0$(pgrep -P "$pm" | tr '\n' ' ') "
	while kill -0 "$job" 2>/dev/null; do
		for pid in $(pgrep -P "$pm"); do
			case "$pids0" in *" $pid "*) continue ;; esac
			hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null) || continue
			flt=$(awk '{print $10}' "/proc/$pid/stat" 2>/dev/null) || continue
			[ -n "$hwm" ] && echo "$hwm $flt" >>"$dir/samples"
		done
		sleep 0.01
	done
	wait "$job"
	echo "$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$out" | tail -1)" \
		"$(awk 'BEGIN {m = 0; f = 0} {if ($1 > m) m = $1; if ($2 > f) f = $2} END {if (NR) printf "%.1f %d", m / 1024, f; else printf "- -"}' "$dir/samples")"
}

fill() {
	cluster_psql -c "DROP TABLE IF EXISTS $1; CREATE TABLE $1 (x float8, y float8);
		INSERT INTO $1 SELECT random() * 100, random() * 100 FROM generate_series(1, $2)" >/dev/null
	cluster_psql -c "VACUUM ANALYZE $1" >/dev/null
}

part() { case "$PARTS" in *"$1"*) return 0 ;; esac; return 1; }

if part a; then
echo "# (a) dp_release vs rows: d = 2, k = 8, eps = 1, k-means only (the default),"
echo "#     best of $REPS releases after the first; scan = SELECT sum(x + y) over the table"
printf '%9s %7s %11s %9s %9s %8s %8s\n' rows cells release_ms scan_ms ratio peak_mb minflt
for hint in 300000 100000000; do
	for n in $ROWS_LIST; do
		fill rel "$n"
		cluster_psql -c "SELECT dp_attach('rel', ARRAY['x','y'], 8, 1.0, ARRAY[0,0], ARRAY[100,100], size_hint => $hint)" >/dev/null
		cells=$(cluster_psql -At -c "SELECT split_part(split_part(value, 'dimension, ', 2), ' cells', 1) FROM dp_privacy_report('rel') WHERE item = 'levels with counters'")
		one_ms "SELECT dp_release('rel')" >/dev/null
		r=$(best_ms "SELECT dp_release('rel')")
		s=$(best_ms "SELECT sum(x + y) FROM rel")
		read -r _ mb flt < <(sampled "SELECT dp_release('rel')")
		printf '%9d %7s %11.1f %9.1f %9s %8s %8s\n' "$n" "$cells" "$r" "$s" "$(ratio "$r" "$s")" "$mb" "$flt"
		cluster_psql -c "SELECT dp_detach('rel')" >/dev/null
	done
done
fi

if part b; then
echo
echo "# (b) dp_release vs release number t: 256 cells, 100000 rows, horizon 1024,"
echo "#     every release up to t = $T_MAX (median and max per range of t)"
fill relt 100000
cluster_psql -c "SELECT dp_attach('relt', ARRAY['x','y'], 8, 1.0, ARRAY[0,0], ARRAY[100,100], size_hint => 300000)" >/dev/null
s=$(best_ms "SELECT sum(x + y) FROM relt")
for ((t = 1; t <= T_MAX; t++)); do
	one_ms "SELECT dp_release('relt')"
done >"$dir/by_t"
printf '%11s %8s %8s %9s\n' t median max scan_ms
# ranges 1, 2-3, 4-7, ... (powers of two)
for ((lo = 1; lo <= T_MAX; lo *= 2)); do
	hi=$((2 * lo - 1 < T_MAX ? 2 * lo - 1 : T_MAX))
	sed -n "${lo},${hi}p" "$dir/by_t" | sort -n >"$dir/range"
	cnt=$(wc -l <"$dir/range")
	med=$(sed -n "$(((cnt + 1) / 2))p" "$dir/range")
	max=$(tail -1 "$dir/range")
	printf '%5d-%-5d %8.1f %8.1f %9.1f\n' "$lo" "$hi" "$med" "$max" "$s"
done
fi

if part c; then
echo
echo "# (c) one-shot and attach, d = 2, best of $REPS; peak_mb: the session's"
echo "#     peak resident memory after one call in a fresh session"
printf '%-34s %9s %10s %9s %7s %8s\n' what rows ms scan_ms ratio peak_mb
# Milliseconds of dp_attach on big (after the statements in $1), best of REPS.
best_attach() {
	local a="" r t
	for ((r = 0; r < REPS; r++)); do
		cluster_psql -c "SELECT dp_detach('big')" >/dev/null 2>&1 || true
		t=$(one_ms "$1 SELECT dp_attach('big', ARRAY['x','y'], 10, 1.0, ARRAY[0,0], ARRAY[100,100])")
		a=$(echo "$t $a" | awk '{m=$1; for(i=2;i<=NF;i++) if($i<m) m=$i; print m}')
	done
	echo "$a"
}
for n in $ONESHOT_ROWS; do
	fill big "$n"
	s=$(best_ms "SELECT sum(x + y) FROM big")
	for hint in NULL "$n"; do
		q="SELECT count(*) FROM dp_kmeans('SELECT x, y FROM big', 10, 1.0, ARRAY[0,0], ARRAY[100,100], n => $hint)"
		k=$(best_ms "$q")
		printf '%-34s %9d %10.1f %9.1f %7s %8s\n' "dp_kmeans k = 10$([ "$hint" = NULL ] || echo ', n given')" \
			"$n" "$k" "$s" "$(ratio "$k" "$s")" "$(session_peak_mb "$q")"
	done
	a=$(best_attach "")
	printf '%-34s %9d %10.1f %9.1f %7s\n' "dp_attach backfill k = 10" "$n" "$a" "$s" "$(ratio "$a" "$s")"
	# the same backfill read by the session alone (decision 056)
	a=$(best_attach "SET max_parallel_maintenance_workers = 0;")
	printf '%-34s %9d %10.1f %9.1f %7s\n' "dp_attach backfill, no workers" "$n" "$a" "$s" "$(ratio "$a" "$s")"
	cluster_psql -c "SELECT dp_detach('big')" >/dev/null 2>&1 || true
	cluster_psql -c "DROP TABLE big" >/dev/null
done

fill16() {
	cluster_psql -c "DROP TABLE IF EXISTS big16; CREATE TABLE big16 (v float8[]);
		INSERT INTO big16 SELECT (SELECT array_agg(random() * 100) FROM generate_series(1, 16) j WHERE i > 0)
		FROM generate_series(1, $1) i" >/dev/null
	cluster_psql -c "VACUUM ANALYZE big16" >/dev/null
}
n16=${ONESHOT_ROWS%% *}
fill16 "$n16"
s=$(best_ms "SELECT sum(v[1] + v[2]) FROM big16")
k=$(best_ms "SELECT count(*) FROM dp_kmeans('SELECT v FROM big16', 10, 1.0, array_fill(0::float8, ARRAY[16]), array_fill(100::float8, ARRAY[16]))")
printf '%-34s %9d %10.1f %9.1f %7s\n' "dp_kmeans k = 10, d = 16" "$n16" "$k" "$s" "$(ratio "$k" "$s")"
cluster_psql -c "DROP TABLE big16" >/dev/null
fi

if part d; then
echo
echo "# (d) dp_release of high-d tables, $HIGHD_ROWS rows, k = 10, four clusters,"
echo "#     best of $REPS after the first; peak_mb and minflt of the release worker"
printf '%6s %8s %11s %9s %8s %9s\n' d delta release_ms scan_ms peak_mb minflt
for hd in $HIGHD_LIST; do
	cluster_psql -c "DROP TABLE IF EXISTS hd; CREATE TABLE hd (v float4[]);
		INSERT INTO hd SELECT (SELECT array_agg((i % 4) * 20 + 20 + (random() - 0.5) * 4 + 0 * j)
		                       FROM generate_series(1, $hd) j WHERE i > 0)
		FROM generate_series(1, $HIGHD_ROWS) i" >/dev/null
	cluster_psql -c "VACUUM ANALYZE hd" >/dev/null
	s=$(best_ms "SELECT sum(v[1] + v[2]) FROM hd")
	for delta in 0 1e-6; do
		cluster_psql -c "SELECT dp_attach('hd', ARRAY['v'], 10, 1.0, array_fill(0::float8, ARRAY[$hd]),
			array_fill(100::float8, ARRAY[$hd]), delta => $delta)" >/dev/null
		one_ms "SELECT dp_release('hd')" >/dev/null
		r=$(best_ms "SELECT dp_release('hd')")
		read -r _ mb flt < <(sampled "SELECT dp_release('hd')")
		printf '%6d %8s %11.1f %9.1f %8s %9s\n' "$hd" "$delta" "$r" "$s" "$mb" "$flt"
		cluster_psql -c "INSERT INTO hd SELECT (SELECT array_agg((i % 4) * 20 + 20 + (random() - 0.5) * 4 + 0 * j)
			FROM generate_series(1, $hd) j WHERE i > 0) FROM generate_series(1, 200) i" >/dev/null
		read -r r mb flt < <(sampled "SELECT dp_release('hd')")
		printf '%6d %8s %11.1f %9.1f %8s %9s\n' "$hd" "$delta+w" "$r" "$s" "$mb" "$flt"
		cluster_psql -c "SELECT dp_detach('hd')" >/dev/null
		cluster_psql -c "DELETE FROM hd WHERE ctid IN (SELECT ctid FROM hd OFFSET $HIGHD_ROWS)" >/dev/null
	done
done
fi
