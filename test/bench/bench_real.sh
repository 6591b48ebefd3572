#!/usr/bin/env bash
# Live and one-shot accuracy of the extension itself on a real table
# (scripts/real-data.sh), release by release, against a non-private k-means
# of the same rows (test/bench/real_cost.c).
#
# The table is filled in T batches of its rows in a seeded random order; after
# each batch a live release (dp_release, then dp_centers) and a one-shot
# dp_kmeans at the full epsilon on the same rows are made.  Streams: insert
# (the table grows to all rows) and window (batch t in, batch t - W out;
# insert_delete accounting).  Rows are clamped into the declared box first,
# as the extension clamps them, and costs are on the clamped rows.
#
#   SET=diamonds7   carat, depth, table, price, x, y, z (d = 7, K = 10)
#   SET=diamonds2   carat, price (d = 2, K = 6)
# T (16), W (4), EPS (1), REPS (1: fresh keys per repetition), STREAMS.
# Each stream's table prints its projection seed (public, drawn at attach):
# the cost of one run depends mostly on it, so compare a run with the C
# replay of the same seed (bench_real_live --proj-seed), not with its mean.
# Run as root (the cluster runs as the postgres OS user) or as postgres.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
SET=${SET:-diamonds7}
T=${T:-16}
W=${W:-4}
EPS=${EPS:-1}
REPS=${REPS:-1}
STREAMS=${STREAMS:-insert window}
. "$top/scripts/cluster.sh"
export PGOPTIONS="-c client_min_messages=warning"
csv=$top/test/bench/data/diamonds.csv
[ -r "$csv" ] || { echo "bench_real: run scripts/real-data.sh first" >&2; exit 2; }
case $SET in
diamonds7)
	cols="carat depth table price x y z" K=${K:-10}
	lo="0 40 40 0 0 0 0" hi="5.5 80 100 20000 12 12 12" ;;
diamonds2)
	cols="carat price" K=${K:-6}
	lo="0 0" hi="5.5 20000" ;;
*) echo "bench_real: unknown SET $SET" >&2; exit 2 ;;
esac
read -ra C <<<"$cols"
read -ra L <<<"$lo"
read -ra H <<<"$hi"
d=${#C[@]}
list() { local IFS=,; echo "$*"; }
quoted() { local s="" c; for c in "$@"; do s+="${s:+, }'$c'"; done; echo "$s"; }
clamped() { local s="" i; for ((i = 0; i < d; i++)); do s+="${s:+, }least(greatest(\"${C[i]}\", ${L[i]}), ${H[i]}) AS \"${C[i]}\""; done; echo "$s"; }
idents() { local s="" c; for c in "$@"; do s+="${s:+, }\"$c\""; done; echo "$s"; }
lower="ARRAY[$(list "${L[@]}")]::float8[]"
upper="ARRAY[$(list "${H[@]}")]::float8[]"

dir=$(mktemp -d /tmp/dpkmeans-real.XXXXXX)
chmod 755 "$dir"
[ "$(id -un)" = postgres ] || chown postgres "$dir"
trap 'cluster_stop; rm -rf "$dir"' EXIT
cp "$csv" "$dir/src.csv"
chmod 644 "$dir/src.csv"
cluster_start "$dir" $((20000 + RANDOM % 20000))
q() { cluster_psql -At -F, "$@"; }
q -c "CREATE EXTENSION dpkmeans" \
	-c "CREATE TABLE raw (carat float8, depth float8, \"table\" float8, price float8, x float8, y float8, z float8)" \
	-c "COPY raw FROM '$dir/src.csv' CSV HEADER" >/dev/null
cols_sql=$(idents "${C[@]}")
n=$(q -c "SELECT count(*) FROM raw")
batch=$(((n + T - 1) / T))
echo "# bench_real: $SET, $n rows, d = $d, K = $K, eps = $EPS, T = $T batches of $batch rows, window W = $W batches"
echo "# box: lower ($lo) upper ($hi); columns: $cols"

for ((rep = 1; rep <= REPS; rep++)); do
	# a seeded random order (the same for every stream of a repetition)
	q -c "DROP TABLE IF EXISTS src" \
		-c "CREATE TABLE src AS SELECT row_number() OVER (ORDER BY md5(r.ctid::text || '$rep')) - 1 AS id, $(clamped) FROM raw r" >/dev/null
	q -c "COPY (SELECT $cols_sql FROM src ORDER BY id) TO '$dir/rows.csv' CSV" >/dev/null
	for stream in $STREAMS; do
		# size_hint: the rows the table mostly holds (all of them, or a window)
		mode=insert_only hint=$n
		[ "$stream" = window ] && mode=insert_delete hint=$((W * batch))
		q -c "DROP TABLE IF EXISTS live" -c "CREATE TABLE live AS SELECT * FROM src WHERE false" \
			-c "SELECT dp_attach('live', ARRAY[$(quoted "${C[@]}")], $K, $EPS, $lower, $upper, $T, '$mode', $hint)" >/dev/null
		# the table's public projection seed and level: bench_real_live
		# --proj-seed replays this table's projection in plain C
		echo "# $stream: $(q -c "SELECT 'proj_seed ' || proj_seed || ', level ' || level || ', dhat ' || dhat
		                        FROM dpkmeans_internal.tracked WHERE relid = 'live'::regclass")"
		: >"$dir/centres.csv"
		for ((t = 1; t <= T; t++)); do
			q -c "INSERT INTO live SELECT * FROM src WHERE id >= $(((t - 1) * batch)) AND id < $((t * batch))" >/dev/null
			start=0
			if [ "$stream" = window ] && ((t > W)); then
				start=$(((t - W) * batch))
				q -c "DELETE FROM live WHERE id < $start" >/dev/null
			fi
			end=$((t * batch < n ? t * batch : n))
			q -c "SELECT dp_release('live')" >/dev/null
			q -c "SELECT 'oneshot', $t, $start, $end, array_to_string(center, ',')
			      FROM dp_kmeans('SELECT $cols_sql FROM live', $K, $EPS, $lower, $upper)" >>"$dir/centres.csv"
			q -c "SELECT 'live', $t, $start, $end, array_to_string(center, ',') FROM dp_centers('live', $K)" >>"$dir/centres.csv"
		done
		echo "## stream $stream ($mode), repetition $rep"
		OPENBLAS_NUM_THREADS=1 "$top/test/bench/bin/real_cost" --rows "$dir/rows.csv" \
			--centres "$dir/centres.csv" --d "$d" --from $((T / 2))
	done
done
