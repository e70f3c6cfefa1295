/* nb emu step: the trap-flag stepper (see emu_step.h). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "pmu/emu_step.h"
#include "sys/status.h"

#define TF (UINT64_C(1) << 8)
/* A stretch of plain instructions (emu_insn.plain) runs natively when it
 * holds at least RUN_MIN of them, and at most RUN_MAX are decoded for one.
 * The last stretches are kept by start address (RUN_CACHE, direct-mapped):
 * a loop's body is decoded once. */
#define RUN_MIN 2
#define RUN_MAX 65536
#define RUN_CACHE 64

/* The benchmark may leave EFLAGS.AC (alignment checking) set, which Linux
 * keeps in a handler: cleared first, before nb's own code touches memory. */
#define CLEAR_AC()                                                                  \
    __asm__ volatile("lea -128(%%rsp), %%rsp; pushfq; andq $~0x40000, (%%rsp); "    \
                     "popfq; lea 128(%%rsp), %%rsp" ::: "memory", "cc")

static struct {
    bool installed;
    struct sigaction old_trap, old_segv;
    size_t n;                        /* the group's rdpmc counters */
    uint32_t ecx[PMU_MAX_GROUP_CTR], mask[PMU_MAX_GROUP_CTR];
    /* the stepped call in flight */
    volatile bool stepping;
    bool entered;
    emu_prog p;
    uint64_t counts[EMU_KIND_MAX];
    emu_insn pend;                   /* decoded, about to run or running */
    bool have_pend, pend_known;
    uint64_t pend_rcx;               /* REP string: RCX before the iteration */
    uint64_t iterations;
    uint64_t steps, budget, retired;
    bool over, unknown;
    /* stretches run natively (emu_step_call's `runs`) */
    bool runs;
    bool in_run;                     /* one is running: its end holds an int3 */
    uintptr_t run_end;
    uint8_t run_saved;               /* the byte the int3 replaced */
    size_t run_slot;                 /* its entry in cache[] */
    struct run_entry {
        uintptr_t start, end;        /* start 0: empty */
        uint64_t n;
        uint64_t counts[EMU_KIND_MAX];
    } cache[RUN_CACHE];
    /* the native call in flight */
    volatile bool native;
    emu_prog np;
} g;

static size_t find_counter(uint32_t ecx)
{
    for (size_t i = 0; i < g.n; i++)
        if (g.ecx[i] == ecx)
            return i;
    return g.n;
}

static void chain(int sig, siginfo_t *si, void *ctx)
{
    const struct sigaction *old = sig == SIGTRAP ? &g.old_trap : &g.old_segv;
    if (old->sa_flags & SA_SIGINFO) {
        old->sa_sigaction(sig, si, ctx);
    } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
    } else {
        /* the default action: a fault comes back when the instruction runs
         * again, a trap is raised once more */
        sigaction(sig, old, NULL);
        if (sig == SIGTRAP)
            raise(sig);
    }
}

static uint64_t width_mask(unsigned bits)
{
    return bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
}

static bool decode(uintptr_t at, greg_t *r, emu_insn *in)
{
    size_t avail = g.p.map_end > at ? g.p.map_end - at : 0;
    if (avail > 15)
        avail = 15;
    return emu_classify((const uint8_t *)at, avail, at, (uint64_t)r[REG_EFL],
                        (uint64_t)r[REG_RCX], in);
}

/* The instruction just executed, now retired. */
static void retire(greg_t *r, const emu_insn *in, bool known, uint64_t iterations)
{
    emu_count_retired(g.counts, in, iterations);
    g.retired++;
    g.unknown |= !known;
    if (known && in->pushf) {
        /* TF is bit 8: bit 0 of the pushed value's second byte */
        ((uint8_t *)(uintptr_t)r[REG_RSP])[1] &= (uint8_t)~1u;
    }
}

/* Plain instructions decoded for stretches, by their bytes (MEMO_SLOTS,
 * direct-mapped on the first 8): the copies of a snippet repeat the same
 * few, and the same bytes decode alike wherever they lie, so a stretch of
 * 2,000,000 NOPs decodes one (decoding each took 0.24 s of a 0.6 s run of
 * `-asm "1000*|nop|"`, three quarters of the emulator's time). */
