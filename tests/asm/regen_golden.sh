#!/usr/bin/env bash
# Regenerates the expected side of the golden corpus: for every
# tests/asm/golden/NAME.s (one statement per line, GNU as .intel_syntax
# noprefix dialect) writes NAME.hex, one line per source line holding the
# bytes GNU as produced for that line (empty for a line that emits nothing).
#
# The whole file is assembled at once, so branch relaxation and .p2align see
# the final layout; a symbol __nbg_N placed before line N gives each line's
# offset.  GNU as 2.40 does not read h-suffixed hex (0ffh), so such numbers are
# rewritten to 0x form for as only; nb must read the original.
# Files named nb_*.s use nanoBench-only syntax (|n, n*|x|): their .hex is
# written by hand and left alone here.
#
# Test-only dependency: binutils (as, nm, objcopy).  nb never runs it.
set -euo pipefail
cd "$(dirname "$0")/golden"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for s in *.s; do
    name=${s%.s}
    case $name in nb_*) continue ;; esac
    {
        echo ".intel_syntax noprefix"
        n=0
        while IFS= read -r line || [ -n "$line" ]; do
            n=$((n + 1))
            echo "__nbg_$n:"
            printf '%s\n' "$line" | sed -E 's/(^|[^0-9A-Za-z_.])([0-9][0-9A-Fa-f]*)[hH]($|[^0-9A-Za-z_])/\10x\2\3/g'
        done < "$s"
        echo "__nbg_end:"
    } > "$tmp/$name.s"
    if ! as --64 -msyntax=intel -mnaked-reg "$tmp/$name.s" -o "$tmp/$name.o" 2> "$tmp/$name.err"; then
        echo "regen_golden: as rejected $s:" >&2
        # Map as's line numbers (2 per source line + 1) back to the .s file.
        awk -F: -v f="$s" 'NF >= 3 && $2 ~ /^[0-9]+$/ { $1 = f; $2 = int(($2 - 1) / 2); print; next } { print }' OFS=: \
            "$tmp/$name.err" >&2
        status=1
        continue
    fi
    objcopy -O binary -j .text "$tmp/$name.o" "$tmp/$name.bin"
    nm "$tmp/$name.o" | awk '$3 ~ /^__nbg_/ { print $3, $1 }' > "$tmp/$name.syms"
    python3 - "$tmp/$name.bin" "$tmp/$name.syms" "$n" > "$name.hex" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
off = {}
for l in open(sys.argv[2]):
    k, v = l.split()
    off[k] = int(v, 16)
n = int(sys.argv[3])
assert off["__nbg_end"] == len(data), "trailing bytes after the last line"
for i in range(1, n + 1):
    a = off[f"__nbg_{i}"]
    b = off[f"__nbg_{i + 1}"] if i < n else off["__nbg_end"]
    print(" ".join(f"{x:02x}" for x in data[a:b]))
PY
    echo "regen_golden: $name.hex ($n lines)"
done
exit $status
