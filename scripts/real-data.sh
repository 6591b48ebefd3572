#!/usr/bin/env bash
# Real data sets for the benchmarks, taken from Debian packages into
# test/bench/data/ (not in the repository):
#   diamonds.csv  53 940 diamonds of R's ggplot2 (Debian r-cran-ggplot2):
#                 carat, depth, table, price, x, y, z -- seven numeric
#                 columns of very different scales, skewed and heavy-tailed.
# Needs root (apt) the first time: installs r-base-core to read R's data
# format, and downloads the r-cran-ggplot2 package without installing it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/test/bench/data
mkdir -p "$out"
[ -s "$out/diamonds.csv" ] && exit 0
if ! command -v Rscript >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends r-base-core >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
(cd "$work" && apt-get download -q r-cran-ggplot2 >/dev/null 2>&1) ||
	(apt-get update -q >/dev/null && cd "$work" && apt-get download -q r-cran-ggplot2 >/dev/null)
dpkg-deb -x "$work"/r-cran-ggplot2_*.deb "$work/x"
Rscript -e 'e <- new.env()
invisible(lazyLoad(file.path(commandArgs(TRUE)[1], "usr/lib/R/site-library/ggplot2/data/Rdata"), envir = e))
d <- as.data.frame(e$diamonds)[, c("carat", "depth", "table", "price", "x", "y", "z")]
write.csv(d, commandArgs(TRUE)[2], row.names = FALSE)' "$work/x" "$out/diamonds.csv.tmp"
mv "$out/diamonds.csv.tmp" "$out/diamonds.csv"
echo "real-data: $(($(wc -l <"$out/diamonds.csv") - 1)) rows in $out/diamonds.csv"
