#!/usr/bin/env bash
# `nb -asm TEXT -emit -` must print the bytes GNU as gives (the golden corpus's
# expected side): for a sample of single statements (every 25th line of each
# golden file that can be assembled alone, all of the nanoBench NOP file), and
# for every golden file passed whole as one -asm text.  Output of -emit - is
# hex; whitespace and case are ignored.
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
    step=25
    case $(basename "$s") in nb_*) step=1 ;; esac
    n=0
    while IFS= read -r stmt <&3 && IFS= read -r want <&4; do
        n=$((n + 1))
        [ $((n % step)) -eq 0 ] || [ "$step" -eq 1 ] || continue
        got=$("$NB" -asm "$stmt" -emit - 2>&1)
        rc=$?
        checked=$((checked + 1))
        g=${got//[$' \n\t']/}; g=${g,,}
        w=${want// /}
        if [ $rc -ne 0 ] || [ "$g" != "$w" ]; then
            bad=$((bad + 1))
            echo "$(basename "$s"):$n: $stmt | expected: $want | got (rc $rc): $(printf '%s' "$got" | head -n1)"
        fi
    done 3< "$s" 4< "$h"
done
echo "emit_golden: $((checked - bad))/$checked single statements match"

# Every golden file as one -asm text (newline-separated, as a user would paste
# it): the bytes must be the concatenation of its .hex lines.
files=0; badfiles=0
for s in "$dir"/*.s; do
    h=${s%.s}.hex
    files=$((files + 1))
    got=$("$NB" -asm "$(cat "$s")" -emit - 2>&1)
    rc=$?
    g=${got//[$' \n\t']/}; g=${g,,}
    w=$(tr -d ' \n' < "$h")
    if [ $rc -ne 0 ] || [ "$g" != "$w" ]; then
        badfiles=$((badfiles + 1))
        echo "$(basename "$s") as a whole: rc $rc, $(( ${#g} / 2 )) bytes, want $(( ${#w} / 2 )): $(printf '%s' "$got" | head -n1 | cut -c1-160)"
    fi
done
echo "emit_golden: $((files - badfiles))/$files whole golden files match"
[ "$bad" -eq 0 ] && [ "$badfiles" -eq 0 ]
