#!/usr/bin/env bash
# Benchmark code written to get out (issue 17, item 2), against the real
# binary: it calls libc's syscall() inside nb (its address from `nm`), or a
# `syscall; ret` found in nb's text (objdump), to write to nb's stderr,
# create a file, fork and signal nb's process group.  None of it may take
# effect: each is reported as a trapped system call (exit 3), nothing
# reaches stderr, no file appears, no process is left, nb is not killed.
# While the code runs, the measuring process has /dev/null as stdout and
# stderr and no capability.
# A dynamically linked nb (make clang-test) has libc's syscall() outside
# its own text: those cases are then covered by tests/test_hostile.c alone.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
name=nbh$$
cp "$NB" "$tmp/$name"
NBT=$tmp/$name
ours() {
    for s in /proc/[0-9]*/stat; do
        { read -r pid comm _ < "$s"; } 2>/dev/null || continue
        [ "$comm" = "($name)" ] && echo "$pid"
    done
}
cleanup() {
    for p in $(ours); do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT

if head -c 300 "$NB" 2>/dev/null | grep -q valgrind; then
    echo "under valgrind: the sandbox is off there (valgrind's own system calls)"; exit 77
fi
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
common=(-backend tsc -config /dev/null -unroll_count 1 -n_measurements 2 -warm_up_count 0
        -initial_warm_up_count 0)

# run CODE: nb in its own session (a kill(0, ...) reaches nb's group only)
run() {
    (cd "$tmp" && exec setsid "$NBT" "${common[@]}" -asm "$1" > out 2> err)
    rc=$?
    err=$(cat "$tmp/err")
}
trapped() {   # LABEL CALL
    if [ $rc -ne 3 ]; then fail "$1: exit $rc, want 3: $err"; return; fi
    grep -q "system call ($2, number" <<< "$err" || { fail "$1: $2 not reported: $err"; return; }
    grep -q PWNED <<< "$err" && { fail "$1: the benchmark wrote to nb's stderr: $err"; return; }
    echo "ok  $1: $err"
}

pwned='mov rax, 0x000a2144454e5750; mov [r14], rax'
fn=$(nm "$NB" 2>/dev/null | awk '$2 == "T" && $3 == "syscall" {print $1; exit}')
gadget=$(objdump -d --no-show-raw-insn "$NB" 2>/dev/null |
         awk '/\tsyscall *$/ {a=$1; next} a && /\tret *$/ {sub(":", "", a); print a; exit} {a=""}')
if [ -n "$fn" ]; then
    call="mov rax, 0x$fn; call rax"
    run "$pwned; mov edi, 1; mov esi, 2; mov rdx, r14; mov ecx, 7; $call"
    trapped "syscall(write, 2, ...)" write
    run "mov rax, 0x64656e7770; mov [r14], rax; mov edi, 2; mov rsi, r14; mov edx, 0x41; mov ecx, 0x1a4; $call"
    trapped "syscall(open, O_CREAT)" open
    [ -e "$tmp/pwned" ] && fail "the benchmark code created a file"
    run "mov edi, 57; $call"
    trapped "syscall(fork)" fork
    run "mov edi, 62; xor esi, esi; mov edx, 9; $call"
    trapped "syscall(kill, 0, SIGKILL)" kill
else
    echo "note: no libc syscall() in $NB (dynamically linked): see test_hostile"
fi
if [ -n "$gadget" ]; then
    run "$pwned; mov edi, 2; mov rsi, r14; mov edx, 7; mov eax, 1; mov rcx, 0x$gadget; call rcx"
    trapped "syscall; ret at 0x$gadget (write)" write
else
    echo "note: no 'syscall; ret' found in $NB"
fi
sleep 0.2
left=$(ours)
[ -z "$left" ] && echo "ok  no process left behind" || fail "processes left behind: $left"

# The measuring process while the code runs: stdout and stderr are
# /dev/null, no capability (nb runs as root in CI: it has them all).
(cd "$tmp" && exec "$NBT" -backend tsc -config /dev/null -timeout 30 -asm "l: jmp l" > out 2> err) &
nb=$!
child=""
for _ in $(seq 100); do
    child=$(cat "/proc/$nb/task/$nb/children" 2>/dev/null | tr -d ' ')
    [ -n "$child" ] && [ "$(sed -n 's/^Seccomp:[[:space:]]*//p' "/proc/$child/status")" = 2 ] && break
    sleep 0.05
done
if [ -z "$child" ]; then
    fail "no measuring process seen"
else
    sleep 0.1
    before=$fails
    for fd in 1 2; do
        t=$(readlink "/proc/$child/fd/$fd")
        [ "$t" = /dev/null ] || fail "the measuring process's fd $fd is $t, not /dev/null"
    done
    for k in CapEff CapPrm CapInh CapAmb; do
        v=$(sed -n "s/^$k:[[:space:]]*//p" "/proc/$child/status")
        [ -z "$v" ] || [ "$v" = 0000000000000000 ] || fail "the measuring process has $k $v"
    done
    [ $fails -eq $before ] && echo "ok  measuring process: fds 1 and 2 /dev/null, no capability"
fi
kill -TERM $nb; wait $nb 2>/dev/null

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo pass
