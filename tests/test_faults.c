/* faults: the reports fault_describe makes from hand-made fault records
 * (fault.c), the seccomp sandbox (sandbox.c), and restoring through a fake
 * sysfs/msr root when the benchmark faults and when nb is stopped by
 * SIGINT, SIGTERM or SIGHUP in the middle of a run (restore.c, measure/worker.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure/session.h"
#include "measure/fault.h"
#include "sys/restore.h"
#include "measure/sandbox.h"
#include "sys/status.h"

/* ---- fault_describe ---- */

#define BASE UINT64_C(0x7f0000010000)
#define COPIES_OFF 0x100
#define N_COPIES 5

static const char *g_isa_seen;
static cpu_isa_state g_isa_answer;

static cpu_isa_state fake_isa(const char *isa_set, char *feature, size_t len)
{
    g_isa_seen = isa_set;
    snprintf(feature, len, "AVX512F");
    return g_isa_answer;
}

static fault_context ctx_for(const uint8_t *code, size_t len)
{
    fault_context c;
    memset(&c, 0, sizeof c);
    c.code = (fault_fragment){"-asm", code, len};
    c.init = (fault_fragment){"-code_init", NULL, 0};
    c.late_init = (fault_fragment){"-asm_late_init", NULL, 0};
    c.one_time_init = (fault_fragment){"-asm_one_time_init", NULL, 0};
    c.timeout = 2;
    c.isa_status = fake_isa;
    return c;
}

/* A record for a fault at offset `off` of copy `copy` (1-based) of `code`,
 * the bytes there as executed. */
static fault_record rec_at(const uint8_t *code, size_t len, size_t copy, size_t off, int sig)
{
    fault_record r;
    memset(&r, 0, sizeof r);
    r.signo = sig;
    r.prog = FAULT_PROG_MEASURE;
    r.lay = (fault_layout){.base = BASE, .code_len = 0x1000, .map_len = 0x3000, .init_off = 0x40,
                           .late_init_off = 0x80, .copies_off = COPIES_OFF, .copy_stride = len,
                           .copies_end = COPIES_OFF + N_COPIES * len, .n_copies = N_COPIES};
    r.insn_addr = BASE + COPIES_OFF + (copy - 1) * len + off;
    r.reg[FAULT_RIP] = r.insn_addr;
    r.reg[FAULT_RSP] = UINT64_C(0x7f0000800000);
    r.n_insn = len - off;
    memcpy(r.insn, code + off, r.n_insn);
    return r;
}

static void expect(const fault_record *r, const fault_context *c, const char *want)
{
    char buf[1024];
    fault_describe(r, c, buf, sizeof buf);
    printf("  %s\n", buf);
    if (!strstr(buf, want))
        fail_msg("report\n  %s\ndoes not contain\n  %s", buf, want);
}

static void test_missing_instruction(void **state)
{
    (void)state;
    static const uint8_t code[] = {0x62, 0xf1, 0x7d, 0x48, 0xfe, 0xc0};   /* vpaddd zmm0, zmm0, zmm0 */
    fault_context c = ctx_for(code, sizeof code);
    fault_record r = rec_at(code, sizeof code, 2, 0, SIGILL);
    r.trapno = 6;
    r.code = ILL_ILLOPN;
    g_isa_answer = CPU_ISA_MISSING;
    expect(&r, &c, "raised SIGILL at +0x0 (vpaddd zmm0, zmm0, zmm0) in -asm, copy 2 of 5: "
                   "instruction not supported by this CPU (needs AVX512F)");
    assert_string_equal(g_isa_seen, "AVX512F_512");
    g_isa_answer = CPU_ISA_OS_OFF;
    expect(&r, &c, "the CPU has AVX512F, but the OS has not enabled its register state (XCR0)");
}

