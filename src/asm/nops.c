/* NOPs: nanoBench's `|n` (1 to 15 bytes) and the padding `.p2align` leaves.
 *
 * The byte sequences are the ones nanoBench and GNU as use: 90, 66 90, then
 * the 0f 1f /0 forms with longer addressing, and from 9 bytes on 66 (and 2e)
 * prefixes in front of the 8-byte form.  Used by the parser (`|n`) and by
 * layout (alignment), so it sits below both. */
#include <string.h>

#include "asm/asm_internal.h"

size_t asm_nop_bytes(int n, uint8_t out[15])
{
    static const uint8_t nop8[8] = {0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00};
    static const uint8_t small[8][8] = {
        {0}, {0x90}, {0x66, 0x90}, {0x0f, 0x1f, 0x00}, {0x0f, 0x1f, 0x40, 0x00},
        {0x0f, 0x1f, 0x44, 0x00, 0x00}, {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
        {0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00},
    };
    if (n < 1 || n > 15)
        return 0;
    if (n <= 7) {
        memcpy(out, small[n], (size_t)n);
        return (size_t)n;
    }
    size_t k = 0;
    if (n == 9)
        out[k++] = 0x66;
    if (n >= 10) {
        for (int i = 0; i < n - 9; i++)
            out[k++] = 0x66;
        out[k++] = 0x2e;
    }
    memcpy(out + k, nop8, 8);
    return k + 8;
}

/* as pads alignment gaps with 11-byte NOPs and one shorter NOP at the end;
 * its NOPs of 1 to 11 bytes are exactly nanoBench's |1 to |11.  A gap of
 * 88 bytes or more starts with a jump over the rest (rel8 while it
 * reaches, else rel32), as as 2.40 does. */
void asm_nop_fill(uint8_t *p, size_t n)
{
    if (n >= 88) {
        size_t rest = n - 2;
        if (rest <= 127) {
            *p++ = 0xeb;
            *p++ = (uint8_t)rest;
        } else {
            rest = n - 5;
            *p++ = 0xe9;
            for (int k = 0; k < 4; k++)
                *p++ = (uint8_t)(rest >> (8 * k));
        }
        n = rest;
    }
    while (n > 11) {
        p += asm_nop_bytes(11, p);
        n -= 11;
    }
    if (n)
        asm_nop_bytes((int)n, p);
}
