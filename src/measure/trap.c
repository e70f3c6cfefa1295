/* nb trap: the measuring process's signal handlers (see worker_shared.h).
 *
 * A fault, the parent's stop signal at -timeout, and -debug's trap are
 * recorded into the shared mapping (async-signal-safe) so that the parent
 * and fault.c can say what the benchmark did; nothing here allocates. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <sys/syscall.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "asm/asm.h"
#include "harness/codegen.h"
#include "sys/cpu.h"
#include "measure/fault.h"
#include "pmu/advice.h"
#include "sys/restore.h"
#include "measure/worker.h"
#include "measure/sandbox.h"
#include "measure/stats.h"
#include "sys/status.h"
#include "lib/clock.h"
#include "measure/worker_shared.h"

/* Copy up to n bytes from an address the benchmark may have left anything
 * in; process_vm_readv reports an unmapped page instead of faulting. */
static size_t safe_read(uint64_t addr, void *buf, size_t n)
{
    struct iovec local = {buf, n}, remote = {(void *)(uintptr_t)addr, n};
    ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    return got > 0 ? (size_t)got : 0;
}

/* Everything fault.c needs, into the shared mapping (async-signal-safe). */
static void record_fault(int sig, const siginfo_t *si, const ucontext_t *uc, bool stopped)
{
    fault_record *f = &g_hdr->fault;
    const greg_t *g = uc->uc_mcontext.gregs;
    static const int order[FAULT_NREG] = {
        REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
        REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
        REG_RIP, REG_EFL,
    };
    for (int i = 0; i < FAULT_NREG; i++)
        f->reg[i] = (uint64_t)g[order[i]];
    f->code = si->si_code;
    f->stopped = stopped;
    f->code_ran = g_code_ran;
    f->trapno = (int)g[REG_TRAPNO];
    f->err = (uint64_t)g[REG_ERR];
    f->addr = (uint64_t)(uintptr_t)si->si_addr;
    uint64_t rip = f->reg[FAULT_RIP];
    f->insn_addr = rip;
    if (sig == SIGSYS) {
        /* syscall, sysenter and int 0x80 are 2 bytes; RIP is past them */
        f->sys_nr = si->si_syscall;
        f->sys_arch = si->si_arch;
        f->insn_addr = rip - 2;
    } else if (sig == SIGTRAP && f->trapno == 3) {
        /* #BP is a trap: RIP is past the int3 (CC) or int 3 (CD 03) */
        uint8_t b[2];
        if (safe_read(rip - 2, b, 2) == 2)
            f->insn_addr = b[1] == 0xCC ? rip - 1 : b[0] == 0xCD && b[1] == 3 ? rip - 2 : rip;
    } else if (sig == SIGTRAP && f->trapno == 1 && si->si_code != TRAP_TRACE) {
        /* int1 (icebp, F1) raises #DB as a trap: RIP is past it (a
         * single step, TRAP_TRACE, stops before the next instruction) */
        uint8_t b;
        if (safe_read(rip - 1, &b, 1) == 1 && b == 0xF1)
            f->insn_addr = rip - 1;
    }
    uint8_t probe;
    f->addr_readable = safe_read(f->addr, &probe, 1) == 1;
    f->n_insn = safe_read(f->insn_addr, f->insn, sizeof f->insn);
    f->at_rsp_ok = safe_read(f->reg[FAULT_RSP], &f->at_rsp, 8) == 8;
    f->below_rsp_ok = safe_read(f->reg[FAULT_RSP] - 8, &f->below_rsp, 8) == 8;
    f->prog = (fault_prog)g_cur_kind;
    if (g_cur) {
        const codegen_prog *p = g_cur;
        bool once = g_cur_kind == PROG_ONE_TIME, cal = g_cur_kind == PROG_CAL;
        f->lay = (fault_layout){
            .base = (uint64_t)(uintptr_t)p->base, .code_len = p->code_len, .map_len = p->map_len,
            .init_off = p->init_off, .late_init_off = p->late_init_off,
            .init_len = cal ? 0 : once ? g_code->one_time_init_len : g_code->init_len,
            .late_init_len = cal || once ? 0 : g_code->late_init_len,
            .copies_off = p->copies_off, .copy_stride = p->copy_stride,
            .copies_end = p->copies_end, .n_copies = p->n_copies,
        };
    }
    f->signo = sig;   /* last: the parent takes a non-zero signo as a complete record */
}

