#!/usr/bin/env bash
# Run every test of dpkmeans as root on a fresh Debian 12 machine:
# dependencies (apt), a -Wall -Wextra -Werror build and install, the plain-C
# unit tests (plain and under ASan/UBSan), the statistical privacy test (and
# its weakened modes, which must fail), pg_regress and TAP suites as the
# postgres OS user, pg_regress again against an AddressSanitizer build of
# the library, and the Debian package with the regression suite against it.
# The last line is "ci: N passed, M failed"; the exit status is non-zero
# when M > 0.  Every step's exit status counts (scripts/ci-lib.sh).
#
# --core-only: only the plain-C part (unit tests, privacy tests), without
# installing anything or starting a server.  --unit-only: only the unit tests.
# --quick (make quickcheck): build and install, the layer check, the unit tests
# and pg_regress: a few minutes, for a developer between changes.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. "$top/scripts/ci-lib.sh"

mode=all
case "${1:-}" in
	"") ;;
	--core-only) mode=core ;;
	--unit-only) mode=unit ;;
	--quick) mode=quick ;;
	*)
		echo "usage: $0 [--core-only|--unit-only|--quick]" >&2
		exit 2
		;;
esac

if [ "$mode" = all ] || [ "$mode" = quick ]; then
	if [ "$mode" = all ]; then
		ci_step "dependencies"
		if ! ./scripts/setup.sh; then
			echo "ci: 0 passed, 1 failed"
			exit 1
		fi
	fi

	ci_step "build (-Wall -Wextra -Werror) and install"
	make -s clean >/dev/null 2>&1
	if make -s -j2 COPT='-Wall -Wextra -Werror' >"$ci_log/build" 2>&1 &&
		make -s install >>"$ci_log/build" 2>&1; then
		ci_passed=$((ci_passed + 1))
	else
		cat "$ci_log/build"
		ci_failed=$((ci_failed + 1))
		ci_report
		exit 1
	fi
fi

ci_step "layers: includes and calls run down the folders of src/"
if ./scripts/check-layers.sh; then
	ci_passed=$((ci_passed + 1))
else
	ci_failed=$((ci_failed + 1))
fi

ci_step "doc/design.md file map matches the Makefile"
if ./scripts/file-map.sh --check; then
	ci_passed=$((ci_passed + 1))
else
	ci_failed=$((ci_failed + 1))
fi

ci_step "unit tests (plain C core), one program at a time"
ci_unit_tests
if [ "$mode" = unit ]; then
	ci_report
	exit
fi

