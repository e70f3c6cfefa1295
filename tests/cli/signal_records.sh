#!/usr/bin/env bash
# A signal that ends nb while it writes a record (here: blocked writing a
# 320 KB JSON record into a full pipe) leaves that record whole: nb finishes
# it, then stops.  Skips where /proc/PID/wchan cannot show that nb is
# blocked in the pipe write.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'exec 3<&-; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
set -m   # job control: without it bash starts background jobs with SIGINT ignored
for i in $(seq 100); do echo '-asm "imul rax, rax"'; done > "$tmp/batch"
mkfifo "$tmp/fifo"
for sig in INT TERM; do
    "$NB" -backend tsc -config /dev/null -n_measurements 5000 -warm_up_count 1 -unroll_count 10 \
        -batch "$tmp/batch" -output json > "$tmp/fifo" 2> "$tmp/err" &
    pid=$!
    exec 3< "$tmp/fifo"   # opened, not read: the pipe fills
    blocked=
    for _ in $(seq 600); do
        case $(cat /proc/$pid/wchan 2>/dev/null) in *pipe_write*) blocked=1; break ;; esac
        sleep 0.05
    done
    if [ -z "$blocked" ]; then
        kill -s KILL $pid; wait $pid 2>/dev/null
        echo "cannot see nb blocked in its write (/proc/$pid/wchan: $(cat /proc/$pid/wchan 2>&1))"
        exit 77
    fi
    kill -s "$sig" $pid
    sleep 0.2
    cat <&3 > "$tmp/out"
    exec 3<&-
    wait $pid; rc=$?
    [ $rc -eq $((128 + $(kill -l $sig))) ] || { cat "$tmp/err"; fail "SIG$sig: exit status $rc"; }
    grep -qx "nb: stopped by SIG$sig" "$tmp/err" || { cat "$tmp/err"; fail "SIG$sig: no message"; }
    [ "$(tail -c 2 "$tmp/out" | od -An -c | tr -d ' ')" = '}\n' ] ||
        fail "SIG$sig: the record is cut after $(wc -c < "$tmp/out") bytes: ...$(tail -c 60 "$tmp/out")"
    if grep -vn '^{"schema":.*}$' "$tmp/out" | head -n 3 | grep .; then fail "SIG$sig: a line is not a record"; fi
    echo "SIG$sig: $(wc -l < "$tmp/out") whole record(s), $(wc -c < "$tmp/out") bytes"
done
echo pass
