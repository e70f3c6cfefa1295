/* hostile: benchmark code written to get out of the measuring process
 * (issue 17, items 1 and 2), run through bench_run on the tsc backend.
 *
 * The code is built here, as bytes, with this test process's own addresses:
 * the measuring process is a fork() of it, so libc's syscall(), a
 * `syscall; ret` found in loaded code and the engine's g_hdr are at the same
 * addresses there.  Each attempt must be reported (a fault-class error
 * naming what happened) and must not take effect: nothing written to
 * stderr, no file created, no signal delivered to nb, no process left
 * behind, and nb's results never trusted once the code wrote over them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure/session.h"
#include "measure/worker.h"
#include "measure/worker_shared.h"
#include "sys/status.h"

static cpu_info cpu;
static int g_cpu_index;   /* the first CPU this test may run on */

/* ---- code as bytes ---- */

typedef struct code {
    uint8_t b[512];
    size_t n;
} code;

static void put(code *c, const void *p, size_t n)
{
    assert_true(c->n + n <= sizeof c->b);
    memcpy(c->b + c->n, p, n);
    c->n += n;
}

/* mov REG, imm64 (REG: 0 rax, 1 rcx, 2 rdx, 6 rsi, 7 rdi) */
static void mov_imm(code *c, int reg, uint64_t v)
{
    uint8_t op[2] = {0x48, (uint8_t)(0xB8 + reg)};
    put(c, op, 2);
    put(c, &v, 8);
}

/* "PWNED!\n" at [r14]; rdx = r14 */
static void pwned_at_r14(code *c)
{
    mov_imm(c, 0, UINT64_C(0x000a2144454e5750));
    put(c, (const uint8_t[]){0x49, 0x89, 0x06}, 3);   /* mov [r14], rax */
}

/* libc's syscall(nr, a, b, c): rdi, rsi, rdx, rcx, then call rax */
static void call_syscall_fn(code *c, long nr, uint64_t a, bool a_is_r14, uint64_t b, uint64_t d)
{
    mov_imm(c, 7, (uint64_t)nr);
    if (a_is_r14)
        put(c, (const uint8_t[]){0x4c, 0x89, 0xf6}, 3);   /* mov rsi, r14 */
    else
        mov_imm(c, 6, a);
    mov_imm(c, 2, b);
    mov_imm(c, 1, d);
    mov_imm(c, 0, (uint64_t)(uintptr_t)&syscall);
    put(c, (const uint8_t[]){0xFF, 0xD0}, 2);              /* call rax */
}

static nb_options small_options(void)
{
    nb_options o;
    options_defaults(&o);
    o.backend = PMU_BACKEND_TSC;
    o.unroll_count = 1;
    o.n_measurements = 2;
    o.warm_up_count = 0;
    o.initial_warm_up_count = 0;
    o.timeout = 10;
    return o;
}

static int run(const code *c, nb_error *err)
{
    nb_options o = small_options();
    bench_code bc = {.code = c->b, .code_len = c->n};
    bench_result r;
    nb_error_clear(err);
    int rc = bench_run(&o, &bc, NULL, 0, &cpu, &r, err);
    if (rc == 0)
        bench_result_free(&r);
    printf("  rc %d: %s\n", rc, err->message);
    return rc;
}

/* The report of a trapped system call `name`. */
static void expect_trapped(int rc, const nb_error *err, const char *name)
{
    char want[64];
    snprintf(want, sizeof want, "system call (%s,", name);
    assert_int_equal(rc, NB_EFAULT);
    if (!strstr(err->message, want))
        fail_msg("no '%s' in: %s", want, err->message);
    assert_non_null(strstr(err->message, "it did not run"));
}

/* ---- stderr captured ---- */

static int g_saved_err = -1;
static char g_err_path[64];

