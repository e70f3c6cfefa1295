/* Driver: asm_assemble() runs the stages in order, text -> statements
 * (parser.c, which pulls tokens from lexer.c and bytes from the encoder) ->
 * laid-out code (layout.c), and turns an out-of-memory status into a message.
 * Nothing below it calls back up. */
#include <stdio.h>
#include <string.h>

#include "asm/asm_internal.h"
#include "sys/status.h"

int asm_assemble(const char *text, const char *origin, asm_code *out, nb_error *err)
{
    asm_prog prog = {0};
    nb_error dummy;
    if (!err)
        err = &dummy;
    nb_error_clear(err);
    memset(out, 0, sizeof *out);
    int rc = asm_parse(text, &prog, err);
    if (!rc)
        rc = asm_layout(&prog, out, err);
    if (rc == NB_ENOMEM)
        snprintf(err->message, sizeof err->message, "out of memory");
    asm_prog_free(&prog);
    if (!rc)
        return 0;
    err->status = rc == NB_ENOMEM ? NB_ENOMEM : NB_EINPUT;
    snprintf(err->origin, sizeof err->origin, "%s", origin ? origin : "");
    return err->status;
}
