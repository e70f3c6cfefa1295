#!/usr/bin/env bash
# Usage: tests/fuzz/run.sh BUILD ZYDIS_DIR SECONDS
# Builds every tests/fuzz/fuzz_NAME.c as a libFuzzer binary under ASan+UBSan
# (clang) against nb's sources except main.c and ZYDIS_DIR/libZydis.a, then
# runs each for SECONDS on its seed corpus tests/fuzz/NAME_corpus.  New inputs
# go to BUILD/fuzz/NAME_corpus (the checked-in seeds stay as they are); a crash
# leaves its input in BUILD/fuzz/ and makes the script exit non-zero.
# FUZZ_TARGETS="options config" limits the run to those targets; extra
# libFuzzer flags (e.g. -runs=0 to only replay the corpora) go in FUZZ_FLAGS.
set -euo pipefail
BUILD=${1:?usage: run.sh BUILD ZYDIS_DIR SECONDS}
ZYDIS_DIR=${2:?usage: run.sh BUILD ZYDIS_DIR SECONDS}
SECONDS_EACH=${3:?usage: run.sh BUILD ZYDIS_DIR SECONDS}
CC=${FUZZ_CC:-clang}
command -v "$CC" >/dev/null || { echo "fuzz: $CC not found (libFuzzer needs clang)" >&2; exit 1; }
[ -f "$ZYDIS_DIR/libZydis.a" ] || { echo "fuzz: no $ZYDIS_DIR/libZydis.a (run ./build.sh)" >&2; exit 1; }

out=$BUILD/fuzz
mkdir -p "$out/obj"
san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
flags="-std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer -DZYDIS_STATIC_BUILD
       -I$ZYDIS_DIR/include -Isrc -I$BUILD/gen"

# nb's sources go into an archive so that a target links only what it uses.
objs=()
for src in $(ls src/*.c src/asm/*.c src/pmu/*.c 2>/dev/null); do
    [ "$src" = src/main.c ] && continue
    obj=$out/obj/$(echo "$src" | tr / _).o
    if [ ! "$obj" -nt "$src" ]; then
        if ! $CC $flags $san -c "$src" -o "$obj" 2> "$obj.err"; then
            case $src in
                src/asm/*) cat "$obj.err" >&2; exit 1 ;;
                *) echo "fuzz: skipping $src (does not build here):" >&2; head -n 3 "$obj.err" >&2
                   rm -f "$obj"; continue ;;
            esac
        fi
    fi
    objs+=("$obj")
done
rm -f "$out/libnb.a"
ar rcs "$out/libnb.a" "${objs[@]}"

status=0
for target in tests/fuzz/fuzz_*.c; do
    [ -e "$target" ] || continue
    name=$(basename "$target" .c); name=${name#fuzz_}
    if [ -n "${FUZZ_TARGETS:-}" ] && [[ " $FUZZ_TARGETS " != *" $name "* ]]; then
        continue
    fi
    bin=$out/fuzz_$name
    $CC $flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        "$target" "$out/libnb.a" "$ZYDIS_DIR/libZydis.a" -lm -o "$bin"
    seeds=tests/fuzz/${name}_corpus
    work=$out/${name}_corpus
    mkdir -p "$work"
    echo "fuzz: $name for ${SECONDS_EACH}s (seeds: $seeds)"
    if ! "$bin" -max_total_time="$SECONDS_EACH" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
            -artifact_prefix="$out/${name}-" -print_final_stats=1 ${FUZZ_FLAGS:-} "$work" "$seeds" \
            > "$out/$name.log" 2>&1; then
        echo "fuzz: $name FAILED; log $out/$name.log, input $out/${name}-*" >&2
        grep -E 'ERROR|SUMMARY|runtime error' "$out/$name.log" | head -n 20 >&2 || true
        status=1
    else
        grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$out/$name.log" | tail -n 2 || true
    fi
done
exit $status
