#!/usr/bin/env bash
# A faulting benchmark is reported with signal, offset, instruction and copy
# (exit 3); a hanging one is stopped by -timeout (exit 3); SIGTERM to nb
# while it waits also ends the measuring child.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$NB" -backend tsc -config /dev/null -asm "ADD RAX, RBX; MOV RAX, [RBX]" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 3 ] || { echo "exit $rc, want 3"; cat "$tmp/err"; exit 1; }
# (under valgrind the copy number is its synthetic CPU's, not judged)
copy=1; [ -n "${NB_UNDER_VALGRIND:-}" ] && copy='[0-9]*'
grep -q "nb: the benchmark code raised SIGSEGV at +0x3 (mov rax, \[rbx\]) in -asm, copy $copy of 1000: read of unmapped address 0x0 (a null pointer)\$" "$tmp/err" \
    || { cat "$tmp/err"; exit 1; }

"$NB" -backend tsc -config /dev/null -timeout 0.2 -asm "l: JMP l" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 3 ] || { echo "exit $rc, want 3"; cat "$tmp/err"; exit 1; }
grep -q 'did not finish within 0.2 s' "$tmp/err" || { cat "$tmp/err"; exit 1; }

"$NB" -backend tsc -config /dev/null -timeout 30 -asm "l: JMP l" > /dev/null 2>&1 &
nb=$!
child=""
for _ in $(seq 100); do
    child=$(cat /proc/$nb/task/*/children 2>/dev/null | tr -d ' ')
    [ -n "$child" ] && break
    sleep 0.05
done
[ -n "$child" ] || { echo "no measuring child seen"; kill $nb; exit 1; }
kill -TERM $nb
wait $nb 2>/dev/null
sleep 0.2
if [ -e /proc/$child ] && ! grep -q '^State:.*Z' /proc/$child/status 2>/dev/null; then
    echo "child $child still running after SIGTERM to nb"; kill -KILL "$child"; exit 1
fi
echo pass
