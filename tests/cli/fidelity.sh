#!/usr/bin/env bash
# nanoBench fidelity (issue 14) as the command line shows it, on any backend:
# -basic_mode's first run has no loop (item 1), empty -code is measured
# (item 20), -msr_config: a missing file says so, RAPL is embedded, MSR events
# print unavailable on the tsc backend and show every access in a dry run
# (item 9), an explicit config's lines all stay (item 15).
set -u
NB=${NB:-build/nb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if ! printf '%s' "$2" | grep -qF -- "$3"; then echo "FAIL: $1: no '$3' in:"; printf '%s\n' "$2" | head -20; fail=1; fi; }
nocheck() { if printf '%s' "$2" | grep -qF -- "$3"; then echo "FAIL: $1: unexpected '$3'"; fail=1; fi; }

out=$("$NB" -backend tsc -config /dev/null -basic_mode -loop_count 10 -unroll_count 1 -asm nop -verbose -n_measurements 2 2>&1)
check "basic mode loop" "$out" "results (unroll_count=0, loop_count=0)"
check "basic mode loop" "$out" "results (unroll_count=1, loop_count=10)"
out=$("$NB" -backend tsc -config /dev/null -basic_mode -loop_count 10 -unroll_count 1 -asm nop -output json 2>/dev/null)
check "json loops" "$out" '"loops":[0,10]'

: > "$tmp/empty.bin"
out=$("$NB" -backend tsc -config /dev/null -code "$tmp/empty.bin" 2>&1); rc=$?
[ $rc -eq 0 ] || { echo "FAIL: empty -code: status $rc: $out"; fail=1; }
check "empty -code" "$out" "CORE_CYCLES: "

out=$("$NB" -backend tsc -config /dev/null -msr_config "$tmp/missing.txt" -asm nop 2>&1); rc=$?
[ $rc -eq 1 ] || { echo "FAIL: missing -msr_config: status $rc"; fail=1; }
check "missing -msr_config" "$out" "missing.txt: cannot open: No such file or directory"
out=$("$NB" -backend tsc -config /dev/null -msr_config RAPL -asm nop 2>&1); rc=$?
[ $rc -eq 0 ] || { echo "FAIL: -msr_config RAPL on tsc: status $rc: $out"; fail=1; }
check "RAPL on tsc" "$out" "RAPL_PKG_ENERGY: unavailable"
printf 'msr_0xE01=0x20000000.msr_700=0x408F34 msr_706 LLC_LOOKUP_CBO_0\n' > "$tmp/uncore.txt"
out=$("$NB" -cpu 0 -uarch Skylake -backend msr -dry_run -config /dev/null -msr_config "$tmp/uncore.txt" -asm nop 2>&1)
check "uncore dry run" "$out" "write cpu=0 msr=0xE01 value=0x20000000 # msr_0xE01 for LLC_LOOKUP_CBO_0"
check "uncore dry run" "$out" "write cpu=0 msr=0x700 value=0x408F34"
check "uncore dry run" "$out" "read name=LLC_LOOKUP_CBO_0 cpu=0 msr=0x706 width=64 # before and after each run"
check "uncore dry run" "$out" "restore cpu=0 msr=0xE01 value=saved"

# An explicit config: exactly its lines (the cycles event estimated in its
# place), no CORE_CYCLES/RDTSC of nb's own.
vendor=$(grep -m1 vendor_id /proc/cpuinfo | awk '{print $3}')
if [ "$vendor" = AuthenticAMD ]; then printf '0xC0.0x00 INSTR\n0x76.0x00 CYC\n' > "$tmp/c.cfg"
else printf 'C0.00 INSTR\n3C.00 CYC\n' > "$tmp/c.cfg"; fi
out=$("$NB" -backend tsc -config "$tmp/c.cfg" -asm "add rax, rbx" 2>/dev/null)
check "config lines" "$out" "CYC: "
check "config lines" "$out" "INSTR: unavailable"
nocheck "config lines" "$out" "CORE_CYCLES"
nocheck "config lines" "$out" "RDTSC"
# An Intel table's cycles event on any CPU (-uarch picks the encoding)
printf '3C.00 CPU_CLK_UNHALTED.THREAD_P\n' > "$tmp/i.cfg"
out=$("$NB" -backend tsc -uarch Skylake -config "$tmp/i.cfg" -asm "add rax, rbx" 2>/dev/null)
nocheck "intel config" "$out" "CPU_CLK_UNHALTED.THREAD_P: unavailable"
check "intel config" "$out" "CPU_CLK_UNHALTED.THREAD_P: "
# nanoBench's README examples, unchanged: their -config names nanoBench's
# configs/ folder; without it nb uses its embedded table of that name.
cd "$tmp"
out=$("$OLDPWD/$NB" -asm "ADD RAX, RBX; ADD RBX, RAX" -config configs/cfg_Skylake_common.txt 2>&1); rc=$?
[ $rc -eq 0 ] || { echo "FAIL: README example 1: status $rc: $out"; fail=1; }
check "README example 1" "$out" "using nb's embedded Skylake table"
check "README example 1" "$out" "CPU_CLK_UNHALTED.THREAD_P: "
out=$("$OLDPWD/$NB" -asm_init "MOV RAX, R14; SUB RAX, 8; MOV [RAX], RAX" -asm "MOV RAX, [RAX]" -config configs/cfg_Skylake_common.txt 2>&1); rc=$?
[ $rc -eq 0 ] || { echo "FAIL: README example 2: status $rc: $out"; fail=1; }
out=$("$OLDPWD/$NB" -asm "MOVQ XMM0, RAX; MOVQ RAX, XMM0" -config configs/cfg_ArrowLakeE_Skymont_all_core.txt -unroll 10 2>&1); rc=$?
[ $rc -eq 0 ] || { echo "FAIL: cycleByCycle example: status $rc: $out"; fail=1; }
out=$("$OLDPWD/$NB" -asm nop -config configs/cfg_Nosuch_common.txt 2>&1); rc=$?
[ $rc -eq 1 ] || { echo "FAIL: unknown config name: status $rc"; fail=1; }
check "unknown config name" "$out" "cfg_Nosuch_common.txt: cannot open"
cd "$OLDPWD"
exit $fail