static void capture_stderr(void)
{
    snprintf(g_err_path, sizeof g_err_path, "/tmp/nb_hostile_err_%d", (int)getpid());
    int fd = open(g_err_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    fflush(stderr);
    g_saved_err = dup(2);
    dup2(fd, 2);
    close(fd);
}

/* What was written to stderr since capture_stderr(), into buf. */
static void release_stderr(char *buf, size_t len)
{
    fflush(stderr);
    dup2(g_saved_err, 2);
    close(g_saved_err);
    int fd = open(g_err_path, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : 0;
    buf[n > 0 ? n : 0] = 0;
    if (fd >= 0)
        close(fd);
    unlink(g_err_path);
}

/* Under valgrind (tests/valgrind.sh) the sandbox is off: valgrind's own
 * system calls would be trapped. */
static void need_sandbox(void)
{
    if (getenv("NB_UNDER_VALGRIND"))
        skip();
}

static int setup(void **state)
{
    (void)state;
    cpu_detect(&cpu);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int i = CPU_SETSIZE - 1; i >= 0; i--)
            if (CPU_ISSET(i, &set))
                g_cpu_index = i;
    /* orphans of the measuring process come to this process */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    return 0;
}

/* ---- item 2: system calls through nb's own code ---- */

static void test_syscall_fn_write_stderr(void **state)
{
    (void)state;
    need_sandbox();
    code c = {0};
    pwned_at_r14(&c);
    mov_imm(&c, 7, SYS_write);
    mov_imm(&c, 6, 2);
    put(&c, (const uint8_t[]){0x4c, 0x89, 0xf2}, 3);   /* mov rdx, r14 */
    mov_imm(&c, 1, 7);
    mov_imm(&c, 0, (uint64_t)(uintptr_t)&syscall);
    put(&c, (const uint8_t[]){0xFF, 0xD0}, 2);
    nb_error err;
    capture_stderr();
    int rc = run(&c, &err);
    char out[4096];
    release_stderr(out, sizeof out);
    if (strstr(out, "PWNED"))
        fail_msg("the benchmark wrote to nb's stderr: %s", out);
    expect_trapped(rc, &err, "write");
}

static void test_syscall_fn_creates_no_file(void **state)
{
    (void)state;
    need_sandbox();
    char path[64];
    snprintf(path, sizeof path, "/tmp/nbh%d", (int)getpid() % 100000);
    unlink(path);
    assert_true(strlen(path) < 16);
    code c = {0};
    uint64_t w[2] = {0, 0};
    memcpy(w, path, strlen(path));
    mov_imm(&c, 0, w[0]);
    put(&c, (const uint8_t[]){0x49, 0x89, 0x06}, 3);         /* mov [r14], rax */
    mov_imm(&c, 0, w[1]);
    put(&c, (const uint8_t[]){0x49, 0x89, 0x46, 0x08}, 4);   /* mov [r14+8], rax */
    call_syscall_fn(&c, SYS_open, 0, true, O_CREAT | O_WRONLY, 0600);
    nb_error err;
    int rc = run(&c, &err);
    struct stat st;
    bool made = stat(path, &st) == 0;
    unlink(path);
    if (made)
        fail_msg("the benchmark code created %s", path);
    expect_trapped(rc, &err, "open");
}

static volatile sig_atomic_t g_usr2;
static void on_usr2(int sig) { (void)sig; g_usr2++; }

static void test_syscall_fn_kills_nothing(void **state)
{
    (void)state;
    need_sandbox();
    signal(SIGUSR2, on_usr2);
    g_usr2 = 0;
    code c = {0};
    call_syscall_fn(&c, SYS_kill, (uint64_t)getpid(), false, SIGUSR2, 0);
    nb_error err;
    int rc = run(&c, &err);
    struct timespec ts = {0, 50000000};
    nanosleep(&ts, NULL);
    signal(SIGUSR2, SIG_DFL);
    if (g_usr2)
        fail_msg("the benchmark code signalled nb %d times", (int)g_usr2);
    expect_trapped(rc, &err, "kill");
}

/* Children of this process (the subreaper) still running, killed. */
static int kill_leftovers(void)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/self/task/%d/children", (int)getpid());
    int n = 0;
    FILE *f = fopen(p, "r");
    int pid;
    while (f && fscanf(f, "%d", &pid) == 1) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        n++;
    }
    if (f)
        fclose(f);
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    return n;
}

