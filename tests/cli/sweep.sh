#!/usr/bin/env bash
# nb -sweep from the command line (issue 18): -sweep_list lists thousands of
# forms and -v says why the others are skipped; shards split the list
# without overlap; a small sweep's JSON and CSV validate against
# docs/sweep-schema.json, a faulting form (rdpmc: no PMU, or CR4.PCE clear)
# is a row and the sweep goes on; bad options exit 2 naming the option;
# SIGTERM mid-sweep leaves every row written valid and exits 0.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# ---- the list ----
"$NB" -sweep -sweep_list > "$tmp/list" 2> "$tmp/list.err" || fail "-sweep_list: exit $?"
n=$(wc -l < "$tmp/list")
# (under valgrind nb sees its synthetic CPU's CPUID, with fewer extensions:
# 2,906 forms on an Emerald Rapids guest)
[ -n "${NB_UNDER_VALGRIND:-}" ] || [ "$n" -ge 3000 ] || fail "-sweep_list lists $n forms, want at least 3000"
grep -qxF "imul r64, r64, imm8" "$tmp/list" || fail "no 'imul r64, r64, imm8'"
grep -qxF "lea r64, m" "$tmp/list" || fail "no 'lea r64, m'"
grep -q "forms to measure" "$tmp/list.err" || fail "no summary note"
[ "$(sort -u "$tmp/list" | wc -l)" -eq "$n" ] || fail "a form listed twice"
"$NB" -sweep_list -v > "$tmp/listv" 2>/dev/null || fail "-sweep_list -v: exit $?"
grep -qP "^syscall\tskipped: system call or interrupt$" "$tmp/listv" || fail "-v: syscall's reason"
grep -qP "^hlt\tskipped: privileged" "$tmp/listv" || fail "-v: hlt's reason"
[ "$(grep -vc $'\t' "$tmp/listv")" -eq "$n" ] || fail "-v lists other forms to measure"

# shards: disjoint, together the whole list (three more walks of Zydis's
# tables: not under valgrind, where each takes a minute)
for i in $([ -n "${NB_UNDER_VALGRIND:-}" ] || echo 1 2 3); do
    "$NB" -sweep_list -sweep_shard "$i/3" > "$tmp/shard$i" 2>/dev/null || fail "shard $i/3"
    [ -s "$tmp/shard$i" ] || fail "shard $i/3 is empty"
done
if [ -z "${NB_UNDER_VALGRIND:-}" ]; then
    cat "$tmp/shard1" "$tmp/shard2" "$tmp/shard3" | sort > "$tmp/shards"
    sort "$tmp/list" | cmp -s - "$tmp/shards" || fail "shards 1/3..3/3 are not the list"
fi

# the filter
"$NB" -sweep_list -sweep_filter '^v?addps [xyz]mm, [xyz]mm(, [xyz]mm)?$' > "$tmp/f" 2>/dev/null
grep -qxF "addps xmm, xmm" "$tmp/f" && grep -qxF "vaddps ymm, ymm, ymm" "$tmp/f" || \
    fail "-sweep_filter: $(cat "$tmp/f")"
[ "$(grep -vc '^v\?addps [xyz]mm, [xyz]mm\(, [xyz]mm\)\?$' "$tmp/f")" -eq 0 ] || \
    fail "-sweep_filter let other forms through: $(cat "$tmp/f")"

# ---- bad options ----
bad() {   # expected message, then the options
    local want=$1; shift
    out=$("$NB" "$@" 2>&1); rc=$?
    [ $rc -eq 2 ] || fail "$*: exit $rc, want 2"
    printf '%s' "$out" | grep -qF -- "$want" || fail "$*: '$out' lacks '$want'"
}
bad "option -sweep_filter: '(' is not a POSIX extended regular expression" -sweep -sweep_filter '('
bad "option -sweep_shard: '0/3' is not I/N" -sweep -sweep_shard 0/3
bad "option -sweep_shard: '4/3' is not I/N" -sweep_list -sweep_shard 4/3
bad "option -sweep_shard: '1' is not I/N" -sweep_list -sweep_shard 1
bad "option -sweep_filter needs -sweep or -sweep_list" -sweep_filter add
bad "option -sweep measures code of its own: not with -asm" -sweep -asm nop

