#!/usr/bin/env bash
# nb -asm measures end to end on the calibrated-TSC backend (every x86-64
# box has a TSC): nanoBench's examples 1 and 2 and IMUL give whole cycles
# (the output's format: engine_format.sh).  A value is held
# to +/-0.02 first and measured up to twice more if it misses; what fails is a
# value that does not round to the whole cycle count (on a busy VM host the
# estimate moves by a few percent, a load chain by up to 10%: see
# tests/test_engine.c).  A latency that cannot be judged (the other
# hyperthread busy, the host slowing every try, valgrind's synthetic CPU)
# makes the whole test report itself skipped (exit 77) with the reason; a
# wrong value fails at once.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# value NAME FILE
value() { sed -n "s/^$1: \([0-9.-]*\)$/\1/p" "$2"; }
# near V WANT TOL
near() { awk -v v="$1" -v w="$2" -v t="$3" 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(v != "" && d <= t) }'; }

# check WANT TOL ARGS...: judged while ALU chains run at most 3% slow.  When
# the other hyperthread keeps the ALUs busy, nb says "ALU chains ran X% slow"
# and the chains really take more cycles; wait up to 3 s for that, else skip.
# Under valgrind (NB_UNDER_VALGRIND, tests/valgrind.sh) the code runs on a
# synthetic CPU: nb must run and print a value, which is not judged.
unjudged=()
check() {
    local want=$1 tol=$2 v slow
    shift 2
    if [ -n "${NB_UNDER_VALGRIND:-}" ]; then
        "$NB" -backend tsc -config /dev/null "$@" > "$tmp/out" 2> "$tmp/err" || {
            echo "nb $* failed:"; cat "$tmp/err"; exit 1; }
        v=$(value CORE_CYCLES "$tmp/out")
        [ -n "$v" ] || { echo "no CORE_CYCLES for $*"; cat "$tmp/out"; exit 1; }
        echo "not judged (valgrind): CORE_CYCLES $v for $*"
        unjudged+=("valgrind: $*"); return 0
    fi
    local vals= w c
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
        "$NB" -backend tsc -config /dev/null "$@" > "$tmp/out" 2> "$tmp/err" || {
            echo "nb $* failed:"; cat "$tmp/err"; exit 1; }
        v=$(value CORE_CYCLES "$tmp/out")
        slow=$(sed -n 's/.*chains ran \([0-9.]*\)% slow.*/\1/p' "$tmp/err")
        if [ -n "$slow" ] && ! near "$slow" 0 3; then sleep 0.3; continue; fi
        slow=
        vals="$vals $v"
        # int: the whole number nearest the least value so far (a busy host
        # adds delay: a load chain read 4.74 once where 4.0 is the rule);
        # the value judged is the one closest to what is wanted
        w=$want
        [ "$want" = int ] && w=$(echo $vals | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i < m) m = $i; printf "%d", m + 0.5 }')
        c=$(echo $vals | awk -v w="$w" '{ b = $1; for (i = 2; i <= NF; i++) { d = $i - w; e = b - w; if (d * d < e * e) b = $i }; print b }')
        if [ "$want" = int ] && { [ "$w" -lt 3 ] || [ "$w" -gt 5 ]; }; then
            echo "FAIL: an L1 load chain of $w cycles (every x86-64 core of the last 15 years: 3-5)"
            exit 1
        fi
        near "$c" "$w" "$tol" && { echo "ok: CORE_CYCLES $c for $* (values:$vals)"; return 0; }
        echo "attempt $attempt: CORE_CYCLES $v, want $w +/- $tol for $*"
        if [ $attempt -ge 3 ]; then
            near "$c" "$w" 0.4999 && {
                echo "ok (whole cycles; outside +/-$tol: noisy host): CORE_CYCLES $c for $* (values:$vals)"
                return 0; }
            sleep 1   # a neighbour on the host can slow load chains for seconds
        fi
    done
    # every value slow for ~8 s: the host was measured, not nb (a value below
    # the wanted one by half a cycle or more is nb's error and fails)
    if [ -z "$slow" ] && [ -n "$vals" ] &&
       echo $vals | awk -v w="$w" '{ for (i = 1; i <= NF; i++) if ($i < w - 0.4999) exit 1 }'; then
        echo "not judged: the host slowed every try (values:$vals) for $*"
        unjudged+=("host slowed every try: $*"); return 0
    fi
    if [ -n "$slow" ]; then
        echo "not judged: ALU chains ran $slow% slow for $*"
        unjudged+=("sibling hyperthread busy (chains $slow% slow): $*"); return 0
    fi
    cat "$tmp/out" "$tmp/err"
    exit 1
}

check 2.00 0.02 -asm "ADD RAX, RBX; ADD RBX, RAX"
check 3.00 0.02 -asm "IMUL RAX, RAX"
check int 0.02 -asm_init "MOV RAX, R14; ADD RAX, 8; MOV [RAX], RAX" -asm "MOV RAX, [RAX]"
check 2.00 0.02 -asm "ADD RAX, RBX; ADD RBX, RAX" -loop_count 100 -unroll_count 10

if [ ${#unjudged[@]} -gt 0 ]; then
    printf '%s of 4 latencies not judged:' "${#unjudged[@]}"; printf ' [%s]' "${unjudged[@]}"; echo
    exit 77
fi
echo pass
