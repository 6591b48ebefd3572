#!/usr/bin/env bash
# The plain-C core (the Makefile's CORE_SRCS and the headers they include)
# includes no PostgreSQL header and no header of the PostgreSQL glue
# (GLUE_SRCS): the core builds and is tested without a server, and imports
# run from the glue to the core only.  Exits 1 and names each include that
# runs the wrong way.
set -euo pipefail
cd "$(dirname "$0")/.."

make_var() {
	sed -e ':a' -e '/\\$/N; s/\\\n//; ta' Makefile |
		sed -n "s/^$1[[:space:]]*=[[:space:]]*//p" | head -n 1
}

core_srcs=$(make_var CORE_SRCS)
glue_srcs=$(make_var GLUE_SRCS)

# Headers of the glue: those of GLUE_SRCS files, and any header that
# includes postgres.h (the glue's shared headers).
declare -A glue_header
for f in $glue_srcs; do
	glue_header[$(basename "${f%.c}.h")]=1
done
for h in src/*.h; do
	grep -q '#include "postgres.h"' "$h" && glue_header[$(basename "$h")]=1
done

# The core's files: its sources and every header they reach.
declare -A seen
queue=()
for f in $core_srcs; do
	queue+=("$f")
done
bad=0
while [ ${#queue[@]} -gt 0 ]; do
	f=${queue[0]}
	queue=("${queue[@]:1}")
	[ -n "${seen[$f]:-}" ] && continue
	seen[$f]=1
	while IFS= read -r inc; do
		if [ -n "${glue_header[$inc]:-}" ]; then
			echo "check-layers: $f includes the glue's $inc" >&2
			bad=1
		elif [ -f "src/$inc" ]; then
			queue+=("src/$inc")
		else
			echo "check-layers: $f includes \"$inc\", which is not a core header" >&2
			bad=1
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
	# <...> includes: the C library, math and BLAS only, never the server's
	if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(postgres|fmgr|utils/|access/|catalog/|executor/|nodes/|storage/|miscadmin|funcapi|libpq)' "$f" >&2; then
		echo "check-layers: $f includes a PostgreSQL header" >&2
		bad=1
	fi
done
if [ "$bad" -ne 0 ]; then
	exit 1
fi
echo "check-layers: ${#seen[@]} core files include neither PostgreSQL nor the glue"
