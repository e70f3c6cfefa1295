/* Driver: asm_assemble() runs the stages in order, text -> statements
 * (parser.c, which pulls tokens from lexer.c and bytes from the encoder) ->
 * laid-out code (layout.c), and turns an out-of-memory status into a message.
 * Nothing below it calls back up. */
#include <stdio.h>
#include <string.h>

#include "asm/asm_internal.h"
#include "sys/status.h"

int asm_assemble(const char *text, asm_code *out, asm_error *err)
{
    asm_prog prog = {0};
    asm_error dummy;
    if (!err)
        err = &dummy;
    memset(err, 0, sizeof *err);
    memset(out, 0, sizeof *out);
    int rc = asm_parse(text, &prog, err);
    if (!rc)
        rc = asm_layout(&prog, out, err);
    if (rc == NB_ENOMEM) {
        snprintf(err->message, sizeof err->message, "out of memory");
    }
    asm_prog_free(&prog);
    return rc ? (rc == NB_ENOMEM ? NB_ENOMEM : NB_EINPUT) : 0;
}
