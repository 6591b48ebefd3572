#!/usr/bin/env bash
# Install what building and testing dpkmeans needs on Debian 12 (run as root).
# The server headers are pinned to the installed server's version when that
# version is still in the archive, else the newest are taken.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
# postgresql-15-postgis-3: the companion extension's suites (dpkmeans itself
# needs no PostGIS and its own suites run without it).
need=(libopenblas0 libssl-dev libipc-run-perl make gcc postgresql-15-partman postgresql-15-cron
	postgresql-15-postgis-3)
missing=()
for p in "${need[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! dpkg-query -W -f='${Status}' postgresql-server-dev-15 2>/dev/null | grep -q "install ok installed"; then
	missing+=(postgresql-server-dev-15)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

apt-get update -qq || true
server_ver=$(dpkg-query -W -f='${Version}' postgresql-15 2>/dev/null || true)
pkgs=()
for p in "${missing[@]}"; do
	if [ "$p" = postgresql-server-dev-15 ] && [ -n "$server_ver" ] &&
		apt-cache madison postgresql-server-dev-15 | grep -qF " $server_ver "; then
		pkgs+=("postgresql-server-dev-15=$server_ver")
	else
		pkgs+=("$p")
	fi
done
apt-get install -y -qq "${pkgs[@]}" >/dev/null
