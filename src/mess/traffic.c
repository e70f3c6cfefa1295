/* nb mess: traffic-generator threads.
 *
 * One thread per generator CPU, pinned, streams over its own buffer one
 * 64-byte line per access: a load, or a store of one word (which makes the
 * core read the line for ownership and later write it back).  A Bresenham
 * counter spreads read_pct loads per 100 accesses evenly.  After each access
 * the thread executes `pad` PAUSE (or NOP) instructions: 0 saturates, large
 * values leave memory nearly idle.
 *
 * Bandwidth comes from the threads' own counts (no uncore counters here):
 * each publishes its running totals of lines loaded and stored, and the
 * reader turns them into bytes, 64 per load and 128 per store (Mess counts
 * the write-allocate read of a store as memory traffic too).
 *
 * The buffer of each thread is allocated and first touched by that thread
 * after it is pinned, so with NUMA its pages land on its own node. */
#include "mess/mess.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sys/status.h"

#define LINE 64
#define PUBLISH 256   /* lines between two updates of the shared counters */

enum { MODE_IDLE, MODE_RUN, MODE_EXIT };

typedef struct gen {
    /* counters first, on their own line: the reader polls them */
    _Alignas(64) _Atomic uint64_t loads, stores;
    _Alignas(64) pthread_t th;
    struct mess_traffic *t;
    int cpu;
    int status;
    nb_error err;            /* why status is not 0 */
    double huge;
    mess_buf buf;
} gen;

struct mess_traffic {
    _Alignas(64) _Atomic unsigned epoch;   /* bumped on every change */
    _Atomic int mode, read_pct, pad, kind;
    _Atomic int ready;
    int n;
    size_t bytes;
    bool want_huge;
    gen *g;
};

static void run_stream(gen *g, unsigned epoch, int read_pct, int pad, int kind)
{
    mess_traffic *t = g->t;
    volatile uint64_t *base = g->buf.base;
    size_t lines = g->buf.bytes / LINE;
    size_t stride = LINE / sizeof(uint64_t);
    uint64_t loads = atomic_load_explicit(&g->loads, memory_order_relaxed);
    uint64_t stores = atomic_load_explicit(&g->stores, memory_order_relaxed);
    uint64_t sink = 0;
    int acc = 0;
    for (;;) {
        for (size_t i = 0; i < lines; i += PUBLISH) {
            size_t end = i + PUBLISH < lines ? i + PUBLISH : lines;
            for (size_t l = i; l < end; l++) {
                acc += read_pct;
                if (acc >= 100) {
                    acc -= 100;
                    sink += base[l * stride];
                    loads++;
                } else {
                    base[l * stride] = l;
                    stores++;
                }
                if (kind == MESS_PAD_PAUSE)
                    for (int k = 0; k < pad; k++)
                        __asm__ volatile("pause");
                else
                    for (int k = 0; k < pad; k++)
                        __asm__ volatile("nop");
            }
            atomic_store_explicit(&g->loads, loads, memory_order_relaxed);
            atomic_store_explicit(&g->stores, stores, memory_order_relaxed);
            if (atomic_load_explicit(&t->epoch, memory_order_acquire) != epoch) {
                /* keep the loads alive without a store to memory per load */
                __asm__ volatile("" : : "r"(sink));
                return;
            }
        }
    }
}