static void test_syscall_fn_forks_nothing(void **state)
{
    (void)state;
    need_sandbox();
    code c = {0};
    call_syscall_fn(&c, SYS_fork, 0, false, 0, 0);
    nb_error err;
    int rc = run(&c, &err);
    worker_stop();
    struct timespec ts = {0, 50000000};
    nanosleep(&ts, NULL);
    int left = kill_leftovers();
    if (left)
        fail_msg("%d processes the benchmark code started were left running", left);
    expect_trapped(rc, &err, "fork");
}

/* A `syscall; ret` in code this process was loaded with (libc's, nb's). */
static int find_gadget(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t *found = data;
    for (size_t i = 0; i < info->dlpi_phnum && !*found; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        const uint8_t *s = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        for (size_t k = 0; k + 3 <= ph->p_filesz; k++)
            if (s[k] == 0x0F && s[k + 1] == 0x05 && s[k + 2] == 0xC3) {
                *found = (uintptr_t)(s + k);
                break;
            }
    }
    return *found != 0;
}

static void test_syscall_gadget_write(void **state)
{
    (void)state;
    need_sandbox();
    uintptr_t g = 0;
    dl_iterate_phdr(find_gadget, &g);
    if (!g)
        skip();
    code c = {0};
    pwned_at_r14(&c);
    mov_imm(&c, 7, 2);
    put(&c, (const uint8_t[]){0x4c, 0x89, 0xf6}, 3);   /* mov rsi, r14 */
    mov_imm(&c, 2, 7);
    mov_imm(&c, 1, g);
    mov_imm(&c, 0, SYS_write);
    put(&c, (const uint8_t[]){0xFF, 0xD1}, 2);         /* call rcx */
    nb_error err;
    capture_stderr();
    int rc = run(&c, &err);
    char out[4096];
    release_stderr(out, sizeof out);
    if (strstr(out, "PWNED"))
        fail_msg("the benchmark wrote to nb's stderr through 0x%lx: %s", (unsigned long)g, out);
    expect_trapped(rc, &err, "write");
}

/* ---- item 1: the code writes over what is next to it ---- */

/* Stores one page apart from the code upwards until one faults: the
 * generated code's mapping ends in a guard page, whatever the kernel put
 * after it. */
static void test_runs_off_its_mapping(void **state)
{
    (void)state;
    code c = {0};
    put(&c, (const uint8_t[]){0x48, 0x8D, 0x05, 0, 0, 0, 0}, 7);   /* lea rax, [rip] */
    put(&c, (const uint8_t[]){0x48, 0x05, 0x00, 0x10, 0, 0}, 6);    /* l: add rax, 0x1000 */
    put(&c, (const uint8_t[]){0x48, 0x89, 0x00}, 3);                 /* mov [rax], rax */
    put(&c, (const uint8_t[]){0xEB, 0xF5}, 2);                       /* jmp l */
    nb_error err;
    int rc = run(&c, &err);
    assert_int_equal(rc, NB_EFAULT);
    assert_non_null(strstr(err.message, "raised SIGSEGV at +0xd (mov [rax], rax)"));
    assert_non_null(strstr(err.message, "write to inaccessible address"));
}

/* rax = g_hdr; then store `v` (8 bytes) at offset `off` of the header */
static void store_hdr(code *c, size_t off, uint64_t v)
{
    mov_imm(c, 0, (uint64_t)(uintptr_t)&g_hdr);
    put(c, (const uint8_t[]){0x48, 0x8B, 0x00}, 3);   /* mov rax, [rax] */
    mov_imm(c, 1, v);
    uint32_t d = (uint32_t)off;
    put(c, (const uint8_t[]){0x48, 0x89, 0x88}, 3);   /* mov [rax + d32], rcx */
    put(c, &d, 4);
}

