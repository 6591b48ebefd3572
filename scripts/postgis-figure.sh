#!/usr/bin/env bash
# The user guide's location walk-through, run for real, and its picture
# (doc/figures/postgis_airports.svg): the US airports Debian's
# python3-vega-datasets ships (name, state, latitude, longitude), the lower
# 48 states, tracked by dpkmeans_postgis in a projected SRID (EPSG:5070,
# NAD83 / Conus Albers, a generated column), one release, its private
# centres and noisy cells drawn over the true points.  Needs the INSTALLED
# dpkmeans and PostGIS (build and install first); run as root on Debian 12
# (the cluster runs as the postgres OS user).  Extra arguments: EPS (default
# 1), K (default 6).  Prints the walk-through's SQL output.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
EPS=${EPS:-1}
K=${K:-6}
OUT=${OUT:-doc/figures/postgis_airports.svg}
CSV=/usr/lib/python3/dist-packages/vega_datasets/_data/airports.csv

if [ ! -r "$CSV" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || true
	apt-get install -y -qq python3-vega-datasets >/dev/null
fi

. ./scripts/cluster.sh
dir=$(mktemp -d /tmp/dpkmeans-postgis-figure.XXXXXX)
chmod 755 "$dir"
port=$((20000 + RANDOM % 20000))
trap 'cluster_stop; rm -rf "$dir"' EXIT
cluster_start "$dir" "$port"
cp "$CSV" "$dir/airports.csv"
chmod 644 "$dir/airports.csv"

cluster_psql -e <<SQL
CREATE EXTENSION dpkmeans_postgis CASCADE;
CREATE TEMP TABLE raw (iata text, name text, city text, state text, country text,
                       latitude float8, longitude float8);
COPY raw FROM '$dir/airports.csv' WITH (FORMAT csv, HEADER true);

-- Longitude/latitude as they come, and the same points in metres (Conus Albers).
CREATE TABLE airports (
    iata text PRIMARY KEY,
    name text,
    state text,
    at geometry(Point, 4326),
    at_albers geometry(Point, 5070) GENERATED ALWAYS AS (ST_Transform(at, 5070)) STORED
);
INSERT INTO airports (iata, name, state, at)
SELECT iata, name, state, ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)
FROM raw WHERE longitude BETWEEN -125 AND -66 AND latitude BETWEEN 24 AND 50;
SELECT count(*) AS airports FROM airports;

-- The box: the lower 48's envelope (public knowledge, not the data's) in
-- metres; its sides curve in the projection, so densified first.
SELECT dp_attach('airports', 'at_albers', $K, $EPS,
                 ST_Envelope(ST_Transform(ST_Segmentize(ST_MakeEnvelope(-125, 24, -66, 50, 4326), 1), 5070)),
                 horizon => 52);
SELECT dp_release('airports');
SELECT cluster, round(ST_X(center)) AS x, round(ST_Y(center)) AS y,
       round(ST_X(ST_Transform(center, 4326))::numeric, 2) AS lon,
       round(ST_Y(ST_Transform(center, 4326))::numeric, 2) AS lat,
       round(noisy_size) AS noisy_size
FROM dp_center_points('airports', $K) ORDER BY cluster;
SELECT level, count(*) AS cells, count(*) FILTER (WHERE noisy_count > 0) AS positive,
       round(sum(noisy_count)) AS noisy_total
FROM dp_cell_polygons('airports') GROUP BY level;
SELECT jsonb_array_length(g->'features') AS features, g->'crs' AS crs
FROM dp_release_geojson('airports') g;
SQL

# What the picture needs: the true points, the box, the released cells and centres.
cluster_psql -A -t -F ' ' -c "SELECT ST_X(at_albers), ST_Y(at_albers) FROM airports" >"$dir/points.txt"
cluster_psql -A -t -F ' ' -c "SELECT lower[1], lower[2], upper[1], upper[2] FROM dp_box('airports')" >"$dir/box.txt"
cluster_psql -A -t -F ' ' -c "SELECT ST_XMin(cell_polygon), ST_YMin(cell_polygon), ST_XMax(cell_polygon),
	ST_YMax(cell_polygon), noisy_count FROM dp_cell_polygons('airports')" >"$dir/cells.txt"
cluster_psql -A -t -F ' ' -c "SELECT ST_X(center), ST_Y(center), noisy_size FROM dp_center_points('airports', $K)" >"$dir/centres.txt"
/usr/bin/python3 scripts/postgis_figure.py "$dir" "$OUT" "$EPS" "$K"
echo "wrote $OUT"
