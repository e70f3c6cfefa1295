#!/usr/bin/env bash
# Unroll count times code size beyond memory: nb must refuse before it tries
# to build the code, with one "nb: " line naming -unroll_count, status 2.
# Needs the measurement engine; skips until nb measures.
set -u
. "$(dirname "$0")/bad_common.inc"
probe=$("$NB" -asm nop -unroll_count 1 -n_measurements 1 -warm_up_count 0 -backend tsc 2>&1)
if [[ $probe == *"not built"* ]]; then
    echo "nb cannot measure yet (needs the engine): $(printf '%s' "$probe" | head -n1)"
    exit 77
fi
# A 9-byte instruction x 100M copies = 900 MB of code (x2 outside basic mode).
big='mov rax, qword ptr fs:[r8+r9*8+0x12345678]'
bad_expect 2 "-unroll_count" -asm "$big" -unroll_count 100000000 -backend tsc
# 1000 copies in the snippet itself: 900 GB.
bad_expect 2 "-unroll_count" -asm "1000*|$big|" -unroll_count 100000000 -backend tsc
bad_expect 2 "-unroll_count" -asm "1000000*|$big|" -unroll_count 100000000 -basic_mode -backend tsc
bad_finish
