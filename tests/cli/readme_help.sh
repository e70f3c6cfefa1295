#!/usr/bin/env bash
# README's "Options" block is `nb -help`, word for word: a user reading the
# README sees every option nb takes, with its current meaning and default.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$NB" -help > "$tmp/help" 2>&1 || { echo "FAIL: nb -help exited $?"; exit 1; }
/usr/bin/python3 - README.md "$tmp/help" <<'PY'
import sys
readme = open(sys.argv[1]).read()
helptext = open(sys.argv[2]).read()
start = readme.find("```\nusage: nb [options]")
if start < 0:
    sys.exit("FAIL: README has no block starting 'usage: nb [options]'")
start += 4
end = readme.index("```", start)
block = readme[start:end]
if block != helptext:
    import difflib
    sys.stdout.writelines(difflib.unified_diff(block.splitlines(True), helptext.splitlines(True),
                                               "README.md", "nb -help"))
    sys.exit("FAIL: README's options block differs from nb -help")
PY
