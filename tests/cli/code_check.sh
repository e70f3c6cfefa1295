#!/usr/bin/env bash
# Code that writes R15 with -loop_count > 0, or R8-R13 with -no_mem, is
# refused before it runs, naming the register and the statement (issue 14,
# item 18); it used to hang until the timeout or print nonsense.
set -u
NB=${NB:-build/nb}
fail=0
expect() {   # status, message part, nb arguments...
    local want=$1 needle=$2; shift 2
    local err rc
    err=$(timeout 30 "$NB" "$@" 2>&1 >/dev/null); rc=$?
    if [ $rc -ne "$want" ] || ! printf '%s' "$err" | grep -qF -- "$needle"; then
        echo "FAIL: nb $*: status $rc (want $want): $err"; fail=1
    fi
}
expect 1 "asm:2:1: 'mov r15d, 5' writes R15" -asm $'add rax, 1\nmov r15d, 5' -loop_count 10
expect 1 "asm:1:1: 'mov r8, 5' writes R8" -asm "mov r8, 5" -no_mem
expect 1 "asm_late_init:1:1: 'xor r12, r12' writes R12" -asm_late_init "xor r12, r12" -asm nop -no_mem
expect 1 "writes R11" -asm "syscall" -no_mem
expect 0 "" -asm "mov r15, 1" -backend tsc -config /dev/null
expect 0 "" -asm "add rax, r8" -no_mem -backend tsc -config /dev/null
exit $fail
