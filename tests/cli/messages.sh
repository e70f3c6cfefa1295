#!/usr/bin/env bash
# Messages that said the wrong thing (issue 17, item 14), each checked for
# what it says now.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
fails=0 mark=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { [ $fails -eq $mark ] && echo "ok  $*"; mark=$fails; }
valgrind=no
head -c 300 "$NB" 2>/dev/null | grep -q valgrind && valgrind=yes
common=(-backend tsc -config /dev/null)

# A measuring process stopped from outside (SIGSTOP) is not "the benchmark
# code did not finish": it is named, exit 4.
if [ $valgrind = no ]; then
    "$NB" "${common[@]}" -timeout 1 -asm "l: jmp l" > "$tmp/out" 2> "$tmp/err" &
    nb=$!
    pids+=($nb)
    child=""
    for _ in $(seq 100); do
        child=$(cat "/proc/$nb/task/$nb/children" 2>/dev/null | tr -d ' ')
        [ -n "$child" ] && break
        sleep 0.02
    done
    [ -n "$child" ] && kill -STOP "$child"
    wait $nb
    rc=$?
    [ $rc -eq 4 ] || fail "SIGSTOP: exit $rc, want 4"
    grep -q 'stopped by SIGSTOP from outside nb' "$tmp/err" || fail "SIGSTOP: $(cat "$tmp/err")"
    ok "SIGSTOP: $(cat "$tmp/err")"
fi

# -timeout too short for nb's own preparation: said so, no blame on nb's
# code, a usage error (exit 2)
"$NB" "${common[@]}" -timeout 0.005 -asm "nop" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then
    echo "note: -timeout 0.005 was enough here: not judged"
else
    [ $rc -eq 2 ] || fail "-timeout 0.005: exit $rc, want 2"
    grep -q 'ran out before the benchmark code started: nb was still preparing the run' "$tmp/err" ||
        fail "-timeout 0.005: $(cat "$tmp/err")"
    grep -q 'calibration code\|a bug in nb' "$tmp/err" && fail "-timeout 0.005 blames nb: $(cat "$tmp/err")"
    ok "-timeout 0.005: $(cat "$tmp/err")"
fi

[ $fails -eq 0 ] || exit 1
echo pass
