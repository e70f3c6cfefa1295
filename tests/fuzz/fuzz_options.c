/* libFuzzer target for the option parser: the input is split into argv at
 * NUL bytes and newlines (an empty piece is an empty argument) and handed to
 * options_parse().  Success or a usage error are both fine; a crash, a leak,
 * a sanitizer report, an error without a message or a message that is not
 * one line is not.  On success the values must lie in their documented
 * ranges, since later stages assert on them. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "sys/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_ARGS = 64 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "nb";
    argv[argc++] = text;
    for (size_t i = 0; i < size && argc < MAX_ARGS + 1; i++) {
        if (text[i] == '\n' || text[i] == '\0') {
            text[i] = '\0';
            argv[argc++] = text + i + 1;
        }
    }
    argv[argc] = NULL;

    nb_options o;
    options_defaults(&o);
    nb_error e;
    nb_error_clear(&e);
    const char *err = e.message;
    int rc = options_parse(argc, argv, 1, &o, &e);
    if (rc != 0) {
        if (rc != NB_EUSAGE || err[0] == '\0' || strchr(err, '\n'))
            abort();
    } else {
        if (o.n_measurements < 1 || o.unroll_count < 1 || o.loop_count < 0 ||
            o.warm_up_count < 0 || o.initial_warm_up_count < 0 ||
            o.alignment_offset < 0 || o.alignment_offset > 4095 ||
            (o.usr != 0 && o.usr != 1) || (o.os != 0 && o.os != 1) ||
            (o.usr == 0 && o.os == 0) || o.cpu < -1 || (o.r14_size != 0 && o.r14_size < 4096) ||
            !(o.timeout > 0) || (o.asm_code && o.code) || (o.emit && !o.asm_code))
            abort();
    }
    free(text);
    return 0;
}
