/* Tests for src/evdb.c over the tables generated from data/: CPUID of real
 * parts -> table (through cpu_detect_with, so the signature decoding is part
 * of what is tested), well-known encodings, name lookup, and a round trip of
 * every event of every table through the config parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sys/cpu.h"
#include "cli/info.h"
#include "events/evdb.h"
#include "events/evdb_tables.h"
#include "sys/status.h"

/* ---- a fake CPU ---- */
static struct {
    const char *vendor;
    uint32_t sig;        /* CPUID.1:EAX */
    bool hybrid;
    unsigned core_type;  /* CPUID.1A:EAX[31:24] */
} g_cpu;

static void fake_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    (void)sub;
    memset(r, 0, 16);
    switch (leaf) {
    case 0:
        r[0] = 0x1A;
        memcpy(&r[1], g_cpu.vendor, 4);
        memcpy(&r[3], g_cpu.vendor + 4, 4);
        memcpy(&r[2], g_cpu.vendor + 8, 4);
        break;
    case 1: r[0] = g_cpu.sig; break;
    case 7: r[3] = g_cpu.hybrid ? 1u << 15 : 0; break;
    case 0x1A: r[0] = g_cpu.core_type << 24 | 1; break;
    case 0x80000000: r[0] = 0x80000000; break;
    default: break;
    }
}

/* CPUID.1:EAX for a display family/model/stepping (SDM / PPR encoding). */
static uint32_t signature(unsigned family, unsigned model, unsigned stepping)
{
    unsigned base_family = family >= 0xF ? 0xF : family;
    unsigned ext_family = family >= 0xF ? family - 0xF : 0;
    unsigned ext_model = (base_family == 6 || base_family == 0xF) ? model >> 4 : 0;
    return ext_family << 20 | ext_model << 16 | base_family << 8 | (model & 0xF) << 4 | stepping;
}

static cpu_info make_cpu(const char *vendor, unsigned family, unsigned model, unsigned stepping,
                         bool hybrid, unsigned core_type)
{
    g_cpu.vendor = vendor;
    g_cpu.sig = signature(family, model, stepping);
    g_cpu.hybrid = hybrid;
    g_cpu.core_type = core_type;
    cpu_info ci;
    cpu_detect_with(fake_cpuid, &ci);
    assert_int_equal(ci.family, family);
    assert_int_equal(ci.model, model);
    return ci;
}

typedef struct {
    const char *vendor;
    unsigned family, model, stepping;
    bool hybrid;
    unsigned core_type;
    const char *table;   /* NULL: no table */
} part;

