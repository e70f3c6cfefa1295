/* Folder lib/: small general-purpose pieces with no knowledge of
 * benchmarks: the clock (clock.h), a growing string (strbuf.h) and the JSON
 * value tree (json.h).  Nothing in lib/ includes a header outside lib/.
 *
 * nb json: a small value tree for result records, written as JSON or
 * flattened into CSV columns.
 *
 * One tree per record (record.c builds it), so the JSON object and the CSV
 * row are the same keys by construction.  Constructors return NULL when out
 * of memory; jv_set/jv_push take ownership of the value (a NULL one is
 * dropped) so a record under memory pressure loses keys, never crashes.
 * Keys keep their insertion order. */
#ifndef NB_JSON_H
#define NB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum { JV_NULL, JV_BOOL, JV_NUM, JV_INT, JV_STR, JV_ARR, JV_OBJ, JV_NUMS } jv_type;

typedef struct jv {
    jv_type t;
    bool b;
    double num;
    long long i;
    char *s;             /* JV_STR */
    struct jv **items;   /* JV_ARR, JV_OBJ */
    const char **keys;   /* JV_OBJ; the array owned, the keys not (see jv_set) */
    size_t n, cap, key_cap, s_cap;
    const double *nums;  /* JV_NUMS: borrowed, n_nums of them */
    size_t n_nums;
    struct jv *next_free;   /* json.c's cache of freed nodes */
} jv;

jv *jv_null(void);
jv *jv_bool(bool b);
jv *jv_num(double d);          /* non-finite values are written as null */
jv *jv_int(long long i);
jv *jv_str(const char *s);     /* NULL s gives a null value */
jv *jv_arr(void);
/* An array of numbers that stays where it is (not copied: v must outlive
 * the tree): written like an array of jv_num values, without a node each, so
 * a record of a million samples costs no more memory than the samples. */
jv *jv_nums(const double *v, size_t n);
jv *jv_obj(void);

/* Add to an object / array; returns the value (or NULL).  The key is not
 * copied: it must live as long as the tree (nb's keys are string literals
 * and names in static tables; a batch builds thousands of records a
 * second, and copying every key was a third of the allocations). */
jv *jv_set(jv *obj, const char *key, jv *val);
jv *jv_push(jv *arr, jv *val);
const jv *jv_get(const jv *obj, const char *key);

void jv_free(jv *v);
/* Gives back the nodes jv_free keeps for reuse (see json.c); at exit. */
void jv_cache_release(void);

/* Compact JSON, no newline, handed to f in pieces of at most about 64 KiB
 * as it is made.  Always valid UTF-8: a byte of a string that does not start
 * a well-formed UTF-8 sequence is written as U+FFFD. */
void jv_write(FILE *f, const jv *v);

/* The length (1-4) of the well-formed UTF-8 sequence at s, or 0 when the
 * bytes there are not one (a stray continuation byte, a truncated or
 * overlong sequence, a surrogate, beyond U+10FFFF). */
size_t utf8_seq_len(const char *s);

/* A number as JSON writes it: the shortest of %.15g/%.17g that reads back
 * exactly.  buf needs 32 bytes. */
void jv_format_num(double d, char *buf, size_t buflen);

/* Flatten: call fn(ctx, "a.b.c", text) for every scalar under v, keys joined
 * with '.'; arrays of scalars become one value joined by ';', arrays of
 * arrays one value per inner array (key.1, key.2), arrays of objects are left
 * out; skip_key names a key of v to leave out (the caller walks it itself).
 * text is "" for null. */
typedef void (*jv_flat_fn)(void *ctx, const char *key, const char *text);
void jv_flatten(const jv *v, const char *prefix, const char *skip_key, jv_flat_fn fn, void *ctx);

#endif
