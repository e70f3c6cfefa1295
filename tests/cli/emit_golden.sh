#!/usr/bin/env bash
# `nb -asm STMT -emit -` must print the bytes GNU as gives (the golden corpus's
# expected side) for a sample of statements: every 10th line of each golden
# file that can be assembled alone (no labels, no alignment), plus all of the
# nanoBench NOP file.  Output of -emit - is hex; whitespace and case are ignored.
set -u
NB=${NB:-build/nb}
dir=tests/asm/golden
[ -x "$NB" ] || { echo "no nb binary at $NB"; exit 77; }
probe=$("$NB" -asm "nop" -emit - 2>&1) || true
if ! printf '%s' "$probe" | tr -d ' \n\t' | grep -qix '90'; then
    echo "$NB does not support -emit - yet (nop gave: $(printf '%s' "$probe" | head -n1))"
    exit 77
fi
checked=0; bad=0
for s in "$dir"/*.s; do
    h=${s%.s}.hex
    case $(basename "$s") in branch.s|directives.s) continue ;; esac
    step=10
    case $(basename "$s") in nb_*) step=1 ;; esac
    n=0
    while IFS= read -r stmt <&3 && IFS= read -r want <&4; do
        n=$((n + 1))
        [ $((n % step)) -eq 0 ] || [ "$step" -eq 1 ] || continue
        got=$("$NB" -asm "$stmt" -emit - 2>&1)
        rc=$?
        checked=$((checked + 1))
        g=$(printf '%s' "$got" | tr -d ' \n\t' | tr 'A-F' 'a-f')
        w=$(printf '%s' "$want" | tr -d ' ')
        if [ $rc -ne 0 ] || [ "$g" != "$w" ]; then
            bad=$((bad + 1))
            echo "$(basename "$s"):$n: $stmt | expected: $want | got (rc $rc): $(printf '%s' "$got" | head -n1)"
        fi
    done 3< "$s" 4< "$h"
done
echo "emit_golden: $((checked - bad))/$checked statements match"
[ "$bad" -eq 0 ]
