#!/usr/bin/env bash
# Bad command lines: every option of `nb -help` with a missing value, every
# numeric option with negative, zero, overflowing, non-numeric, empty and
# out-of-range values (the range is read from nb's own message, then both
# ends are checked to be accepted and one past each end refused), bad enum
# values, contradictory options, unknown/ambiguous names, and the same for
# -mess's options.  Each must exit 2 with one "nb: " line naming the option.
set -u
. "$(dirname "$0")/bad_common.inc"

# A limit as nb writes it ("64G" for a size) in plain units.
bytes() {
    local v=$1 m=1
    case $v in *K) m=1024 ;; *M) m=$((1 << 20)) ;; *G) m=$((1 << 30)) ;; *T) m=$((1 << 40)) ;; esac
    echo $(( ${v%[KMGT]} * m ))
}

help=$("$NB" -help) || { echo "nb -help failed"; exit 1; }
# "  -name <placeholder>   text" for nb's options (not -mess's: below).
opts=$(printf '%s\n' "$help" | sed -n '/^Memory:/q; s/^  -\([a-z_0-9]*\) <\([^>]*\)>.*/\1 \2/p')
[ "$(printf '%s\n' "$opts" | wc -l)" -ge 20 ] || { echo "could not read the options from nb -help"; exit 1; }

while read -r name ph; do
    # Missing value: the option is the last argument.
    bad_expect 2 "-$name" -"$name"
    case $ph in
    n|0\|1|bytes|sec)
        for v in abc '' 12x 0x -1 -0x10 99999999999999999999999 -99999999999999999999999 1.5.3 ' ' '5 ' 0b11 '1e999' 'nan' 'inf'; do
            # -usr/-os accept no -0x10 etc. either; everything here is bad.
            bad_expect 2 "-$name" -"$name" "$v" -asm nop -emit -
        done
        # The range nb states for an overflowing value; check both ends.
        msg=$("$NB" -"$name" 99999999999999999999999 2>&1)
        if [[ $msg =~ \(([0-9]+[KMGT]?)\ to\ ([0-9]+[KMGT]?)\) ]]; then
            lo=$(bytes "${BASH_REMATCH[1]}") hi=$(bytes "${BASH_REMATCH[2]}")
            extra=()
            [ "$name" = usr ] && extra=(-os 1)      # -usr 0 -os 0 counts nothing
            bad_accept -"$name" "$lo" "${extra[@]}" -asm nop -emit -
            bad_accept -"$name" "$hi" -asm nop -emit -
            [ "$lo" -gt 0 ] && bad_expect 2 "-$name" -"$name" $((lo - 1)) "${extra[@]}" -asm nop -emit -
            bad_expect 2 "-$name" -"$name" $((hi + 1)) -asm nop -emit -
        elif [ "$ph" = sec ]; then
            bad_expect 2 "-$name" -"$name" 0 -asm nop -emit -
            bad_accept -"$name" 0.5 -asm nop -emit -
        else
            echo "FAIL: -$name states no range for an overflowing value: $msg"; bad_failed=$((bad_failed + 1))
        fi
        ;;
    fmt|name)
        # Enumerations refuse an unknown word; -uarch refuses an unknown table.
        bad_expect 2 "$name" -"$name" no_such_value_xyz -asm nop
        ;;
    esac
    # An empty value: only the init fragments may be empty.
    case $name in
    asm_init|asm_late_init|asm_one_time_init) bad_accept -"$name" '' -asm nop -emit - ;;
    *) bad_expect 2 "-$name" -"$name" '' ;;
    esac
done <<< "$opts"

# Size suffixes of -r14_size.
bad_expect 2 -r14_size -r14_size 1T -asm nop -emit -
bad_expect 2 -r14_size -r14_size 4KK -asm nop -emit -
bad_expect 2 -r14_size -r14_size 9999999999G -asm nop -emit -
bad_accept -r14_size 4K -asm nop -emit -
bad_accept -r14_size 64MB -asm nop -emit -

# Contradictions.
echo -ne '\x90' > "$BAD_TMP/nop.bin"
for f in "" _init _late_init _one_time_init; do
    bad_expect 2 "-asm$f and -code$f" -asm nop -asm$f nop -code$f "$BAD_TMP/nop.bin"
done
bad_expect 2 "-config and -events" -asm nop -config "$BAD_TMP/nop.bin" -events X
bad_expect 2 "-usr 0 and -os 0" -asm nop -usr 0 -os 0
bad_expect 2 "-usr 0 and -os 0" -asm nop -usr 0
bad_expect 2 "-emit" -emit - -code "$BAD_TMP/nop.bin"
bad_expect 2 "-print_code" -print_code
bad_expect 2 "-print_code" -print_code -asm_init nop

# Names: unknown, ambiguous (candidates listed), no name, stray words.
bad_expect 2 "-no_such_option" -asm nop -no_such_option
bad_expect 2 "-asm_init" -asm_ nop
bad_expect 2 "ambiguous" -a nop
bad_expect 2 "'--'" -- -asm nop
bad_expect 2 "'-'" - -asm nop
bad_expect 2 "'stray'" -asm nop stray
bad_expect 2 "'5'" -asm nop -fixed_counters 5
bad_expect 2 "'x'" -help x
# A value that is itself an option name is not a number.
bad_expect 2 "-n_measurements" -n_measurements -unroll_count 5 -asm nop
# Control characters and huge values stay one line.
bad_expect 2 "-n_measurements" -n_measurements $'1\n2' -asm nop
bad_expect 2 "unknown option" $'-x\ny\x1b[31m' -asm nop
bad_expect 2 "-unroll_count" -unroll_count "$(head -c 100000 /dev/zero | tr '\0' 9)" -asm nop

# -mess's own options: bad values must be refused before any measuring.
mess=$(printf '%s\n' "$help" | sed -n 's/^  -\(mess_[a-z_]*\) \([A-Za-z|,\[\]]*\) .*/\1 \2/p')
if [ -n "$mess" ]; then
    while read -r name ph; do
        bad_expect 2 "-$name" -mess -"$name"
        case $ph in
        N|MS|SIZE|W*)
            # A seed may be any 64-bit pattern, so -1 is not tried there.
            vals=(abc -1 99999999999999999999999 '')
            [ "$name" = mess_seed ] && vals=(abc 99999999999999999999999 '')
            for v in "${vals[@]}"; do bad_expect 2 "-$name" -mess -"$name" "$v"; done ;;
        LIST) for v in abc, 1,,2 -1 ''; do bad_expect 2 "-$name" -mess -"$name" "$v"; done ;;
        nop*) bad_expect 2 "-$name" -mess -"$name" hlt ;;
        esac
    done <<< "$mess"
    bad_expect 2 "-mess_nonsense" -mess -mess_nonsense
fi

bad_finish
