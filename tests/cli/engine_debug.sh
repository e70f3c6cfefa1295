#!/usr/bin/env bash
# -debug without a terminal (so without gdb): nb prints the registers at the
# int3 before the second counter read, once, and finishes the run; and
# -timeout still applies.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$NB" -backend tsc -config /dev/null -debug -asm_init "MOV RAX, 42" -asm "ADD RBX, 1" \
    -unroll_count 3 < /dev/null > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err"; exit 1; }
grep -q '^  rax     0x000000000000002a  42$' "$tmp/err" || { cat "$tmp/err"; exit 1; }
grep -q '^  rbx     0x0000000000000003  3$' "$tmp/err" || { cat "$tmp/err"; exit 1; }
grep -q '^  xmm15 ' "$tmp/err" || { cat "$tmp/err"; exit 1; }
[ "$(grep -c 'registers before the second counter read' "$tmp/err")" -eq 1 ] || { cat "$tmp/err"; exit 1; }
grep -q '^CORE_CYCLES: ' "$tmp/out" || { cat "$tmp/out"; exit 1; }
# -timeout holds with -debug too (issue 17, item 12): an endless loop is
# stopped and reported, not waited for
timeout 20 "$NB" -backend tsc -config /dev/null -debug -timeout 0.5 -asm "l: jmp l" \
    < /dev/null > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 3 ] || { echo "-debug -timeout 0.5: exit $rc, want 3"; cat "$tmp/err"; exit 1; }
grep -q 'did not finish within 0.5 s (-timeout)' "$tmp/err" || { cat "$tmp/err"; exit 1; }
echo pass
