/* libFuzzer target for the assembler: the input, as NUL-terminated text, goes
 * through asm_assemble(); success or a reported error are both fine, a crash,
 * leak or sanitizer report is not.  On error the nb_error must be filled. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    asm_code code;
    nb_error err;
    memset(&code, 0, sizeof code);
    memset(&err, 0, sizeof err);
    if (asm_assemble(text, "asm", &code, &err) == 0) {
        /* Every statement's bytes must lie inside the output. */
        for (size_t i = 0; i < code.n_stmts; i++)
            if (code.stmts[i].offset + code.stmts[i].size > code.size)
                abort();
        asm_code_free(&code);
    } else if (err.message[0] == '\0') {
        abort(); /* an error without a message */
    }
    free(text);
    return 0;
}
