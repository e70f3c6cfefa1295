#!/usr/bin/env bash
# make check-data: regenerate data/ from ../shared/events into a temp dir and
# fail on any difference from the committed files (maintainers only; needs
# python3 and the shared event JSON, so it is not part of `make test`).
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 gen/convert_events.py --out "$tmp" 2>/dev/null
if diff -r -u -x README.md data "$tmp" >"$tmp.diff" 2>&1; then
    echo "check-data: data/ matches a fresh conversion ($(ls "$tmp" | wc -l) files)"
    rm -f "$tmp.diff"
else
    echo "check-data: data/ differs from a fresh conversion of ../shared/events:" >&2
    head -n 60 "$tmp.diff" >&2
    rm -f "$tmp.diff"
    exit 1
fi
