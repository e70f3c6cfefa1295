#!/usr/bin/env bash
# Build nb on Debian 12.  Usage: ./build.sh [--dev]
#
# 1. Installs the packages building nb needs, if missing (apt-get, root or
#    sudo), and says which: gcc make cmake dpkg-dev libzycore-dev.
#    --dev also installs what the tests and development targets need
#    (make test, clang-test, fuzz, valgrind, lint, golden): see dev_pkgs.
# 2. Builds a static libZydis 4.0 from Debian's own zydis source package
#    (Debian ships Zydis only as a shared library; nb is one static
#    executable).  The source is fetched with apt through a private source
#    list under build/apt/, derived from the machine's own deb entries: nothing
#    under /etc is written.  Signature checks stay on: apt checks the Release
#    file's signature and, from it, the Sources index; the downloaded files are
#    then checked against that index's SHA-256 sums once more here, and
#    dpkg-source checks the tarballs against the .dsc.
# 3. Runs make to build build/nb.
#
# Running it again is quick: every step checks whether its output is current.
set -euo pipefail

dev=0
for a in "$@"; do
    case $a in
        --dev) dev=1 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "build.sh: unknown argument '$a' (usage: ./build.sh [--dev])" >&2; exit 2 ;;
    esac
done

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
# Building: the compiler and make; cmake builds libZydis; dpkg-dev is
# dpkg-source, which unpacks Debian's source package; libzycore-dev holds the
# Zycore headers and cmake files Zydis is built against (Zydis's own headers
# and the static library come from its source package, so libzydis-dev is not
# needed).
build_pkgs=(gcc make cmake dpkg-dev libzycore-dev)
# Tests and development (./build.sh --dev; .ci/run):
#   libcmocka-dev       the unit tests (make test)
#   python3, python3-jsonschema  output checks against docs/output-schema.json,
#                       mess output parsing (make test)
#   binutils            GNU as/objdump for the golden corpus (make golden)
#   clang, libclang-rt-14-dev  make clang-test; libFuzzer for make fuzz
#   valgrind            make valgrind
#   cppcheck, clang-tidy  make lint
dev_pkgs=(libcmocka-dev python3 python3-jsonschema binutils clang libclang-rt-14-dev valgrind
          cppcheck clang-tidy)
pkgs=("${build_pkgs[@]}")
[ $dev -eq 0 ] || pkgs+=("${dev_pkgs[@]}")
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing with apt-get: ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
    say "packages: all present (${pkgs[*]})"
fi

# --- 2. static libZydis ------------------------------------------------------
zydis_lib="$build/zydis/libZydis.a"
zydis_inc="$build/zydis/include"
aptdir="$build/apt"

# The deb-src entries: one for every deb entry apt reads on this machine, same
# URIs, suites, components and options (Signed-By included), only the type
# changed.  One-line entries go to $aptdir/sources.list, deb822 stanzas to
# $aptdir/sources.list.d/derived.sources.
derive_sources() {
    local SL SP f
    eval "$(apt-config shell SL Dir::Etc::SourceList/f SP Dir::Etc::SourceParts/d)"
    rm -rf "$aptdir/sources.list" "$aptdir/sources.list.d"
    mkdir -p "$aptdir/sources.list.d"
    : > "$aptdir/sources.list"
    for f in "$SL" "$SP"*.list; do
        [ -f "$f" ] || continue
        sed -nE 's/^[[:space:]]*deb([[:space:]])/deb-src\1/p' "$f" >> "$aptdir/sources.list"
    done
    for f in "$SP"*.sources; do
        [ -f "$f" ] || continue
        # paragraph mode: one stanza a record; a stanza whose Types has deb
        # (and is not Enabled: no) is kept with Types: deb-src
        awk 'BEGIN { RS = ""; }
        {
            n = split($0, line, "\n"); keep = 0; on = 1; out = ""
            for (i = 1; i <= n; i++) {
                l = line[i]; low = tolower(l)
                if (low ~ /^types:/) {
                    if (substr(l, 7) ~ /(^|[ \t])deb([ \t]|$)/) keep = 1
                    l = "Types: deb-src"
                } else if (low ~ /^enabled:[ \t]*no/) on = 0
                out = out l "\n"
            }
            if (keep && on) printf "%s\n", out
        }' "$f" >> "$aptdir/sources.list.d/derived.sources"
    done
    [ -s "$aptdir/sources.list" ] || [ -s "$aptdir/sources.list.d/derived.sources" ] ||
        die "no deb entry in $SL or $SP to derive a deb-src entry from"
}