/* rdi = g_hdr + off; `n` bytes of `byte` (rep stosb) */
static void fill_hdr(code *c, size_t off, size_t n, uint8_t byte)
{
    mov_imm(c, 7, (uint64_t)(uintptr_t)&g_hdr);
    put(c, (const uint8_t[]){0x48, 0x8B, 0x3F}, 3);   /* mov rdi, [rdi] */
    mov_imm(c, 0, off);
    put(c, (const uint8_t[]){0x48, 0x01, 0xC7}, 3);   /* add rdi, rax */
    mov_imm(c, 1, n);
    mov_imm(c, 0, byte);
    put(c, (const uint8_t[]){0xF3, 0xAA}, 2);         /* rep stosb */
}

static void exit_group_now(code *c)
{
    put(c, (const uint8_t[]){0xB8, 231, 0, 0, 0, 0xBF, 1, 0, 0, 0, 0x0F, 0x05}, 12);
}

static void expect_overwritten(const code *c)
{
    nb_error err;
    int rc = run(c, &err);
    assert_int_equal(rc, NB_EFAULT);
    if (!strstr(err.message, "the benchmark code overwrote nb's results"))
        fail_msg("not reported as overwritten: %s", err.message);
    for (const char *s = err.message; *s; s++)
        assert_true((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f);
}

static void test_counter_count_overwritten(void **state)
{
    (void)state;
    code c = {0};
    store_hdr(&c, offsetof(shared_hdr, n_ctr), 1000000);
    expect_overwritten(&c);
}

static void test_error_overwritten(void **state)
{
    (void)state;
    code c = {0};
    store_hdr(&c, offsetof(shared_hdr, status), 12345);
    fill_hdr(&c, offsetof(shared_hdr, err), sizeof(nb_error), 0x1B);
    exit_group_now(&c);
    expect_overwritten(&c);
}

static void test_fault_record_overwritten(void **state)
{
    (void)state;
    code c = {0};
    fill_hdr(&c, offsetof(shared_hdr, fault), sizeof(fault_record), 0x9B);
    store_hdr(&c, offsetof(shared_hdr, fault.signo), SIGSEGV);
    exit_group_now(&c);
    expect_overwritten(&c);
}

static void test_note_overwritten(void **state)
{
    (void)state;
    code c = {0};
    fill_hdr(&c, offsetof(shared_hdr, sandbox_note), sizeof(((shared_hdr *)0)->sandbox_note),
             0x1B);
    expect_overwritten(&c);
}

/* ---- a sealed process and a run that needs new counters ---- */

/* A backend that opens its groups in the measuring process (as perf does)
 * and needs a system call the sealed process may not make (open). */
static int *g_opens;   /* shared with the measuring processes */

static int fake_open(const pmu_config *cfg, const pmu_group_plan *g, pmu_group *out,
                     nb_error *err)
{
    (void)cfg;
    int fd = open("/dev/null", O_RDONLY);
    if (fd < 0)
        return nb_error_set(err, NB_ESYSTEM, "open: %s", strerror(errno));
    close(fd);
    __atomic_add_fetch(g_opens, 1, __ATOMIC_SEQ_CST);
    out->n_ctr = g->n_events;
    out->ctr = calloc(g->n_events, sizeof *out->ctr);
    out->priv = NULL;
    for (size_t i = 0; i < g->n_events; i++) {
        snprintf(out->ctr[i].name, sizeof out->ctr[i].name, "%s", g->events[i].name);
        out->ctr[i].read = PMU_READ_RDTSC;
        out->ctr[i].scale = 1;
    }
    return 0;
}

static void fake_close(pmu_group *g)
{
    free(g->ctr);
}

static const pmu_backend fake_backend = {
    .name = "fake", .flags = 0, .open = fake_open, .close = fake_close,
};

/* One run of the group counting `event`; the benchmark's groups count the
 * events of `all` (NULL: that group alone). */
static int run_group(const char *event, const char *all, nb_error *err)
{
    static const uint8_t nop = 0x90;
    nb_event ev[8];
    pmu_group_plan groups[8];
    size_t n = 0;
    for (const char *a = all ? all : event; *a && n < 8; a++, n++) {
        memset(&ev[n], 0, sizeof ev[n]);
        ev[n].name[0] = *a;
        groups[n] = (pmu_group_plan){.events = &ev[n], .n_events = 1};
    }
    const pmu_group_plan *plan = NULL;
    for (size_t i = 0; i < n; i++)
        if (ev[i].name[0] == event[0])
            plan = &groups[i];
    assert_non_null(plan);
    pmu_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.cpu = &cpu;
    cfg.cpu_index = g_cpu_index;   /* one CPU: another would get another process */
    worker_request job = {
        .p = {.n_measurements = 2, .timeout = 10, .r14_size = 1u << 20},
        .backend = &fake_backend, .cfg = &cfg, .plan = plan, .cpu = cfg.cpu_index,
        .copies = {1, 2}, .fresh = true, .groups = all ? groups : NULL, .n_groups = all ? n : 0,
    };
    job.frag[NB_FRAG_CODE] = (nb_fragment){"-asm", &nop, 1};
    worker_output out;
    nb_error_clear(err);
    int rc = worker_run(&job, &out, err);
    if (rc == 0) {
        assert_int_equal(out.n_ctr, 1);
        assert_string_equal(out.ctr[0].name, event);
        worker_output_free(&out);
    }
    return rc;
}

/* Once sealed, the measuring process cannot open counters; a run that needs
 * a group it does not hold gets a fresh process, and a group it holds is
 * used again without one.  A new process opens every group of the
 * benchmark before it is sealed. */
static void test_new_group_gets_fresh_process(void **state)
{
    (void)state;
    worker_stop();
    g_opens = mmap(NULL, sizeof *g_opens, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                   -1, 0);
    assert_true(g_opens != MAP_FAILED);
    *g_opens = 0;
    nb_error err;
    const char *seq[] = {"A", "B", "B", "A", "A"};
    int want[] = {1, 2, 2, 3, 3};
    for (size_t i = 0; i < 5; i++) {
        int rc = run_group(seq[i], NULL, &err);
        if (rc)
            fail_msg("run %zu (%s): %d: %s", i, seq[i], rc, err.message);
        assert_int_equal(*g_opens, want[i]);
    }
    /* a benchmark of groups C, D, E: the first run opens all three */
    const char *seq2[] = {"C", "D", "E", "C", "D", "E"};
    for (size_t i = 0; i < 6; i++) {
        int rc = run_group(seq2[i], "CDE", &err);
        if (rc)
            fail_msg("run %zu (%s): %d: %s", i, seq2[i], rc, err.message);
        assert_int_equal(*g_opens, 6);
    }
    worker_stop();
    munmap(g_opens, sizeof *g_opens);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_syscall_fn_write_stderr),
        cmocka_unit_test(test_syscall_fn_creates_no_file),
        cmocka_unit_test(test_syscall_fn_kills_nothing),
        cmocka_unit_test(test_syscall_fn_forks_nothing),
        cmocka_unit_test(test_syscall_gadget_write),
        cmocka_unit_test(test_runs_off_its_mapping),
        cmocka_unit_test(test_counter_count_overwritten),
        cmocka_unit_test(test_error_overwritten),
        cmocka_unit_test(test_fault_record_overwritten),
        cmocka_unit_test(test_note_overwritten),
        cmocka_unit_test(test_new_group_gets_fresh_process),
    };
    int rc = cmocka_run_group_tests(tests, setup, NULL);
    worker_stop();
    return rc;
}
