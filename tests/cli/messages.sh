#!/usr/bin/env bash
# Messages that said the wrong thing (issue 17, item 14), each checked for
# what it says now.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
fails=0 mark=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { [ $fails -eq $mark ] && echo "ok  $*"; mark=$fails; }
valgrind=no
head -c 300 "$NB" 2>/dev/null | grep -q valgrind && valgrind=yes
common=(-backend tsc -config /dev/null)

# A measuring process stopped from outside (SIGSTOP) is not "the benchmark
# code did not finish": it is named, exit 4.
if [ $valgrind = no ]; then
    "$NB" "${common[@]}" -timeout 1 -asm "l: jmp l" > "$tmp/out" 2> "$tmp/err" &
    nb=$!
    pids+=($nb)
    child=""
    for _ in $(seq 100); do
        child=$(cat "/proc/$nb/task/$nb/children" 2>/dev/null | tr -d ' ')
        [ -n "$child" ] && break
        sleep 0.02
    done
    [ -n "$child" ] && kill -STOP "$child"
    wait $nb
    rc=$?
    [ $rc -eq 4 ] || fail "SIGSTOP: exit $rc, want 4"
    grep -q 'stopped by SIGSTOP from outside nb' "$tmp/err" || fail "SIGSTOP: $(cat "$tmp/err")"
    ok "SIGSTOP: $(cat "$tmp/err")"
fi

# -timeout too short for nb's own preparation: said so, no blame on nb's
# code, a usage error (exit 2)
"$NB" "${common[@]}" -timeout 0.0001 -asm "nop" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then
    echo "note: -timeout 0.0001 was enough here: not judged"
else
    [ $rc -eq 2 ] || fail "-timeout 0.0001: exit $rc, want 2"
    grep -q 'ran out before the benchmark code started: nb was still preparing the run' "$tmp/err" ||
        fail "-timeout 0.0001: $(cat "$tmp/err")"
    grep -q 'calibration code\|a bug in nb' "$tmp/err" && fail "-timeout 0.0001 blames nb: $(cat "$tmp/err")"
    ok "-timeout 0.0001: $(cat "$tmp/err")"
fi

# Bytes a terminal acts on, or that are not UTF-8, are shown as \xNN: in
# messages, source lines (with the caret under the right column) and the
# text output's batch headers.
raw() { LC_ALL=C grep -c $'\x1b\|\xef\xbb\xbf\|\xff\|\xe2\x80\xae' "$1"; }
"$NB" "${common[@]}" -asm $'\xef\xbb\xbfnop' > "$tmp/out" 2> "$tmp/err"
grep -q 'unexpected byte-order mark (\\xef\\xbb\\xbf)' "$tmp/err" || fail "BOM: $(cat -v "$tmp/err")"
[ "$(raw "$tmp/err")" -eq 0 ] || fail "BOM echoed raw: $(cat -v "$tmp/err")"
"$NB" "${common[@]}" -asm $'nop; \x1b[2J; nop' > "$tmp/out" 2> "$tmp/err"
grep -qF "unexpected character '\\x1b'" "$tmp/err" || fail "ESC: $(cat -v "$tmp/err")"
grep -qx '    nop; \\x1b\[2J; nop' "$tmp/err" || fail "ESC source line: $(cat -v "$tmp/err")"
grep -qx '         \^' "$tmp/err" || fail "ESC caret: $(cat -v "$tmp/err")"
[ "$(raw "$tmp/err")" -eq 0 ] || fail "ESC echoed raw: $(cat -v "$tmp/err")"
"$NB" "${common[@]}" -asm $'mov rax, \xff\xfe\xe2\x80\xae' > "$tmp/out" 2> "$tmp/err"
grep -qF "unexpected character '\\xff'" "$tmp/err" || fail "invalid bytes: $(cat -v "$tmp/err")"
[ "$(raw "$tmp/err")" -eq 0 ] || fail "invalid bytes echoed raw: $(cat -v "$tmp/err")"
printf -- '-asm "nop\033[2J"\n' > "$tmp/lines"
"$NB" "${common[@]}" -batch "$tmp/lines" > "$tmp/out" 2> "$tmp/err"
[ "$(raw "$tmp/out")" -eq 0 ] && [ "$(raw "$tmp/err")" -eq 0 ] ||
    fail "batch line echoed raw: $(cat -v "$tmp/out" "$tmp/err")"
grep -qF '# line 1: -asm "nop\x1b[2J"' "$tmp/out" || fail "batch header: $(cat -v "$tmp/out")"
ok "BOM, ESC, invalid UTF-8 shown as \\xNN"

# A size past the limit names the limit; a suffix nb does not know is named
"$NB" -asm nop -r14_size 1T -emit - > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'option -r14_size: 1T is out of range (4K to 64G)' "$tmp/err" ||
    fail "-r14_size 1T: exit $rc: $(cat "$tmp/err")"
"$NB" -asm nop -r14_size 1X -emit - > /dev/null 2> "$tmp/err"
grep -q "option -r14_size: '1X': the size suffix must be K, M, G or T" "$tmp/err" ||
    fail "-r14_size 1X: $(cat "$tmp/err")"
ok "-r14_size 1T: $(cat "$tmp/err")"

# A resource limit is a system error (exit 4) naming the limit, not bad
# input (exit 1)
# (3: -config's file cannot be opened; 4: the measuring process's socket
# cannot be made.  A dynamically linked nb may not even load at 3.)
# (not under valgrind, which needs descriptors of its own before nb runs)
for n in 3 4; do
    [ -n "${NB_UNDER_VALGRIND:-}" ] && { echo "note: ulimit -n $n not tried under valgrind"; continue; }
    (ulimit -n $n; exec "$NB" "${common[@]}" -asm nop) > /dev/null 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 127 ]; then echo "note: ulimit -n $n: nb does not load: $(cat "$tmp/err")"; continue; fi
    [ $rc -eq 4 ] && grep -q 'Too many open files' "$tmp/err" && grep -q 'ulimit -n' "$tmp/err" ||
        fail "ulimit -n $n: exit $rc: $(cat "$tmp/err")"
    ok "ulimit -n $n: $(tr '\n' ' ' < "$tmp/err")"
done

# A batch whose measuring process cannot be forked stops at the first line
# (exit 4), instead of failing every line (exit 5).  RLIMIT_NPROC binds
# only a user without CAP_SYS_RESOURCE: run as nobody.
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null && id nobody > /dev/null 2>&1 &&
   [ $valgrind = no ]; then
    chmod 755 "$tmp"
    for i in $(seq 200); do echo '-asm "add rax, rbx"'; done > "$tmp/b200"
    chmod 644 "$tmp/b200"
    # (LeakSanitizer's thread cannot start at ulimit -u 1 either: off)
    ASAN_OPTIONS=detect_leaks=0 setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups bash -c \
        "ulimit -u 1; exec $(realpath "$NB") -backend tsc -config /dev/null -batch $tmp/b200" \
        > "$tmp/out" 2> "$tmp/err"
    rc=$?
    n=$(grep -c 'fork' "$tmp/err")
    [ $rc -eq 4 ] && [ "$n" -eq 1 ] && grep -q 'line 1 (the batch stops there): cannot start the measuring process: fork' "$tmp/err" ||
        fail "fork failing in a batch: exit $rc, $n fork errors: $(head -c 400 "$tmp/err")"
    ok "fork failing in a batch: $(grep -m1 fork "$tmp/err")"
else
    echo "note: not root (or no setpriv/nobody, or valgrind): a failing fork() is not tried"
fi

[ $fails -eq 0 ] || exit 1
echo pass
