#!/usr/bin/env bash
# Every write error is reported with its reason and exit status 4: standard
# output on a full device (results, -help, listings, -mess, -emit -), -emit
# into a full device, standard output closed.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -w /dev/full ] || { echo "no /dev/full here"; exit 77; }
FAST=(-backend tsc -config /dev/null -n_measurements 3 -warm_up_count 1 -unroll_count 10)
MESS=(-mess -mess_size 4M -mess_gen_size 4M -mess_mixes 100 -mess_pads 0,64 -mess_reps 1
      -mess_settle 1 -mess_time 5 -mess_sg 1 -mess_quiet -mess_out "$tmp/m")

# expect REASON OUT CMD...: CMD with standard output on OUT (- : closed)
# exits 4 and its stderr names REASON
expect() {
    local reason=$1 out=$2 rc
    shift 2
    if [ "$out" = - ]; then "$@" 2> "$tmp/err" >&-; else "$@" 2> "$tmp/err" > "$out"; fi
    rc=$?
    [ $rc -eq 4 ] || { cat "$tmp/err"; fail "$*: exit status $rc, want 4"; }
    grep -q "^nb: .*$reason" "$tmp/err" || { cat "$tmp/err"; fail "$*: no '$reason' on stderr"; }
}
full="No space left on device"
printf -- '-asm nop\n-asm nop\n' > "$tmp/batch"
expect "$full" /dev/full "$NB" "${FAST[@]}" -asm nop
expect "$full" /dev/full "$NB" "${FAST[@]}" -asm nop -output json
expect "$full" /dev/full "$NB" "${FAST[@]}" -asm nop -output csv
expect "$full" /dev/full "$NB" "${FAST[@]}" -batch "$tmp/batch" -output json
expect "$full" /dev/full "$NB" -help
expect "$full" /dev/full "$NB" -version
expect "$full" /dev/full "$NB" -list_uarchs
expect "$full" /dev/full "$NB" -list_events -uarch Zen4
expect "$full" /dev/full "$NB" -cpu_info
expect "$full" /dev/full "$NB" -asm nop -print_code
expect "$full" /dev/full "$NB" -asm nop -emit -
expect "-emit /dev/full: .*$full" /dev/null "$NB" -asm nop -emit /dev/full
expect "$full" /dev/full "$NB" -mess -mess_help
expect "$full" /dev/full "$NB" "${MESS[@]}"
# (valgrind's own log file takes a closed descriptor 1: not judged there)
if [ -z "${NB_UNDER_VALGRIND:-}" ]; then
    expect "Bad file descriptor" - "$NB" "${FAST[@]}" -asm nop
    expect "Bad file descriptor" - "$NB" -help
fi
echo pass
