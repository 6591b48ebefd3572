#!/usr/bin/env bash
# Run the unit tests and the whole pg_regress suite under valgrind memcheck
# (as root).  The server runs under valgrind with its children traced; any
# invalid read/write in the extension is reported in the log and fails the run.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
fail=0
make -s test/unit/bin/test_noise test/unit/bin/test_kmeans test/unit/bin/test_rugnik \
	test/unit/bin/test_grid test/unit/bin/test_counter >/dev/null || exit 1
for t in test/unit/bin/test_*; do
	OPENBLAS_NUM_THREADS=1 valgrind -q --error-exitcode=99 "./$t" >/dev/null 2>"/tmp/vg-$(basename "$t").log"
	rc=$?
	if [ $rc -eq 99 ]; then
		echo "valgrind: errors in $t"; head -30 "/tmp/vg-$(basename "$t").log"; fail=1
	fi
done

. ./scripts/cluster.sh
dir=$(mktemp -d /tmp/dpkmeans-vg.XXXXXX)
port=$((20000 + RANDOM % 20000))
chown postgres "$dir"
runuser -u postgres -- "$PGBIN/initdb" -A trust -D "$dir/data" >/dev/null
runuser -u postgres -- bash -c "valgrind -q --trace-children=yes --track-origins=no \
	--suppressions=/dev/null --error-markers=VGERROR-BEGIN,VGERROR-END \
	--log-file=$dir/vg.%p.log $PGBIN/postgres -D $dir/data -p $port -k $dir \
	-c listen_addresses='' >$dir/server.log 2>&1 &"
for _ in $(seq 1 120); do
	runuser -u postgres -- psql -h "$dir" -p "$port" -d postgres -c 'SELECT 1' >/dev/null 2>&1 && break
	sleep 1
done
copy=$(mktemp -d /tmp/dpkmeans-vgtree.XXXXXX)
cp -a "$top/." "$copy/"
chown -R postgres "$copy"
runuser -u postgres -- env PGHOST="$dir" PGPORT="$port" make -s -C "$copy" installcheck || fail=1
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1
sleep 2
# Errors inside dpkmeans.so (PostgreSQL's own known valgrind noise is ignored).
if grep -l "dpkmeans" "$dir"/vg.*.log 2>/dev/null | xargs -r grep -l "VGERROR-BEGIN" >/dev/null 2>&1; then
	for f in $(grep -l "VGERROR-BEGIN" "$dir"/vg.*.log); do
		if awk '/VGERROR-BEGIN/{b=1; s=""} b{s=s"\n"$0} /VGERROR-END/{b=0; if (s ~ /dpkmeans|src\/(noise|grid|kmeans|coreset|counter|continual|pgutil|trigger|release|oneshot)\.c/) {print s; found=1}} END{exit !found}' "$f"; then
			fail=1
		fi
	done
fi
echo "valgrind-regress: $([ $fail -eq 0 ] && echo 1 passed, 0 failed || echo 0 passed, 1 failed)"
exit $fail
