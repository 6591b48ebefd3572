#!/usr/bin/env bash
# pg_regress under AddressSanitizer: the SQL layer's memory checker.
#
# dpkmeans.so is built with -fsanitize=address from a copy of this tree and
# put into a private copy of the installation of PG_CONFIG (its binaries,
# the other libraries and the share files linked), so the installed library
# is left alone.  A server started for the run loads it, with the ASan
# runtime preloaded into the server's processes (the postgres binary itself
# is not instrumented), and the pg_regress suites run against it.
#
# A run fails when a suite fails, when ASan reports anything (every report
# goes to a file of its own and aborts the process), when a server process
# dies of a signal or the postmaster is gone at the end.  The last line is
# "asan-regress: N passed, M failed" (N, M: suites; an ASan report or a
# crash counts one more failure); the exit status is non-zero when M > 0.
#
# usage: scripts/asan-regress.sh [suite ...]   (default: every suite of the
# Makefile's REGRESS).  Run as root (the server runs as the postgres OS
# user) or as postgres.  ASAN_KEEP=1 keeps the work directory.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-pg_config}
bindir=$("$PG_CONFIG" --bindir)
pkglibdir=$("$PG_CONFIG" --pkglibdir)
sharedir=$("$PG_CONFIG" --sharedir)
libasan=$(gcc -print-file-name=libasan.so)
libasan=$(readlink -f "$libasan")

