/* nb sandbox: see sandbox.h.
 *
 * The filter, in classic BPF over struct seccomp_data:
 *
 *   arch != x86-64 (an int 0x80 call)           -> trap
 *   for each piece of nb's executable code, [lo, hi) not crossing a 4 GiB
 *   boundary (the instruction pointer is compared as two 32-bit halves):
 *       ip.hi == lo.hi && ip.lo >= lo.lo && ip.lo < hi.lo  -> allow
 *   otherwise                                   -> trap (SIGSYS, not run)
 *
 * Every piece has its own `allow` return so that no jump is longer than the
 * 8-bit offsets of a conditional BPF jump. */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>

#include "measure/sandbox.h"

#define MAX_RANGES 64
#define MAX_INSNS (4 + 6 * 2 * MAX_RANGES)

typedef struct ranges {
    uint64_t lo[MAX_RANGES], hi[MAX_RANGES];
    size_t n;
    bool overflow;
} ranges;

static void add_range(ranges *r, uint64_t lo, uint64_t hi)
{
    if (hi <= lo)
        return;
    for (size_t i = 0; i < r->n; i++)
        if (r->lo[i] == lo && r->hi[i] == hi)
            return;
    if (r->n == MAX_RANGES) {
        r->overflow = true;
        return;
    }
    r->lo[r->n] = lo;
    r->hi[r->n] = hi;
    r->n++;
}

static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
            add_range(data, info->dlpi_addr + ph->p_vaddr,
                      info->dlpi_addr + ph->p_vaddr + ph->p_memsz);
    }
    return 0;
}

/* The vDSO (a static nb's dl_iterate_phdr may not list it); its clock
 * functions fall back to a real system call on some clock sources. */
static void add_vdso(ranges *r)
{
    uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
    if (!base)
        return;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
        return;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
    uintptr_t bias = 0;
    bool have_bias = false;
    for (size_t i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD)
            continue;
        if (!have_bias) {
            bias = base + ph[i].p_offset - ph[i].p_vaddr;
            have_bias = true;
        }
        if (ph[i].p_flags & PF_X)
            add_range(r, bias + ph[i].p_vaddr, bias + ph[i].p_vaddr + ph[i].p_memsz);
    }
}

typedef struct prog {
    struct sock_filter insn[MAX_INSNS];
    size_t n;
} prog;

static void put(prog *p, struct sock_filter f)
{
    if (p->n < MAX_INSNS)
        p->insn[p->n] = f;
    p->n++;
}

#define IP_LO offsetof(struct seccomp_data, instruction_pointer)
#define IP_HI (offsetof(struct seccomp_data, instruction_pointer) + 4)

/* allow if lo <= ip < hi, where lo and hi - 1 share their upper 32 bits */
static void put_piece(prog *p, uint64_t lo, uint64_t hi)
{
    uint32_t high = (uint32_t)(lo >> 32), start = (uint32_t)lo;
    bool to_top = hi - ((uint64_t)high << 32) == UINT64_C(1) << 32;
    put(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, IP_HI));
    put(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, high, 0, to_top ? 3 : 4));
    put(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, IP_LO));
    put(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, start, 0, to_top ? 1 : 2));
    if (!to_top)
        put(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)hi, 1, 0));
    put(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
}

int sandbox_trap_syscalls(nb_error *err)
{
    const char *pre = getenv("LD_PRELOAD");
    if (pre && strstr(pre, "vgpreload"))
        return nb_error_set(err, NB_EUNSUPPORTED, "running under valgrind, whose own system "
                            "calls a filter on nb's code would trap");
    static ranges r;
    memset(&r, 0, sizeof r);
    dl_iterate_phdr(add_object, &r);
    add_vdso(&r);
    if (r.n == 0 || r.overflow)
        return nb_error_set(err, NB_EUNSUPPORTED, "cannot list nb's executable code (%zu pieces)",
                            r.n);
    static prog p;
    p.n = 0;
    put(&p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                         offsetof(struct seccomp_data, arch)));
    put(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
    put(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
    for (size_t i = 0; i < r.n; i++) {
        uint64_t lo = r.lo[i];
        while (lo < r.hi[i]) {
            uint64_t block_end = ((lo >> 32) + 1) << 32;   /* 0 past the top: no x86 code there */
            uint64_t end = block_end == 0 || r.hi[i] < block_end ? r.hi[i] : block_end;
            put_piece(&p, lo, end);
            lo = end;
        }
    }
    put(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
    if (p.n > MAX_INSNS)
        return nb_error_set(err, NB_EUNSUPPORTED, "the filter would need %zu instructions", p.n);
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