#define I "GenuineIntel"
#define A "AuthenticAMD"
#define P 0x40
#define E 0x20
static const part parts[] = {
    {I, 6, 0x1A, 5, 0, 0, "NehalemEP"},        {I, 6, 0x2E, 6, 0, 0, "NehalemEX"},
    {I, 6, 0x25, 2, 0, 0, "WestmereEPSP"},     {I, 6, 0x2C, 2, 0, 0, "WestmereEPDP"},
    {I, 6, 0x2F, 2, 0, 0, "WestmereEX"},       {I, 6, 0x1C, 2, 0, 0, "Bonnell"},
    {I, 6, 0x37, 8, 0, 0, "Silvermont"},       {I, 6, 0x5C, 9, 0, 0, "Goldmont"},
    {I, 6, 0x7A, 1, 0, 0, "GoldmontPlus"},     {I, 6, 0x2A, 7, 0, 0, "SandyBridge"},
    {I, 6, 0x2D, 7, 0, 0, "JakeTown"},         {I, 6, 0x3A, 9, 0, 0, "IvyBridge"},
    {I, 6, 0x3E, 4, 0, 0, "IvyTown"},          {I, 6, 0x3C, 3, 0, 0, "Haswell"},
    {I, 6, 0x3F, 2, 0, 0, "HaswellX"},         {I, 6, 0x3D, 4, 0, 0, "Broadwell"},
    {I, 6, 0x4F, 1, 0, 0, "BroadwellX"},       {I, 6, 0x56, 3, 0, 0, "BroadwellDE"},
    {I, 6, 0x5E, 3, 0, 0, "Skylake"},          {I, 6, 0x9E, 10, 0, 0, "Skylake"},
    {I, 6, 0x55, 4, 0, 0, "SkylakeX"},         {I, 6, 0x55, 7, 0, 0, "CascadeLakeX"},
    {I, 6, 0x57, 1, 0, 0, "KnightsLanding"},   {I, 6, 0x7E, 5, 0, 0, "IceLake"},
    {I, 6, 0x6A, 6, 0, 0, "IceLakeX"},         {I, 6, 0xA7, 1, 0, 0, "RocketLake"},
    {I, 6, 0x86, 7, 0, 0, "SnowRidgeX"},       {I, 6, 0x8C, 1, 0, 0, "TigerLake"},
    {I, 6, 0x8F, 8, 0, 0, "SapphireRapids"},   {I, 6, 0xCF, 2, 0, 0, "EmeraldRapids"},
    {I, 6, 0x96, 1, 0, 0, "ElkhartLake"},      {I, 6, 0xAD, 1, 0, 0, "GraniteRapids"},
    {I, 6, 0xAF, 3, 0, 0, "SierraForest"},     {I, 6, 0xB6, 0, 0, 0, "GrandRidge"},
    {I, 6, 0xDD, 0, 0, 0, "ClearwaterForest"},
    {I, 6, 0x97, 2, 1, P, "AlderLakeP"},       {I, 6, 0x97, 2, 1, E, "AlderLakeE"},
    {I, 6, 0x9A, 3, 1, 0, "AlderLakeP"},       /* hybrid, core type not reported */
    {I, 6, 0xBE, 0, 0, 0, "AlderLakeE"},       /* Alder Lake-N: E cores only */
    {I, 6, 0xAA, 4, 1, P, "MeteorLakeP"},      {I, 6, 0xAA, 4, 1, E, "MeteorLakeE"},
    {I, 6, 0xBD, 1, 1, P, "LunarLakeP"},       {I, 6, 0xBD, 1, 1, E, "LunarLakeE"},
    {I, 6, 0xC6, 2, 1, P, "ArrowLakeP"},       {I, 6, 0xC6, 2, 1, E, "ArrowLakeE"},
    {I, 6, 0xC5, 2, 1, E, "ArrowLakeE"},
    {I, 6, 0xCC, 0, 1, P, "PantherLakeP"},     {I, 6, 0xCC, 0, 1, E, "PantherLakeE"},
    {I, 18, 0x01, 0, 1, P, "NovaLakeP"},       {I, 18, 0x01, 0, 1, E, "NovaLakeE"},
    {A, 0x17, 0x01, 2, 0, 0, "Zen1"},          {A, 0x17, 0x08, 2, 0, 0, "Zen1"},
    {A, 0x17, 0x31, 0, 0, 0, "Zen2"},          {A, 0x17, 0x71, 0, 0, 0, "Zen2"},
    {A, 0x19, 0x01, 1, 0, 0, "Zen3"},          {A, 0x19, 0x21, 0, 0, 0, "Zen3"},
    {A, 0x19, 0x11, 1, 0, 0, "Zen4"},          {A, 0x19, 0x61, 2, 0, 0, "Zen4"},
    {A, 0x1A, 0x02, 1, 0, 0, "Zen5"},          {A, 0x1A, 0x44, 0, 0, 0, "Zen5"},
    {A, 0x1A, 0x50, 0, 0, 0, "Zen6"},
    {I, 6, 0x0F, 6, 0, 0, NULL},               /* Core 2: older than every table */
    {A, 0x15, 0x02, 0, 0, 0, NULL},            /* Piledriver */
    {"GenuineIotel", 6, 0x5E, 3, 0, 0, NULL},
};

static void test_cpuid_picks_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        const part *p = &parts[i];
        cpu_info ci = make_cpu(p->vendor, p->family, p->model, p->stepping, p->hybrid, p->core_type);
        const char *got = evdb_uarch_for_cpu(&ci);
        if ((got == NULL) != (p->table == NULL) || (got && strcmp(got, p->table)))
            fail_msg("%s family 0x%X model 0x%X stepping %u core 0x%X: got %s, want %s",
                     p->vendor, p->family, p->model, p->stepping, p->core_type,
                     got ? got : "(none)", p->table ? p->table : "(none)");
    }
}