/* The first thing in every handler: the benchmark may have set EFLAGS.AC
 * (alignment checking), which Linux leaves set in a signal handler, and a
 * misaligned access of nb's own would then raise SIGBUS in the handler; and
 * it may have moved the FS base nb's thread-local data sits on. */
#define CLEAR_AC()                                                          \
    do {                                                                    \
        __asm__ volatile("lea -128(%%rsp), %%rsp; pushfq; andq $~0x40000, (%%rsp); " \
                         "popfq; lea 128(%%rsp), %%rsp" ::: "memory", "cc"); /* past the red zone */ \
        child_restore_bases();                                              \
    } while (0)

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
    CLEAR_AC();
    record_fault(sig, si, ctx, false);
    g_hdr->status = NB_EFAULT;
    child_end();
}

/* -timeout: the parent asks the child to stop; note where the code was. */
static void on_stop(int sig, siginfo_t *si, void *ctx)
{
    CLEAR_AC();
    record_fault(sig, si, ctx, true);
    g_hdr->status = NB_EFAULT;
    child_end();
}

/* -debug's text, appended to the shared mapping (the child has no stderr of
 * nb's); the parent prints it after the run. */
__attribute__((format(printf, 1, 2)))
static void debug_add(const char *fmt, ...)
{
    char *t = g_hdr->debug_text;
    size_t cap = sizeof g_hdr->debug_text, used = strnlen(t, cap - 1);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t + used, cap - used, fmt, ap);
    va_end(ap);
}

/* -debug: the int3 before the second counter read lands here; note the
 * registers once (every run passes the same point) and go on. */
static void on_debug_trap(int sig, siginfo_t *si, void *ctx)
{
    CLEAR_AC();
    (void)si;
    ucontext_t *uc = ctx;
    if (g_debug_shown)
        return;
    g_debug_shown = true;
    static const struct { const char *name; int reg; } gpr[] = {
        {"rax", REG_RAX}, {"rbx", REG_RBX}, {"rcx", REG_RCX}, {"rdx", REG_RDX},
        {"rsi", REG_RSI}, {"rdi", REG_RDI}, {"rbp", REG_RBP}, {"rsp", REG_RSP},
        {"r8", REG_R8}, {"r9", REG_R9}, {"r10", REG_R10}, {"r11", REG_R11},
        {"r12", REG_R12}, {"r13", REG_R13}, {"r14", REG_R14}, {"r15", REG_R15},
        {"rip", REG_RIP}, {"eflags", REG_EFL},
    };
    g_hdr->debug_text[0] = 0;
    debug_add("-debug: registers before the second counter read (signal %d, "
              "first run of %zu copies):\n", sig, g_cur ? g_cur->n_copies : 0);
    for (size_t i = 0; i < sizeof gpr / sizeof gpr[0]; i++)
        debug_add("  %-7s 0x%016llx  %lld\n", gpr[i].name,
                  (unsigned long long)uc->uc_mcontext.gregs[gpr[i].reg],
                  (long long)uc->uc_mcontext.gregs[gpr[i].reg]);
    if (uc->uc_mcontext.fpregs) {
        struct _libc_fpstate *fp = uc->uc_mcontext.fpregs;
        debug_add("  mxcsr   0x%08x\n", fp->mxcsr);
        for (int i = 0; i < 16; i++)
            debug_add("  xmm%-4d %08x %08x %08x %08x\n", i, fp->_xmm[i].element[3],
                      fp->_xmm[i].element[2], fp->_xmm[i].element[1], fp->_xmm[i].element[0]);
        for (int i = 0; i < 8; i++)
            debug_add("  st%d     %04x %04x%04x%04x%04x\n", i, fp->_st[i].exponent,
                      fp->_st[i].significand[3], fp->_st[i].significand[2],
                      fp->_st[i].significand[1], fp->_st[i].significand[0]);
    }
}

int install_handlers(bool debug)
{
    static uint8_t altstack[65536];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0)
        return NB_ESYSTEM;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigfillset(&sa.sa_mask);
    /* SIGSYS: a system call the sandbox trapped (sandbox.h) */
    int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (sigaction(sigs[i], &sa, NULL) != 0)
            return NB_ESYSTEM;
    sa.sa_sigaction = on_stop;
    if (sigaction(STOP_SIGNAL, &sa, NULL) != 0)
        return NB_ESYSTEM;
    if (debug) {
        sa.sa_sigaction = on_debug_trap;
        sigaction(SIGTRAP, &sa, NULL);
    }
    return 0;
}
