#!/usr/bin/env bash
# -uarch X -dry_run encodes with X's vendor layout and counters, whatever the
# host (issue 14, item 11): golden files per uarch and backend in
# tests/cli/uarch_dryrun/.  NB_REBASE=1 rewrites them from the current output.
# A real PMU run of another vendor's table is refused with the reason.
set -u
NB=${NB:-build/nb}
dir=tests/cli/uarch_dryrun
[ -x "$NB" ] || { echo "no nb binary at $NB"; exit 77; }
fail=0
check() {   # name, nb arguments...
    local name=$1; shift
    local got
    got=$("$NB" -asm nop -cpu 0 -dry_run "$@" 2>&1)
    if [ "${NB_REBASE:-0}" = 1 ]; then printf '%s\n' "$got" > "$dir/$name.expected"; return; fi
    if ! diff -u "$dir/$name.expected" <(printf '%s\n' "$got") > /tmp/uarch_dryrun.$$; then
        echo "FAIL: $name: nb $*"; head -n 30 /tmp/uarch_dryrun.$$; fail=1
    fi
    rm -f /tmp/uarch_dryrun.$$
}
ev_intel=UOPS_ISSUED.ANY,INST_RETIRED.ANY_P,CORE_CYCLES
check msr_skylakex   -uarch SkylakeX -backend msr -fixed_counters -events $ev_intel
check perf_skylakex  -uarch SkylakeX -backend perf -events $ev_intel
check msr_icelake    -uarch IceLake -backend msr -fixed_counters -events $ev_intel
check msr_zen4       -uarch Zen4 -backend msr -events EX_RET_INSTR,CORE_CYCLES
check perf_zen       -uarch Zen -backend perf -events CORE_CYCLES
# offcore response through config1 on 0x2A (Lion Cove) and Atom's RSP_1 on
# 0xB7 umask 0x02; load latency without large PEBS (issue 14, item 8)
check perf_lioncove_ocr -uarch ArrowLakeP_LionCove -backend perf \
      -events OCR.DEMAND_DATA_RD.ANY_RESPONSE,MEM_TRANS_RETIRED.LOAD_LATENCY_GT_128
check perf_skymont_rsp1 -uarch ArrowLakeE_Skymont -backend perf -events B7.02.MSR_RSP1=0x10001
# -no_mem: nb's own default events are planned into groups of at most six
# (R8-R13), never refused (issue 14, item 3)
for u in IceLake Skylake Zen4; do
    out=$("$NB" -asm nop -cpu 0 -no_mem -uarch $u -backend msr -dry_run 2>&1); rc=$?
    big=$(printf '%s\n' "$out" | awk '/^# group/{if(n>6)b=1; n=0} /^read name/{n++} END{if(n>6)b=1; print b+0}')
    if [ $rc -ne 0 ] || [ "$big" != 0 ]; then echo "FAIL: -no_mem -uarch $u: rc $rc, group over 6: $big"; fail=1; fi
done
# the host's vendor never leaks into another vendor's dry run
grep -l "AMD\|0xC001" "$dir"/*skylakex* "$dir"/*icelake* && { echo "FAIL: AMD registers in an Intel dry run"; fail=1; }
grep -l "0x186\|0x38F" "$dir"/*zen* && { echo "FAIL: Intel registers in an AMD dry run"; fail=1; }
# a real run of another vendor's table on a PMU backend is refused, naming
# both; the vendor is the one nb's CPUID reads (valgrind's synthetic CPU is
# an Intel Haswell on an AMD host)
host=$("$NB" -cpu_info 2>/dev/null | sed -n 's/^vendor: .*(\(.*\))$/\1/p')
case $host in GenuineIntel) other=Zen4 ;; AuthenticAMD) other=SkylakeX ;; *) other= ;; esac
if [ -n "$other" ]; then
    err=$("$NB" -asm nop -uarch $other -backend perf 2>&1); rc=$?
    if [ $rc -eq 0 ] || ! printf '%s' "$err" | grep -q "uarch $other: its events are .* events and this CPU is"; then
        echo "FAIL: -uarch $other -backend perf on $host: rc $rc: $err"; fail=1
    fi
    # and so is a batch line: one run-and-record step serves both
    err=$(printf -- '-asm nop\n' | "$NB" -uarch $other -backend perf -batch - 2>&1 >/dev/null); rc=$?
    if [ $rc -ne 5 ] || ! printf '%s' "$err" | grep -q "^nb: line 1: -uarch $other: its events are"; then
        echo "FAIL: batch line with -uarch $other -backend perf on $host: rc $rc: $err"; fail=1
    fi
fi
exit $fail