#define MEMO_SLOTS 256
static struct memo {
    uint8_t bytes[15];
    uint8_t len;                     /* 0: empty */
    emu_insn in;
} g_memo[MEMO_SLOTS];

/* The plain instruction at `at` from the memo, or decoded (and kept there
 * when plain); false where it does not decode. */
static bool decode_plain(uintptr_t at, greg_t *r, emu_insn *in)
{
    size_t avail = g.p.map_end > at ? g.p.map_end - at : 0;
    const uint8_t *b = (const uint8_t *)at;
    struct memo *m = NULL;
    if (avail >= 8) {
        uint64_t k;
        memcpy(&k, b, 8);
        m = &g_memo[(k * UINT64_C(0x9E3779B97F4A7C15)) >> 56];
        if (m->len && m->len <= avail && memcmp(m->bytes, b, m->len) == 0) {
            *in = m->in;
            in->addr = at;
            return true;
        }
    }
    if (!decode(at, r, in))
        return false;
    if (m && in->plain && in->len <= sizeof m->bytes) {
        memcpy(m->bytes, b, in->len);
        m->len = in->len;
        m->in = *in;
    }
    return true;
}

/* The stretch of plain instructions from `start` up to the first that is
 * not (it ends the stretch and is stepped), from the cache or decoded;
 * NULL when it is shorter than RUN_MIN. */
static struct run_entry *run_at(uintptr_t start, greg_t *r)
{
    struct run_entry *e = &g.cache[(start >> 2) % RUN_CACHE];
    if (e->start == start)
        return e->n >= RUN_MIN && e->end < g.p.hi ? e : NULL;
    memset(e, 0, sizeof *e);
    uintptr_t at = start;
    emu_insn in;
    while (at < g.p.hi && e->n < RUN_MAX && decode_plain(at, r, &in) && in.plain) {
        emu_count_retired(e->counts, &in, 1);
        e->n++;
        at += in.len;
    }
    e->start = start;
    e->end = at;
    return e->n >= RUN_MIN && at < g.p.hi ? e : NULL;
}

/* Let the stretch at RIP run natively: an int3 at its end brings control
 * back (on_trap, finish_run). */
static bool start_run(greg_t *r)
{
    struct run_entry *e = run_at((uintptr_t)r[REG_RIP], r);
    if (!e)
        return false;
    uint8_t *end = (uint8_t *)e->end;
    g.run_saved = *end;
    *end = 0xCC;
    g.run_end = e->end;
    g.run_slot = (size_t)(e - g.cache);
    g.in_run = true;
    g.have_pend = false;
    return true;
}

/* The int3 at the stretch's end: every instruction of it retired. */
static void finish_run(greg_t *r)
{
    const struct run_entry *e = &g.cache[g.run_slot];
    *(uint8_t *)g.run_end = g.run_saved;
    g.in_run = false;
    for (unsigned k = 0; k < EMU_KIND_MAX; k++)
        g.counts[k] += e->counts[k];
    g.retired += e->n;
    r[REG_RIP] = (greg_t)g.run_end;
}

/* Decode the instruction at RIP as the pending one, answering rdpmc reads
 * of the group on the way (each is retired after its read); or, where a
 * stretch of plain instructions starts, let it run (g.in_run). */
static void take_next(greg_t *r)
{
    for (;;) {
        uintptr_t rip = (uintptr_t)r[REG_RIP];
        g.pend_known = decode(rip, r, &g.pend);
        g.have_pend = true;
        g.iterations = 0;
        g.pend_rcx = (uint64_t)r[REG_RCX];
        if (g.runs && g.pend_known && g.pend.plain && start_run(r))
            return;
        if (!g.pend_known || !g.pend.rdpmc)
            return;
        size_t i = find_counter((uint32_t)r[REG_RCX]);
        if (i == g.n)
            return;   /* not the group's: it runs, and faults where rdpmc is off */
        uint64_t v = emu_value(g.counts, g.mask[i]);
        r[REG_RAX] = (greg_t)(v & 0xFFFFFFFF);
        r[REG_RDX] = (greg_t)(v >> 32);
        r[REG_RIP] = (greg_t)rip + (greg_t)g.pend.len;
        retire(r, &g.pend, true, 0);
        g.have_pend = false;
        if ((uintptr_t)r[REG_RIP] >= g.p.hi)
            return;
    }
}

