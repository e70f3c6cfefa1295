#!/usr/bin/env bash
# The pages where R14 (and RDI, RSI, RBP, RSP) point are present before the
# code runs, as nanoBench's kernel module's areas are: a prefetch, which
# takes no page fault, finds its page mapped, and its translation in the
# TLB (read 0.98 against 0.25 in half the processes, and in every one with
# ASLR off, where nb did not touch the page before each run).  Judged by time against the
# same prefetch after -asm_init stored to the page; skipped where a page
# that is not mapped costs a prefetch no more than one that is (the effect
# cannot be seen there).
set -u
NB=${NB:-build/nb}
run=()   # what runs nb: with ASLR off (setarch -R) the same addresses in every process
cyc() {   # the lowest CORE_CYCLES of three runs
    for i in 1 2 3; do
        "${run[@]}" timeout 60 "$NB" -backend tsc -config /dev/null "$@" 2>/dev/null |
            sed -n 's/^CORE_CYCLES: //p'
    done | sort -g | head -1
}
mapped=$(cyc -asm "prefetcht0 [r14]" -asm_init "mov [r14], rax")
unmapped=$(cyc -asm "prefetcht0 [r14+65536]")
plain=$(cyc -asm "prefetcht0 [r14]")
if setarch -R true 2>/dev/null; then
    run=(setarch -R)
    fixed=$(cyc -asm "prefetcht0 [r14]")
    [ -n "$fixed" ] && plain=$(printf '%s\n%s\n' "$plain" "$fixed" | sort -g | tail -1)
fi
[ -n "$mapped" ] && [ -n "$unmapped" ] && [ -n "$plain" ] ||
    { echo "FAIL: no CORE_CYCLES (mapped '$mapped', unmapped '$unmapped', plain '$plain')"; exit 1; }
if awk -v m="$mapped" -v u="$unmapped" 'BEGIN { exit !(u < 1.6 * m) }'; then
    echo "a prefetch of an unmapped page costs $unmapped against $mapped mapped: cannot judge"
    exit 77
fi
if ! awk -v m="$mapped" -v p="$plain" 'BEGIN { exit !(p <= 1.3 * m + 0.02) }'; then
    echo "FAIL: prefetcht0 [r14] costs $plain, as if its page were not mapped or not in the TLB (a page not mapped: $unmapped, one mapped: $mapped)"
    exit 1
fi
exit 0
