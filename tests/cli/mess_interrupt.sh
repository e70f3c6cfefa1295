#!/usr/bin/env bash
# nb -mess stopped by a signal part-way still writes what it measured, says
# so in the JSON, and exits 0.  (SIGTERM: a background job ignores SIGINT.)
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run=("$NB" -mess)
command -v python3 >/dev/null || { echo "python3 is needed to parse the outputs"; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "needs 2 CPUs (one chase, one generator)"; exit 77; }

# 1 + 2 x 10 measurements of ~0.2 s: about 4 s if left alone.  Under
# valgrind (NB_UNDER_VALGRIND, tests/valgrind.sh) setting up the buffers
# alone takes ~5 s, so the measurements are longer (0.5 s: ~10 s in all)
# and the signal comes later, still in the middle of them.
mtime=100 after=2
[ -n "${NB_UNDER_VALGRIND:-}" ] && mtime=400 after=10
"${run[@]}" -mess_size 32M -mess_gen_size 32M -mess_mixes 100,0 \
    -mess_pads 0,1,2,3,4,5,6,7,8,9 -mess_reps 1 -mess_settle 100 -mess_time $mtime \
    -mess_quiet -mess_out "$tmp/i" >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep $after
kill -TERM $pid
wait $pid
rc=$?
cat "$tmp/out" "$tmp/err"
[ $rc -eq 0 ] || { echo "exit status $rc after SIGTERM"; exit 1; }
grep -q "interrupted after" "$tmp/err" || { echo "no interruption message"; exit 1; }
python3 - "$tmp/i" <<'PY'
import csv, json, sys, xml.etree.ElementTree as ET
p = sys.argv[1]
j = json.load(open(p + ".json"))
assert j["run"]["interrupted"] is True
m, planned = j["run"]["measured"], j["run"]["planned"]
assert 1 <= m < planned, (m, planned)
rows = list(csv.reader(open(p + ".csv")))
assert len(rows) == 1 + m, (len(rows), m)   # one repetition: one row per measurement
ET.parse(p + ".svg")
print("interrupted after %d of %d measurements; outputs complete" % (m, planned))
PY
