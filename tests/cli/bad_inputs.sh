#!/usr/bin/env bash
# Bad input files and texts: assembly errors in every fragment, unreadable,
# missing, directory, empty, huge and /dev/zero code files, and config and
# msr config files that are missing, unreadable, binary, huge or malformed
# (the error must name FILE:LINE), bad -events names.  Each must exit 1 with
# one "nb: " line naming the fragment, option or file (asm errors add the
# statement and a caret below it), and never crash.
set -u
. "$(dirname "$0")/bad_common.inc"
T=$BAD_TMP

# Assembly, in each fragment: the message names the fragment and line:col.
for f in asm asm_init asm_late_init asm_one_time_init; do
    other=(); [ $f = asm ] || other=(-asm nop)
    bad_expect 1 "$f:1:1" -$f "no_such_mnemonic rax" "${other[@]}" -print_code
    bad_expect 1 "$f:2:" -$f $'nop\nadd rax, rbx, rcx, rdx' "${other[@]}" -print_code
done
bad_expect 1 "asm:1:" -asm $'\x01\xff\xfe' -emit -
bad_expect 1 "asm:1:" -asm "$(head -c 100000 /dev/zero | tr '\0' a)" -emit -
bad_expect 1 "asm:1:" -asm "|16" -emit -
bad_expect 1 "asm:1:" -asm "2*|3*|nop||" -emit -
bad_expect 1 "asm:1:" -asm "99999999999*|nop|" -emit -
bad_expect 1 "asm:1:" -asm "mov rax, [rbx" -emit -
bad_expect 1 "asm:1:" -asm "jmp nowhere" -emit -
bad_expect 1 "asm:2:" -asm $'x:\nx: nop' -emit -
bad_expect 1 "asm:1:" -asm "mov [rax], 1" -emit -
bad_expect 1 "asm:1:" -asm "add al, 300" -emit -
# An -asm that holds no instruction is empty code, measured as nanoBench
# measures it (issue 14, item 20).
for a in ' ' ';;' $'\n\n' '# just a comment' 'label:'; do
    bad_accept -asm "$a" -emit -
done

# Code files, for each fragment.
printf '\x90' > "$T/nop.bin"
mkdir "$T/dir"
: > "$T/empty.bin"
truncate -s 65M "$T/huge.bin"
for f in code code_init code_late_init code_one_time_init; do
    other=(); [ $f = code ] || other=(-asm nop)
    bad_expect 1 "-$f: $T/missing.bin" -$f "$T/missing.bin" "${other[@]}" -print_code
    bad_expect 1 "-$f: $T/dir" -$f "$T/dir" "${other[@]}" -print_code
    bad_expect 1 "-$f: $T/huge.bin" -$f "$T/huge.bin" "${other[@]}" -print_code
done
bad_expect 1 "-code: /dev/zero" -code /dev/zero -print_code
bad_accept -code "$T/empty.bin" -print_code
bad_accept -code_init "$T/empty.bin" -code "$T/nop.bin" -print_code

# Unreadable files: as root, nb runs as nobody to see a permission error.
printf 'secret' > "$T/unreadable"; chmod 000 "$T/unreadable"
printf '0E.01 A\n' > "$T/unreadable.cfg"; chmod 000 "$T/unreadable.cfg"
as_user=()
if [ "$(id -u)" -eq 0 ]; then
    if command -v setpriv > /dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups "$NB" -version > /dev/null 2>&1; then
        chmod 755 "$T"
        as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    else
        as_user=(skip)
    fi
fi
if [ "${as_user[0]:-}" = skip ]; then
    echo "note: unreadable-file cases skipped (root, and nb cannot run as nobody here)"
