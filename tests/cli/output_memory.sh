#!/usr/bin/env bash
# Memory stays bounded by what is output: -config all names ~300 events, of
# which the tsc backend counts two; 20,000 measurements of each with every
# sample in the JSON record run within 64 MiB of address space (nb kept 2 x
# 20,000 samples of every event, counted or not: ~100 MB here, 5.3 GB at a
# million measurements).
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
if [ -n "${NB_UNDER_VALGRIND:-}" ]; then echo "an address space limit is not valgrind's"; exit 77; fi
# AddressSanitizer reserves terabytes of shadow address space at start
if grep -aq __asan_init "$NB" 2>/dev/null; then echo "an address space limit is not ASan's"; exit 77; fi
( ulimit -v 65536; exec "$NB" -backend tsc -config all -n_measurements 20000 -warm_up_count 1 \
      -unroll_count 10 -asm nop -output json ) > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 0 ] || { cat "$tmp/err"; fail "-config all -n_measurements 20000 -output json in 64 MiB: status $rc"; }
[ "$(wc -l < "$tmp/out")" -eq 1 ] || fail "not one record"
n=$(grep -o '"samples":\[\[[^]]*\]' "$tmp/out" | head -n 1 | tr ',' '\n' | wc -l)
[ "$n" -eq 20000 ] || fail "a counted event's first run has $n samples, want 20000"
echo pass