/* Every table with CPUs in the map is reached by at least one part above. */
static void test_every_table_has_a_part(void **state)
{
    (void)state;
    for (size_t m = 0; m < evdb_n_cpumap; m++) {
        if (evdb_cpumap[m].core_type == EVDB_CORE_ATOM_LP)
            continue;   /* selectable by -uarch only */
        bool found = false;
        for (size_t i = 0; i < sizeof parts / sizeof *parts && !found; i++)
            found = parts[i].table && !strcmp(parts[i].table, evdb_cpumap[m].uarch);
        if (!found)
            fail_msg("no test part for table %s", evdb_cpumap[m].uarch);
    }
    assert_string_equal(evdb_uarch_find("arrowlakelpe"), "ArrowLakeLPE");
    assert_null(evdb_uarch_find("Pentium4"));
}

/* The machines nb has been developed on (a Zen 5 guest, a Zen 4 Genoa
 * guest, an Emerald Rapids guest; Sapphire Rapids, its sibling, beside
 * it): each must choose its table by itself. */
static void test_this_machine(void **state)
{
    (void)state;
    cpu_info ci;
    cpu_detect(&ci);
    const char *u = evdb_uarch_for_cpu(&ci);
    const char *want = NULL;
    if (ci.vendor == CPU_VENDOR_AMD && ci.family == 0x1A && ci.model < 0x10)
        want = "Zen5";
    else if (ci.vendor == CPU_VENDOR_AMD && ci.family == 0x19 && ci.model >= 0x10 &&
             ci.model <= 0x1F)
        want = "Zen4";
    else if (ci.vendor == CPU_VENDOR_INTEL && ci.family == 6 && ci.model == 0xCF)
        want = "EmeraldRapids";
    else if (ci.vendor == CPU_VENDOR_INTEL && ci.family == 6 && ci.model == 0x8F)
        want = "SapphireRapids";
    if (!want) {
        printf("skip: family 0x%x model 0x%x is not a development machine\n", ci.family,
               ci.model);
        skip();
    }
    assert_non_null(u);
    assert_string_equal(u, want);
}

static nb_event lookup(const char *uarch, const char *name)
{
    nb_event ev;
    nb_error err;
    if (evdb_lookup(uarch, name, &ev, &err))
        fail_msg("%s %s: %s", uarch, name, err.message);
    return ev;
}

static void test_well_known_encodings(void **state)
{
    (void)state;
    nb_event ev = lookup("Skylake", "UOPS_ISSUED.ANY");
    assert_int_equal(ev.evtsel, 0x0E);
    assert_int_equal(ev.umask, 0x01);
    ev = lookup("Skylake", "INST_RETIRED.ANY_P");
    assert_int_equal(ev.evtsel, 0xC0);
    ev = lookup("Skylake", "MEM_LOAD_RETIRED.L1_HIT");
    assert_int_equal(ev.evtsel, 0xD1);
    assert_int_equal(ev.umask, 0x01);
    ev = lookup("Haswell", "UOPS_EXECUTED_PORT.PORT_0");
    assert_int_equal(ev.evtsel, 0xA1);
    ev = lookup("AlderLakeP", "INST_RETIRED.ANY_P");
    assert_int_equal(ev.evtsel, 0xC0);
    ev = lookup("Zen4", "EX_RET_INSTR");
    assert_int_equal(ev.evtsel, 0x0C0);
    assert_int_equal(ev.umask, 0x00);
    ev = lookup("Zen5", "EX_RET_INSTR");
    assert_int_equal(ev.evtsel, 0x0C0);
    ev = lookup("Zen5", "LS_NOT_HALTED_CYC");
    assert_int_equal(ev.evtsel, 0x076);
    ev = lookup("Zen3", "OP_CACHE_HIT_MISS.OP_CACHE_HIT");
    assert_int_equal(ev.evtsel, 0x28F);
    assert_int_equal(ev.umask, 0x03);
    /* Offcore and load-latency events keep their MSR values. */
    ev = lookup("Skylake", "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4");
    assert_true(ev.has_msr_3f6h);
    assert_int_equal(ev.msr_3f6h, 4);
    ev = lookup("Skylake", "OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE");
    assert_int_equal(ev.evtsel, 0xB7);
    assert_true(ev.has_msr_rsp0);
    assert_int_equal(ev.msr_rsp0, 0x10001);
    ev = lookup("Skylake", "FRONTEND_RETIRED.DSB_MISS");
    assert_true(ev.has_msr_pf);
    assert_true(ev.taken_alone);
}

