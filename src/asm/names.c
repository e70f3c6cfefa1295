/* Names: mnemonic and register names -> Zydis's enums, as GNU as spells them.
 *
 * The tables are built from Zydis's own string tables on first use and
 * looked up by hash, case-insensitively; as's other names are added on top:
 * aliases (sal, movabs, fstsw = fwait + fnstsw, retf...), condition-code
 * synonyms (jc, cmovnae...), suffixed spellings that fix a memory size
 * (cvtsi2sdq), the compare pseudo ops (cmpltps, vpcmpnequd: the base
 * instruction plus a predicate immediate), and a few operand-less
 * instructions Zydis 4.0 cannot encode, kept as raw bytes.  Uses Zydis's
 * mnemonic and register tables only, not its encoder. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <Zydis/Mnemonic.h>
#include <Zydis/Register.h>

#include "asm/asm_internal.h"

#define NAME_MAX_LEN 24

typedef struct name_ent {
    char name[NAME_MAX_LEN];
    uint8_t len;
    uint16_t value;     /* mnemonic or register */
    uint32_t flags;     /* INSF_* added by an alias (mnemonics only) */
    uint8_t osz;
    uint8_t memsize;
} name_ent;

#define MNEM_HASH_SIZE 8192
#define REG_HASH_SIZE 1024

static name_ent mnem_tab[MNEM_HASH_SIZE];
static name_ent reg_tab[REG_HASH_SIZE];
static bool tables_ready;

static uint32_t hash_lower(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)tolower((unsigned char)s[i])) * 16777619u;
    return h;
}

static void tab_put(name_ent *tab, size_t size, const char *name, int value, int flags, int osz)
{
    size_t n = strlen(name);
    if (n >= NAME_MAX_LEN)
        return;
    uint32_t k = hash_lower(name, n) & (size - 1);
    while (tab[k].len) {
        if (tab[k].len == n && strncasecmp(tab[k].name, name, n) == 0)
            break; /* a later definition (an as alias) replaces Zydis's name */
        k = (k + 1) & (size - 1);
    }
    for (size_t i = 0; i < n; i++)
        tab[k].name[i] = (char)tolower((unsigned char)name[i]);
    tab[k].len = (uint8_t)n;
    tab[k].value = (uint16_t)value;
    tab[k].flags = (uint32_t)flags;
    tab[k].osz = (uint8_t)osz;
}

static const name_ent *tab_get(const name_ent *tab, size_t size, const char *s, size_t n)
{
    if (n == 0 || n >= NAME_MAX_LEN)
        return NULL;
    uint32_t k = hash_lower(s, n) & (size - 1);
    while (tab[k].len) {
        if (tab[k].len == n && strncasecmp(tab[k].name, s, n) == 0)
            return &tab[k];
        k = (k + 1) & (size - 1);
    }
    return NULL;
}

static int mnem_by_name(const char *name)
{
    const name_ent *e = tab_get(mnem_tab, MNEM_HASH_SIZE, name, strlen(name));
    return e ? e->value : 0;
}

/* as's other names for condition codes: suffix -> Zydis's suffix */
static const char *const cc_alias[][2] = {
    {"a", "nbe"}, {"ae", "nb"}, {"c", "b"}, {"e", "z"}, {"g", "nle"}, {"ge", "nl"},
    {"na", "be"}, {"nae", "b"}, {"nc", "nb"}, {"ne", "nz"}, {"ng", "le"}, {"nge", "l"},
    {"pe", "p"}, {"po", "np"}, {"nbe", "nbe"}, {"nb", "nb"},
};

/* as's suffixed spellings that fix the size of a memory operand */
static const struct { const char *as_name, *zy_name; int memsize; } size_aliases[] = {
    {"cvtsi2sdq", "cvtsi2sd", 8}, {"cvtsi2ssq", "cvtsi2ss", 8},
    {"vcvtsi2sdq", "vcvtsi2sd", 8}, {"vcvtsi2ssq", "vcvtsi2ss", 8},
    {"vcvtusi2sdq", "vcvtusi2sd", 8}, {"vcvtusi2ssq", "vcvtusi2ss", 8},
    {"vfpclasspsx", "vfpclassps", 16}, {"vfpclasspsy", "vfpclassps", 32},
    {"vfpclasspsz", "vfpclassps", 64}, {"vfpclasspdx", "vfpclasspd", 16},
    {"vfpclasspdy", "vfpclasspd", 32}, {"vfpclasspdz", "vfpclasspd", 64},
    {"vfpclassphx", "vfpclassph", 16}, {"vfpclassphy", "vfpclassph", 32},
    {"vfpclassphz", "vfpclassph", 64},
};

