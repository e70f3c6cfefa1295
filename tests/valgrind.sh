#!/usr/bin/env bash
# Runs the cmocka test binaries given as arguments and the command-line tests
# (with $NB wrapped) under valgrind memcheck.  Any memory error or leak
# (definite, indirect or possible) fails that test; still-reachable blocks
# are not leaks.  Prints one line per test and a closing count.
#
# Under valgrind the benchmark code runs on its synthetic CPU: cycle counts
# (and which unrolled copy a fault lands in) are not a real CPU's, so the
# tests are told (NB_UNDER_VALGRIND=1) to run every path but not judge
# those values; memory errors and leaks are what this run is for.  Faults
# the fault tests cause on purpose in that code are suppressed
# (tests/valgrind.supp says exactly which).
set -u
# every signal at its default first, as tests/run_all.sh does (why: there)
if [ -z "${NB_RUN_ALL_SIGNALS:-}" ]; then
    NB_RUN_ALL_SIGNALS=default exec env --default-signal "$0" "$@"
fi
BUILD=${BUILD:-build/vg}
command -v valgrind > /dev/null || { echo "valgrind not installed"; exit 1; }
export NB_UNDER_VALGRIND=1
vg=(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible --track-origins=yes
    --suppressions="$(realpath tests/valgrind.supp)")
logdir=$BUILD/valgrind
rm -rf "$logdir"; mkdir -p "$logdir"
bad=0; n=0
for t in "$@"; do
    n=$((n + 1)); name=$(basename "$t")
    "${vg[@]}" --log-file="$logdir/$name.%p.log" "$t" > "$logdir/$name.out" 2>&1; rc=$?
    if [ $rc -ne 0 ] || cat "$logdir/$name".*.log 2>/dev/null | grep -v "^--[0-9]*-- " | grep -q .; then
        bad=$((bad + 1)); echo "$name: FAILED (status $rc)"; cat "$logdir/$name".*.log 2>/dev/null | head -n 30
    else
        echo "$name: ok"
    fi
done
# nb itself, through a wrapper, for every command-line test.  The wrapper
# keeps nb's own status; valgrind's report goes to a per-process log.
wrap=$logdir/nb
cat > "$wrap" <<WRAP
#!/bin/sh
exec ${vg[*]} --log-file=$(realpath "$logdir")/nb.%p.log $(realpath "$BUILD/nb") "\$@"
WRAP
chmod 755 "$wrap"
for c in tests/cli/*.sh; do
    n=$((n + 1)); name=cli/$(basename "$c" .sh)
    rm -f "$logdir"/nb.*.log
    NB=$wrap bash "$c" > "$logdir/$(basename "$c").out" 2>&1; rc=$?
    reports=$(cat "$logdir"/nb.*.log 2>/dev/null | grep -v "^--[0-9]*-- " | grep -c .)
    # a test that cannot judge its values here (exit 77) still ran nb under
    # memcheck: its reports count all the same
    if [ $rc -eq 77 ] && ! ls "$logdir"/nb.*.log > /dev/null 2>&1; then
        echo "$name: skipped: $(tail -n1 "$logdir/$(basename "$c").out")"
    elif [ $rc -eq 77 ] && [ "$reports" -eq 0 ]; then
        echo "$name: ok (memcheck; the test skipped: $(tail -n1 "$logdir/$(basename "$c").out"))"
    elif { [ $rc -ne 0 ] && [ $rc -ne 77 ]; } || [ "$reports" -ne 0 ]; then
        bad=$((bad + 1)); echo "$name: FAILED (status $rc, $reports valgrind report lines)"
        cat "$logdir"/nb.*.log 2>/dev/null | head -n 30; tail -n 10 "$logdir/$(basename "$c").out"
        mkdir -p "$logdir/keep"; cp "$logdir"/nb.*.log "$logdir/keep/" 2>/dev/null
    else
        echo "$name: ok"
    fi
done
echo "valgrind: $((n - bad))/$n tests clean"
[ $bad -eq 0 ]
