/* nb error: the one value a problem travels in, from where it is found to
 * the one function that prints it.
 *
 * A module that finds a problem fills an nb_error (status, the place in the
 * user's input when there is one, the message, optionally the source line
 * for a caret and a line of advice) and returns its status; callers pass it
 * up unchanged or add context with nb_error_prefix().  Only main.c (and the
 * batch, for a line) hands it to nb_error_print(); a record carries the
 * same text (nb_error_format).  Nothing else writes "nb: ..." to stderr but
 * nb_warn()/nb_note() (warnings and notes that do not stop the run), the
 * progress lines of -batch and -mess, -debug's register dump, and the
 * signal handler's "stopped by" line (restore.c: async-signal-safe, so a
 * plain write()).  nb_diag_redirect() sends warnings and notes elsewhere
 * (tests capture them so). */
#ifndef NB_SYS_ERROR_H
#define NB_SYS_ERROR_H

#include <stdarg.h>
#include <stdio.h>

#include "sys/status.h"

typedef struct nb_error {
    int status;           /* NB_E* (negative); 0: no error */
    char within[64];      /* the larger input the place is in (a batch's
                             "line 7"); printed first, not in a record */
    char origin[256];     /* "asm", "-config", a file name, an option; "" */
    int line;             /* 1-based; 0 if not tied to a line */
    int col;              /* 1-based column; 0 if none */
    char message[1024];   /* what is wrong, without "nb: " or the place */
    char source[512];     /* the offending source line for a caret; "" */
    char advice[512];     /* what to change (errno advice); "" */
} nb_error;

/* Clear *e (status 0, every string empty). */
void nb_error_clear(nb_error *e);

/* Fill *e with `status` and a formatted message, no place; returns status.
 * A NULL e is allowed (the status is still returned). */
__attribute__((format(printf, 3, 4)))
int nb_error_set(nb_error *e, int status, const char *fmt, ...);

/* The same with a place: origin, 1-based line and column (0: none). */
__attribute__((format(printf, 6, 7)))
int nb_error_at(nb_error *e, int status, const char *origin, int line, int col,
                const char *fmt, ...);

int nb_error_vset(nb_error *e, int status, const char *fmt, va_list ap);

/* Put "TEXT: " in front of the message (context added on the way up). */
__attribute__((format(printf, 2, 3)))
void nb_error_prefix(nb_error *e, const char *fmt, ...);

/* Write the error as the user sees it:
 *   nb: WITHIN: ORIGIN:LINE:COL: message
 *       <source line>
 *       <caret under COL>
 *   nb: WITHIN: hint: advice
 * Parts that are empty are left out.  Returns 0, or -1 if writing failed.
 * The one printer of errors: main.c calls it, and the batch for a line. */
int nb_error_print(FILE *f, const nb_error *e);

/* The same text without "nb: " and WITHIN, lines joined by '\n', for a
 * record's error field; writes at most len bytes, NUL-terminated. */
void nb_error_format(const nb_error *e, char *buf, size_t len);

/* Warnings ("nb: warning: ...") and notes ("nb: ...") that do not stop the
 * run.  They go to stderr unless nb_diag_redirect() named another stream
 * (a batch line's memory stream); NULL puts stderr back. */
__attribute__((format(printf, 1, 2))) void nb_warn(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void nb_note(const char *fmt, ...);
void nb_diag_redirect(FILE *f);
FILE *nb_diag_stream(void);

#endif