static const struct { const char *as_name, *zy_name; int flags, osz; } aliases[] = {
    {"sal", "shl", 0, 0},
    {"loopz", "loope", 0, 0}, {"loopnz", "loopne", 0, 0},
    {"wait", "fwait", 0, 0},
    {"icebp", "int1", 0, 0},
    {"xlatb", "xlat", 0, 0},
    {"movabs", "mov", INSF_MOVABS, 0},
    {"fstsw", "fnstsw", INSF_FWAIT, 0}, {"fstcw", "fnstcw", INSF_FWAIT, 0},
    {"finit", "fninit", INSF_FWAIT, 0}, {"fclex", "fnclex", INSF_FWAIT, 0},
    {"fsave", "fnsave", INSF_FWAIT, 0}, {"fstenv", "fnstenv", INSF_FWAIT, 0},
    {"iretw", "iret", 0, 0},
    {"iret", "iretd", 0, 0},
    {"retq", "ret", 0, 0}, {"retn", "ret", 0, 0},
    {"sysretq", "sysret", 0, 64}, {"sysexitq", "sysexit", 0, 64},
    {"sysretl", "sysret", 0, 32}, {"sysexitl", "sysexit", 0, 32},
    {"ud2a", "ud2", 0, 0}, {"ud2b", "ud1", 0, 0},
    {"fwait", "fwait", 0, 0},
    {"jmpq", "jmp", 0, 0}, {"callq", "call", 0, 0},
    {"fucomip", "fucomip", 0, 0},
    {"setnae", "setb", 0, 0},
    {"pushfw", "pushf", 0, 0}, {"popfw", "popf", 0, 0},
    {"sysretd", "sysret", 0, 32}, {"sysexitd", "sysexit", 0, 32},
    {"retf", "ret", INSF_FAR, 0}, {"retfq", "ret", INSF_FAR, 64}, {"retfd", "ret", INSF_FAR, 32},
    {"retfw", "ret", INSF_FAR, 16}, {"lret", "ret", INSF_FAR, 0},
    {"ljmp", "jmp", INSF_FAR, 0}, {"lcall", "call", INSF_FAR, 0},
    {"movs", "movsb", INSF_STRING, 0}, {"cmps", "cmpsb", INSF_STRING, 0},
    {"stos", "stosb", INSF_STRING, 0}, {"lods", "lodsb", INSF_STRING, 0},
    {"scas", "scasb", INSF_STRING, 0}, {"ins", "insb", INSF_STRING, 0},
    {"outs", "outsb", INSF_STRING, 0},
    {"pushf", "pushfq", 0, 0}, {"popf", "popfq", 0, 0},
};

static void tables_init(void)
{
    if (tables_ready)
        return;
    for (int m = 1; m <= ZYDIS_MNEMONIC_MAX_VALUE; m++) {
        const char *s = ZydisMnemonicGetString((ZydisMnemonic)m);
        if (s)
            tab_put(mnem_tab, MNEM_HASH_SIZE, s, m, 0, 0);
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        int m = mnem_by_name(aliases[i].zy_name);
        if (m)
            tab_put(mnem_tab, MNEM_HASH_SIZE, aliases[i].as_name, m, aliases[i].flags,
                    aliases[i].osz);
    }
    for (size_t i = 0; i < sizeof size_aliases / sizeof size_aliases[0]; i++) {
        int m = mnem_by_name(size_aliases[i].zy_name);
        if (!m)
            continue;
        tab_put(mnem_tab, MNEM_HASH_SIZE, size_aliases[i].as_name, m, 0, 0);
        name_ent *e = (name_ent *)tab_get(mnem_tab, MNEM_HASH_SIZE, size_aliases[i].as_name,
                                          strlen(size_aliases[i].as_name));
        if (e)
            e->memsize = (uint8_t)size_aliases[i].memsize;
    }
    static const char *const cc_prefix[] = {"j", "cmov", "set", "fcmov"};
    for (size_t p = 0; p < 4; p++) {
        for (size_t i = 0; i < sizeof cc_alias / sizeof cc_alias[0]; i++) {
            char a[NAME_MAX_LEN], z[NAME_MAX_LEN];
            snprintf(a, sizeof a, "%s%s", cc_prefix[p], cc_alias[i][0]);
            snprintf(z, sizeof z, "%s%s", cc_prefix[p], cc_alias[i][1]);
            int m = mnem_by_name(z);
            if (!m && p == 3) {
                /* Zydis names the x87 ones fcmove/fcmovne/fcmovu/fcmovnu */
                const char *x = cc_alias[i][1];
                if (!strcmp(x, "z"))
                    m = mnem_by_name("fcmove");
                else if (!strcmp(x, "nz"))
                    m = mnem_by_name("fcmovne");
                else if (!strcmp(x, "p"))
                    m = mnem_by_name("fcmovu");
                else if (!strcmp(x, "np"))
                    m = mnem_by_name("fcmovnu");
            }
            if (m)
                tab_put(mnem_tab, MNEM_HASH_SIZE, a, m, 0, 0);
        }
    }
    for (int r = 1; r <= ZYDIS_REGISTER_MAX_VALUE; r++) {
        const char *s = ZydisRegisterGetString((ZydisRegister)r);
        if (s)
            tab_put(reg_tab, REG_HASH_SIZE, s, r, 0, 0);
    }
    tables_ready = true;
}