static void test_modifiers_and_combination(void **state)
{
    (void)state;
    nb_event ev = lookup("Skylake", "UOPS_ISSUED.ANY.CMSK=1.INV");
    assert_int_equal(ev.evtsel, 0x0E);
    assert_int_equal(ev.umask, 0x01);
    assert_int_equal(ev.cmask, 1);
    assert_true(ev.inv);
    assert_string_equal(ev.name, "UOPS_ISSUED.ANY.CMSK=1.INV");
    ev = lookup("Skylake", "uops_issued.any");
    assert_int_equal(ev.evtsel, 0x0E);
    assert_string_equal(ev.name, "UOPS_ISSUED.ANY");   /* the table's spelling */
    nb_event a = lookup("Skylake", "L2_RQSTS.ALL_DEMAND_DATA_RD");
    nb_event b = lookup("Skylake", "L2_RQSTS.ALL_RFO");
    ev = lookup("Skylake", "L2_RQSTS.ALL_DEMAND_DATA_RD+L2_RQSTS.ALL_RFO");
    assert_int_equal(ev.evtsel, 0x24);
    assert_int_equal(ev.umask, a.umask | b.umask);
    assert_string_equal(ev.name, "L2_RQSTS.ALL_DEMAND_DATA_RD+L2_RQSTS.ALL_RFO");
    ev = lookup("Skylake", "0E.01.CMSK=2");   /* raw specs pass through */
    assert_int_equal(ev.cmask, 2);
    ev = lookup(NULL, "C0.00");
    assert_int_equal(ev.evtsel, 0xC0);
}

static void expect_lookup_error(const char *uarch, const char *name, const char *needle)
{
    nb_event ev;
    nb_error err;
    assert_int_equal(evdb_lookup(uarch, name, &ev, &err), NB_EINPUT);
    if (!strstr(err.message, needle))
        fail_msg("'%s': message '%s' lacks '%s'", name, err.message, needle);
}

static void test_lookup_errors_suggest(void **state)
{
    (void)state;
    expect_lookup_error("Skylake", "UOPS_ISSUE.ANY", "UOPS_ISSUED.ANY");
    expect_lookup_error("Zen5", "EX_RET_INSTRS", "EX_RET_INSTR");
    /* Any letter case; a name longer than one 64-bit word of the
     * bit-parallel distance. */
    expect_lookup_error("Skylake", "offcore_responze.demand_data_rd.l3_miss_local_dram.snoop_hit_no_fwd",
                        "closest: OFFCORE_RESPONSE.DEMAND_DATA_RD.L3_MISS_LOCAL_DRAM.SNOOP_HIT_NO_FWD, ");
    char very_long[140];
    memset(very_long, 'X', sizeof very_long - 1);
    very_long[sizeof very_long - 1] = '\0';
    expect_lookup_error("Skylake", very_long, "-list_events");   /* no list to compare with */
    expect_lookup_error("Skylake", "UOPS_ISSUED.ANY+INST_RETIRED.ANY_P", "cannot combine");
    expect_lookup_error("Skylake", "UOPS_ISSUED.ANY.CMSK=999", "CMSK");
    expect_lookup_error("Skylake", "UOPS_ISSUED.ANY+", "empty part");
    expect_lookup_error("Skylake", "", "empty");
    expect_lookup_error(NULL, "UOPS_ISSUED.ANY", "no event table");
}