static void test_jump_origin_relative(void **state)
{
    (void)state;
    static const uint8_t code[] = {0x90, 0xe9, 0x00, 0x00, 0x00, 0x01};   /* nop; jmp $+0x1000005 */
    fault_context c = ctx_for(code, sizeof code);
    fault_record r = rec_at(code, sizeof code, 1, 0, SIGSEGV);
    /* copy 3's jump lands at its end + 0x1000000: nothing is mapped there */
    uint64_t dest = BASE + COPIES_OFF + 2 * sizeof code + sizeof code + 0x1000000;
    r.insn_addr = r.reg[FAULT_RIP] = r.addr = dest;
    r.n_insn = 0;
    r.trapno = 14;
    r.err = 0x14;   /* user-mode instruction fetch */
    r.code = SEGV_MAPERR;
    expect(&r, &c, "raised SIGSEGV: it jumped to 0x7f0001010112, which is not mapped, from +0x1 "
                   "(jmp 0x0000000001000006) in -asm, copy 3 of 5");
}

static void test_jump_origin_call_register(void **state)
{
    (void)state;
    static const uint8_t code[] = {0xff, 0xd0};   /* call rax */
    fault_context c = ctx_for(code, sizeof code);
    fault_record r = rec_at(code, sizeof code, 1, 0, SIGSEGV);
    r.insn_addr = r.reg[FAULT_RIP] = r.addr = r.reg[FAULT_RAX] = UINT64_C(0x100000000);
    r.n_insn = 0;
    r.trapno = 14;
    r.err = 0x14;
    r.code = SEGV_MAPERR;
    r.at_rsp = BASE + COPIES_OFF + 3 * sizeof code + 2;   /* returns into copy 4 */
    r.at_rsp_ok = true;
    expect(&r, &c, "it jumped to 0x100000000, which is not mapped, from +0x0 (call rax) in -asm, "
                   "copy 4 of 5");
    /* no return address: still found, through RAX, but which copy is unknown */
    r.at_rsp_ok = false;
    expect(&r, &c, "from +0x0 (call rax) in -asm (which of its 5 copies is not known)");
}

static void test_misaligned_and_noncanonical(void **state)
{
    (void)state;
    static const uint8_t code[] = {0x41, 0x0f, 0x28, 0x46, 0x01};   /* movaps xmm0, [r14+1] */
    fault_context c = ctx_for(code, sizeof code);
    fault_record r = rec_at(code, sizeof code, 1, 0, SIGSEGV);
    r.trapno = 13;
    r.code = SI_KERNEL;
    r.reg[FAULT_R14] = UINT64_C(0x7f0000200000);
    expect(&r, &c, "raised SIGSEGV at +0x0 (movaps xmm0, [r14+0x01]) in -asm, copy 1 of 5: general "
                   "protection fault: misaligned 16-byte memory operand at 0x7f0000200001; movaps "
                   "needs it 16-byte aligned");
    r.reg[FAULT_R14] = UINT64_C(0x8000000000000000);
    expect(&r, &c, "0x8000000000000001 is not a canonical address");
}

static void test_division(void **state)
{
    (void)state;
    static const uint8_t code[] = {0x48, 0xf7, 0xf1};   /* div rcx */
    fault_context c = ctx_for(code, sizeof code);
    fault_record r = rec_at(code, sizeof code, 5, 0, SIGFPE);
    r.trapno = 0;
    r.code = FPE_INTDIV;
    expect(&r, &c, "raised SIGFPE at +0x0 (div rcx) in -asm, copy 5 of 5: integer division by zero");
    r.reg[FAULT_RCX] = 1;
    r.reg[FAULT_RDX] = 5;
    expect(&r, &c, "integer division overflow: the quotient does not fit the destination");
}

static void test_syscalls(void **state)
{
    (void)state;
    static const uint8_t code[] = {0xb8, 0x3c, 0x00, 0x00, 0x00, 0x0f, 0x05};   /* mov eax, 60; syscall */
    fault_context c = ctx_for(code, sizeof code);
    fault_record r = rec_at(code, sizeof code, 1, 5, SIGSYS);
    r.sys_arch = AUDIT_ARCH_X86_64;
    r.sys_nr = 60;
    expect(&r, &c, "executed a system call (exit, number 60) at +0x5 (syscall) in -asm, copy 1 of 5");
    r.sys_nr = 4000;
    expect(&r, &c, "executed a system call (number 4000) at +0x5");
    r.sys_arch = AUDIT_ARCH_I386;
    r.sys_nr = 1;
    expect(&r, &c, "executed a 32-bit system call (number 1)");
    assert_string_equal(sandbox_syscall_name(0), "read");
    assert_string_equal(sandbox_syscall_name(1), "write");
    assert_string_equal(sandbox_syscall_name(231), "exit_group");
    assert_null(sandbox_syscall_name(-1));
}

