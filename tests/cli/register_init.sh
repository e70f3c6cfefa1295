#!/usr/bin/env bash
# Every register nb does not reserve starts from a stated value (issue 14,
# item 19): with -debug after code that touches none of them, the GPRs other
# than R14/RDI/RSI/RBP/RSP are 0, XMM0-15 are 0 (nb's own leftovers, such as
# the double 1000.0, used to show there), MXCSR is its default 0x1F80 and the
# x87 stack is empty (FNINIT).
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$NB" -backend tsc -config /dev/null -debug -asm "nop" -unroll_count 2 \
    < /dev/null > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err"; exit 1; }
fail=0
for r in rax rbx rcx rdx r8 r9 r10 r11 r12 r13 r15; do
    grep -Eq "^  $r +0x0000000000000000  0\$" "$tmp/err" || { echo "FAIL: $r not 0"; fail=1; }
done
for i in $(seq 0 15); do
    grep -Eq "^  xmm$i +00000000 00000000 00000000 00000000\$" "$tmp/err" || { echo "FAIL: xmm$i not 0"; fail=1; }
done
# (valgrind's synthetic CPU keeps an MXCSR of its own)
[ -n "${NB_UNDER_VALGRIND:-}" ] || grep -q '^  mxcsr   0x00001f80$' "$tmp/err" ||
    { echo "FAIL: mxcsr not 0x1f80"; fail=1; }
for i in $(seq 0 7); do
    grep -Eq "^  st$i +0000 0000000000000000\$" "$tmp/err" || { echo "FAIL: st$i not empty"; fail=1; }
done
[ $fail -eq 0 ] || cat "$tmp/err"
exit $fail