# (not in the quick lane)
if [ "$mode" != quick ]; then
	# The privacy tests are single-threaded: half of them run in a second lane
	# beside the sanitizer unit tests and the other half, and are counted below
	# in their usual order from the logs they leave.
	ci_step "build the statistical privacy tests"
	if make -s test/privacy/bin/privacy_test test/privacy/bin/privacy_gauss test/privacy/bin/privacy_rounding >"$ci_log/build-privacy" 2>&1; then
		ci_passed=$((ci_passed + 1))
		(
			ci_logged privacy-weak2 env DPK_PRIVACY_WEAKEN=2 make -s privacy-quick
			ci_logged privacy-gauss make -s privacy-gauss
			ci_logged privacy-gauss-weak2 env DPK_PRIVACY_WEAKEN=2 make -s privacy-gauss
			ci_logged privacy-gauss-weakdeletes env DPK_PRIVACY_WEAKEN=deletes make -s privacy-gauss
		) &
		lane=$!
	else
		cat "$ci_log/build-privacy"
		ci_failed=$((ci_failed + 1))
		lane=
	fi

	ci_step "unit tests under AddressSanitizer and UndefinedBehaviorSanitizer"
	ci_unit_tests test/unit/bin-san

	ci_step "statistical privacy test (quick)"
	ci_privacy_test
	ci_step "statistical privacy test, mechanism at twice its epsilon (must fail)"
	ci_privacy_weakened 2
	ci_step "statistical privacy test, deletions at the insert_only sensitivity (must fail)"
	ci_privacy_weakened deletes
	ci_step "statistical test of the published integer (exact rounding)"
	ci_privacy_rounding
	[ -n "$lane" ] && wait "$lane"
	ci_step "statistical privacy test of the discrete Gaussian counters (quick)"
	ci_privacy_gauss
	ci_step "the same, every sigma halved (must fail)"
	ci_privacy_gauss_weakened 2
	ci_step "the same, deletions at the insert_only sensitivity (must fail)"
	ci_privacy_gauss_weakened deletes
	# The live benchmark builds, and its research release (--regions) finds
	# exactly the table's rows in the tree nodes of every release, inserts and
	# a sliding window (it exits non-zero otherwise).
	ci_step "bench_highd_live builds; --regions keeps every row in its tree nodes"
	if make -s test/bench/bin/bench_highd_live &&
		OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_highd_live --rows 16:10:1 --n 20000 \
			--stream both --horizons 64 --seeds 1 --releases all --no-baselines --regions \
			>"$ci_log/bench-regions.log" 2>&1; then
		ci_passed=$((ci_passed + 1))
	else
		tail -n 5 "$ci_log/bench-regions.log"
		ci_failed=$((ci_failed + 1))
	fi
	# The seed paper's algorithm and the streaming baseline (benchmark
	# baselines) recover separated clusters without noise (it exits non-zero
	# otherwise).
	ci_step "bench_continual builds; the seed and streaming baselines are exact without noise"
	if make -s test/bench/bin/bench_continual &&
		OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_continual --self-check \
			>"$ci_log/bench-seed.log" 2>&1; then
		cat "$ci_log/bench-seed.log"
		ci_passed=$((ci_passed + 1))
	else
		tail -n 5 "$ci_log/bench-seed.log"
		ci_failed=$((ci_failed + 1))
	fi
	# The LSH-tree baseline (Google's kind) finds separated clusters without
	# noise (it exits non-zero otherwise).
	ci_step "bench_lsh builds; the LSH baseline is exact without noise"
	if make -s test/bench/bin/bench_lsh &&
		OPENBLAS_NUM_THREADS=1 ./test/bench/bin/bench_lsh --self-check \
			>"$ci_log/bench-lsh.log" 2>&1; then
		cat "$ci_log/bench-lsh.log"
		ci_passed=$((ci_passed + 1))
	else
		tail -n 5 "$ci_log/bench-lsh.log"
		ci_failed=$((ci_failed + 1))
	fi
fi
if [ "$mode" = core ]; then
	ci_report
	exit
fi

# pg_regress and TAP run as postgres in a copy of the tree it owns.
copy=$(mktemp -d /tmp/dpkmeans-tree.XXXXXX)
cp -a "$top/." "$copy/"
chown -R postgres "$copy"

ci_step "pg_regress"
runuser -u postgres -- make -s -C "$copy" installcheck \
	EXTRA_REGRESS_OPTS="--temp-instance=$copy/tmp_regress" >"$ci_log/regress" 2>&1
rc=$?
cat "$ci_log/regress"
r_ok=$(grep -cE '\.\.\. ok' "$ci_log/regress" || true)
r_bad=$(grep -cE '\.\.\. FAILED' "$ci_log/regress" || true)
if [ "$rc" -ne 0 ] && [ "$r_bad" -eq 0 ]; then
	echo "ci: pg_regress exited with status $rc: counted as failed"
	r_bad=1
fi
if [ "$r_ok" -eq 0 ] && [ "$r_bad" -eq 0 ]; then
	echo "ci: pg_regress ran no test: counted as failed"
	r_bad=1
fi
[ -f "$copy/regression.diffs" ] && head -200 "$copy/regression.diffs"
ci_passed=$((ci_passed + r_ok))
ci_failed=$((ci_failed + r_bad))

# The PostGIS companion (postgis/): its own suites, where PostGIS is
# installed (scripts/setup.sh installs it); the suites above ran without it.
if [ -f "$(pg_config --sharedir)/extension/postgis.control" ]; then
	ci_step "pg_regress of dpkmeans_postgis (PostGIS)"
	runuser -u postgres -- make -s -C "$copy" installcheck-postgis \
		EXTRA_REGRESS_OPTS="--temp-instance=$copy/tmp_regress_postgis" >"$ci_log/regress-postgis" 2>&1
	rc=$?
	cat "$ci_log/regress-postgis"
	g_ok=$(grep -cE '\.\.\. ok' "$ci_log/regress-postgis" || true)
	g_bad=$(grep -cE '\.\.\. FAILED' "$ci_log/regress-postgis" || true)
	if { [ "$rc" -ne 0 ] || [ "$g_ok" -eq 0 ]; } && [ "$g_bad" -eq 0 ]; then
		echo "ci: pg_regress of dpkmeans_postgis exited with status $rc: counted as failed"
		g_bad=1
	fi
	[ -f "$copy/postgis/regression.diffs" ] && head -200 "$copy/postgis/regression.diffs"
	ci_passed=$((ci_passed + g_ok))
	ci_failed=$((ci_failed + g_bad))