else
    NB_SAVED=$NB
    if [ ${#as_user[@]} -gt 0 ]; then
        printf '#!/bin/sh\nexec %s "%s" "$@"\n' "${as_user[*]}" "$(realpath "$NB_SAVED")" > "$T/nb_as_nobody"
        chmod 755 "$T/nb_as_nobody"; NB=$T/nb_as_nobody
    fi
    bad_expect 1 "$T/unreadable" -code "$T/unreadable" -print_code
    bad_expect 1 "$T/unreadable.cfg" -asm nop -config "$T/unreadable.cfg"
    NB=$NB_SAVED
fi

# Config files: the error names FILE:LINE (the bad line is line 3).
cfg() { printf '# a comment\n0E.01 UOPS_ISSUED.ANY\n%s\n0C.00 AFTER\n' "$1" > "$T/bad.cfg"; }
for line in 'zz.01 BAD_SELECT' '0E.zz BAD_UMASK' '0E.100 UMASK_TOO_WIDE' '10000.01 SELECT_TOO_WIDE' \
            '0E.01.CMSK=256 CMSK_TOO_BIG' '0E.01.CMSK=-1 CMSK_NEG' '0E.01.CMSK= EMPTY' \
            '0E.01.MSR_RSP0=0x1ffffffffffffffffff OVERFLOW' "0E.01 $(head -c 300 /dev/zero | tr '\0' N)" '.01 NO_SELECT' '0E. NO_UMASK' \
            "$(head -c 100000 /dev/zero | tr '\0' 0).01 LONG" '0E.01.CTR=99999999999999999999 CTR' $'0E.01\x01 CTRL'; do
    cfg "$line"
    bad_expect 1 "$T/bad.cfg:3:" -asm nop -config "$T/bad.cfg"
done
printf '0E.01 A\r\n0C.00 B\r\n' > "$T/crlf.cfg"
bad_accept -asm nop -config "$T/crlf.cfg"
printf '0E.01 A\n\0\n' > "$T/nul.cfg"
bad_expect 1 "$T/nul.cfg" -asm nop -config "$T/nul.cfg"
head -c 4096 /dev/urandom > "$T/random.cfg"
printf '\0' >> "$T/random.cfg"
bad_expect 1 "$T/random.cfg" -asm nop -config "$T/random.cfg"
truncate -s 17M "$T/huge.cfg"
bad_expect 1 "$T/huge.cfg" -asm nop -config "$T/huge.cfg"
bad_expect 1 "/dev/zero" -asm nop -config /dev/zero
bad_expect 1 "$T/missing.cfg" -asm nop -config "$T/missing.cfg"
bad_expect 1 "$T/dir" -asm nop -config "$T/dir"

# MSR config files.
mcfg() { printf '# uncore\nmsr_0x700=0x1 msr_0x701 OK_EVENT\n%s\n' "$1" > "$T/bad.msr"; }
for line in 'msr_zz=1 msr_701 BAD_ADDR' 'msr_700=zz msr_701 BAD_VALUE' 'msr_700=1 BAD_NO_READ' \
            'msr_700=1 msr_701 NAME EXTRA' 'msr_1ffffffff=1 msr_701 ADDR_TOO_WIDE' 'msr_700==1 msr_701 DOUBLE_EQ' \
            'msr_700=1.msr_701=1.msr_702=1.msr_703=1.msr_704=1.msr_705=1.msr_706=1.msr_707=1.msr_708=1 msr_709 TOO_MANY' \
            'foo_700=1 msr_701 NOT_MSR'; do
    mcfg "$line"
    bad_expect 1 "$T/bad.msr:3:" -asm nop -msr_config "$T/bad.msr"
done
bad_expect 1 "/dev/zero" -asm nop -msr_config /dev/zero
bad_expect 1 "$T/dir" -asm nop -msr_config "$T/dir"

# -events names (against a named table, so the result does not depend on the CPU).
for e in NO_SUCH_EVENT 'UOPS_ISSUED.ANY,,INST_RETIRED.ANY' 'UOPS_ISSUED.ANY.CMSK=999' '+UOPS_ISSUED.ANY' \
         'UOPS_ISSUED.ANY+' 'UOPS_ISSUED.ANY+INST_RETIRED.ANY' 'UOPS_ISSUED.ANY.NOPE' "$(head -c 2000 /dev/zero | tr '\0' X)"; do
    bad_expect 1 "-events" -asm nop -uarch Skylake -events "$e"
done

bad_finish
