/* nb csv: one CSV field written as RFC 4180 has it (quoted when it holds a
 * comma, a quote or a line break; quotes doubled), for every CSV nb writes
 * (-output csv records, -sweep tables). */
#ifndef NB_LIB_CSV_H
#define NB_LIB_CSV_H

#include <stdio.h>

void csv_field(FILE *f, const char *s);

#endif
