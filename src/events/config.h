/* nb event config (config.c): what one performance event is, and
 * nanoBench's config syntax for it, both directions:
 *
 *   EvtSel.UMASK(.CMSK=..)(.AnyT)(.EDG)(.INV)(.TakenAlone)(.CTR=..)
 *       (.MSR_3F6H=..)(.MSR_PF=..)(.MSR_RSP0=..)(.MSR_RSP1=..) Name
 *
 * and MSR events (msr_ADDR=VAL(.msr_ADDR=VAL)* msr_ADDR Name).  The event
 * types here (nb_event, nb_msr_event and their lists) are what every later
 * stage takes; the parser serves -config/-msr_config files, typed names
 * with modifiers, and the build-time generator gen/gentables.c.  The
 * embedded tables and lookup by CPU and name are evdb.h's.  Errors fill an
 * nb_error: the file as origin, the line, the message. */
#ifndef NB_EVENTS_CONFIG_H
#define NB_EVENTS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/error.h"

#define NB_EVENT_NAME_MAX 128
#define NB_MSR_WRITES_MAX 8

typedef struct nb_event {
    char name[NB_EVENT_NAME_MAX];
    uint16_t evtsel;      /* up to 0xFFF on AMD */
    uint8_t umask;
    uint8_t cmask;
    bool any;             /* AnyT */
    bool edge;            /* EDG */
    bool inv;             /* INV */
    bool taken_alone;     /* must be the only programmable event in its group */
    int ctr;              /* fixed counter index to use (CTR=), -1 if any */
    /* Extra MSR values; has_* says whether the field was given. */
    bool has_msr_3f6h, has_msr_pf, has_msr_rsp0, has_msr_rsp1;
    uint64_t msr_3f6h, msr_pf, msr_rsp0, msr_rsp1;
    /* An MSR event (-msr_config: msr_ADDR=VAL... msr_ADDR Name) when
     * read_msr != 0: no event select; the msr_write[] MSRs get their values
     * before the runs and read_msr is read right before and after each run
     * (by the measuring process: the code cannot RDMSR in user mode). */
    uint32_t read_msr;
    uint8_t n_msr_writes;
    uint32_t msr_write[NB_MSR_WRITES_MAX];
    uint64_t msr_value[NB_MSR_WRITES_MAX];
    /* The vendor (sys/cpu.h's cpu_vendor) whose encoding the event uses when
     * it came from an embedded table; 0 (unknown) from a config file. */
    uint8_t table_vendor;
} nb_event;

static inline bool nb_event_is_msr(const nb_event *e) { return e->read_msr != 0; }

typedef struct nb_event_list {
    nb_event *v;
    size_t n, cap;
} nb_event_list;

typedef struct nb_msr_event {
    char name[NB_EVENT_NAME_MAX];
    size_t n_writes;
    uint32_t write_msr[NB_MSR_WRITES_MAX];
    uint64_t write_val[NB_MSR_WRITES_MAX];
    uint32_t read_msr;
} nb_msr_event;

typedef struct nb_msr_event_list {
    nb_msr_event *v;
    size_t n, cap;
} nb_msr_event_list;

/* Parse one event spec (without or with the trailing Name). Returns 0 or
 * NB_EINPUT with err->message set. `name` may be NULL, then the spec's own
 * text becomes the name. */
int event_parse_spec(const char *spec, const char *name, nb_event *ev,
                     nb_error *err);

/* Parse a whole config text (lines; '#' comments; blank lines). `file` names
 * it in diagnostics. Appends to *list. */
int config_parse_text(const char *text, const char *file, nb_event_list *list,
                      nb_error *err);
int config_parse_file(const char *path, nb_event_list *list,
                      nb_error *err);

/* The one line-walker behind config_parse_text: calls fn for every event line
 * with the parsed event, the 1-based line number and its description: the
 * trimmed text after '#' on that line, else the text of a comment-only line
 * right above it (nanoBench's style), else "".  The build-time generator
 * keeps it as the event's description.  A nonzero return from fn stops the walk and is
 * returned.  (Additive to the original contract; used by gen/gentables.c.) */
typedef int (*config_line_fn)(void *ctx, const nb_event *ev, int line,
                              const char *comment);
int config_walk_text(const char *text, const char *file, config_line_fn fn,
                     void *ctx, nb_error *err);

/* Apply nanoBench modifiers ("CMSK=1.INV.EDG", no leading '.') to *ev; used
 * for event names typed with modifiers (UOPS_ISSUED.ANY.CMSK=1.INV).
 * (Additive to the original contract.) */
int event_apply_modifiers(const char *mods, nb_event *ev, nb_error *err);

int msr_config_parse_text(const char *text, const char *file,
                          nb_msr_event_list *list, nb_error *err);
int msr_config_parse_file(const char *path, nb_msr_event_list *list,
                          nb_error *err);

/* Parse one msr line's spec part ("msr_0xE01=0x2.msr_700=0x4 msr_706"; the
 * writes may be absent for read-only MSRs such as RAPL energy counters:
 * "msr_0x611").  (Additive to the original contract.) */
int msr_event_parse_spec(const char *writes_and_read, nb_msr_event *ev,
                         nb_error *err);
/* Format an msr event back into config syntax, name included. */
void msr_event_format(const nb_msr_event *ev, char *buf, size_t buflen);
int msr_event_list_push(nb_msr_event_list *list, const nb_msr_event *ev);
/* The same event as an nb_event (read_msr set), so that it travels through
 * plans and groups with the counter events. */
void msr_event_to_event(const nb_msr_event *m, nb_event *out);

/* Format an event back into config syntax (no name). */
void event_format_spec(const nb_event *ev, char *buf, size_t buflen);

int event_list_push(nb_event_list *list, const nb_event *ev);
void event_list_free(nb_event_list *list);
void msr_event_list_free(nb_msr_event_list *list);

#endif
