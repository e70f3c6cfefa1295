#!/usr/bin/env bash
# JSON output is valid UTF-8 whatever bytes the input holds: bytes that are
# not UTF-8 (in the command, a batch line's text, the statements, an error
# message) are written as U+FFFD; UTF-8 passes through.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v iconv > /dev/null || { echo "iconv is needed to check the encoding"; exit 77; }
FAST=(-backend tsc -config /dev/null -n_measurements 3 -warm_up_count 1 -unroll_count 10)
utf8() { iconv -f UTF-8 -t UTF-8 "$1" > /dev/null 2>&1; }
fffd=$(printf '\xef\xbf\xbd')
eacute=$(printf '\xc3\xa9')

"$NB" "${FAST[@]}" -asm "$(printf 'nop # caf\xc3\xa9 \xff\xfe \xc0\xaf')" -output json > "$tmp/one" 2> /dev/null ||
    fail "a single run failed"
utf8 "$tmp/one" || fail "single run: not UTF-8: $(od -c "$tmp/one" | grep -m1 '377')"
grep -q "caf$eacute $fffd$fffd $fffd$fffd" "$tmp/one" || fail "single run: UTF-8 not kept or bytes not U+FFFD"

printf -- '-asm "nop # \xff"\n-asm "\xfe\xfd"\n-asm "nop" -config "/no\xff"\n' > "$tmp/batch"
"$NB" "${FAST[@]}" -batch "$tmp/batch" -output json > "$tmp/b" 2> /dev/null
[ "$(wc -l < "$tmp/b")" -eq 3 ] || fail "batch: $(wc -l < "$tmp/b") records, want 3"
utf8 "$tmp/b" || fail "batch: not UTF-8"
[ "$(grep -c "$fffd" "$tmp/b")" -eq 3 ] || fail "batch: U+FFFD missing in a record"
echo pass
