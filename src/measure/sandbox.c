/* nb sandbox: see sandbox.h.
 *
 * The filter, in classic BPF over struct seccomp_data (the arguments of a
 * call are compared on their low 32 bits, which is all the kernel reads of
 * an int argument):
 *
 *   arch != x86-64 (int 0x80, sysenter)          -> trap
 *   nr is one of the plain allowed calls          -> allow
 *   nr == sendto:           arg0 == the socket    -> allow, else trap
 *   nr == process_vm_readv: arg0 == its own pid   -> allow, else trap
 *   otherwise (x32 numbers included)              -> trap (SIGSYS, not run)
 *
 * The jumps are written with symbolic targets and resolved at the end; the
 * program is short enough for BPF's 8-bit jump offsets. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "measure/sandbox.h"

/* Allowed whatever their arguments (see sandbox.h for why each is harmless). */
static const long g_plain[] = {
    SYS_rt_sigreturn, SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_sigaltstack,
    SYS_mmap, SYS_munmap, SYS_madvise, SYS_brk, SYS_mincore,
    SYS_read, SYS_pread64, SYS_recvfrom,
    SYS_getpid, SYS_gettid,
    SYS_clock_gettime, SYS_clock_getres, SYS_gettimeofday, SYS_time,
    SYS_nanosleep, SYS_clock_nanosleep, SYS_sched_yield,
    SYS_sysinfo,   /* glibc's qsort asks how much memory there is */
};
#define N_PLAIN (sizeof g_plain / sizeof g_plain[0])

bool sandbox_allows(long nr)
{
    for (size_t i = 0; i < N_PLAIN; i++)
        if (g_plain[i] == nr)
            return true;
    return nr == SYS_sendto || nr == SYS_process_vm_readv;
}

/* Jump targets: NEXT is the following instruction; the others are labels
 * placed by the builder. */
enum { NEXT = -1, L_ALLOW, L_TRAP, L_SENDTO, L_PVR, N_LABELS };
#define MAX_INSNS 64

typedef struct prog {
    struct sock_filter insn[MAX_INSNS];
    int jt[MAX_INSNS], jf[MAX_INSNS];   /* symbolic targets of jumps */
    int label[N_LABELS];
    size_t n;
} prog;

static void put(prog *p, uint16_t code, uint32_t k, int jt, int jf)
{
    if (p->n < MAX_INSNS) {
        p->insn[p->n] = (struct sock_filter){.code = code, .k = k};
        p->jt[p->n] = jt;
        p->jf[p->n] = jf;
    }
    p->n++;
}

static void load(prog *p, size_t off) { put(p, BPF_LD | BPF_W | BPF_ABS, (uint32_t)off, NEXT, NEXT); }
static void ret(prog *p, uint32_t v) { put(p, BPF_RET | BPF_K, v, NEXT, NEXT); }
static void here(prog *p, int l) { p->label[l] = (int)p->n; }

#define ARG_LO(i) (offsetof(struct seccomp_data, args) + (size_t)8 * (i))

/* Turn the symbolic targets into offsets; false if one does not fit. */
static bool resolve(prog *p)
{
    for (size_t i = 0; i < p->n; i++) {
        if (BPF_CLASS(p->insn[i].code) != BPF_JMP)
            continue;
        int t[2] = {p->jt[i], p->jf[i]};
        for (int k = 0; k < 2; k++) {
            int off = t[k] == NEXT ? 0 : p->label[t[k]] - (int)i - 1;
            if (off < 0 || off > 255)
                return false;
            if (k == 0)
                p->insn[i].jt = (uint8_t)off;
            else
                p->insn[i].jf = (uint8_t)off;
        }
    }
    return true;
}

static bool build(prog *p, int sock, pid_t self)
{
    memset(p, 0, sizeof *p);
    load(p, offsetof(struct seccomp_data, arch));
    put(p, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, NEXT, L_TRAP);
    load(p, offsetof(struct seccomp_data, nr));
    for (size_t i = 0; i < N_PLAIN; i++)
        put(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)g_plain[i], L_ALLOW, NEXT);
    put(p, BPF_JMP | BPF_JEQ | BPF_K, SYS_sendto, L_SENDTO, NEXT);
    put(p, BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, L_PVR, L_TRAP);
    here(p, L_SENDTO);
    load(p, ARG_LO(0));
    put(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)sock, L_ALLOW, L_TRAP);
    here(p, L_PVR);
    load(p, ARG_LO(0));
    put(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)self, L_ALLOW, L_TRAP);
    here(p, L_TRAP);
    ret(p, SECCOMP_RET_TRAP);
    here(p, L_ALLOW);
    ret(p, SECCOMP_RET_ALLOW);
    return p->n <= MAX_INSNS && resolve(p);
}

/* Every capability set emptied (a process may always lower its own). */
static int drop_capabilities(nb_error *err)
{
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    memset(data, 0, sizeof data);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);   /* EINVAL before 4.3: none */
    if (syscall(SYS_capset, &hdr, data) != 0)
        return nb_error_set(err, NB_ESYSTEM, "cannot drop the capabilities of the measuring "
                            "process (capset: %s)", strerror(errno));
    if (syscall(SYS_capget, &hdr, data) != 0)
        return nb_error_set(err, NB_ESYSTEM, "capget: %s", strerror(errno));
    for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
        if (data[i].effective || data[i].permitted || data[i].inheritable)
            return nb_error_set(err, NB_ESYSTEM, "the measuring process kept capabilities "
                                "after dropping them");
    return 0;
}

int sandbox_seal(int sock, pid_t self, nb_error *err)
{
    int rc = drop_capabilities(err);
    if (rc)
        return rc;
    const char *pre = getenv("LD_PRELOAD");
    if (pre && strstr(pre, "vgpreload"))
        return nb_error_set(err, NB_EUNSUPPORTED, "running under valgrind, whose own system "
                            "calls the filter would trap");
    static prog p;
    if (!build(&p, sock, self))
        return nb_error_set(err, NB_EUNSUPPORTED, "the filter does not fit (%zu instructions)",
                            p.n);
    struct sock_fprog fp = {.len = (unsigned short)p.n, .filter = p.insn};
    /* Without no_new_privs an unprivileged process may not install a filter. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp, 0, 0) != 0)
        return nb_error_set(err, NB_EUNSUPPORTED, "seccomp: %s", strerror(errno));
    return 0;
}

static const struct {
    long nr;
    const char *name;
} syscall_names[] = {
#include "syscall_names.h"
    {-1, NULL},
};

const char *sandbox_syscall_name(long nr)
{
    for (size_t i = 0; syscall_names[i].name; i++)
        if (syscall_names[i].nr == nr)
            return syscall_names[i].name;
    return NULL;
}