/* as's compare pseudo ops: cmp<pred>ps, vcmp<pred>pd, vpcmp<pred>ud, ...
 * are the base instruction with the predicate as a last immediate. */
static const char *const sse_pred[] = {"eq", "lt", "le", "unord", "neq", "nlt", "nle", "ord"};
static const char *const avx_pred[] = {
    "eq", "lt", "le", "unord", "neq", "nlt", "nle", "ord",
    "eq_uq", "nge", "ngt", "false", "neq_oq", "ge", "gt", "true",
    "eq_os", "lt_oq", "le_oq", "unord_s", "neq_us", "nlt_uq", "nle_uq", "ord_s",
    "eq_us", "nge_uq", "ngt_uq", "false_os", "neq_os", "ge_oq", "gt_oq", "true_us"};
static const char *const int_pred[] = {"eq", "lt", "le", "false", "neq", "nlt", "nle", "true"};
/* as's long spellings of the first sixteen AVX predicates */
static const char *const avx_pred_long[] = {
    "eq_oq", "lt_os", "le_os", "unord_q", "neq_uq", "nlt_us", "nle_us", "ord_q",
    "eq_uq", "nge_us", "ngt_us", "false_oq", "neq_oq", "ge_os", "gt_os", "true_uq"};
/* pclmul<lo/hi>q<lo/hi>qdq: the immediate selects the quadwords */
static const struct { const char *name; const char *base; int imm; } fixed_pseudo[] = {
    {"pclmullqlqdq", "pclmulqdq", 0x00}, {"pclmulhqlqdq", "pclmulqdq", 0x01},
    {"pclmullqhqdq", "pclmulqdq", 0x10}, {"pclmulhqhqdq", "pclmulqdq", 0x11},
    {"vpclmullqlqdq", "vpclmulqdq", 0x00}, {"vpclmulhqlqdq", "vpclmulqdq", 0x01},
    {"vpclmullqhqdq", "vpclmulqdq", 0x10}, {"vpclmulhqhqdq", "vpclmulqdq", 0x11},
};

static bool lookup_cmp_pseudo(const char *s, size_t n, asm_insn *insn)
{
    char low[NAME_MAX_LEN];
    if (n >= NAME_MAX_LEN)
        return false;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    low[n] = 0;
    static const struct { const char *prefix; const char *const *pred; int n_pred;
                          const char *const sfx[8]; } fam[] = {
        {"vpcmp", int_pred, 8, {"b", "w", "d", "q", "ub", "uw", "ud", "uq"}},
        {"vcmp", avx_pred, 32, {"ps", "pd", "ss", "sd", "ph", "sh"}},
        {"vcmp", avx_pred_long, 16, {"ps", "pd", "ss", "sd", "ph", "sh"}},
        {"cmp", sse_pred, 8, {"ps", "pd", "ss", "sd"}},
    };
    for (size_t i = 0; i < sizeof fixed_pseudo / sizeof fixed_pseudo[0]; i++) {
        if (strcmp(low, fixed_pseudo[i].name) == 0) {
            const name_ent *e = tab_get(mnem_tab, MNEM_HASH_SIZE, fixed_pseudo[i].base,
                                        strlen(fixed_pseudo[i].base));
            if (!e)
                return false;
            insn->mnemonic = e->value;
            insn->pred = (int16_t)(fixed_pseudo[i].imm + 1);
            return true;
        }
    }
    for (size_t f = 0; f < 4; f++) {
        size_t pl = strlen(fam[f].prefix);
        if (strncmp(low, fam[f].prefix, pl) != 0)
            continue;
        for (int k = 0; k < 8 && fam[f].sfx[k]; k++) {
            size_t sl = strlen(fam[f].sfx[k]);
            if (n <= pl + sl || strcmp(low + n - sl, fam[f].sfx[k]) != 0)
                continue;
            for (int p = 0; p < fam[f].n_pred; p++) {
                size_t ql = strlen(fam[f].pred[p]);
                if (pl + ql + sl != n || strncmp(low + pl, fam[f].pred[p], ql) != 0)
                    continue;
                char base[NAME_MAX_LEN];
                snprintf(base, sizeof base, "%s%s", fam[f].prefix, fam[f].sfx[k]);
                const name_ent *e = tab_get(mnem_tab, MNEM_HASH_SIZE, base, strlen(base));
                if (!e)
                    return false;
                insn->mnemonic = e->value;
                insn->pred = (int16_t)(p + 1);
                return true;
            }
        }
    }
    return false;
}