/* One trap inside the program: after a step, or at a stretch's end. */
static void step(greg_t *r, bool run_end)
{
    g.steps++;
    if (run_end)
        finish_run(r);
    uintptr_t rip = (uintptr_t)r[REG_RIP];
    if (g.have_pend) {
        emu_insn *p = &g.pend;
        if (g.pend_known && p->rep_string) {
            if (g.pend_rcx & width_mask(p->addr_width)) {
                emu_count_iteration(g.counts, p);
                g.iterations++;
            }
            if (rip == p->addr) {            /* more iterations to go */
                g.pend_rcx = (uint64_t)r[REG_RCX];
                return;
            }
        }
        retire(r, p, g.pend_known, g.iterations);
        if (g.pend_known && p->loads_ss) {
            /* the instruction in its shadow ran without a trap */
            emu_insn s;
            bool known = decode(p->addr + p->len, r, &s);
            retire(r, &s, known, 1);
        }
        g.have_pend = false;
    }
    if (g.budget && g.steps > g.budget) {
        g.over = true;
        g.stepping = false;
        r[REG_RIP] = (greg_t)g.p.epilogue;
        r[REG_EFL] &= (greg_t)~TF;
        return;
    }
    take_next(r);
}

static void on_trap(int sig, siginfo_t *si, void *ctx)
{
    CLEAR_AC();
    ucontext_t *uc = ctx;
    greg_t *r = uc->uc_mcontext.gregs;
    bool breakpoint = r[REG_TRAPNO] == 3;
    if (g.stepping) {
        uintptr_t rip = (uintptr_t)r[REG_RIP];
        /* (a stretch that ends at the final RET traps at the program's end) */
        bool run_end = breakpoint && g.in_run && rip == g.run_end + 1;
        if (run_end || (rip >= g.p.lo && rip < g.p.hi)) {
            g.entered = true;
            step(r, run_end);
            if (g.in_run || !g.stepping)
                r[REG_EFL] &= (greg_t)~TF;
            else
                r[REG_EFL] |= (greg_t)TF;
            if (run_end)
                return;
        } else if (g.entered) {
            if (g.have_pend)   /* the program's RET */
                retire(r, &g.pend, g.pend_known, g.iterations);
            g.have_pend = false;
            g.stepping = false;
            r[REG_EFL] &= (greg_t)~TF;
        }
        if (!breakpoint)
            return;
    }
    /* someone else's trap: -debug's int3, or one in the benchmark code */
    greg_t efl = r[REG_EFL];
    r[REG_EFL] &= (greg_t)~TF;
    chain(sig, si, ctx);
    r[REG_EFL] = (r[REG_EFL] & (greg_t)~TF) | (efl & (greg_t)TF);
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    CLEAR_AC();
    ucontext_t *uc = ctx;
    greg_t *r = uc->uc_mcontext.gregs;
    uintptr_t rip = (uintptr_t)r[REG_RIP];
    if (g.native && rip >= g.np.lo && rip < g.np.hi) {
        emu_insn in;
        size_t avail = g.np.map_end - rip < 15 ? g.np.map_end - rip : 15;
        if (emu_classify((const uint8_t *)rip, avail, rip, 0, 0, &in) && in.rdpmc &&
            find_counter((uint32_t)r[REG_RCX]) < g.n) {
            /* a warm-up's read, whose value is not used */
            r[REG_RAX] = r[REG_RDX] = 0;
            r[REG_RIP] = (greg_t)rip + (greg_t)in.len;
            return;
        }
    }
    chain(sig, si, ctx);
}

