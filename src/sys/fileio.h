/* nb fileio: reading whole input files with a size limit and a clear error. */
#ifndef NB_FILEIO_H
#define NB_FILEIO_H

#include <stdbool.h>
#include <stddef.h>

#include "sys/error.h"

/* Read `path` ("-" = stdin) into a NUL-terminated malloc'd buffer of at most
 * `max` bytes. Returns 0, or NB_EINPUT (NB_ENOMEM) with "PATH: reason" as
 * the message of *err. When `text` is set, a NUL byte inside the file is an
 * error (binary file). */
int file_read_all(const char *path, size_t max, bool text, char **out,
                  size_t *len, nb_error *err);

/* The status of a failure to open a file the user named, from its errno:
 * NB_ESYSTEM when the system ran out of something (open files: EMFILE,
 * ENFILE; memory: ENOMEM), which no other input would fix, else NB_EINPUT;
 * for EMFILE the advice of *err (if not NULL) names the limit. */
int file_open_status(int errnum, nb_error *err);

/* The first line of root+path (root "" in production, a fake tree in
 * tests) into buf, without its newline; false if it cannot be read. */
bool file_read_line(const char *root, const char *path, char *buf, size_t len);

#endif
