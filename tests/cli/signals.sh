#!/usr/bin/env bash
# Signals that reach nb mid-batch: a signal whose default action ends a
# process ends nb with "nb: stopped by SIGx" (SIGPIPE: quietly), exit status
# 128 + x, no core file (where core files land in the working directory), no
# measuring process left, and only whole records written (a signal in the
# middle of one: signal_records.sh); a signal nb was started with ignored
# stays ignored (nohup); a closed output pipe ends nb quietly and at once,
# SIGPIPE ignored or not.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
case $NB in /*) ;; *) NB=$PWD/$NB ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
set -m   # job control: without it bash starts background jobs with SIGINT and SIGQUIT ignored
ulimit -c unlimited 2>/dev/null || true   # a core file, if nb let one happen, lands in $tmp/run
mkdir "$tmp/run"
FAST=(-backend tsc -config /dev/null -n_measurements 3 -warm_up_count 1 -unroll_count 100)
yes -- '-asm "imul rax, rax"' | head -n 100000 > "$tmp/batch"
BIG=(-backend tsc -config /dev/null -n_measurements 5000 -warm_up_count 1 -unroll_count 10)

# start CMD...: CMD in the background in $tmp/run; waits for its first record
start() {
    ( cd "$tmp/run" && exec "$@" ) > "$tmp/out" 2> "$tmp/err" &
    pid=$!
    for _ in $(seq 600); do [ -s "$tmp/out" ] && break; sleep 0.05; done
    [ -s "$tmp/out" ] || { cat "$tmp/err"; fail "no record from nb within 30 s"; }
    kids=$(cat /proc/$pid/task/*/children 2>/dev/null)
}

# whole: every line of $tmp/out is a whole JSON record
whole() {
    [ "$(tail -c 2 "$tmp/out" | od -An -c | tr -d ' ')" = '}\n' ] ||
        fail "$1: the last record is cut: ...$(tail -c 80 "$tmp/out")"
    if grep -vn '^{"schema":.*}$' "$tmp/out" | head -n 3 | grep .; then fail "$1: a line is not a record"; fi
}

# quiet: nb said nothing but its notes (the backend; under valgrind, that
# system calls are not trapped, and valgrind's own warnings)
quiet() { ! grep -Ev '^nb: (backend|note): |^--[0-9]+-- ' "$tmp/err" | grep -q .; }

# ended SIG: nb ended by SIG, said so, left no core file and no child
ended() {
    local sig=$1 rc num
    wait "$pid"; rc=$?
    num=$(kill -l "$sig")
    [ "$rc" -eq $((128 + num)) ] || { cat "$tmp/err"; fail "SIG$sig: exit status $rc, want $((128 + num))"; }
    if [ "$sig" = PIPE ]; then
        quiet || { cat "$tmp/err"; fail "SIGPIPE: nb is not quiet"; }
    else
        grep -qx "nb: stopped by SIG$sig" "$tmp/err" || { cat "$tmp/err"; fail "SIG$sig: no 'nb: stopped by SIG$sig'"; }
    fi
    ! ls "$tmp"/run/core* > /dev/null 2>&1 || fail "SIG$sig: a core file: $(ls "$tmp"/run)"
    for k in $kids; do
        for _ in $(seq 40); do [ -e /proc/$k ] || break; sleep 0.05; done
        [ ! -e /proc/$k ] || fail "SIG$sig: the measuring process $k outlived nb"
    done
    whole "SIG$sig"
}

# a sample (tests/test_restore.c sends every one to the handler)
for sig in INT QUIT USR1 PIPE ALRM PROF RTMIN+5; do
    start "$NB" "${FAST[@]}" -batch "$tmp/batch" -output json
    kill -s "$sig" "$pid"
    ended "$sig"
done

# SIGXFSZ as it comes: the output file reaches the file size limit
( ulimit -f 8; cd "$tmp/run" && exec "$NB" "${BIG[@]}" -batch "$tmp/batch" -output json ) \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq $((128 + $(kill -l XFSZ))) ] || { cat "$tmp/err"; fail "file size limit: exit status $rc"; }
grep -qx "nb: stopped by SIGXFSZ" "$tmp/err" || { cat "$tmp/err"; fail "file size limit: no message"; }
! ls "$tmp"/run/core* > /dev/null 2>&1 || fail "file size limit: a core file"

# nohup: SIGHUP stays ignored, the batch goes on (and ends by SIGTERM)
start nohup "$NB" "${FAST[@]}" -batch "$tmp/batch" -output json
kill -s HUP "$pid"
sleep 0.3
kill -0 "$pid" 2> /dev/null || { wait "$pid"; echo "status $?"; cat "$tmp/err"; fail "nohup: SIGHUP ended nb"; }
kill -s TERM "$pid"
ended TERM

# a closed output pipe: quiet, and at once (the batch would take many seconds)
for ign in "" PIPE; do
    SECONDS=0
    ( [ -z "$ign" ] || trap '' PIPE; exec "$NB" "${FAST[@]}" -batch "$tmp/batch" -output json ) 2> "$tmp/err" |
        head -n 1 > /dev/null
    rc=${PIPESTATUS[0]}
    quiet || { cat "$tmp/err"; fail "closed pipe${ign:+ (SIGPIPE ignored)}: nb is not quiet"; }
    [ $SECONDS -le 5 ] || fail "closed pipe${ign:+ (SIGPIPE ignored)}: nb went on for $SECONDS s"
    case $rc in 141 | 4) ;; *) fail "closed pipe${ign:+ (SIGPIPE ignored)}: exit status $rc" ;; esac
done
echo pass