# ---- a small sweep: JSON, CSV, text ----
forms='^(add r64, r64|imul r64, r64|lea r64, m|mov r64, m64|div r32|vaddps ymm, ymm, ymm|vaddps zmm \{k\}, zmm, zmm|vmovq r64, xmm|cmovz r64, r64|rdpmc|vgatherdps ymm, vm32y, ymm|fadd st0, st|movsb|kaddw k, k, k)$'
# (valgrind's translator runs out of its storage on the gather's unrolled
# code and ends the measuring process: not that form under valgrind)
[ -n "${NB_UNDER_VALGRIND:-}" ] && forms=${forms/|vgatherdps ymm, vm32y, ymm/}
"$NB" -sweep -sweep_filter "$forms" -output json > "$tmp/s.json" 2> "$tmp/s.err"
rc=$?
[ $rc -eq 0 ] || { cat "$tmp/s.err"; fail "sweep: exit $rc"; }
"$NB" -sweep -sweep_filter "$forms" -output csv > "$tmp/s.csv" 2>/dev/null || fail "csv sweep"
"$NB" -sweep -sweep_filter "$forms" > "$tmp/s.txt" 2>/dev/null || fail "text sweep"
grep -q "rdpmc" "$tmp/s.json" || fail "rdpmc is no row"
grep -q '"form":"rdpmc".*"status":"fault"' "$tmp/s.json" || \
    grep -q '"form":"rdpmc".*"status":"ok"' "$tmp/s.json" || fail "rdpmc: neither a fault nor measured"
grep -q "faulted" "$tmp/s.err" || fail "no summary"
head -1 "$tmp/s.txt" | grep -q "^form  *latency  *throughput" || fail "text header: $(head -1 "$tmp/s.txt")"
# (its values judged on a real CPU only, not valgrind's synthetic one)
row='^add r64, r64  *[01]\.[0-9][0-9]  *0\.[0-9][0-9]  *op1->op1 '
[ -n "${NB_UNDER_VALGRIND:-}" ] && row='^add r64, r64  *[0-9]+\.[0-9][0-9]  *[0-9]+\.[0-9][0-9]  *op1->op1 '
grep -Eq "$row" "$tmp/s.txt" || fail "text row of add: $(grep '^add' "$tmp/s.txt")"
if $PY -c "import jsonschema" 2>/dev/null; then
    $PY tests/validate_sweep.py docs/sweep-schema.json "$tmp/s.json" "$tmp/s.csv" || fail "schema"
else
    echo "note: no python3 jsonschema module: the schema check did not run"
fi
# every measured chain's code runs again with nb -asm as the record shows it
$PY - "$tmp/s.json" > "$tmp/replay" <<'PY' || fail "records"
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    for p in r["latency_pairs"]:
        if p["code"] and p["latency"] is not None:
            print(p["code"] + "\t" + p["init"])
            break
PY
while IFS=$'\t' read -r code init; do
    "$NB" -backend tsc -config /dev/null -asm "$code" -asm_init "$init" -unroll_count 10 \
        > /dev/null 2>&1 || fail "replay of '$code' with init '$init'"
done < "$tmp/replay"

# ---- interrupted: the rows written stay valid ----
"$NB" -sweep -sweep_filter '^v' -output json > "$tmp/i.json" 2> "$tmp/i.err" &
pid=$!
# the signal once the first rows are out (valgrind takes its time)
for _ in $(seq 600); do
    [ "$(wc -l < "$tmp/i.json")" -ge 5 ] && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
done
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 0 ] || { cat "$tmp/i.err"; fail "after SIGTERM: exit $rc, want 0"; }
grep -q "interrupted by SIGTERM after" "$tmp/i.err" || fail "no interruption note: $(cat "$tmp/i.err")"
rows=$(wc -l < "$tmp/i.json")
[ "$rows" -ge 1 ] || fail "no row before the signal"
if $PY -c "import jsonschema" 2>/dev/null; then
    $PY tests/validate_sweep.py docs/sweep-schema.json "$tmp/i.json" > /dev/null || fail "partial rows"
fi
echo "ok: $n forms listed; $rows rows before SIGTERM"