# apt with the private source list, lists and caches under build/apt; the
# machine's keyrings and apt.conf (proxies etc.) are used as they are.
apt_private() {
    apt-get -q -o Dir::Etc::SourceList="$aptdir/sources.list" \
        -o Dir::Etc::SourceParts="$aptdir/sources.list.d" \
        -o Dir::State="$aptdir/state" -o Dir::State::Lists="$aptdir/state/lists" \
        -o Dir::State::status=/var/lib/dpkg/status \
        -o Dir::Cache="$aptdir/cache" -o Dir::Cache::pkgcache="" -o Dir::Cache::srcpkgcache="" \
        "$@"
}

# Downloads zydis's source package into $third, checks every file against the
# SHA-256 and size of the Sources index apt verified, and unpacks it.
fetch_zydis() {
    derive_sources
    mkdir -p "$aptdir/state/lists/partial" "$aptdir/cache/archives/partial"
    say "fetching Debian's zydis source package (private source list: $aptdir)"
    apt_private update > "$aptdir/update.log" 2>&1 ||
        say "apt-get update reported errors (some entry may have no sources); see $aptdir/update.log"
    # When root, apt downloads as its sandbox user _apt: the download folder
    # is given to it, and the files are checked before they are used.
    local dl="$aptdir/download" uris
    rm -rf "$dl"; mkdir -p "$dl"
    if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$dl"; fi
    uris=$(cd "$dl" && apt_private source --print-uris zydis 2>> "$aptdir/update.log") ||
        { cat "$aptdir/update.log" >&2; die "apt-get source zydis failed (log above)"; }
    ( cd "$dl" && apt_private source --download-only zydis > "$aptdir/source.log" 2>&1 ) ||
        { cat "$aptdir/source.log" >&2; die "apt-get source zydis failed (log above)"; }
    local n=0 uri file size hash
    while read -r uri file size hash; do
        case $uri in \'*) ;; *) continue ;; esac
        [ "${hash%%:*}" = SHA256 ] || die "no SHA-256 for $file in the Sources index"
        [ "$(stat -c %s "$dl/$file")" = "$size" ] || die "$file: size differs from the Sources index"
        echo "${hash#SHA256:}  $dl/$file" | sha256sum -c --quiet - ||
            die "$file: SHA-256 differs from the Sources index"
        chown "$(id -u):$(id -g)" "$dl/$file"
        mv "$dl/$file" "$third/"
        n=$((n + 1))
    done <<< "$uris"
    [ $n -gt 0 ] || die "apt listed no files for zydis"
    local dsc
    dsc=$(ls "$third"/zydis_4.0*.dsc 2>/dev/null | head -n1) || true
    [ -n "$dsc" ] || die "no zydis 4.0 .dsc downloaded (apt's: $(ls "$third"/*.dsc 2>/dev/null))"
    say "$n files match the SHA-256 sums of the signed Sources index; unpacking $(basename "$dsc")"
    # The .dsc's own OpenPGP signature is its uploader's, whose key is not in
    # apt's keyrings (dpkg-source warns that it cannot check it); its
    # authenticity comes from the Sources index checked above.
    ( cd "$third" && dpkg-source --require-strong-checksums -x "$(basename "$dsc")" \
        > "$aptdir/dpkg-source.log" 2>&1 ) ||
        { cat "$aptdir/dpkg-source.log" >&2; die "dpkg-source -x failed (log above)"; }
    rm -rf "$aptdir/state" "$aptdir/cache" "$dl"   # not needed again
}

if [ ! -f "$zydis_lib" ]; then
    src=$(ls -d "$third"/zydis-4.0*/ 2>/dev/null | head -n1 || true)
    if [ -z "$src" ]; then
        fetch_zydis
        src=$(ls -d "$third"/zydis-4.0*/ | head -n1)
    fi
    say "building static libZydis from $src"
    cmake -S "$src" -B "$build/zydis-cmake" -DCMAKE_BUILD_TYPE=Release \
        -DZYDIS_BUILD_SHARED_LIB=OFF -DZYDIS_BUILD_EXAMPLES=OFF -DZYDIS_BUILD_TOOLS=OFF \
        -DZYDIS_BUILD_DOXYGEN=OFF -DZYAN_SYSTEM_ZYCORE=ON \
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
[ $dev -eq 1 ] || say "to run the tests: ./build.sh --dev (installs ${dev_pkgs[*]}), then make test"
