#!/usr/bin/env bash
# nb -asm's output on the calibrated-TSC backend is nanoBench's text: one
# "NAME: X.XX" line an event (with -range, "[min;max]" after it), the clock
# group first, the backend line on stderr; an event the clock cannot count is
# "unavailable", never 0.  The values themselves: engine_measure.sh.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$NB" -backend tsc -config /dev/null -asm "ADD RAX, RBX" -range > "$tmp/out" 2> "$tmp/err" || exit 1
grep -Eq '^CORE_CYCLES: -?[0-9]+\.[0-9]{2} \[-?[0-9.]+;-?[0-9.]+\]$' "$tmp/out" || { cat "$tmp/out"; exit 1; }
[ "$(sed -n 2p "$tmp/out" | cut -d: -f1)" = RDTSC ] || { cat "$tmp/out"; exit 1; }
grep -q '^nb: backend: tsc (CORE_CYCLES estimated: TSC ' "$tmp/err" || { cat "$tmp/err"; exit 1; }

printf '0C0.00 INST_RETIRED\n' > "$tmp/cfg"
"$NB" -backend tsc -config "$tmp/cfg" -asm "NOP" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err"; exit 1; }
grep -qx 'INST_RETIRED: unavailable' "$tmp/out" || { cat "$tmp/out"; exit 1; }
echo pass
