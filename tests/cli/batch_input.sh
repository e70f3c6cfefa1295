#!/usr/bin/env bash
# -batch's input: a line longer than 16 MiB stops the batch while it is read
# (memory stays bounded: -batch /dev/zero ends at once), a directory and a
# closed standard input are errors, not an empty batch; a line with a NUL
# byte fails alone.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
FAST=(-backend tsc -config /dev/null -n_measurements 3 -warm_up_count 1 -unroll_count 10)

# /dev/zero: one line without end; in 1 GiB of address space (not under
# valgrind, which needs more for itself), within 20 s
limit=1048576
[ -z "${NB_UNDER_VALGRIND:-}" ] || limit=unlimited
grep -aq __asan_init "$NB" 2>/dev/null && limit=unlimited   # ASan's shadow needs terabytes
( ulimit -v $limit; exec timeout 20 "$NB" "${FAST[@]}" -batch /dev/zero ) > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || { cat "$tmp/err"; fail "-batch /dev/zero: exit status $rc, want 1"; }
grep -q '^nb: -batch /dev/zero:1: line longer than 16 MiB' "$tmp/err" || { cat "$tmp/err"; fail "-batch /dev/zero: message"; }

# a long line between two good ones: the first is measured, then the batch stops
{ echo '-asm "nop"'; head -c $((17 << 20)) /dev/zero | tr '\0' 'a'; echo; echo '-asm "nop"'; } > "$tmp/long"
"$NB" "${FAST[@]}" -batch "$tmp/long" -output json > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || { cat "$tmp/err"; fail "long line: exit status $rc, want 1"; }
grep -q "^nb: -batch $tmp/long:2: line longer than 16 MiB" "$tmp/err" || { cat "$tmp/err"; fail "long line: message"; }
[ "$(wc -l < "$tmp/out")" -eq 1 ] || fail "long line: $(wc -l < "$tmp/out") records, want 1 (line 1's)"

# a NUL byte: that line fails, the batch goes on
printf -- '-asm "nop"\n-asm "n\0op"\n-asm "nop"\n' > "$tmp/nul"
"$NB" "${FAST[@]}" -batch "$tmp/nul" -output json > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 5 ] || { cat "$tmp/err"; fail "NUL: exit status $rc, want 5"; }
grep -q '^nb: line 2: line contains a NUL byte' "$tmp/err" || { cat "$tmp/err"; fail "NUL: message"; }
[ "$(wc -l < "$tmp/out")" -eq 3 ] || fail "NUL: $(wc -l < "$tmp/out") records, want 3"

# a directory
"$NB" "${FAST[@]}" -batch "$tmp" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || { cat "$tmp/err"; fail "-batch DIR: exit status $rc, want 1"; }
grep -q "^nb: -batch $tmp: .*[Ii]s a directory" "$tmp/err" || { cat "$tmp/err"; fail "-batch DIR: message"; }

# standard input closed, and empty
"$NB" "${FAST[@]}" -batch - <&- > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || { cat "$tmp/err"; fail "-batch - with stdin closed: exit status $rc, want 1"; }
grep -q "^nb: -batch -: .*standard input.*Bad file descriptor" "$tmp/err" || { cat "$tmp/err"; fail "-batch - with stdin closed: message"; }
"$NB" "${FAST[@]}" -batch - < /dev/null > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err"; fail "an empty batch failed"; }
echo pass