else
	echo "ci: PostGIS is not installed: dpkmeans_postgis's suites skipped (its TAP tests skip themselves)"
fi

if [ "$mode" = quick ]; then
	ci_report
	exit
fi

if ls "$copy"/test/t/*.pl >/dev/null 2>&1; then
	ci_step "TAP"
	runuser -u postgres -- make -s -C "$copy" tapcheck >"$ci_log/tap" 2>&1
	rc=$?
	cat "$ci_log/tap"
	t_ok=$(cat "$copy"/tmp_check/log/regress_log_* 2>/dev/null | grep -cE '^(\[[^]]*\]\([^)]*\) )?ok [0-9]+' || true)
	t_bad=$(cat "$copy"/tmp_check/log/regress_log_* 2>/dev/null | grep -cE '^(\[[^]]*\]\([^)]*\) )?not ok [0-9]+' || true)
	if { [ "$rc" -ne 0 ] || ! grep -q '^Result: PASS' "$ci_log/tap"; } && [ "$t_bad" -eq 0 ]; then
		echo "ci: TAP exited with status $rc without a PASS result: counted as failed"
		t_bad=1
	fi
	ci_passed=$((ci_passed + t_ok))
	ci_failed=$((ci_failed + t_bad))
fi

# The memory checker over the SQL layer: every pg_regress suite against an
# AddressSanitizer build of the library; an ASan report, a crashed server
# process or a failed suite fails the step (scripts/asan-regress.sh).
ci_step "pg_regress under AddressSanitizer"
./scripts/asan-regress.sh >"$ci_log/asan-regress" 2>&1
rc=$?
cat "$ci_log/asan-regress"
ci_count_run asan-regress "$rc" "$ci_log/asan-regress"

# The Debian package, built from a clean clone of the committed tree,
# installed over the build above, and the regression suite run against it.
ci_step "Debian package: build, install, pg_regress against the package"
deb=$(./scripts/package.sh 2>"$ci_log/package" | tail -n 1)
if [ -f "$deb" ] && apt-get install -y -qq --reinstall "$deb" >>"$ci_log/package" 2>&1 &&
	dpkg -L postgresql-15-dpkmeans >"$ci_log/package-files" &&
	grep -q '/dpkmeans.so$' "$ci_log/package-files"; then
	pcopy=$(mktemp -d /tmp/dpkmeans-pkg.XXXXXX)
	cp -a "$top/." "$pcopy/"
	rm -rf "$pcopy/tmp_regress" "$pcopy/results"
	chown -R postgres "$pcopy"
	runuser -u postgres -- make -s -C "$pcopy" installcheck \
		EXTRA_REGRESS_OPTS="--temp-instance=$pcopy/tmp_regress" >"$ci_log/pkg-regress" 2>&1
	rc=$?
	p_ok=$(grep -cE '\.\.\. ok' "$ci_log/pkg-regress" || true)
	p_bad=$(grep -cE '\.\.\. FAILED' "$ci_log/pkg-regress" || true)
	echo "ci: package $(basename "$deb"): pg_regress $p_ok ok, $p_bad failed"
	if [ "$rc" -ne 0 ] || [ "$p_ok" -eq 0 ]; then
		cat "$ci_log/pkg-regress"
		[ -f "$pcopy/regression.diffs" ] && head -200 "$pcopy/regression.diffs"
		[ "$p_bad" -eq 0 ] && p_bad=1
	fi
	ci_passed=$((ci_passed + p_ok))
	ci_failed=$((ci_failed + p_bad))
else
	tail -40 "$ci_log/package"
	echo "ci: the Debian package did not build or install: counted as failed"
	ci_failed=$((ci_failed + 1))
fi

ci_report
