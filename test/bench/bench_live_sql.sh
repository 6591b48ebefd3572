#!/usr/bin/env bash
# Live-table benchmark inside PostgreSQL (run as root or postgres; needs
# dpkmeans installed in PG_CONFIG's installation):
#  (b) write overhead: INSERT ... SELECT and COPY of ROWS rows into an attached
#      table vs a plain one, d = 2 and d = 8, as ratios measured side by side
#      (skipped with SKIP_WRITES=1; bench_writes.sh measures more writes);
#  (c) dp_release + dp_centers time against the number of rows.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ROWS=${ROWS:-1000000}
REPS=${REPS:-3}
. "$top/scripts/cluster.sh"
dir=$(mktemp -d /tmp/dpkmeans-bench.XXXXXX)
port=$((20000 + RANDOM % 20000))
trap 'cluster_stop; rm -rf "$dir"' EXIT
cluster_start "$dir" "$port"
cluster_psql -c "CREATE EXTENSION dpkmeans" >/dev/null
chmod 755 "$dir"
[ "$(id -un)" = postgres ] || chown postgres "$dir"

# Milliseconds of one SQL statement (psql \timing).
ms() {
	cluster_psql -c '\timing on' -c "$1" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1
}

cols() {
	local d=$1 s="" j
	for ((j = 1; j <= d; j++)); do s+="${s:+, }c$j float8"; done
	echo "$s"
}
names() {
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

if [ -z "${SKIP_WRITES:-}" ]; then
echo "# write overhead: $ROWS rows, best of $REPS, attached (insert_delete, k=8, eps=1) vs plain"
printf '%3s %-14s %10s %10s %7s\n' d operation plain_ms attached_ms ratio
for d in ${DIMS:-2 8}; do
	cluster_psql -c "DROP TABLE IF EXISTS src; CREATE TABLE src AS SELECT $(gen $d) FROM generate_series(1, $ROWS) i" >/dev/null
	cluster_psql -c "COPY src TO '$dir/src.copy'" >/dev/null
	for op in insert copy; do
		best_p=""; best_a=""
		for ((r = 0; r < REPS; r++)); do
			cluster_psql -c "DROP TABLE IF EXISTS plain, att; CREATE TABLE plain ($(cols $d)); CREATE TABLE att ($(cols $d))" >/dev/null
			cluster_psql -c "SELECT dp_attach('att', $(names $d), 8, 1.0, $(bounds $d 0), $(bounds $d 101))" >/dev/null
			if [ $op = insert ]; then
				p=$(ms "INSERT INTO plain SELECT * FROM src")
				a=$(ms "INSERT INTO att SELECT * FROM src")
			else
				p=$(ms "COPY plain FROM '$dir/src.copy'")
				a=$(ms "COPY att FROM '$dir/src.copy'")
			fi
			best_p=$(echo "$p $best_p" | awk '{m=$1; for(i=2;i<=NF;i++) if($i<m) m=$i; print m}')
			best_a=$(echo "$a $best_a" | awk '{m=$1; for(i=2;i<=NF;i++) if($i<m) m=$i; print m}')
		done
		printf '%3d %-14s %10.1f %10.1f %7.2f\n' $d "$op" "$best_p" "$best_a" "$(echo "$best_a $best_p" | awk '{print $1/$2}')"
	done
done
fi

[ -n "${ONLY_WRITES:-}" ] && exit 0
echo
echo "# release time vs rows (d = 2, k = 8, eps = 1, size_hint 1e5: same cells at every size)"
printf '%9s %8s %12s %12s\n' rows cells release_ms centers_ms
for n in 10000 100000 1000000; do
	cluster_psql -c "DROP TABLE IF EXISTS rel; CREATE TABLE rel (x float8, y float8);
		INSERT INTO rel SELECT random() * 100, random() * 100 FROM generate_series(1, $n);
		SELECT dp_attach('rel', ARRAY['x','y'], 8, 1.0, ARRAY[0,0], ARRAY[100,100], size_hint => 100000)" >/dev/null
	r=$(ms "SELECT dp_release('rel')")
	c=$(ms "SELECT * FROM dp_centers('rel', 8)")
	cells=$(cluster_psql -At -c "SELECT count(*) FROM dp_histogram('rel', (SELECT split_part(split_part(value, 'level ', 2), ':', 1)::int FROM dp_privacy_report('rel') WHERE item = 'levels with counters'))")
	printf '%9d %8d %12.1f %12.1f\n' $n "$cells" "$r" "$c"
done
echo
echo "# release time vs cells (100000 rows, d = 2; size_hint moves the counted level)"
printf '%10s %8s %12s\n' size_hint cells release_ms
for hint in 1000 100000 10000000 1000000000; do
	cluster_psql -c "DROP TABLE IF EXISTS rel; CREATE TABLE rel (x float8, y float8);
		INSERT INTO rel SELECT random() * 100, random() * 100 FROM generate_series(1, 100000);
		SELECT dp_attach('rel', ARRAY['x','y'], 8, 1.0, ARRAY[0,0], ARRAY[100,100], size_hint => $hint)" >/dev/null
	r=$(ms "SELECT dp_release('rel')")
	cells=$(cluster_psql -At -c "SELECT count(*) FROM dp_histogram('rel', (SELECT split_part(split_part(value, 'level ', 2), ':', 1)::int FROM dp_privacy_report('rel') WHERE item = 'levels with counters'))")
	printf '%10s %8d %12.1f\n' $hint "$cells" "$r"
done