static void *gen_main(void *arg)
{
    gen *g = arg;
    mess_traffic *t = g->t;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(g->cpu, &set);
    int e = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (e) {
        g->status = nb_error_at(&g->err, NB_ESYSTEM, "-mess_gen_cpus", 0, 0,
                                "cannot pin a generator to CPU %d: %s", g->cpu, strerror(e));
    } else {
        g->status = mess_buf_alloc(&g->buf, t->bytes, t->want_huge, &g->err);
        if (g->status == 0) {
            memset(g->buf.base, 1, g->buf.bytes);   /* first touch, here */
            g->huge = mess_buf_huge_fraction(&g->buf);
        }
    }
    atomic_fetch_add(&t->ready, 1);
    if (g->status)
        return NULL;
    for (;;) {
        unsigned epoch = atomic_load_explicit(&t->epoch, memory_order_acquire);
        int mode = atomic_load(&t->mode);
        if (mode == MODE_EXIT)
            break;
        if (mode == MODE_RUN) {
            run_stream(g, epoch, atomic_load(&t->read_pct), atomic_load(&t->pad),
                       atomic_load(&t->kind));
            continue;
        }
        /* idle: sleep, touching no memory beyond this polling */
        while (atomic_load_explicit(&t->epoch, memory_order_acquire) == epoch) {
            struct timespec ts = { 0, 200000 };
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

int mess_traffic_start(mess_traffic **out, const int *cpus, int n, size_t bytes,
                       bool want_huge, nb_error *err)
{
    *out = NULL;
    mess_traffic *t = aligned_alloc(64, (sizeof *t + 63) / 64 * 64);
    gen *g = aligned_alloc(64, ((size_t)n * sizeof *g + 63) / 64 * 64 + 64);
    if (!t || !g) {
        free(t);
        free(g);
        return nb_error_at(err, NB_ENOMEM, "-mess", 0, 0, "out of memory for %d generators", n);
    }
    memset(t, 0, sizeof *t);
    memset(g, 0, (size_t)n * sizeof *g);
    atomic_init(&t->mode, MODE_IDLE);
    t->n = 0;
    t->bytes = bytes;
    t->want_huge = want_huge;
    t->g = g;
    int st = NB_OK;
    for (int i = 0; i < n; i++) {
        g[i].t = t;
        g[i].cpu = cpus[i];
        int e = pthread_create(&g[i].th, NULL, gen_main, &g[i]);
        if (e) {
            st = nb_error_at(err, NB_ESYSTEM, "-mess", 0, 0, "cannot start generator %d: %s", i,
                             strerror(e));
            break;
        }
        t->n++;
    }
    while (atomic_load(&t->ready) < t->n) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < t->n && st == NB_OK; i++)
        if (g[i].status) {
            st = g[i].status;
            if (err)
                *err = g[i].err;
        }
    if (st) {
        mess_traffic_stop(t);
        return st;
    }
    *out = t;
    return NB_OK;
}

void mess_traffic_set(mess_traffic *t, int read_pct, int pad, enum mess_pad kind)
{
    atomic_store(&t->read_pct, read_pct);
    atomic_store(&t->pad, pad < 0 ? 0 : pad);
    atomic_store(&t->kind, (int)kind);
    atomic_store(&t->mode, pad < 0 ? MODE_IDLE : MODE_RUN);
    atomic_fetch_add_explicit(&t->epoch, 1, memory_order_release);
}

uint64_t mess_traffic_bytes(mess_traffic *t)
{
    uint64_t b = 0;
    for (int i = 0; i < t->n; i++)
        b += atomic_load_explicit(&t->g[i].loads, memory_order_relaxed) * LINE +
             atomic_load_explicit(&t->g[i].stores, memory_order_relaxed) * 2 * LINE;
    return b;
}

double mess_traffic_huge_fraction(const mess_traffic *t)
{
    double s = 0;
    for (int i = 0; i < t->n; i++) {
        if (t->g[i].huge < 0)
            return -1;
        s += t->g[i].huge;
    }
    return t->n ? s / t->n : -1;
}

void mess_traffic_stop(mess_traffic *t)
{
    if (!t)
        return;
    atomic_store(&t->mode, MODE_EXIT);
    atomic_fetch_add_explicit(&t->epoch, 1, memory_order_release);
    for (int i = 0; i < t->n; i++) {
        pthread_join(t->g[i].th, NULL);
        mess_buf_free(&t->g[i].buf);
    }
    free(t->g);
    free(t);
}
