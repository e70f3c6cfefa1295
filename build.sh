#!/usr/bin/env bash
# Build nb from a fresh Debian 12 machine.
#
# 1. Installs what is missing with apt-get (needs root the first time).
# 2. Builds a static libZydis 4.0 from Debian's own zydis source package,
#    because Debian ships Zydis only as a shared library and nb must be one
#    static executable.  The source is fetched with `apt-get source`; when the
#    machine has no deb-src entry, one is derived from its existing deb entries.
# 3. Runs make to build build/nb.
#
# Running it again is quick: every step checks whether its output is current.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$top"
build="$top/build"
third="$build/third_party"
mkdir -p "$build" "$third"

say() { printf 'build.sh: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else die "need root to run: $*"; fi
}

# --- 1. packages -------------------------------------------------------------
# binutils (as, objcopy) is only used by the tests and benchmarks; clang only
# for the fuzz target.
# python3-jsonschema checks -output json against docs/output-schema.json (tests).
pkgs=(gcc make cmake dpkg-dev libzycore-dev libzydis-dev libcmocka-dev binutils clang libclang-rt-14-dev python3 python3-jsonschema valgrind)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
apt_updated=0
if [ ${#missing[@]} -gt 0 ]; then
    say "installing: ${missing[*]}"
    as_root apt-get update -qq
    apt_updated=1
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# --- 2. static libZydis ------------------------------------------------------
zydis_lib="$build/zydis/libZydis.a"
zydis_inc="$build/zydis/include"

have_deb_src() {
    grep -rqsE '^[[:space:]]*(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/
}

add_deb_src() {
    # Derive source entries from the machine's own binary entries: same URIs,
    # suites and components, only the type changes.
    local out=/etc/apt/sources.list.d/nb-deb-src
    if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
        for f in /etc/apt/sources.list.d/*.sources; do
            sed -E 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb-src/' "$f"
            echo
        done | as_root tee "$out.sources" >/dev/null
    fi
    if [ -f /etc/apt/sources.list ] && grep -qE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list; then
        sed -nE 's/^[[:space:]]*deb([[:space:]])/deb-src\1/p' /etc/apt/sources.list | as_root tee "$out.list" >/dev/null
    fi
    as_root apt-get update -qq
}

if [ ! -f "$zydis_lib" ]; then
    src=$(ls -d "$third"/zydis-4.0*/ 2>/dev/null | head -n1 || true)
    if [ -z "$src" ]; then
        have_deb_src || { say "no deb-src entry: adding one derived from the deb entries"; add_deb_src; apt_updated=1; }
        say "fetching Debian's zydis source package"
        ( cd "$third" && apt-get source --download-only zydis >/dev/null 2>&1 ) || {
            [ $apt_updated -eq 1 ] || as_root apt-get update -qq
            ( cd "$third" && apt-get source --download-only zydis >/dev/null )
        } || die "apt-get source zydis failed"
        dsc=$(ls "$third"/zydis_4.0*.dsc | head -n1) || die "no zydis 4.0 .dsc downloaded"
        ( cd "$third" && dpkg-source --no-check -x "$(basename "$dsc")" >/dev/null )
        src=$(ls -d "$third"/zydis-4.0*/ | head -n1)
    fi
    say "building static libZydis from $src"
    cmake -S "$src" -B "$build/zydis-cmake" -DCMAKE_BUILD_TYPE=Release \
        -DZYDIS_BUILD_SHARED_LIB=OFF -DZYDIS_BUILD_EXAMPLES=OFF -DZYDIS_BUILD_TOOLS=OFF \
        -DZYDIS_BUILD_TESTS=OFF -DZYDIS_BUILD_DOXYGEN=OFF -DZYAN_SYSTEM_ZYCORE=ON \
        -DCMAKE_POSITION_INDEPENDENT_CODE=ON >/dev/null
    cmake --build "$build/zydis-cmake" -j"$(nproc)" >/dev/null
    mkdir -p "$build/zydis" "$zydis_inc"
    cp -r "$src/include/." "$zydis_inc/"
    cp -r "$build/zydis-cmake/"ZydisExportConfig.h "$zydis_inc/" 2>/dev/null || true
    cp "$build/zydis-cmake/libZydis.a" "$zydis_lib.tmp" && mv "$zydis_lib.tmp" "$zydis_lib"
fi

# --- 3. nb ---------------------------------------------------------------------
make -j"$(nproc)" all
say "built $build/nb"