static void test_places(void **state)
{
    (void)state;
    static const uint8_t init[] = {0x90, 0x0f, 0x0b};   /* nop; ud2 */
    static const uint8_t code[] = {0x90};
    fault_context c = ctx_for(code, sizeof code);
    c.init = (fault_fragment){"-code_init", init, sizeof init};
    fault_record r = rec_at(code, sizeof code, 1, 0, SIGILL);
    r.lay.init_len = sizeof init;
    r.trapno = 6;
    r.insn_addr = BASE + 0x40 + 1;
    r.n_insn = 2;
    memcpy(r.insn, init + 1, 2);
    expect(&r, &c, "raised SIGILL at +0x1 (ud2) in -code_init: invalid instruction: ud2 raises #UD");
    /* the same program as -asm_one_time_init's */
    r.prog = FAULT_PROG_ONE_TIME;
    c.one_time_init = c.init;
    c.one_time_init.name = "-asm_one_time_init";
    expect(&r, &c, "at +0x1 (ud2) in -asm_one_time_init:");
    /* nb's own instructions around the fragments */
    r.prog = FAULT_PROG_MEASURE;
    r.insn_addr = BASE + 0x10;
    expect(&r, &c, "at +0x10 (ud2) of nb's generated harness, not in the benchmark code");
    r.insn_addr = BASE + 0x2000;
    expect(&r, &c, "at +0x2000 of the generated program, past the end of its code");
    r.insn_addr = UINT64_C(0x1234);
    expect(&r, &c, "at 0x1234 (ud2), outside the generated code");
    /* nb's own code, no program running: a bug in nb, and said so */
    r.prog = FAULT_PROG_NONE;
    r.signo = SIGSEGV;
    r.reg[FAULT_RIP] = 0x401000;
    expect(&r, &c, "nb's measuring process raised SIGSEGV in its own code at 0x401000 (not in the "
                   "benchmark code; a bug in nb)");
    /* -timeout: before the benchmark code started (no blame on nb's code),
     * between its runs, and in it */
    r.stopped = true;
    expect(&r, &c, "-timeout 2 s ran out before the benchmark code started: nb was still "
                   "preparing the run (generating the code, calibrating the clock), which took "
                   "longer than that here; nothing was measured (give -timeout more time)");
    r.prog = FAULT_PROG_CAL;
    expect(&r, &c, "-timeout 2 s ran out before the benchmark code started");
    r.code_ran = true;
    expect(&r, &c, "the benchmark's runs together took longer than 2 s (-timeout); it was "
                   "stopped between two of them (in nb's clock calibration)");
    r.prog = FAULT_PROG_MEASURE;
    r.insn_addr = BASE + COPIES_OFF;
    r.n_insn = 1;
    r.insn[0] = 0x90;
    expect(&r, &c, "the benchmark code did not finish within 2 s (-timeout); it was stopped at "
                   "+0x0 (nop) in -asm, copy 1 of 5");
}

static void test_stack_overflow_guard(void **state)
{
    (void)state;
    static const uint8_t code[] = {0x50};   /* push rax */
    fault_context c = ctx_for(code, sizeof code);
    fault_record r = rec_at(code, sizeof code, 1, 0, SIGSEGV);
    r.n_area = 1;
    r.area[0] = (fault_area){"RSP", UINT64_C(0x7f0000800000), 1u << 20, 1u << 16};
    r.reg[FAULT_RSP] = UINT64_C(0x7f0000800000);
    r.addr = r.reg[FAULT_RSP] - 8;
    r.trapno = 14;
    r.err = 0x7;   /* user write to a present (PROT_NONE) page */
    r.code = SEGV_ACCERR;
    expect(&r, &c, "at +0x0 (push rax) in -asm, copy 1 of 5: stack overflow: write to "
                   "0x7f00007ffff8, in the guard page below RSP's 1 MB area");
}

