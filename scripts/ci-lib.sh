# ci-lib.sh: counting of test results for scripts/ci.sh (sourced, bash).
#
# Every step adds to the globals ci_passed and ci_failed.  A step counts as
# failed when its exit status is non-zero even if its output looks fine, and
# a test program that prints no "NAME: N passed, M failed" summary counts at
# least one failure: a crash before the summary must never vanish.

ci_passed=${ci_passed:-0}
ci_failed=${ci_failed:-0}
ci_log=${ci_log:-$(mktemp -d /tmp/dpkmeans-ci.XXXXXX)}

ci_step_name=
ci_step_t0=$SECONDS

# Print how long the step that is ending took.
ci_step_end() {
	[ -n "$ci_step_name" ] && echo "-- $ci_step_name: $((SECONDS - ci_step_t0)) s"
	ci_step_name=
}

# End the running step and print the next one's banner.
ci_step() {
	ci_step_end
	echo "== $*"
	ci_step_name=$*
	ci_step_t0=$SECONDS
}

# The "N M" of the last "NAME: N passed, M failed" line of a log, or nothing.
ci_summary() {
	local name=$1 log=$2
	sed -n "s/^${name}: \([0-9]\+\) passed, \([0-9]\+\) failed\$/\1 \2/p" "$log" | tail -n 1
}

# Count one test program's run from its exit status and log: its summary's
# passed and failed, and at least one failure when the status is non-zero
# or the summary is missing.
ci_count_run() {
	local name=$1 rc=$2 log=$3 p=0 f=0 sum
	sum=$(ci_summary "$name" "$log")
	if [ -n "$sum" ]; then
		read -r p f <<<"$sum"
	fi
	if [ -z "$sum" ]; then
		echo "ci: $name printed no summary line (exit status $rc): counted as failed"
		[ "$f" -eq 0 ] && f=1
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "ci: $name exited with status $rc after reporting 0 failed: counted as failed"
		f=1
	fi
	ci_passed=$((ci_passed + p))
	ci_failed=$((ci_failed + f))
}

# Build and run every unit-test program (test/unit/test_*.c) on its own;
# each is counted by ci_count_run, a build failure as one failure.  The
# optional argument is the binaries' folder: test/unit/bin (plain build,
# the default) or test/unit/bin-san (AddressSanitizer + UBSan build).
ci_unit_tests() {
	local dir=${1:-test/unit/bin} src name bin rc
	for src in test/unit/test_*.c; do
		[ -e "$src" ] || continue
		name=$(basename "$src" .c)
		bin=$dir/$name
		if ! make -s "$bin" >"$ci_log/build-$name" 2>&1; then
			cat "$ci_log/build-$name"
			echo "ci: $name does not build: counted as failed"
			ci_failed=$((ci_failed + 1))
			continue
		fi
		OPENBLAS_NUM_THREADS=1 "./$bin" >"$ci_log/unit-$name" 2>&1
		rc=$?
		cat "$ci_log/unit-$name"
		ci_count_run "$name" "$rc" "$ci_log/unit-$name"
	done
}

# Run a command once into $ci_log/NAME (its output), NAME.rc (its exit
# status) and NAME.secs (its duration); a later call with the same NAME
# does nothing, so a step started in a background lane is counted in the
# foreground from what it left.
ci_logged() {
	local name=$1 t0=$SECONDS
	shift
	[ -f "$ci_log/$name.rc" ] && return 0
	"$@" >"$ci_log/$name" 2>&1
	echo $? >"$ci_log/$name.rc"
	echo $((SECONDS - t0)) >"$ci_log/$name.secs"
}

# The exit status a ci_logged run left, and a note of its duration.
ci_logged_rc() {
	echo "(ran for $(cat "$ci_log/$1.secs") s)" >&2
	cat "$ci_log/$1.rc"
}

# The statistical privacy test (quick mode), counted like a unit test.
ci_privacy_test() {
	local rc
	ci_logged privacy make -s privacy-quick
	rc=$(ci_logged_rc privacy)
	cat "$ci_log/privacy"
	ci_count_run privacy_test "$rc" "$ci_log/privacy"
}

# The published integer of least-squares releases against its exact law
# (privacy_rounding), counted like a unit test.
ci_privacy_rounding() {
	local rc
	make -s privacy-rounding >"$ci_log/privacy-rounding" 2>&1
	rc=$?
	cat "$ci_log/privacy-rounding"
	ci_count_run privacy_rounding "$rc" "$ci_log/privacy-rounding"
}

# The privacy test against a deliberately weakened mechanism must FAIL: one
# pass when it exits non-zero with failed checks in its summary, one failure
# otherwise (it passed, crashed or printed no summary).
ci_privacy_weakened() {
	local weaken=$1 rc sum p f
	ci_logged "privacy-weak$weaken" env DPK_PRIVACY_WEAKEN="$weaken" make -s privacy-quick
	rc=$(ci_logged_rc "privacy-weak$weaken")
	grep -E '^privacy_test:|FAIL' "$ci_log/privacy-weak$weaken" | tail -n 12
	sum=$(ci_summary privacy_test "$ci_log/privacy-weak$weaken")
	p=0
	f=0
	[ -n "$sum" ] && read -r p f <<<"$sum"
	if [ "$rc" -ne 0 ] && [ -n "$sum" ] && [ "$f" -gt 0 ]; then
		echo "ci: weakened mode $weaken detected ($f failed checks, exit status $rc): passed"
		ci_passed=$((ci_passed + 1))
	else
		echo "ci: weakened mode $weaken NOT detected (exit status $rc, summary '${sum:-none}'): failed"
		ci_failed=$((ci_failed + 1))
	fi
}

# The same two checks for the discrete Gaussian counters (privacy_gauss):
# counted like a unit test, and its weakened modes must fail.
ci_privacy_gauss() {
	local rc
	ci_logged privacy-gauss make -s privacy-gauss
	rc=$(ci_logged_rc privacy-gauss)
	grep -E '^privacy_gauss:|FAIL' "$ci_log/privacy-gauss" | tail -n 12
	ci_count_run privacy_gauss "$rc" "$ci_log/privacy-gauss"
}

ci_privacy_gauss_weakened() {
	local weaken=$1 rc sum p f
	ci_logged "privacy-gauss-weak$weaken" env DPK_PRIVACY_WEAKEN="$weaken" make -s privacy-gauss
	rc=$(ci_logged_rc "privacy-gauss-weak$weaken")
	grep -E '^privacy_gauss:' "$ci_log/privacy-gauss-weak$weaken" | tail -n 4
	sum=$(ci_summary privacy_gauss "$ci_log/privacy-gauss-weak$weaken")
	p=0
	f=0
	[ -n "$sum" ] && read -r p f <<<"$sum"
	if [ "$rc" -ne 0 ] && [ -n "$sum" ] && [ "$f" -gt 0 ]; then
		echo "ci: Gaussian weakened mode $weaken detected ($f failed checks, exit status $rc): passed"
		ci_passed=$((ci_passed + 1))
	else
		echo "ci: Gaussian weakened mode $weaken NOT detected (exit status $rc, summary '${sum:-none}'): failed"
		ci_failed=$((ci_failed + 1))
	fi
}

# The final line.
ci_report() {
	ci_step_end
	echo "-- all steps: $SECONDS s"
	echo "ci: $ci_passed passed, $ci_failed failed"
	[ "$ci_failed" -eq 0 ]
}
