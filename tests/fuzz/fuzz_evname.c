/* libFuzzer target for event names (src/evdb.c): the first input byte picks
 * a table (none, an Intel one, an AMD one, a hybrid E-core one), the rest is
 * text given to evdb_lookup as one name (or, when it holds a comma, to
 * evdb_parse_events as a -events list) and to evdb_uarch_find.  Errors must carry a message;
 * crashes, leaks and sanitizer reports are failures. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "events/evdb.h"
#include "sys/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(int rc, const nb_error *e)
{
    if (rc == 0)
        return;
    if ((rc != NB_EINPUT && rc != NB_ENOMEM) || (rc == NB_EINPUT && e->message[0] == '\0'))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const tables[] = {NULL, "Skylake", "Zen4", "AlderLakeE", "SapphireRapids"};
    if (size == 0)
        return 0;
    const char *uarch = tables[data[0] % (sizeof tables / sizeof tables[0])];
    if (uarch && !evdb_uarch_find(uarch))
        abort();   /* the table list changed: update this target */
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';

    /* One call per input: an unknown name costs a closest-name search over
     * the whole table, which dominates the time per execution. */
    nb_error e;
    memset(&e, 0, sizeof e);
    int rc;
    if (!strchr(text, ',')) {
        nb_event ev;
        rc = evdb_lookup(uarch, text, &ev, &e);
        check_error(rc, &e);
        if (rc == 0 && memchr(ev.name, '\0', sizeof ev.name) == NULL)
            abort();   /* the name must be terminated */
    } else {
        nb_event_list list = {0};
        rc = evdb_parse_events(uarch, text, &list, &e);
        check_error(rc, &e);
        event_list_free(&list);
    }

    (void)evdb_uarch_find(text);
    free(text);
    return 0;
}