/* Operand-less instructions as knows and Zydis 4.0 cannot encode. */
static const asm_raw_insn raw_insns[] = {
    {"wbnoinvd", 3, {0xf3, 0x0f, 0x09}},
    {"pconfig", 3, {0x0f, 0x01, 0xc5}},
    {"fneni", 2, {0xdb, 0xe0}}, {"fndisi", 2, {0xdb, 0xe1}}, {"fnsetpm", 2, {0xdb, 0xe4}},
    {"feni", 3, {0x9b, 0xdb, 0xe0}}, {"fdisi", 3, {0x9b, 0xdb, 0xe1}},
    {"fsetpm", 3, {0x9b, 0xdb, 0xe4}},
};

const asm_raw_insn *asm_raw_insn_get(int raw)
{
    return &raw_insns[raw - 1];
}

bool asm_lookup_mnemonic(const char *s, size_t n, asm_insn *insn)
{
    tables_init();
    const name_ent *e = tab_get(mnem_tab, MNEM_HASH_SIZE, s, n);
    if (!e) {
        for (size_t i = 0; i < sizeof raw_insns / sizeof raw_insns[0]; i++) {
            if (strlen(raw_insns[i].name) == n && strncasecmp(raw_insns[i].name, s, n) == 0) {
                insn->raw = (uint8_t)(i + 1);
                insn->mnemonic = ZYDIS_MNEMONIC_NOP;
                return true;
            }
        }
        return lookup_cmp_pseudo(s, n, insn);
    }
    insn->mnemonic = e->value;
    insn->flags |= e->flags;
    insn->osz = e->osz;
    insn->memsize = e->memsize;
    return true;
}

int asm_lookup_register(const char *s, size_t n)
{
    tables_init();
    const name_ent *e = tab_get(reg_tab, REG_HASH_SIZE, s, n);
    if (!e)
        return 0;
    /* Zydis's pseudo registers (flags, ip, mxcsr...) are not operands in
     * as's syntax, except rip as a memory base */
    switch (ZydisRegisterGetClass((ZydisRegister)e->value)) {
    case ZYDIS_REGCLASS_FLAGS:
        return 0;
    case ZYDIS_REGCLASS_IP:
        return e->value == ZYDIS_REGISTER_RIP || e->value == ZYDIS_REGISTER_EIP ? e->value : 0;
    default:
        break;
    }
    if (e->value == ZYDIS_REGISTER_MXCSR || e->value == ZYDIS_REGISTER_PKRU ||
        e->value == ZYDIS_REGISTER_XCR0 || e->value == ZYDIS_REGISTER_UIF ||
        e->value == ZYDIS_REGISTER_GDTR || e->value == ZYDIS_REGISTER_LDTR ||
        e->value == ZYDIS_REGISTER_IDTR || e->value == ZYDIS_REGISTER_TR ||
        e->value == ZYDIS_REGISTER_X87CONTROL || e->value == ZYDIS_REGISTER_X87STATUS ||
        e->value == ZYDIS_REGISTER_X87TAG || e->value == ZYDIS_REGISTER_BNDCFG ||
        e->value == ZYDIS_REGISTER_BNDSTATUS)
        return 0;
    return e->value;
}

int asm_register_size(int reg)
{
    return ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, (ZydisRegister)reg);
}

bool asm_register_is_mask(int reg)
{
    return ZydisRegisterGetClass((ZydisRegister)reg) == ZYDIS_REGCLASS_MASK;
}

bool asm_register_is_rip(int reg)
{
    return reg == ZYDIS_REGISTER_RIP;
}
