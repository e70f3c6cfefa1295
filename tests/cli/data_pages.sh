#!/usr/bin/env bash
# Data on more pages than an L1 data TLB holds costs what its pages make it
# cost (measure/place.h: PLACE_DATA_PAGES): nb counts the areas' pages
# present after the measurement, and such a value carries a quarter of
# itself in its uncertainty, flagged, on the text output's stderr too.
# Code that touches one line does not.
set -u
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
die() { echo "FAIL: $*"; exit 1; }
WIDE="mov rax, r14; mov ecx, 100; next: lea rdx, [rax+4160]; mov [rax], rdx; mov rax, rdx; dec ecx; jnz next; mov [rax], r14; mov rax, r14"
timeout 60 "$NB" -backend tsc -config /dev/null -asm_init "$WIDE" -asm "mov rax, [rax]" -output json \
    > "$tmp/wide" 2> /dev/null || die "the wide chain's run"
timeout 60 "$NB" -backend tsc -config /dev/null -asm "mov rax, [r14]" -output json \
    > "$tmp/one" 2> /dev/null || die "the one-line load's run"
python3 - "$tmp/wide" "$tmp/one" <<'PY' || exit 1
import json, sys
def load(path):
    r = json.loads(open(path).readline())
    cal = r["backend"]["calibration"]
    ev = {e["name"]: e for e in r["events"]}
    return cal["data_pages"], ev
pages, ev = load(sys.argv[1])
if pages < 101:
    sys.exit("FAIL: the chain through 101 pages counted %d pages" % pages)
for name in ("CORE_CYCLES", "RDTSC"):
    e = ev[name]
    if not (e["uncertainty"] >= 0.25 * abs(e["value"]) - 1e-9):
        sys.exit("FAIL: %s %.3f +/- %.3f over %d pages: less than a quarter of it" %
                 (name, e["value"], e["uncertainty"], pages))
    if not e["flags"]["uncertain"]:
        sys.exit("FAIL: %s over %d pages is not flagged" % (name, pages))
pages, ev = load(sys.argv[2])
if not 1 <= pages <= 64:
    sys.exit("FAIL: a load from one line counted %d pages" % pages)
e = ev["CORE_CYCLES"]
if e["uncertainty"] >= 0.25 * abs(e["value"]):
    sys.exit("FAIL: a load from one line carries %.3f +/- %.3f" % (e["value"], e["uncertainty"]))
PY
timeout 60 "$NB" -backend tsc -config /dev/null -asm_init "$WIDE" -asm "mov rax, [rax]" \
    > /dev/null 2> "$tmp/err" || die "the wide chain's text run"
grep -q "more than an L1 data TLB holds" "$tmp/err" ||
    { cat "$tmp/err"; die "the text output does not say why the wide chain is not pinned down"; }
exit 0
