#!/usr/bin/env bash
# Golden test of the build-time table generator: tests/gen/tiny/* must turn
# into exactly tests/gen/tiny.expected.c, and broken data files must stop it
# with FILE:LINE.  `tests/cli/gen_golden.sh --update` rewrites the expected
# file after an intended change of the output format.
set -u
cd "$(dirname "$0")/../.."
GT=${BUILD:-build}/gentables
if [ ! -x "$GT" ]; then echo "no $GT: run make first"; exit 77; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$GT" -o "$tmp/out.c" tests/gen/tiny/*.txt || { echo "gentables failed on tests/gen/tiny"; exit 1; }
if [ "${1:-}" = --update ]; then cp "$tmp/out.c" tests/gen/tiny.expected.c; echo updated; exit 0; fi
diff -u tests/gen/tiny.expected.c "$tmp/out.c" || { echo "generated tables differ from tests/gen/tiny.expected.c"; exit 1; }
# The output must compile against the hand-written layout header.
${CC:-cc} -std=c11 -Wall -Wextra -Werror -Isrc -c "$tmp/out.c" -o "$tmp/out.o" || exit 1

expect_error() {   # expected "FILE:LINE: text" substring, files...
    local want=$1; shift
    if "$GT" -o "$tmp/bad.c" "$@" 2>"$tmp/err"; then echo "gentables accepted $*"; exit 1; fi
    grep -qF -- "$want" "$tmp/err" || { echo "want '$want', got: $(cat "$tmp/err")"; exit 1; }
    [ ! -e "$tmp/bad.c" ] || { echo "gentables left a partial $tmp/bad.c"; exit 1; }
}
expect_error "tests/gen/bad_cfg/cfg_Bad_all.txt:3: CMSK" tests/gen/bad_cfg/cfg_Bad_all.txt
expect_error "tests/gen/bad_map/cpumap.txt:2: unknown core type 'hyper'" tests/gen/bad_map/*.txt
expect_error "no cfg_Tiny_*.txt" tests/gen/tiny/cpumap.txt
expect_error "expected cfg_<Uarch>_" tests/gen/bad_name/cfg_Weird.txt
exit 0
