#!/usr/bin/env bash
# Runs every cmocka test binary given as an argument, then every command-line
# test script in tests/cli/, and prints one closing line:
#   "N passed, N failed, N skipped"
# Tests that need a PMU or root skip themselves with a printed reason.
set -u
# Tests send nb signals and expect their default action: a runner started
# with some ignored (from a script's background job, or nohup) would pass
# that on, and nb keeps a signal it was started with ignored (a SIGINT test
# then read exit status 0).  So every signal is reset to its default first.
if [ -z "${NB_RUN_ALL_SIGNALS:-}" ]; then
    NB_RUN_ALL_SIGNALS=default exec env --default-signal "$0" "$@"
fi
NB=${NB:-build/nb}
export NB
passed=0; failed=0; skipped=0; failures=()
for t in "$@"; do
    out=$("$t" 2>&1); rc=$?
    printf '%s\n' "$out" | grep -E '^\[  (PASSED|FAILED|SKIPPED)|^\[  ERROR' | sed "s|^|$(basename "$t"): |"
    p=$(printf '%s\n' "$out" | sed -nE 's/^\[  PASSED  \] ([0-9]+) test.*/\1/p' | tail -n1)
    f=$(printf '%s\n' "$out" | sed -nE 's/^\[  FAILED  \] ([0-9]+) test.*/\1/p' | tail -n1)
    s=$(printf '%s\n' "$out" | sed -nE 's/^\[  SKIPPED \] ([0-9]+) test.*/\1/p' | tail -n1)
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
    if [ $rc -ne 0 ] || [ -n "${f:-}" ]; then
        [ -n "${f:-}" ] || failed=$((failed + 1))
        failures+=("$(basename "$t")")
        printf '%s\n' "$out" | grep -vE '^\[ (RUN|      OK) ' | tail -n 40
    fi
done
for c in tests/cli/*.sh; do
    [ -e "$c" ] || continue
    out=$(bash "$c" 2>&1); rc=$?
    name=cli/$(basename "$c" .sh)
    if [ $rc -eq 0 ]; then passed=$((passed + 1)); echo "$name: ok"
    elif [ $rc -eq 77 ]; then skipped=$((skipped + 1)); echo "$name: skipped: $(printf '%s\n' "$out" | tail -n1)"
    else failed=$((failed + 1)); failures+=("$name"); echo "$name: FAILED"; printf '%s\n' "$out" | tail -n 30 | sed 's/^/    /'
    fi
done
[ ${#failures[@]} -eq 0 ] || echo "failing: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
