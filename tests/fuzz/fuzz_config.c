/* libFuzzer target for the config parsers (src/config.c): the input, as
 * NUL-terminated text, goes through config_parse_text, msr_config_parse_text
 * and, line by line, event_parse_spec and msr_event_parse_spec.  A parse
 * error must carry a message (and, for whole texts, the file name); every
 * event that parses must format back into a spec that parses to the same
 * encoding.  Crashes, leaks and sanitizer reports are failures. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "events/config.h"
#include "sys/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(int rc, const nb_error *e, bool whole_text)
{
    if (rc == 0)
        return;
    if (rc != NB_EINPUT && rc != NB_ENOMEM)
        abort();
    if (rc == NB_EINPUT && (e->message[0] == '\0' || (whole_text && e->origin[0] == '\0')))
        abort();   /* an error the user could not act on */
}

static bool same_encoding(const nb_event *a, const nb_event *b)
{
    return a->evtsel == b->evtsel && a->umask == b->umask && a->cmask == b->cmask &&
           a->any == b->any && a->edge == b->edge && a->inv == b->inv &&
           a->taken_alone == b->taken_alone && a->ctr == b->ctr &&
           a->has_msr_3f6h == b->has_msr_3f6h && a->msr_3f6h == b->msr_3f6h &&
           a->has_msr_pf == b->has_msr_pf && a->msr_pf == b->msr_pf &&
           a->has_msr_rsp0 == b->has_msr_rsp0 && a->msr_rsp0 == b->msr_rsp0 &&
           a->has_msr_rsp1 == b->has_msr_rsp1 && a->msr_rsp1 == b->msr_rsp1;
}

static void round_trip(const nb_event *ev)
{
    char spec[512];
    event_format_spec(ev, spec, sizeof spec);
    nb_event back;
    nb_error e;
    memset(&e, 0, sizeof e);
    if (event_parse_spec(spec, "x", &back, &e) != 0 || !same_encoding(ev, &back))
        abort();   /* nb would print a spec it cannot read back */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    nb_error e;
    memset(&e, 0, sizeof e);
    nb_event_list list = {0};
    int rc = config_parse_text(text, "fuzz.cfg", &list, &e);
    check_error(rc, &e, true);
    for (size_t i = 0; i < list.n; i++)
        round_trip(&list.v[i]);
    event_list_free(&list);

    memset(&e, 0, sizeof e);
    nb_msr_event_list msr = {0};
    rc = msr_config_parse_text(text, "fuzz.msr", &msr, &e);
    check_error(rc, &e, true);
    for (size_t i = 0; i < msr.n; i++)
        if (msr.v[i].n_writes > NB_MSR_WRITES_MAX)
            abort();
    msr_event_list_free(&msr);

    /* The first line alone as one spec, with and without a name. */
    char *nl = strchr(text, '\n');
    if (nl)
        *nl = '\0';
    nb_event ev;
    memset(&e, 0, sizeof e);
    rc = event_parse_spec(text, NULL, &ev, &e);
    check_error(rc, &e, false);
    if (rc == 0)
        round_trip(&ev);
    memset(&e, 0, sizeof e);
    rc = event_parse_spec(text, "Name", &ev, &e);
    check_error(rc, &e, false);
    nb_msr_event mev;
    memset(&e, 0, sizeof e);
    rc = msr_event_parse_spec(text, &mev, &e);
    check_error(rc, &e, false);
    free(text);
    return 0;
}
