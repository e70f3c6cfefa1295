#!/usr/bin/env bash
# nb -mess checks its outputs and options before it measures: an output
# prefix in a missing directory fails at once (not after the measurement), a
# prefix that names a directory (dir/, .) is refused instead of writing
# hidden .csv/.json/.svg, a generator buffer below 64 KiB and a CPU named
# twice in -mess_gen_cpus are refused; one pad per curve prints no 'nan'.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
case $NB in /*) ;; *) NB=$PWD/$NB ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# about 6 s of measuring (3 points x 2 repetitions x 1 s) if nb measured
# first, where the checks take a moment (under valgrind: 30 s, and 15 s)
ms=1000 limit=3
[ -z "${NB_UNDER_VALGRIND:-}" ] || { ms=5000; limit=15; }
SLOW=(-mess -mess_size 4M -mess_gen_size 4M -mess_mixes 100 -mess_pads 0,64 -mess_reps 2
      -mess_settle 1 -mess_time $ms -mess_quiet)

mkdir "$tmp/run" "$tmp/d"
# refused WANT_STATUS MESSAGE ARGS...: nb ARGS (run in $tmp/run) fails with
# that status and message on stderr, at once, and writes no file there or
# in $tmp/d
refused() {
    local want=$1 msg=$2 rc
    shift 2
    SECONDS=0
    ( cd "$tmp/run" && exec "$NB" "$@" ) > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ $rc -eq "$want" ] || { cat "$tmp/out" "$tmp/err"; fail "$*: exit status $rc, want $want"; }
    grep -q -- "$msg" "$tmp/err" || { cat "$tmp/err"; fail "$*: no '$msg' on stderr"; }
    [ $SECONDS -le $limit ] || fail "$*: took $SECONDS s: measured before checking"
    [ -z "$(ls -A "$tmp/run")" ] || fail "$*: wrote $(ls -A "$tmp/run")"
    ! ls -A "$tmp/d" | grep -qv '^x\.csv$' || fail "$*: wrote $(ls -A "$tmp/d")"
}
refused 4 "-mess_out: cannot write /nonexistent/x.csv: No such file or directory" \
    "${SLOW[@]}" -mess_out /nonexistent/x
refused 2 "-mess_out: $tmp/d/ names a directory" "${SLOW[@]}" -mess_out "$tmp/d/"
refused 2 "-mess_out: . names a directory" "${SLOW[@]}" -mess_out .
refused 2 "-mess_out: .. names a directory" "${SLOW[@]}" -mess_out ..
refused 2 "-mess_out: empty value" "${SLOW[@]}" -mess_out ""
mkdir "$tmp/d/x.csv"
refused 4 "-mess_out: cannot write $tmp/d/x.csv: Is a directory" "${SLOW[@]}" -mess_out "$tmp/d/x"
rmdir "$tmp/d/x.csv"
refused 2 "-mess_gen_size.*1 is out of range" "${SLOW[@]}" -mess_gen_size 1
refused 2 "-mess_gen_size.*65535 is out of range" "${SLOW[@]}" -mess_gen_size 65535
refused 2 "-mess_gen_cpus: CPU 1 is named twice" "${SLOW[@]}" -mess_gen_cpus 1,1,1
refused 2 "-mess_gen_cpus: CPU 1 is named twice" "${SLOW[@]}" -mess_gen_cpus 0-1,1

# one pad per curve: no interpolation at 90% of the peak, and no 'nan'
"$NB" -mess -mess_size 4M -mess_gen_size 4M -mess_mixes 100 -mess_pads 0 -mess_reps 1 \
    -mess_settle 1 -mess_time 5 -mess_quiet -mess_out "$tmp/one" > "$tmp/out" 2> "$tmp/err" ||
    { cat "$tmp/err"; fail "one pad: status $?"; }
! grep -qi 'nan' "$tmp/out" || { cat "$tmp/out"; fail "one pad: 'nan' in the summary"; }
grep -q '^mess: latency at 90% of peak: not known' "$tmp/out" || { cat "$tmp/out"; fail "one pad: no word on the 90% latency"; }
echo pass
