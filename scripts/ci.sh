#!/usr/bin/env bash
# Run every test of dpkmeans as root on a fresh Debian 12 machine:
# dependencies (apt), a -Wall -Wextra -Werror build and install, the plain-C
# unit tests, pg_regress and TAP suites as the postgres OS user.
# The last line is "ci: N passed, M failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
passed=0
failed=0
log=$(mktemp -d /tmp/dpkmeans-ci.XXXXXX)

# Add the "name: N passed, M failed" counts found in a log file.
count_summary() {
	local p f
	while read -r p f; do
		passed=$((passed + p))
		failed=$((failed + f))
	done < <(sed -n 's/^.*: \([0-9]\+\) passed, \([0-9]\+\) failed$/\1 \2/p' "$1")
}

step() {
	echo "== $*"
}

step "dependencies"
if ! ./scripts/setup.sh; then
	echo "ci: 0 passed, 1 failed"
	exit 1
fi

step "build (-Wall -Wextra -Werror) and install"
make -s clean >/dev/null 2>&1
if make -s -j2 COPT='-Wall -Wextra -Werror' >"$log/build" 2>&1 && make -s install >>"$log/build" 2>&1; then
	passed=$((passed + 1))
else
	cat "$log/build"
	echo "ci: $passed passed, 1 failed"
	exit 1
fi

step "unit tests (plain C core)"
make -s unittest >"$log/unit" 2>&1
cat "$log/unit"
count_summary "$log/unit"
if ! grep -q 'passed, 0 failed' "$log/unit"; then
	grep -q ' failed$' "$log/unit" || failed=$((failed + 1))
fi

if make -n privacy-quick >/dev/null 2>&1; then
	step "statistical privacy test (quick)"
	make -s privacy-quick >"$log/privacy" 2>&1
	cat "$log/privacy"
	count_summary "$log/privacy"
	grep -q ' failed$' "$log/privacy" || failed=$((failed + 1))
fi

# pg_regress and TAP run as postgres in a copy of the tree it owns.
copy=$(mktemp -d /tmp/dpkmeans-tree.XXXXXX)
cp -a "$top/." "$copy/"
chown -R postgres "$copy"

step "pg_regress"
runuser -u postgres -- make -s -C "$copy" installcheck \
	EXTRA_REGRESS_OPTS="--temp-instance=$copy/tmp_regress" >"$log/regress" 2>&1
cat "$log/regress"
r_ok=$(grep -cE '\.\.\. ok' "$log/regress" || true)
r_bad=$(grep -cE '\.\.\. FAILED' "$log/regress" || true)
if [ "$r_ok" -eq 0 ] && [ "$r_bad" -eq 0 ]; then
	r_bad=1
fi
[ -f "$copy/regression.diffs" ] && head -200 "$copy/regression.diffs"
passed=$((passed + r_ok))
failed=$((failed + r_bad))

if ls "$copy"/test/t/*.pl >/dev/null 2>&1; then
	step "TAP"
	runuser -u postgres -- make -s -C "$copy" tapcheck >"$log/tap" 2>&1
	cat "$log/tap"
	t_ok=$(cat "$copy"/tmp_check/log/regress_log_* 2>/dev/null | grep -cE '^(\[[^]]*\]\([^)]*\) )?ok [0-9]+' || true)
	t_bad=$(cat "$copy"/tmp_check/log/regress_log_* 2>/dev/null | grep -cE '^(\[[^]]*\]\([^)]*\) )?not ok [0-9]+' || true)
	if ! grep -q '^Result: PASS' "$log/tap"; then
		[ "$t_bad" -eq 0 ] && t_bad=1
	fi
	passed=$((passed + t_ok))
	failed=$((failed + t_bad))
fi

echo "ci: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