/* ---- sandbox ---- */

/* What the sealed child saw, in memory shared with the test. */
typedef struct sealed_seen {
    long pid_from_page;      /* getpid by a `syscall` in an anonymous page */
    volatile long trapped_nr;   /* the SIGSYS of libc's own write() */
    int seal_rc;
} sealed_seen;
static sealed_seen *g_seen;

static void on_sys(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)ctx;
    g_seen->trapped_nr = si->si_syscall;
    for (;;) {   /* exit is trapped now too: the test kills it */
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
    }
}

/* "CapEff:" or "CapPrm:" of process pid, 0 if it cannot be read. */
static unsigned long long caps_of(pid_t pid, const char *key)
{
    char p[64], line[256];
    snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
    FILE *f = fopen(p, "r");
    unsigned long long v = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, strlen(key)) == 0)
            v = strtoull(line + strlen(key), NULL, 16);
    if (f)
        fclose(f);
    return v;
}

/* A sealed process: the filter does not care where a call comes from.  An
 * allowed call (getpid) runs from an anonymous code page; a call that is not
 * allowed (write) is trapped even from libc's own code, where the filter of
 * old let every call through; and no capability is left. */
static void test_sandbox_seal(void **state)
{
    (void)state;
    g_seen = mmap(NULL, sizeof *g_seen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(g_seen != MAP_FAILED);
    memset(g_seen, 0, sizeof *g_seen);
    g_seen->trapped_nr = -1;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sys;
        sa.sa_flags = SA_SIGINFO;
        sigaction(SIGSYS, &sa, NULL);
        /* mov eax, 39 (getpid); syscall; ret */
        static const uint8_t code[] = {0xb8, 39, 0, 0, 0, 0x0f, 0x05, 0xc3};
        void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            _exit(3);
        memcpy(m, code, sizeof code);
        int fd = open("/dev/null", O_WRONLY);
        nb_error err;
        g_seen->seal_rc = sandbox_seal(-1, getpid(), &err);
        if (g_seen->seal_rc != 0)
            _exit(77);
        g_seen->pid_from_page = ((long (*)(void))m)();
        ssize_t w = write(fd, "x", 1);   /* trapped: on_sys ends the process */
        (void)w;
        for (;;)
            ;
    }
    int st;
    for (int i = 0; i < 500 && g_seen->trapped_nr == -1 && waitpid(pid, &st, WNOHANG) == 0; i++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    unsigned long long eff = caps_of(pid, "CapEff:"), prm = caps_of(pid, "CapPrm:");
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
        printf("  sandbox unavailable (%d)\n", g_seen->seal_rc);
        skip();
    }
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    assert_int_equal(g_seen->pid_from_page, pid);
    assert_int_equal(g_seen->trapped_nr, SYS_write);
    assert_int_equal(eff, 0);
    assert_int_equal(prm, 0);
    munmap(g_seen, sizeof *g_seen);
}

/* The calls the filter lets through: nothing that opens, starts, signals,
 * writes or ends. */
static void test_sandbox_list(void **state)
{
    (void)state;
    static const long never[] = {SYS_open, SYS_openat, SYS_creat, SYS_write, SYS_pwrite64,
                                 SYS_writev, SYS_clone, SYS_clone3, SYS_fork, SYS_vfork,
                                 SYS_execve, SYS_execveat, SYS_kill, SYS_tgkill, SYS_tkill,
                                 SYS_exit, SYS_exit_group, SYS_ptrace, SYS_socket,
                                 SYS_connect, SYS_dup, SYS_dup2, SYS_perf_event_open,
                                 SYS_ioctl, SYS_mprotect, SYS_setuid, SYS_capset,
                                 SYS_process_vm_writev, SYS_pidfd_open, SYS_io_uring_setup};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        if (sandbox_allows(never[i]))
            fail_msg("the sandbox lets %s through", sandbox_syscall_name(never[i]));
    assert_true(sandbox_allows(SYS_rt_sigreturn));
    assert_true(sandbox_allows(SYS_sendto));
}

