#!/usr/bin/env bash
# With -r14_size, R14 points to the START of its area, as kernel nanoBench
# and CacheAnalyzer-style code ([R14+addr], addr up to the size) expect
# (issue 14, item 17); without it, to the middle of 1 MB as in nanoBench
# (its README's [R14-8] example); the guard pages on both sides turn a step
# outside into a fault report that says so.
set -u
NB=${NB:-build/nb}
fail=0
run() { timeout 60 "$NB" -backend tsc -config /dev/null -unroll_count 10 "$@" 2>&1; }
for size in 1M 64K; do
    case $size in 1M) last=1048568; end=1048576 ;; 64K) last=65528; end=65536 ;; esac
    out=$(run -r14_size $size -asm "mov rax, [r14+$last]"); rc=$?
    [ $rc -eq 0 ] || { echo "FAIL: [r14+$last] with -r14_size $size: $out"; fail=1; }
    out=$(run -r14_size $size -asm "mov rax, [r14]"); rc=$?
    [ $rc -eq 0 ] || { echo "FAIL: [r14] with -r14_size $size: $out"; fail=1; }
    out=$(run -r14_size $size -asm "mov rax, [r14+$end]"); rc=$?
    if [ $rc -eq 0 ] || ! printf '%s' "$out" | grep -q "guard page above R14"; then
        echo "FAIL: [r14+$end] with -r14_size $size: status $rc: $out"; fail=1
    fi
    out=$(run -r14_size $size -asm "mov rax, [r14-8]"); rc=$?
    if [ $rc -eq 0 ] || ! printf '%s' "$out" | grep -q "guard page below R14"; then
        echo "FAIL: [r14-8] with -r14_size $size: status $rc: $out"; fail=1
    fi
done
# nanoBench's default: the middle of 1 MB, 512 KiB either way
out=$(run -asm "mov rax, [r14-8]"); rc=$?
[ $rc -eq 0 ] || { echo "FAIL: [r14-8] by default: $out"; fail=1; }
out=$(run -asm "mov rax, [r14-524288]; mov rax, [r14+524280]"); rc=$?
[ $rc -eq 0 ] || { echo "FAIL: both ends by default: $out"; fail=1; }
out=$(run -asm "mov rax, [r14+524288]"); rc=$?
if [ $rc -eq 0 ] || ! printf '%s' "$out" | grep -q "guard page above R14"; then
    echo "FAIL: [r14+512K] by default: status $rc: $out"; fail=1
fi
exit $fail
