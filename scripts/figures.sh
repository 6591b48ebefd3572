#!/usr/bin/env bash
# Regenerate the figures of doc/figures/ from real runs of the INSTALLED
# dpkmeans (build and install it first): start a throwaway cluster, run
# scripts/figures.py against it, stop it. Run as root on Debian 12 (the
# cluster runs as the postgres OS user). Extra arguments go to figures.py,
# e.g. --seed N, --horizon 64, --outdir DIR. About two minutes.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# Debian's numpy and matplotlib, for the system python.
export DEBIAN_FRONTEND=noninteractive
missing=()
for p in python3-numpy python3-matplotlib; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt-get update -qq || true
	apt-get install -y -qq "${missing[@]}" >/dev/null
fi

. ./scripts/cluster.sh
dir=$(mktemp -d /tmp/dpkmeans-figures.XXXXXX)
port=$((20000 + RANDOM % 20000))
trap 'cluster_stop; rm -rf "$dir"' EXIT
cluster_start "$dir" "$port"

/usr/bin/python3 scripts/figures.py --host "$dir" --port "$port" "$@"