static void test_parse_event_list(void **state)
{
    (void)state;
    nb_event_list l = {0};
    nb_error err;
    assert_int_equal(evdb_parse_events("Skylake", "UOPS_ISSUED.ANY,INST_RETIRED.ANY_P,3C.00",
                                       &l, &err), 0);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.v[1].evtsel, 0xC0);
    assert_int_equal(evdb_parse_events("Skylake", "UOPS_ISSUED.ANY,NOPE", &l, &err), NB_EINPUT);
    assert_string_equal(err.origin, "-events");
    event_list_free(&l);
}

static int count_lines_cb(void *ctx, const nb_event *ev, int line, const char *comment)
{
    (void)line;
    (void)comment;
    nb_event *want = ctx;
    nb_event got = *ev;
    snprintf(got.name, sizeof got.name, "%s", want->name);
    got.table_vendor = want->table_vendor;   /* config text names no vendor */
    assert_memory_equal(&got, want, sizeof got);
    return 0;
}

/* Every event of every table, formatted as evdb prints it, parses back to the
 * same event. */
static void test_every_event_round_trips(void **state)
{
    (void)state;
    size_t total = 0;
    for (size_t t = 0; t < evdb_n_tables; t++) {
        const evdb_table_def *td = &evdb_tables[t];
        for (uint32_t k = 0; k < td->count; k++) {
            const evdb_ev *e = &evdb_tab_events[td->first + k];
            nb_event ev;
            nb_error err;
            char spec[256], line[512];
            /* Build the event through the public path: lookup by name. */
            if (evdb_lookup(td->uarch, evdb_strings + e->name, &ev, &err))
                fail_msg("%s %s: %s", td->uarch, evdb_strings + e->name, err.message);
            evdb_format_event(&ev, evdb_uarch_vendor(td->uarch), spec, sizeof spec);
            snprintf(line, sizeof line, "%s %s  # %s\n", spec, ev.name, evdb_strings + e->desc);
            if (config_walk_text(line, td->uarch, count_lines_cb, &ev, &err))
                fail_msg("%s: '%s': %s", td->uarch, line, err.message);
            total++;
        }
    }
    assert_true(total > 10000);
}

static void test_sets_and_fallback(void **state)
{
    (void)state;
    assert_true(evdb_count("Skylake", EVDB_SET_COMMON) >= 10);
    assert_true(evdb_count("Skylake", EVDB_SET_ALL) > evdb_count("Skylake", EVDB_SET_COMMON));
    nb_event_list l = {0};
    char note[256];
    assert_int_equal(evdb_default_events("Zen5", CPU_VENDOR_AMD, &l, note, sizeof note), 0);
    assert_string_equal(note, "");
    assert_int_equal(l.n, evdb_count("Zen5", EVDB_SET_COMMON));
    bool cycles = false, instr = false;
    for (size_t i = 0; i < l.n; i++) {
        cycles |= l.v[i].evtsel == 0x76;
        instr |= l.v[i].evtsel == 0xC0;
    }
    assert_true(cycles && instr);
    event_list_free(&l);
    assert_int_equal(evdb_default_events(NULL, CPU_VENDOR_INTEL, &l, note, sizeof note), 0);
    assert_int_equal(l.n, 7);
    assert_non_null(strstr(note, "architectural"));
    assert_int_equal(l.v[0].evtsel, 0x3C);
    assert_int_equal(l.v[3].evtsel, 0x2E);
    assert_int_equal(l.v[3].umask, 0x4F);
    event_list_free(&l);
    assert_int_equal(evdb_default_events(NULL, CPU_VENDOR_AMD, &l, note, sizeof note), 0);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.v[0].evtsel, 0x76);
    assert_int_equal(l.v[1].evtsel, 0xC0);
    event_list_free(&l);
}

static void test_select_override(void **state)
{
    (void)state;
    cpu_info ci = make_cpu(A, 0x1A, 0x02, 1, 0, 0);
    const char *u;
    nb_error err;
    assert_int_equal(evdb_select(&ci, NULL, &u, &err), 0);
    assert_string_equal(u, "Zen5");
    assert_int_equal(evdb_select(&ci, "skylake", &u, &err), 0);
    assert_string_equal(u, "Skylake");
    assert_int_equal(evdb_select(&ci, "Skylak", &u, &err), NB_EUSAGE);
    assert_non_null(strstr(err.message, "Skylak"));
    assert_non_null(strstr(err.message, "closest: Skylake"));
}

