#!/usr/bin/env bash
# The folders of src/ are layers, in the order of the Makefile's CORE_DIRS
# and then GLUE_DIRS (lowest first).  A file includes only headers of its own
# folder or of folders before it, and, once built, an object calls only
# functions defined in its own folder or in folders before it: every import
# cycle stays inside one folder.  The core (CORE_DIRS) includes no
# PostgreSQL header at all.  Exits 1 and names every include or call that
# runs the wrong way.
set -euo pipefail
cd "$(dirname "$0")/.."

make_var() {
	sed -e ':a' -e '/\\$/N; s/\\\n//; ta' Makefile |
		sed -n "s/^$1[[:space:]]*=[[:space:]]*//p" | head -n 1
}

core_dirs=$(make_var CORE_DIRS)
glue_dirs=$(make_var GLUE_DIRS)
declare -A rank is_core header_dir
i=0
for d in $core_dirs $glue_dirs; do
	rank[$d]=$i
	i=$((i + 1))
done
for d in $core_dirs; do
	is_core[$d]=1
done

bad=0
complain() {
	echo "check-layers: $*" >&2
	bad=1
}

# Every source file lies in a layer; header names are unique (includes are bare).
while IFS= read -r f; do
	d=$(dirname "$f")
	[ -n "${rank[$d]:-}" ] || complain "$f is in no layer (add $d to CORE_DIRS or GLUE_DIRS)"
	case "$f" in
		*.h)
			b=$(basename "$f")
			if [ -n "${header_dir[$b]:-}" ]; then
				complain "two headers are named $b (${header_dir[$b]}, $d)"
			fi
			header_dir[$b]=$d
			;;
	esac
done < <(find src -name '*.[ch]' | sort)

# Includes run down the layers.
files=0
for d in $core_dirs $glue_dirs; do
	for f in "$d"/*.[ch]; do
		[ -e "$f" ] || continue
		files=$((files + 1))
		while IFS= read -r inc; do
			hd=${header_dir[$(basename "$inc")]:-}
			if [ -z "$hd" ] || [ "$inc" != "$(basename "$inc")" ]; then
				# not one of ours: a PostgreSQL header, which the core never includes
				[ -n "${is_core[$d]:-}" ] && complain "$f includes \"$inc\", not a core header"
				continue
			fi
			if [ "${rank[$hd]}" -gt "${rank[$d]}" ]; then
				complain "$f includes $hd/$inc, a layer above its own"
			fi
		done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
		if [ -n "${is_core[$d]:-}" ] &&
			grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(postgres|fmgr|utils/|access/|catalog/|executor/|nodes/|storage/|miscadmin|funcapi|libpq)' "$f" >&2; then
			complain "$f includes a PostgreSQL header"
		fi
	done
done

# Calls run down the layers: every undefined symbol of an object that another
# object of ours defines is defined in the same folder or a lower one.
# The glue's objects lie beside their sources; the core's are in build/core/
# (the library), each in the layer of its source.
declare -A obj_dir
for o in $(find src -name '*.o' | sort); do
	obj_dir[$o]=$(dirname "$o")
done
for o in $(find build/core -name '*.o' 2>/dev/null | sort); do
	src_c=$(find src/core -name "$(basename "${o%.o}").c" | head -n 1)
	[ -n "$src_c" ] && obj_dir[$o]=$(dirname "$src_c")
done
if [ ${#obj_dir[@]} -gt 0 ]; then
	declare -A def_dir
	for o in "${!obj_dir[@]}"; do
		while read -r sym; do
			def_dir[$sym]=${obj_dir[$o]}
		done < <(nm -g --defined-only "$o" | awk '$2 ~ /^[TDBR]$/ { print $3 }')
	done
	calls=0
	for o in "${!obj_dir[@]}"; do
		d=${obj_dir[$o]}
		while read -r sym; do
			dd=${def_dir[$sym]:-}
			[ -n "$dd" ] || continue
			calls=$((calls + 1))
			if [ "${rank[$dd]}" -gt "${rank[$d]}" ]; then
				complain "$o ($d) uses $sym of $dd, a layer above its own"
			fi
		done < <(nm -u "$o" | awk '{ print $2 }')
	done
	called="; ${#obj_dir[@]} objects make $calls calls to our own functions, all down"
else
	called=" (not built: calls not checked)"
fi

if [ "$bad" -ne 0 ]; then
	exit 1
fi
echo "check-layers: $files files in $(echo $core_dirs $glue_dirs | wc -w) layers include down only$called"