int emu_step_begin(const pmu_counter *ctr, size_t n)
{
    g.n = 0;
    for (size_t i = 0; i < n && g.n < PMU_MAX_GROUP_CTR; i++) {
        if (ctr[i].read != PMU_READ_RDPMC)
            continue;
        g.ecx[g.n] = ctr[i].rdpmc_ecx;
        g.mask[g.n++] = ctr[i].emu;
    }
    if (g.installed)
        return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigfillset(&sa.sa_mask);
    sa.sa_sigaction = on_trap;
    if (sigaction(SIGTRAP, &sa, &g.old_trap) != 0)
        return NB_ESYSTEM;
    sa.sa_sigaction = on_segv;
    if (sigaction(SIGSEGV, &sa, &g.old_segv) != 0) {
        sigaction(SIGTRAP, &g.old_trap, NULL);
        return NB_ESYSTEM;
    }
    g.installed = true;
    return 0;
}

void emu_step_end(void)
{
    if (!g.installed)
        return;
    sigaction(SIGTRAP, &g.old_trap, NULL);
    sigaction(SIGSEGV, &g.old_segv, NULL);
    g.installed = false;
    g.n = 0;
}

emu_step_result emu_step_call(const emu_prog *p, uint64_t budget, bool runs)
{
    g.p = *p;
    memset(g.counts, 0, sizeof g.counts);
    memset(g.cache, 0, sizeof g.cache);   /* another program may lie there now */
    g.entered = g.have_pend = g.over = g.unknown = g.in_run = false;
    g.steps = g.retired = 0;
    g.budget = budget;
    g.runs = runs;
    g.stepping = true;
    /* TF on; the CPU traps from the instruction after the POPF on (the
     * red zone below RSP is left alone) */
    __asm__ volatile("lea -128(%%rsp), %%rsp; pushfq; orq $0x100, (%%rsp); popfq; "
                     "lea 128(%%rsp), %%rsp" ::: "memory", "cc");
    p->entry();
    if (g.in_run) {     /* cannot happen: the program passes every stretch's end */
        *(uint8_t *)g.run_end = g.run_saved;
        g.in_run = false;
    }
    if (g.stepping) {   /* never entered: cannot happen, but never leave TF on */
        g.stepping = false;
        __asm__ volatile("lea -128(%%rsp), %%rsp; pushfq; andq $~0x100, (%%rsp); popfq; "
                         "lea 128(%%rsp), %%rsp" ::: "memory", "cc");
    }
    return (emu_step_result){.steps = g.steps, .retired = g.retired, .over = g.over,
                             .unknown = g.unknown};
}

void emu_step_call_native(const emu_prog *p)
{
    g.np = *p;
    g.native = true;
    p->entry();
    g.native = false;
}

/* Three NOPs and a RET in nb's own text, for the self-test. */
__asm__(".text\n"
        ".p2align 4\n"
        "nb_emu_probe_code:\n"
        "  nop\n  nop\n  nop\n  ret\n"
        "nb_emu_probe_end:\n"
        "  int3\n");
extern char nb_emu_probe_code[], nb_emu_probe_end[];

bool emu_step_works(char *why, size_t whylen)
{
    static int known;   /* 0: not tested, 1: works, -1: does not */
    static char reason[160];
    if (!known) {
        known = -1;
        if (emu_step_begin(NULL, 0) != 0) {
            snprintf(reason, sizeof reason, "cannot install a SIGTRAP handler");
        } else {
            uintptr_t lo = (uintptr_t)nb_emu_probe_code, hi = (uintptr_t)nb_emu_probe_end;
            emu_prog p = {.entry = (void (*)(void))(void *)nb_emu_probe_code, .lo = lo, .hi = hi,
                          .map_end = hi + 1, .epilogue = hi - 1};
            emu_step_result r = emu_step_call(&p, 16, false);
            uint64_t n = g.counts[EMU_INSTRUCTIONS];
            emu_step_end();
            if (r.steps == 4 && n == 4)
                known = 1;
            else
                snprintf(reason, sizeof reason, "the trap flag does not step user code here "
                         "(%llu traps for 4 instructions; valgrind's CPU, for one, ignores it)",
                         (unsigned long long)r.steps);
        }
    }
    if (known < 0 && whylen)
        snprintf(why, whylen, "%s", reason);
    return known > 0;
}
