#!/usr/bin/env bash
# Every batch line starts from the same state (issue 17, item 13): a line
# that moves the GS base (wrgsbase) or the FS base (wrfsbase) leaves the next
# line's the same as on its own, and a fault after wrfsbase (FS is what nb's
# own thread-local data sits on) is reported as the benchmark's fault, not
# as the measuring process dying.  Skipped where the CPU or the kernel does
# not let user code write the bases (FSGSBASE).
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(-backend tsc -config /dev/null -unroll_count 1 -n_measurements 2 -warm_up_count 0)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$NB" "${common[@]}" -asm "rdgsbase rax" > /dev/null 2> "$tmp/err"
if [ $? -ne 0 ]; then
    echo "rdgsbase is not usable here: $(tail -1 "$tmp/err")"; exit 77
fi

# the fault address shows the base: 0x10000000 + GS
probe_gs='rdgsbase rax; mov rbx, [rax+0x10000000]'
alone_gs=$("$NB" "${common[@]}" -asm "$probe_gs" 2>&1 | grep -o 'address 0x[0-9a-f]*')
[ "$alone_gs" = "address 0x10000000" ] || fail "GS probe alone: $alone_gs"
cat > "$tmp/lines" <<EOF
-asm "mov rax, 0x1234; wrgsbase rax"
-asm "$probe_gs"
-asm "mov rax, 0x5678; wrfsbase rax"
-asm "$probe_gs"
EOF
"$NB" "${common[@]}" -batch "$tmp/lines" > "$tmp/out" 2> "$tmp/err"
got=$(grep -o '^nb: line [0-9]*: .*address 0x[0-9a-f]*' "$tmp/err" | sed 's/^nb: line \([0-9]*\): .*\(address 0x[0-9a-f]*\)/\1 \2/')
want=$(printf '2 %s\n4 %s' "$alone_gs" "$alone_gs")
[ "$got" = "$want" ] || fail "after wrgsbase/wrfsbase lines: got '$got', want '$want': $(cat "$tmp/err")"
grep -q 'died' "$tmp/err" && fail "the measuring process died: $(cat "$tmp/err")"

# FS moved, then a fault: nb's handler runs on nb's own FS again
"$NB" "${common[@]}" -asm "mov rax, 0x1234; wrfsbase rax; mov rbx, [0]" > /dev/null 2> "$tmp/err"
rc=$?
grep -q 'raised SIGSEGV at +0xc (mov rbx, \[0x0*\])' "$tmp/err" && [ $rc -eq 3 ] ||
    fail "a fault after wrfsbase: exit $rc: $(cat "$tmp/err")"
# and one line that moves FS, measured to the end
"$NB" "${common[@]}" -asm "mov rax, 0x1234; wrfsbase rax" > "$tmp/out" 2> "$tmp/err" ||
    fail "wrfsbase alone: $(cat "$tmp/err")"

[ $fails -eq 0 ] || exit 1
echo pass