as_postgres() {
	if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

fail() {
	echo "asan-regress: $*"
	echo "asan-regress: 0 passed, 1 failed"
	exit 1
}

[ -f "$libasan" ] || fail "no ASan runtime (gcc -print-file-name=libasan.so): install libasan"

work=$(mktemp -d /tmp/dpkmeans-asan.XXXXXX)
chmod 755 "$work"
cleanup() {
	[ -n "${server_pid:-}" ] && as_postgres "$root$bindir/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1
	[ "${ASAN_KEEP:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT

# The library, built from a copy of the tree with the sanitizer, staged.
tree=$work/tree
mkdir -p "$tree"
(cd "$top" && tar cf - --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
	--exclude=./build --exclude=./results --exclude=./tmp_regress --exclude=./tmp_check --exclude=./test/unit/bin \
	--exclude=./test/unit/bin-san --exclude=./test/bench/bin --exclude=./test/privacy/bin .) |
	(cd "$tree" && tar xf -)
asan_copt='-O1 -g -fsanitize=address -fno-omit-frame-pointer -fno-common'
if ! make -s -C "$tree" -j"$(nproc)" PG_CONFIG="$PG_CONFIG" COPT="$asan_copt" with_llvm=no \
	>"$work/build.log" 2>&1 ||
	! make -s -C "$tree" install PG_CONFIG="$PG_CONFIG" COPT="$asan_copt" with_llvm=no \
		DESTDIR="$work/stage" >>"$work/build.log" 2>&1; then
	tail -30 "$work/build.log"
	fail "the ASan build failed"
fi

# A private installation: the server's binaries (copied: the server finds
# its libraries and share files relative to its own path), every other
# library and share file linked, dpkmeans from the stage.
root=$work/root
mkdir -p "$root$bindir" "$root$pkglibdir" "$root$sharedir/extension"
cp -a "$bindir/." "$root$bindir/"
for f in "$pkglibdir"/*; do
	case $(basename "$f") in dpkmeans.so) ;; *) ln -s "$f" "$root$pkglibdir/" ;; esac
done
for f in "$sharedir"/*; do
	[ "$(basename "$f")" = extension ] || ln -s "$f" "$root$sharedir/"
done
for f in "$sharedir"/extension/*; do
	case $(basename "$f") in dpkmeans*) ;; *) ln -s "$f" "$root$sharedir/extension/" ;; esac
done
cp "$work/stage$pkglibdir/dpkmeans.so" "$root$pkglibdir/"
cp "$work/stage$sharedir/extension/"dpkmeans* "$root$sharedir/extension/"
chown -R postgres "$work" 2>/dev/null

# The ASan runtime initialises itself lazily, at its first intercepted call,
# once the libraries loaded before it have run their constructors; several
# of the server's libraries (libgpg-error, gnutls through libldap) call
# bindtextdomain there, and an initialisation inside that call leaves
# glibc's gettext lock broken: the server then hangs at its first message.
# A library marked INITFIRST, preloaded with the runtime, initialises ASan
# before any other constructor runs.
printf '%s\n' 'extern void __asan_init(void);' \
	'__attribute__((constructor)) static void asan_first(void) { __asan_init(); }' >"$work/asan_first.c"
gcc -shared -fPIC -Wl,-z,initfirst -o "$work/asan_first.so" "$work/asan_first.c" "$libasan" ||
	fail "could not build the INITFIRST shim"

# The server, with the ASan runtime in every process of it.
port=$((20000 + RANDOM % 20000))
as_postgres "$root$bindir/initdb" -A trust -D "$work/data" >"$work/initdb.log" 2>&1 ||
	{ cat "$work/initdb.log"; fail "initdb failed"; }
cat >>"$work/data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$work'
port = $port
max_worker_processes = 16
jit = off
log_line_prefix = '%m [%p] '
EOF
# detect_leaks=0: a backend frees its memory contexts, not every malloc, at
# exit.  abort_on_error: a report ends the process with SIGABRT, so the
# postmaster restarts and the suite fails (exit status 1 would be taken as
# an ordinary FATAL).  allocator_may_return_null: the server reports "out of
# memory" as it does under libc.  log_path: one file per reporting process.
asan_options="detect_leaks=0:abort_on_error=1:disable_coredump=1:allocator_may_return_null=1"
asan_options+=":detect_odr_violation=0:print_suppressions=0:log_path=$work/asan-report"
as_postgres env LD_PRELOAD="$libasan $work/asan_first.so" ASAN_OPTIONS="$asan_options" OPENBLAS_NUM_THREADS=1 \
	"$root$bindir/postgres" -D "$work/data" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 60); do
	as_postgres "$root$bindir/pg_isready" -q -h "$work" -p "$port" && break
	sleep 0.5
done
as_postgres "$root$bindir/pg_isready" -q -h "$work" -p "$port" || { cat "$work/server.log"; fail "the server did not start"; }

# The suites, with the installed pg_regress, against that server.
suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
	read -r -a suites <<<"$(sed -n 's/^REGRESS = //p' "$top/Makefile")"
fi
as_postgres env PGHOST="$work" PGPORT="$port" \
	"$(dirname "$("$PG_CONFIG" --pgxs)")/../../src/test/regress/pg_regress" \
	--inputdir="$tree" --outputdir="$work/out" --bindir="$bindir" --load-extension=dpkmeans \
	--dbname=contrib_regression "${suites[@]}" >"$work/regress.log" 2>&1
rc=$?
cat "$work/regress.log"
ok=$(grep -cE '\.\.\. ok' "$work/regress.log" || true)
bad=$(grep -cE '\.\.\. FAILED' "$work/regress.log" || true)
[ -f "$work/out/regression.diffs" ] && head -100 "$work/out/regression.diffs"
if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
	echo "asan-regress: pg_regress exited with status $rc"
	bad=1
fi
[ "$ok" -eq 0 ] && [ "$bad" -eq 0 ] && bad=1

# Reports, crashes, and a postmaster that must still be running.
if ls "$work"/asan-report.* >/dev/null 2>&1; then
	echo "asan-regress: AddressSanitizer reports:"
	for f in "$work"/asan-report.*; do head -60 "$f"; done
	bad=$((bad + 1))
elif grep -qE 'terminated by signal|ERROR: AddressSanitizer' "$work/server.log"; then
	grep -E -B2 -A20 'terminated by signal|ERROR: AddressSanitizer' "$work/server.log" | head -80
	bad=$((bad + 1))
elif ! kill -0 "$server_pid" 2>/dev/null; then
	tail -40 "$work/server.log"
	echo "asan-regress: the server is gone"
	bad=$((bad + 1))
fi
as_postgres "$root$bindir/pg_ctl" -D "$work/data" -m fast stop >/dev/null 2>&1
server_pid=
echo "asan-regress: $ok passed, $bad failed"
[ "$bad" -eq 0 ]
