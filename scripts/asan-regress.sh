#!/usr/bin/env bash
# Run the whole pg_regress suite against an AddressSanitizer build of the
# extension (as root; the normal build is reinstalled afterwards).  The server
# runs with libasan preloaded; any invalid access aborts the backend and
# fails the suite.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
copy=$(mktemp -d /tmp/dpkmeans-asan.XXXXXX)
cp -a "$top/." "$copy/"
make -s -C "$copy" clean >/dev/null
make -s -C "$copy" COPT='-fsanitize=address -fno-omit-frame-pointer -g' \
	SHLIB_LINK='-lopenblas -lcrypto -lm -fsanitize=address' >/dev/null &&
	make -s -C "$copy" install >/dev/null || exit 1
chown -R postgres "$copy"
asan=$(gcc -print-file-name=libasan.so)
runuser -u postgres -- env LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:log_path="$copy/asan" \
	make -s -C "$copy" installcheck EXTRA_REGRESS_OPTS="--temp-instance=$copy/tmp_regress"
rc=$?
if ls "$copy"/asan.* >/dev/null 2>&1; then
	grep -l "ERROR: AddressSanitizer" "$copy"/asan.* && { cat "$copy"/asan.* | head -60; rc=1; }
fi
make -s -C "$top" install >/dev/null
echo "asan-regress: $([ $rc -eq 0 ] && echo 1 passed, 0 failed || echo 0 passed, 1 failed)"
exit $rc