/* Every microarchitecture name of nanoBench's configs/cfg_<name>_*.txt that
 * nb has a table for is accepted by -uarch (nanoBench's Core has none). */
static void test_nanobench_uarch_names(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {
        {"Westmere", "WestmereEPSP"}, {"Nehalem", "NehalemEP"}, {"Tremont", "ElkhartLake"},
        {"Zen", "Zen1"}, {"XeonScalable", "SkylakeX"},
        {"MeteorLakeP_RedwoodCove", "MeteorLakeP"}, {"MeteorLakeE_Crestmont", "MeteorLakeE"},
        {"ArrowLakeP_LionCove", "ArrowLakeP"}, {"ArrowLakeE_Skymont", "ArrowLakeE"},
        {"AlderLakeE", "AlderLakeE"}, {"AlderLakeP", "AlderLakeP"}, {"Bonnell", "Bonnell"},
        {"Broadwell", "Broadwell"}, {"CascadeLakeX", "CascadeLakeX"},
        {"EmeraldRapids", "EmeraldRapids"}, {"GoldmontPlus", "GoldmontPlus"},
        {"Goldmont", "Goldmont"}, {"Haswell", "Haswell"}, {"IceLake", "IceLake"},
        {"IvyBridge", "IvyBridge"}, {"KnightsLanding", "KnightsLanding"},
        {"SandyBridge", "SandyBridge"}, {"Silvermont", "Silvermont"}, {"SkylakeX", "SkylakeX"},
        {"Skylake", "Skylake"}, {"TigerLake", "TigerLake"}, {"zen", "Zen1"},
    };
    cpu_info ci = make_cpu(A, 0x1A, 0x02, 1, 0, 0);
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const char *u = NULL;
        nb_error err;
        if (evdb_select(&ci, pairs[i][0], &u, &err) != 0)
            fail_msg("-uarch %s refused: %s", pairs[i][0], err.message);
        assert_string_equal(u, pairs[i][1]);
        assert_true(evdb_count(u, EVDB_SET_COMMON) > 0);
    }
    const char *u;
    nb_error err;
    assert_int_equal(evdb_select(&ci, "ArrowLakeE_Skymnot", &u, &err), NB_EUSAGE);
    assert_non_null(strstr(err.message, "closest: ArrowLakeE_Skymont"));
    assert_int_equal(evdb_select(&ci, "Tremnot", &u, &err), NB_EUSAGE);
    assert_non_null(strstr(err.message, "Tremont"));
}

static void test_rapl(void **state)
{
    (void)state;
    nb_msr_event_list l = {0};
    nb_error err;
    assert_int_equal(evdb_msr_events("RAPL", CPU_VENDOR_INTEL, &l, &err), 0);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.v[0].read_msr, 0x611);
    assert_int_equal(l.v[0].n_writes, 0);
    msr_event_list_free(&l);
    assert_int_equal(evdb_msr_events("rapl", CPU_VENDOR_AMD, &l, &err), 0);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.v[0].read_msr, 0xC001029A);
    assert_int_equal(l.v[1].read_msr, 0xC001029B);
    msr_event_list_free(&l);
    assert_int_equal(evdb_msr_events("NOPE", CPU_VENDOR_AMD, &l, &err), NB_EINPUT);
}

static char *capture(int (*fn)(FILE *, void *), void *arg)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    fn(f, arg);
    fclose(f);
    return buf;
}

static int list_uops(FILE *f, void *arg)
{
    (void)arg;
    return info_list_events(f, "Skylake", "uops_issued");
}
static int list_zen5(FILE *f, void *arg)
{
    (void)arg;
    return info_list_events(f, "Zen5", "EX_RET_INSTR");
}
static int list_uarchs(FILE *f, void *arg)
{
    (void)arg;
    info_list_uarchs(f);
    return 0;
}
static int info_zen5(FILE *f, void *arg)
{
    info_cpu(f, arg, evdb_uarch_for_cpu(arg), "tsc");
    return 0;
}