/* ---- restoring through a fake root ---- */

#define RDPMC "/sys/bus/event_source/devices/cpu/rdpmc"
#define MSR "/dev/cpu/0/msr"
#define MSR_NO 0x38F

static char root[256];

static void put_file(const char *rel, const void *data, size_t n, off_t off)
{
    char p[512];
    snprintf(p, sizeof p, "%s%s", root, rel);
    int fd = open(p, O_WRONLY | O_CREAT, 0644);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, data, n, off), (ssize_t)n);
    close(fd);
}

static size_t get_file(const char *rel, void *data, size_t n, off_t off)
{
    char p[512];
    snprintf(p, sizeof p, "%s%s", root, rel);
    memset(data, 0, n);
    int fd = open(p, O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t got = pread(fd, data, n, off);
    close(fd);
    return got > 0 ? (size_t)got : 0;
}

static int setup_root(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/nb_faults_XXXXXX");
    if (!mkdtemp(root))
        return -1;
    const char *dirs[] = {"/sys", "/sys/bus", "/sys/bus/event_source",
                          "/sys/bus/event_source/devices", "/sys/bus/event_source/devices/cpu",
                          "/dev", "/dev/cpu", "/dev/cpu/0"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s%s", root, dirs[i]);
        mkdir(p, 0755);
    }
    return 0;
}

static int teardown_root(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

/* The initial "system": rdpmc 1, the MSR 0x1234, an empty undo log. */
static void reset_root(void)
{
    put_file(RDPMC, "1\n", 2, 0);
    static uint64_t zero[0x400];
    put_file(MSR, zero, sizeof zero, 0);
    uint64_t v = 0x1234;
    put_file(MSR, &v, 8, MSR_NO);
    char p[512];
    snprintf(p, sizeof p, "%s/undo.log", root);
    unlink(p);
}

/* An undo callback: appends the pid of the process that ran it. */
static void log_undo(void)
{
    char p[512], line[32];
    snprintf(p, sizeof p, "%s/undo.log", root);
    int fd = open(p, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0)
        return;
    int n = snprintf(line, sizeof line, "%d\n", (int)getpid());
    if (write(fd, line, (size_t)n) < 0) { /* the test will see it */ }
    close(fd);
}

/* In the process that plays nb: change the fake system, as a backend
 * would (rdpmc 2, the MSR, a callback), through the restore registry. */
static void change_settings(void)
{
    nb_error err;
    if (restore_set_file(root, RDPMC, "2", &err) != 0 ||
        restore_set_msr(root, 0, MSR_NO, 0xF, &err) != 0 ||
        restore_push_fn(log_undo) != 0) {
        fprintf(stderr, "%s\n", err.message);
        _exit(90);
    }
}

/* Every setting is back, and the undo callback ran exactly once, in `nb`. */
static void assert_restored(pid_t nb)
{
    char buf[64];
    get_file(RDPMC, buf, sizeof buf - 1, 0);
    assert_string_equal(buf, "1\n");
    uint64_t v = 0;
    get_file(MSR, &v, 8, MSR_NO);
    assert_int_equal(v, 0x1234);
    char want[32];
    snprintf(want, sizeof want, "%d\n", (int)nb);
    get_file("/undo.log", buf, sizeof buf - 1, 0);
    assert_string_equal(buf, want);
}

static bench_code code_of(const uint8_t *b, size_t n)
{
    return (bench_code){.code = b, .code_len = n};
}

static nb_options quick_options(void)
{
    nb_options o;
    options_defaults(&o);
    o.backend = PMU_BACKEND_TSC;
    o.unroll_count = 2;
    o.n_measurements = 1;
    o.warm_up_count = 0;
    return o;
}

/* The benchmark faults in the child; nb (here: a forked process) reports
 * it and its exit path restores everything the registry holds. */
static void test_restored_after_fault(void **state)
{
    (void)state;
    reset_root();
    pid_t nb = fork();
    assert_true(nb >= 0);
    if (nb == 0) {
        change_settings();
        static const uint8_t bad[] = {0x48, 0x8b, 0x03};   /* mov rax, [rbx] */
        bench_code c = code_of(bad, sizeof bad);
        nb_options o = quick_options();
        cpu_info cpu;
        cpu_detect(&cpu);
        bench_result r;
        nb_error err;
        int rc = bench_run(&o, &c, NULL, 0, &cpu, &r, &err);
        restore_all();   /* nb's way out (bench_run may have done it already) */
        _exit(rc == NB_EFAULT && strstr(err.message, "null pointer") ? 0 : 1);
    }
    int st;
    assert_int_equal(waitpid(nb, &st, 0), nb);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_restored(nb);
}

/* The measuring child of `nb`, waiting up to 5 s for it. */
static pid_t child_of(pid_t nb)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/task/%d/children", (int)nb, (int)nb);
    for (int i = 0; i < 500; i++) {
        FILE *f = fopen(p, "r");
        int c = 0;
        if (f) {
            if (fscanf(f, "%d", &c) != 1)
                c = 0;
            fclose(f);
        }
        if (c > 0)
            return c;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* nb is stopped by `sig` while the benchmark code loops: it dies of that
 * signal, every setting is restored once (by nb, not by its child), and
 * the child is gone, not even a zombie.  `group`: the signal goes to the
 * whole process group, as Ctrl-C sends it, so the child gets it too. */
static void stopped_by(int sig, bool group)
{
    reset_root();
    pid_t nb = fork();
    assert_true(nb >= 0);
    if (nb == 0) {
        setpgid(0, 0);
        change_settings();
        static const uint8_t hang[] = {0xEB, 0xFE};   /* jmp $ */
        bench_code c = code_of(hang, sizeof hang);
        nb_options o = quick_options();
        o.timeout = 30;
        cpu_info cpu;
        cpu_detect(&cpu);
        bench_result r;
        nb_error err;
        bench_run(&o, &c, NULL, 0, &cpu, &r, &err);
        _exit(99);   /* not reached */
    }
    pid_t child = child_of(nb);
    if (child <= 0) {
        kill(nb, SIGKILL);
        waitpid(nb, NULL, 0);
        fail_msg("no measuring child appeared");
    }
    struct timespec ts = {0, 50000000};   /* let it reach the benchmark code */
    nanosleep(&ts, NULL);
    assert_int_equal(kill(group ? -nb : nb, sig), 0);
    int st;
    assert_int_equal(waitpid(nb, &st, 0), nb);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), sig);
    assert_restored(nb);
    assert_int_equal(kill(child, 0), -1);
    assert_int_equal(errno, ESRCH);
}

static void test_restored_after_sigint(void **state) { (void)state; stopped_by(SIGINT, false); }
static void test_restored_after_sigterm(void **state) { (void)state; stopped_by(SIGTERM, false); }
static void test_restored_after_sighup(void **state) { (void)state; stopped_by(SIGHUP, false); }
static void test_restored_after_ctrl_c(void **state) { (void)state; stopped_by(SIGINT, true); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_instruction),
        cmocka_unit_test(test_jump_origin_relative),
        cmocka_unit_test(test_jump_origin_call_register),
        cmocka_unit_test(test_misaligned_and_noncanonical),
        cmocka_unit_test(test_division),
        cmocka_unit_test(test_syscalls),
        cmocka_unit_test(test_places),
        cmocka_unit_test(test_stack_overflow_guard),
        cmocka_unit_test(test_sandbox_seal),
        cmocka_unit_test(test_sandbox_list),
        cmocka_unit_test(test_restored_after_fault),
        cmocka_unit_test(test_restored_after_sigint),
        cmocka_unit_test(test_restored_after_sigterm),
        cmocka_unit_test(test_restored_after_sighup),
        cmocka_unit_test(test_restored_after_ctrl_c),
    };
    return cmocka_run_group_tests(tests, setup_root, teardown_root);
}
