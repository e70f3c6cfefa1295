#!/usr/bin/env bash
# Every fault of the benchmarked code is reported, in -asm and in each init
# fragment: one `nb:` line naming the kind, the address where there is one,
# the fragment, offset, instruction and copy; exit status 3; nothing on
# stdout (a write(1, ...) from the benchmark is trapped); no core file; no
# process left behind.  Then SIGINT, SIGTERM and SIGHUP to nb (and SIGINT to
# its whole process group, as Ctrl-C sends it) during an endless benchmark:
# nb says so, dies of that signal, and its child is gone; SIGKILL of nb
# takes the child with it.  (Settings restored through a fake sysfs/msr
# root after a fault and after each signal: tests/test_faults.c.)
# Exit 77 (skip) only if the kernel cannot trap system calls here (seccomp);
# every other case has still been checked then.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
tmp=$(mktemp -d)
# A private copy with its own name (its `comm`), so that this test's nb
# processes, zombies included, can be told from any other.
name=nbf$$
cp "$NB" "$tmp/$name"
NBT=$tmp/$name
ours() {
    for s in /proc/[0-9]*/stat; do
        read -r pid comm _ < "$s" 2>/dev/null || continue
        [ "$comm" = "($name)" ] && echo "$pid"
    done
}
cleanup() {
    for p in $(ours); do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
ulimit -c unlimited 2>/dev/null   # the child must set its own limit to 0

# tests/valgrind.sh wraps nb in a script that runs valgrind.
if head -c 300 "$NB" 2>/dev/null | grep -q valgrind; then
    echo "under valgrind: the benchmark code faults on purpose, which valgrind reports as" \
         "errors, and valgrind's emulated CPU differs (no AC checks, no seccomp, other fault places)"
    exit 77
fi

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
skip_reason=""

common=(-backend tsc -config /dev/null -unroll_count 2 -n_measurements 1 -warm_up_count 0)

# run FRAGMENT CODE [extra options...]: nb in $tmp; sets rc, out, err
run() {
    local frag=$1 code=$2
    shift 2
    local args=("${common[@]}" "$@")
    if [ "$frag" = asm ]; then args+=(-asm "$code"); else args+=(-asm nop "-$frag" "$code"); fi
    (cd "$tmp" && "$NBT" "${args[@]}" > out 2> err)
    rc=$?
    out=$(cat "$tmp/out")
    err=$(cat "$tmp/err")
}

# check LABEL FRAGMENT REGEX: exit 3, nothing on stdout, one `nb:` line
# matching REGEX and naming the fragment
check() {
    local label=$1 frag=$2 re=$3
    local what="$label in -$frag"
    if [ $rc -ne 3 ]; then fail "$what: exit $rc, want 3: $err"; return; fi
    [ -z "$out" ] || fail "$what: stdout not empty: $(printf '%q' "$out")"
    local lines
    lines=$(printf '%s\n' "$err" | grep -v '^nb: note: ' | grep -c .)
    [ "$lines" -eq 1 ] || fail "$what: $lines lines on stderr, want 1: $err"
    printf '%s\n' "$err" | grep -qE "^nb: .*$re" || { fail "$what: message does not match /$re/: $err"; return; }
    printf '%s\n' "$err" | grep -qE -- "in -$frag([,:; (]|$)" || fail "$what: fragment -$frag not named: $err"
    echo "ok  $what: $err"
}

# The instruction this CPU lacks, picked from CPUID's flags.
flags=$(grep -m1 '^flags' /proc/cpuinfo)
has() { [[ " $flags " == *" $1 "* ]]; }
missing_code="" missing_re=""
if ! has amx_tile; then missing_code="tilerelease"; missing_re="needs AMX-TILE"
elif ! has avx512f; then missing_code="vpaddd zmm0, zmm0, zmm0"; missing_re="needs AVX512F"
elif ! has sse4a; then missing_code="extrq xmm0, xmm1"; missing_re="needs SSE4A"
fi

U='(unmapped|inaccessible)'   # ASan keeps a no-access gap where a plain nb has nothing
H='0x[0-9a-f]+'
HA='0x[0-9a-f]*1'   # an odd (misaligned) address
# label | code | regex of the report (after the place)
cases=(
"null load|mov rax, [rbx]|raised SIGSEGV at \+0x0 \(mov rax, \[rbx\]\).*: read of unmapped address 0x0 \(a null pointer\)$"
"null store|mov [rbx], rax|raised SIGSEGV at \+0x0 \(mov \[rbx\], rax\).*: write to unmapped address 0x0 \(a null pointer\)$"
"wild load|mov rax, 0x100000000; mov rax, [rax]|raised SIGSEGV at \+0xa \(mov rax, \[rax\]\).*: read of $U address 0x100000000$"
"wild store|mov rax, 0x100000000; mov [rax], rax|raised SIGSEGV at \+0xa \(mov \[rax\], rax\).*: write to $U address 0x100000000$"
"stack overflow (push)|mov rsp, 0x1000; push rax|raised SIGSEGV at \+0x7 \(push rax\).*: write to unmapped address 0xff8 on the stack: RSP = 0x1000 does not point into usable memory$"
"stack overflow (recursion)|l: call l|raised SIGSEGV at \+0x0 \(call 0x0+\).*: stack overflow: write to $H, in the guard page below RSP's 1 MB area \(RSP = $H\)$"
"jump into data|jmp rdi|raised SIGSEGV: it jumped to $H, which is not executable \(RDI's memory area\), from \+0x0 \(jmp rdi\)"
"ud2|nop; ud2|raised SIGILL at \+0x1 \(ud2\).*: invalid instruction: ud2 raises #UD by design$"
"int3|nop; int3|raised SIGTRAP at \+0x1 \(int3\).*: breakpoint: int3$"
"int1 (last of a copy)|nop; int1|raised SIGTRAP at \+0x1 \(int1\) in -[a-z_]+(, copy 1 of [0-9]+)?: debug trap: int1 \(icebp\) raises #DB by design$"
"division by zero|xor ecx, ecx; div rcx|raised SIGFPE at \+0x2 \(div rcx\).*: integer division by zero \(the divisor is 0\)$"
"rdmsr|rdmsr|raised SIGSEGV at \+0x0 \(rdmsr\).*: privileged instruction: rdmsr runs in ring 0"
"wrmsr|wrmsr|raised SIGSEGV at \+0x0 \(wrmsr\).*: privileged instruction: wrmsr runs in ring 0"
"hlt|hlt|raised SIGSEGV at \+0x0 \(hlt\).*: privileged instruction: hlt runs in ring 0"
"cli|cli|raised SIGSEGV at \+0x0 \(cli\).*: privileged instruction: cli needs I/O privilege"
"mov cr0|mov cr0, rax|raised SIGSEGV at \+0x0 \(mov cr0, rax\).*: privileged instruction: mov cr0, rax runs in ring 0"
"syscall exit|mov eax, 60; syscall|executed a system call \(exit, number 60\) at \+0x5 \(syscall\).*; system calls are not allowed in benchmark code"
"syscall exit_group|mov eax, 231; syscall|executed a system call \(exit_group, number 231\) at \+0x5 \(syscall\)"
"syscall write|mov rax, 0x0a44454b41454c; mov [r14], rax; mov eax, 1; mov edi, 1; mov rsi, r14; mov edx, 7; syscall|executed a system call \(write, number 1\) at \+0x1f \(syscall\)"
"ret off the end|ret|raised SIGSEGV: it jumped to 0x0, which is not mapped, from \+0x0 \(ret\).*the ret found no return address"
"jmp outside (absolute)|mov rax, 0x100000000; jmp rax|raised SIGSEGV: it jumped to 0x100000000, which is not (mapped|executable), from \+0xa \(jmp rax\)"
"jmp outside (relative)|nop; jmp \$-0x10000000|raised SIGSEGV: it jumped to $H, which is not (mapped|executable), from \+0x1 \(jmp 0x[0-9a-fA-F]*[fF]0000001\)"
"misaligned movaps|movaps xmm0, [r14+1]|raised SIGSEGV at \+0x0 \(movaps xmm0, \[r14\+0x01\]\).*: general protection fault: misaligned 16-byte memory operand at $HA; movaps needs it 16-byte aligned$"
"SIGBUS (EFLAGS.AC)|pushfq; or dword ptr [rsp], 0x40000; popfq; mov rax, [r14+1]|raised SIGBUS at \+0x9 \(mov rax, \[r14\+0x01\]\).*: alignment check: misaligned 8-byte access at $HA with EFLAGS.AC set$"
)
[ -n "$missing_code" ] && cases+=("missing instruction|$missing_code|raised SIGILL at \+0x0 \(.*\).*: instruction not supported by this CPU \($missing_re\)$")
[ -n "$missing_code" ] || echo "note: this CPU has AMX-TILE, AVX512F and SSE4A; no instruction it lacks is known to this test"

sandbox=yes
for frag in asm asm_init asm_late_init asm_one_time_init; do
    for c in "${cases[@]}"; do
        IFS='|' read -r label code re <<< "$c"
        run "$frag" "$code"
        if [[ $label == syscall* ]] && grep -q 'nb: note: system calls of the benchmark code are not trapped' <<< "$err"; then
            sandbox=no; skip_reason=$(grep -m1 'nb: note:' <<< "$err")
            echo "skip $label in -$frag: $skip_reason"; continue
        fi
        if [[ $label == SIGBUS* ]] && [ $rc -eq 0 ]; then
            echo "skip $label in -$frag: the kernel does not enforce alignment checks here"; continue
        fi
        check "$label" "$frag" "$re"
    done
    run "$frag" "l: jmp l" -timeout 0.3
    check "endless loop" "$frag" "did not finish within 0.3 s \(-timeout\); it was stopped at \+0x0 \(jmp 0x0+\)"
done

ls "$tmp" | grep -q '^core' && fail "a core file was written: $(ls "$tmp")"
left=$(ours)
[ -z "$left" ] && echo "ok  no process left behind" || fail "processes left behind: $left"

# ---- signals to nb during an endless benchmark ----
child_of() {   # the measuring child of nb $1, waiting up to 5 s
    local c=""
    for _ in $(seq 100); do
        c=$(cat "/proc/$1/task/$1/children" 2>/dev/null | tr -d ' ')
        [ -n "$c" ] && { echo "$c"; return; }
        sleep 0.05
    done
}
seccomp_of() { sed -n 's/^Seccomp:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null; }

long=(-backend tsc -config /dev/null -unroll_count 2 -timeout 30 -asm "l: jmp l")
sigs=(INT TERM HUP INT-GROUP)
command -v setsid > /dev/null || { sigs=(INT TERM HUP); echo "note: no setsid: Ctrl-C (SIGINT to the group) not tried"; }
for sig in "${sigs[@]}"; do
    s=${sig%-GROUP}
    if [ "$sig" = INT-GROUP ]; then
        # Ctrl-C: SIGINT to the process group (nb leads its own here)
        (cd "$tmp" && exec setsid "$NBT" "${long[@]}" > out 2> err) &
    else
        (cd "$tmp" && exec "$NBT" "${long[@]}" > out 2> err) &
    fi
    nb=$!
    child=$(child_of $nb)
    if [ -z "$child" ]; then fail "SIG$sig: no measuring child seen"; kill -KILL $nb; wait $nb; continue; fi
    # the child is sandboxed (seccomp mode 2) once the benchmark code runs
    for _ in $(seq 100); do [ "$(seccomp_of "$child")" = 2 ] && break; sleep 0.05; done
    grep -q '^Max core file size *0 *0' "/proc/$child/limits" \
        || fail "SIG$sig: the child may dump core: $(grep core "/proc/$child/limits")"
    [ $sandbox = no ] || [ "$(seccomp_of "$child")" = 2 ] || fail "SIG$sig: the child runs without the seccomp filter"
    if [ "$sig" = INT-GROUP ]; then kill -INT -- -$nb; else kill -$s $nb; fi
    { wait $nb; } 2>/dev/null; rc=$?
    want=$((128 + $(kill -l $s)))
    [ $rc -eq $want ] || fail "SIG$sig: nb exited $rc, want $want (died of SIG$s)"
    grep -q "^nb: stopped by SIG$s$" "$tmp/err" || fail "SIG$sig: no 'stopped' message: $(cat "$tmp/err")"
    [ -s "$tmp/out" ] && fail "SIG$sig: output on stdout"
    # nb reaped the child before it died: not even a zombie is left
    [ -e "/proc/$child" ] && fail "SIG$sig: child $child still exists ($(grep State "/proc/$child/status"))"
    echo "ok  SIG$sig: nb exit $rc, child gone: $(cat "$tmp/err")"
done

# SIGKILL cannot be caught: the child dies with nb (PR_SET_PDEATHSIG).
(cd "$tmp" && exec "$NBT" "${long[@]}" > out 2> err) &
nb=$!
child=$(child_of $nb)
if [ -n "$child" ]; then
    kill -KILL $nb; { wait $nb; } 2>/dev/null
    gone=no
    for _ in $(seq 100); do
        st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$child/status" 2>/dev/null)
        [ -z "$st" ] || [ "$st" = Z ] && { gone=yes; break; }
        sleep 0.05
    done
    [ $gone = yes ] && echo "ok  SIGKILL: the child died with nb" || fail "SIGKILL: child $child still running"
else
    fail "SIGKILL: no measuring child seen"; kill -KILL $nb
fi

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
if [ $sandbox = no ]; then echo "$skip_reason"; exit 77; fi
echo pass