static void test_listings(void **state)
{
    (void)state;
    char *s = capture(list_uops, NULL);
    assert_non_null(strstr(s, "0E.01 UOPS_ISSUED.ANY  # "));
    for (char *p = s; *p; p = strchr(p, '\n') + 1)   /* every line matches */
        assert_true(strncasecmp(strchr(p, ' ') + 1, "UOPS_ISSUED", 11) == 0);
    free(s);
    s = capture(list_zen5, NULL);
    assert_true(strncmp(s, "0C0.00 EX_RET_INSTR", 19) == 0);
    free(s);
    s = capture(list_uarchs, NULL);
    for (size_t t = 0; t < evdb_n_tables; t++)
        assert_non_null(strstr(s, evdb_tables[t].uarch));
    assert_non_null(strstr(s, "family 0x1A model 0x00-0x2F, 0x40-0x4F"));
    assert_non_null(strstr(s, "model 0x97 E-cores, 0x9A E-cores"));
    assert_non_null(strstr(s, "family 0x06 model 0x55 stepping 5-15"));
    free(s);
    cpu_info ci = make_cpu(A, 0x1A, 0x02, 1, 0, 0);
    s = capture(info_zen5, &ci);
    assert_non_null(strstr(s, "event table: Zen5"));
    assert_non_null(strstr(s, "family: 0x1A, model: 0x2"));
    assert_non_null(strstr(s, "backend: tsc"));
    free(s);
}

/* -events as nanoBench users type it: nb's own clock names, blanks after
 * commas, and every unknown name reported with its closest names. */
static void test_events_clock_names_blanks_all_unknown(void **state)
{
    (void)state;
    nb_event_list l = {0};
    nb_error err;
    assert_int_equal(evdb_parse_events("Skylake", " CORE_CYCLES, RDTSC,UOPS_ISSUED.ANY ,\tINST_RETIRED.ANY_P ",
                                       &l, &err), 0);
    assert_int_equal(l.n, 3);   /* RDTSC is the clock line, not an event */
    assert_string_equal(l.v[0].name, "CORE_CYCLES");
    assert_int_equal(l.v[0].evtsel, 0x3C);
    assert_int_equal(l.v[0].umask, 0x00);
    assert_string_equal(l.v[1].name, "UOPS_ISSUED.ANY");
    assert_string_equal(l.v[2].name, "INST_RETIRED.ANY_P");
    event_list_free(&l);
    assert_int_equal(evdb_parse_events("Zen1", "core_cycles", &l, &err), 0);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.v[0].evtsel, 0x76);
    event_list_free(&l);
    assert_int_equal(evdb_parse_events("Skylake", "INST_RETIRED.ANY, UOPS_ISSUED.ANY, FOO_BAR",
                                       &l, &err), NB_EINPUT);
    assert_non_null(strstr(err.message, "'INST_RETIRED.ANY'"));
    assert_non_null(strstr(err.message, "INST_RETIRED.ANY_P"));
    assert_non_null(strstr(err.message, "'FOO_BAR'"));
    assert_null(strstr(err.message, "'UOPS_ISSUED.ANY'"));
    event_list_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpuid_picks_table),
        cmocka_unit_test(test_every_table_has_a_part),
        cmocka_unit_test(test_this_machine),
        cmocka_unit_test(test_well_known_encodings),
        cmocka_unit_test(test_modifiers_and_combination),
        cmocka_unit_test(test_lookup_errors_suggest),
        cmocka_unit_test(test_parse_event_list),
        cmocka_unit_test(test_every_event_round_trips),
        cmocka_unit_test(test_sets_and_fallback),
        cmocka_unit_test(test_select_override),
        cmocka_unit_test(test_events_clock_names_blanks_all_unknown),
        cmocka_unit_test(test_nanobench_uarch_names),
        cmocka_unit_test(test_rapl),
        cmocka_unit_test(test_listings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
