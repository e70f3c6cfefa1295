/* nb batch: many benchmarks in one process (-batch FILE, '-' = stdin).
 *
 * Each line is written as nb's own options (-asm "imul rax, rax"
 * -unroll_count 100), with shell-like quoting ('...', "...", backslash);
 * blank lines and lines starting with '#' are skipped.  Options given on the
 * command line are every line's defaults: a line overrides values and adds
 * flags.  -cpu and -uarch belong to the whole batch (the process is pinned
 * and the table chosen once); the actions (-batch, -output, -emit, -list_*,
 * -help, ...) are refused on a line.
 *
 * Lines run one after another in one bench_session (shared backend, event
 * grouping and open counter groups); each line's result is written and
 * flushed as soon as it is done.  A failing line (bad assembly, a fault, a
 * timeout) gives an error record and the batch goes on. */
#ifndef NB_BATCH_H
#define NB_BATCH_H

#include "sys/cpu.h"
#include "report/fingerprint.h"
#include "cli/options.h"
#include "sys/error.h"

/* Returns a status: 0 when every line succeeded, NB_EBATCH when one failed,
 * another NB_E* when the batch itself could not run (described in *err for
 * the caller to print; a line's own errors go into its record). */
int batch_main(const nb_options *base, const cpu_info *cpu, const char *uarch,
               const nb_fingerprint *fp, nb_error *err);

/* Split a batch line into words.  Returns the number of words (argv[] point
 * into *store, malloc'd, which the caller frees), or -1 with *err filled (an
 * unterminated quote: NB_EUSAGE, its column in err->col; NB_ENOMEM).  A '#'
 * where a word begins starts a comment. */
int batch_split(const char *line, char ***argv, char **store, nb_error *err);

#endif
