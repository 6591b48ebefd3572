#!/usr/bin/env bash
# Build the Debian package postgresql-15-dpkmeans (run as root on Debian 12).
# Installs the build dependencies named in debian/control (apt), clones the
# repository's committed state into a temporary directory, runs
# "dpkg-buildpackage -us -uc -b" there and prints the path of the .deb as the
# last line of its output.  Uncommitted changes are not packaged.  No test
# runs during the package build (see debian/rules); "make ci" runs them.
#
# Usage: scripts/package.sh [REF]     REF: what to package (default: HEAD)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ref=${1:-HEAD}
start=$(date +%s)

if [ "$(id -u)" -ne 0 ]; then
	echo "package.sh: run as root (it installs the build dependencies with apt)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive

updated=
apt_update() {
	if [ -z "$updated" ]; then
		apt-get update -qq
		updated=1
	fi
}

if ! command -v git >/dev/null; then
	apt_update
	apt-get install -y -qq git >/dev/null
fi

out=$(mktemp -d /tmp/dpkmeans-package.XXXXXX)
src="$out/dpkmeans"
git clone -q --no-hardlinks "$top" "$src"
git -C "$src" checkout -q --detach "$ref"
if [ ! -f "$src/debian/control" ]; then
	echo "package.sh: $ref has no debian/control (is the packaging committed?)" >&2
	exit 1
fi

# Build dependencies.  As in scripts/setup.sh, the server headers are those
# of the installed server when that version is still in the archive, so the
# package fits the server of this machine (debian/rules makes it depend on a
# server at least as new as the headers).
if ! { command -v dpkg-checkbuilddeps >/dev/null &&
	(cd "$src" && dpkg-checkbuilddeps) 2>/dev/null; }; then
	apt_update
	server_ver=$(dpkg-query -W -f='${Version}' postgresql-15 2>/dev/null || true)
	if [ -n "$server_ver" ] &&
		! dpkg-query -W -f='${Status}' postgresql-server-dev-15 2>/dev/null | grep -q "install ok installed" &&
		apt-cache madison postgresql-server-dev-15 | grep -qF " $server_ver "; then
		apt-get install -y -qq "postgresql-server-dev-15=$server_ver" >/dev/null
	fi
	(cd "$src" && apt-get build-dep -y -qq ./) >/dev/null
fi

log="$out/build.log"
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$log" 2>&1; then
	tail -40 "$log" >&2
	echo "package.sh: dpkg-buildpackage failed; full log: $log" >&2
	exit 1
fi
rm -rf "$src"

deb=$(ls "$out"/postgresql-15-dpkmeans_*.deb)
echo "package.sh: built in $(($(date +%s) - start)) s; log and .changes in $out" >&2
echo "$deb"
