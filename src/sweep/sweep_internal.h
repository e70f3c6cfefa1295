/* Sweep, private: the types the stages of sweep/ hand each other (see
 * sweep.h for the stages).  Only files in src/sweep/ and the sweep's tests
 * include this header.
 *
 *   forms.c   -> sweep_form_list (every form, kept or skipped)
 *   chain.c   -> sw_plan per form (the asm measured: throughput block,
 *                latency chains, init), from a sweep_form
 *   measure.c -> sweep_row per form (values, uncertainties, status)
 *   output.c  <- sweep_row (text, CSV, JSON)
 *
 * Ownership: a sweep_form_list owns its array (sweep_forms_free); a sw_plan
 * holds its text in fixed arrays (nothing to free); a sweep_row points at
 * its form and plan and owns nothing. */
#ifndef NB_SWEEP_INTERNAL_H
#define NB_SWEEP_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/options.h"
#include "sys/cpu.h"
#include "sys/error.h"

/* ---- forms (forms.c) ---------------------------------------------------- */

#define SW_MAX_OPS 10

/* What an operand is, for naming and for chains. */
typedef enum {
    SWK_NONE,
    SWK_GPR,      /* r8 .. r64 */
    SWK_VEC,      /* xmm, ymm, zmm */
    SWK_MMX,      /* mm */
    SWK_MASK,     /* k */
    SWK_X87,      /* st */
    SWK_MEM,      /* memory (see sw_mem) */
    SWK_IMM,      /* an immediate (or the implicit 1 of a shift) */
    SWK_FLAGS,    /* the status flags (hidden) */
    SWK_OTHER,    /* segment, control, debug, bound, tile, ip... registers */
} sw_kind;

enum { SW_READ = 1, SW_WRITE = 2 };

typedef enum {
    SWM_PLAIN,    /* [base + disp] */
    SWM_AGEN,     /* lea's address: computed, never accessed */
    SWM_VSIB,     /* gather/scatter: [base + vector index * scale] */
    SWM_MIB,      /* MPX's base + index pair */
    SWM_MOFFS,    /* an absolute 64-bit address (mov al, [moffs]) */
    SWM_HIDDEN,   /* implicit: string instructions, xlat, push... */
} sw_mem;

/* Flag bits of SWK_FLAGS operands. */
enum { SWF_CF = 1, SWF_PF = 2, SWF_AF = 4, SWF_ZF = 8, SWF_SF = 16, SWF_OF = 32 };

typedef struct sw_op {
    uint8_t kind;          /* sw_kind */
    uint8_t access;        /* SW_READ | SW_WRITE */
    bool named;            /* part of the form's name */
    bool fixed;            /* the instruction names the register itself (al
                              of `add al, imm8`, cl of shifts, mul's rax) */
    bool writemask;        /* an EVEX {k} operand */
    uint16_t bits;         /* register or memory width; immediate size */
    uint16_t reg;          /* ZydisRegister of a fixed register */
    uint8_t mem;           /* sw_mem, for SWK_MEM */
    uint16_t mem_base;     /* SWM_HIDDEN: its base register (ZydisRegister) */
    uint16_t vsib_bits;    /* SWM_VSIB: the index vector's width */
    uint8_t vsib_index;    /* SWM_VSIB: index element bits, 32 or 64 */
    uint8_t elem;          /* element type: 'f' float32, 'd' float64, 'h'
                              float16, 'i' integer or other */
    int64_t imm;           /* the value of an implicit immediate */
    uint8_t flags_read, flags_written;   /* SWK_FLAGS: SWF_* bits */
} sw_op;

typedef enum { SWE_LEGACY, SWE_VEX, SWE_EVEX } sw_enc;

typedef struct sweep_form {
    char name[112];        /* "imul r64, r64, imm8", "vaddps zmm {k}, zmm, zmm" */
    char mnemonic[24];     /* lowercase */
    uint16_t mnem;         /* ZydisMnemonic */
    uint8_t enc;           /* sw_enc */
    uint8_t mask;          /* 0: none, 1: merging {k}, 2: zeroing {k}{z} */
    uint8_t bcst;          /* memory broadcast {1toN}: N; 0: none */
    bool rep;              /* a REP/REPNE prefix */
    bool privileged;       /* Zydis: ring 0 only */
    uint8_t n_ops;
    sw_op op[SW_MAX_OPS];
    const char *isa_set;   /* Zydis's names, static */
    const char *category;
    uint8_t bytes[15], len;   /* the encoding the walk found */
    const char *skip;      /* why it is not measured (static); NULL: measured */
    char skip_detail[128]; /* what the reason needs: a CPUID feature... */
} sweep_form;

typedef struct sweep_form_list {
    sweep_form *v;
    size_t n, cap;
    size_t n_decoded;      /* encodings the walk decoded */
} sweep_form_list;

/* Every form Zydis's decoder knows in 64-bit mode, sorted by name, each
 * once, with `skip` set for those not measured on this CPU (`isa` answers
 * CPUID questions: cpu_isa_status in nb, a fixed answer in tests).
 * Returns 0 or NB_ENOMEM. */
typedef cpu_isa_state (*sw_isa_fn)(const char *isa_set, char *feature, size_t len);
int sweep_forms_enumerate(sw_isa_fn isa, sweep_form_list *out, nb_error *err);

/* nb's answer: sys/cpu.c's cpu_isa_status, completed with the sets every
 * x86-64 CPU has and a few CPUID bits cpu.c does not know (LZCNT...). */
cpu_isa_state sweep_isa_status(const char *isa_set, char *feature, size_t len);
void sweep_forms_free(sweep_form_list *l);

/* Decode one instruction and name its form into name[len] (sweep_form's
 * naming).  Returns its length, 0 when the bytes do not decode. */
size_t sweep_form_name_of(const uint8_t *bytes, size_t avail, char *name, size_t len);

/* Decode one instruction into *f (name, operands; skip left NULL).
 * Returns its length, or 0. */
size_t sweep_form_decode(const uint8_t *bytes, size_t avail, sweep_form *f);

/* The 1-based position of operand i among the form's named operands (the
 * writemask not counted), 0 if it is not named. */
int sweep_form_position(const sweep_form *f, int i);

/* ---- chains (chain.c) ------------------------------------------------- */

#define SW_MAX_PAIRS 24
#define SW_CODE_MAX 3072
#define SW_INIT_MAX 2048
#define SW_MAX_STMTS 128

/* What the CPU offers the code around a form (closers, init). */
typedef struct sw_caps {
    bool sse41, avx, avx2, avx512f, avx512bw, avx512dq, avx512vl;
} sw_caps;

/* How a chain's closer comes out of its result. */
typedef enum {
    SWC_NONE,     /* no closer: the form's instances chain by themselves */
    SWC_EXACT,    /* a closer of the same register class: `self` chains it
                     alone, its latency is subtracted */
    SWC_BOUND,    /* a closer across kinds (register file, memory, flags):
                     `self` is the round trip there and back, and only
                     bounds follow (see measure.c) */
} sw_closer_kind;

/* Code to measure: one copy of `code`, repeated by the engine. */
typedef struct sw_chain {
    char code[SW_CODE_MAX];     /* statements separated by "; " */
    char init[SW_INIT_MAX];     /* -asm_init: the operands' values */
    int instances;              /* instances of the form in one copy */
    uint64_t inst_stmt[SW_MAX_STMTS / 64];   /* which statements are those */
    int n_stmts;
    bool breakers;              /* dependency breakers are in the copy */
    /* closers (latency chains) */
    uint8_t closer;             /* sw_closer_kind */
    char closer_name[48];       /* "lea", "vmovq+vmovq" ... */
    char closer_self[512];      /* one copy of the closer's own chain */
    double min_back, min_fwd;   /* SWC_BOUND: the least the closer and its
                                   way back can take (cycles) */
    bool closer_mem;            /* through memory: forwarding between
                                   accesses of other widths than the round
                                   trip's can cost more, so never exact */
} sw_chain;

typedef struct sw_pair {
    int from, to;               /* operand indexes */
    bool from_addr;             /* the address of memory operand `from` */
    char label[40];             /* "op2->op1", "op2.addr->op1", "flags->op1" */
    const char *not_measured;   /* why there is no chain (static); NULL */
    sw_chain chain;
} sw_pair;

typedef struct sw_plan {
    char example[192];          /* the statement measured */
    char values[160];           /* the operand values the code states */
    sw_chain tp;                /* independent instances */
    sw_chain tp_broken;         /* the same with dependency breakers;
                                   instances == 0: none needed */
    sw_pair pair[SW_MAX_PAIRS];
    int n_pairs;
    const char *latency_note;   /* why no pair was measured (static); NULL */
} sw_plan;

/* The code that measures form *f on a CPU with *caps.  Returns 0, or
 * NB_EUNSUPPORTED with the reason in *err when no code can be built. */
int sweep_plan(const sweep_form *f, const sw_caps *caps, sw_plan *p, nb_error *err);

/* ---- chain text (chain_text.c): what chain.c writes with --------------- */

/* Where one operand of one instance lives. */
typedef struct sw_loc {
    uint8_t cls;          /* sw_kind of the operand (SWK_MEM: memory) */
    int8_t reg;           /* register number: GPRs in Zydis's order (rax 0,
                             rcx 1 ... r15 15), vectors 0-31, mm 0-7, k 0-7,
                             st(i) 0-7; -1: none */
    int8_t idx;           /* memory: an index register (GPR number), -1 */
    uint16_t bits;        /* the operand's width */
    int disp;             /* memory: [r14 + disp] */
    uint8_t flag;         /* SWK_FLAGS: the SWF_* bit read or written */
} sw_loc;

/* A chain being written: registers handed out and used, the text so far. */
typedef struct sw_cb {
    const sweep_form *f;
    const sw_caps *caps;
    sw_chain *ch;
    uint32_t taken[SWK_X87 + 1];     /* registers not to hand out */
    uint32_t used[SWK_X87 + 1];      /* registers the init gives values */
    uint32_t written[SWK_X87 + 1];   /* registers a statement writes */
    bool flags_written, mem_written;
    int n_lines;                     /* 64-byte lines of R14's area used */
    uint32_t zeroed_vec;             /* vectors the init zeroes (VSIB index) */
    uint16_t pointer_gpr;            /* GPRs that must hold an address */
    long long gval[16];              /* GPR values the init states */
    long long line_val[64];          /* a line's first qword, when stated */
    uint64_t line_has_val;
    int8_t konst[SWK_X87 + 1];       /* constant registers (breakers), -1 */
    int8_t scratch;                  /* a GPR a closer uses, -1 */
    bool dd;                         /* data-dependent (div): stated values */
    char fp;                         /* vector values: 'f' 1.0f, 'd' 1.0 */
    bool overflow;                   /* the text did not fit */
} sw_cb;

/* Start a chain of form f into *ch; registers the form fixes are taken. */
void sw_cb_init(sw_cb *b, const sweep_form *f, const sw_caps *caps, sw_chain *ch);

/* A free register of class cls (-1 when none is left), taken and used. */
int sw_alloc(sw_cb *b, int cls);
/* Registers of class cls still free. */
int sw_free_count(const sw_cb *b, int cls);
/* A new 64-byte line of R14's area: its displacement. */
int sw_line(sw_cb *b);

/* The location of operand i as the form fixes it, or a fresh one. */
sw_loc sw_loc_fresh(sw_cb *b, int i);

/* The constant register of class cls breakers copy from (allocated on
 * first use); -1: none left. */
int sw_konst(sw_cb *b, int cls);

/* The stated value of a general-purpose operand (1, or a divisor...). */
long long sw_gpr_value(const sw_cb *b, const sw_op *o, bool fixed_reg, int reg);

/* Append one statement to the copy; inst: it is an instance of the form. */
void sw_emit(sw_cb *b, const char *stmt, bool inst);

/* The instance of the form with its operands at L[0..n_ops): the text. */
void sw_instance_text(const sw_cb *b, const sw_loc *L, char *buf, size_t len);
/* ... and appended to the copy, its written registers noted. */
void sw_emit_instance(sw_cb *b, const sw_loc *L);

/* A statement that gives operand i at *l a value independent of everything
 * before it (mov, a copy of a constant register, a store of one); false
 * where there is none (x87). */
bool sw_emit_breaker(sw_cb *b, int i, const sw_loc *l);

/* A closer: code that makes `to` depend on `from` (to := from, or a store,
 * a load, a flag test), its least latency in *min, into buf.  Returns
 * SWC_EXACT (same register class: its self chain gives its latency),
 * SWC_BOUND, or SWC_NONE when nb has none for these kinds. */
int sw_closer_text(sw_cb *b, const sw_loc *from, const sw_loc *to, long long restore,
                   bool do_restore, char *buf, size_t len, double *min);

/* The init code (values of every register and line used) into ch->init. */
void sw_write_init(sw_cb *b);

/* Register names. */
const char *sw_gpr_name(int reg, unsigned bits);

/* ---- measurement (measure.c) -------------------------------------------- */

/* One value: cycles, with its uncertainty (half the spread of the runs
 * kept, or the engine's own where it states one, whichever is larger). */
typedef struct sw_value {
    double v, unc;
    int runs;              /* measurements taken */
    bool ok;
    bool noisy;            /* still spread after the re-measurements */
} sw_value;

typedef struct sw_pair_result {
    bool ok;
    sw_value m;            /* the pair's latency (the upper end of a bound) */
    double lower;          /* the least it can be (= m.v when exact) */
    bool bound;            /* only an upper bound is known */
    char error[192];       /* why it failed (ok false, not_measured NULL) */
} sw_pair_result;

typedef enum { SWS_OK, SWS_NOISY, SWS_FAULT, SWS_ERROR } sw_status;

typedef struct sweep_row {
    const sweep_form *f;
    const sw_plan *plan;
    uint8_t status;        /* sw_status */
    char error[512];       /* a fault or error: what happened */
    sw_value tp;           /* reciprocal throughput, cycles */
    bool tp_broken;        /* tp came from the block with breakers */
    sw_pair_result pair[SW_MAX_PAIRS];
    double uops;           /* retired uops per instance (PMU), NAN: none */
    char ports[160];       /* uops per instance by port: "p0:0.50 p1:0.50", "" */
    bool has_latency;
    sw_value latency;      /* the largest pair */
    double latency_lower;
    bool latency_bound;
} sweep_row;

typedef struct sw_meas sw_meas;

/* A measuring context: one bench session for the whole sweep, runs with
 * `base`'s backend, CPU and timeout; on a PMU backend it counts the event
 * table `uarch`'s core cycles, and for throughput blocks retired uops and
 * uops by port where the table has them (sw_pmu_events).  *stop set (a
 * signal) ends a form early.  NULL with *err filled on failure. */
sw_meas *sw_meas_new(const nb_options *base, const cpu_info *cpu, const char *uarch,
                     const volatile sig_atomic_t *stop, nb_error *err);

/* The PMU events of a sweep from table `uarch`: the core cycles event (the
 * first the table has of the unhalted-cycles names) into *cycles, that and
 * the retired-uops event and the per-port dispatch events into *all.
 * Returns 0, or NB_EUNSUPPORTED when the table has no cycles event. */
struct nb_event_list;
int sw_pmu_events(const char *uarch, struct nb_event_list *cycles, struct nb_event_list *all);
void sw_meas_free(sw_meas *m);

/* Measure form f with plan p into *row.  Returns 0 (faults and errors are
 * the row's status), 1 when *stop was set meanwhile (the row is not
 * complete), or a negative status when the sweep cannot go on (the
 * backend failed). */
int sw_measure_form(sw_meas *m, const sweep_form *f, const sw_plan *p, sweep_row *row,
                    nb_error *err);

/* What the backend line of the last run says ("tsc (TSC 2.1 GHz ...)"),
 * and the TSC frequency it calibrated (0 if none). */
void sw_meas_backend(const sw_meas *m, char *buf, size_t len, double *tsc_ghz);

/* Benchmarks run so far. */
long sw_meas_runs(const sw_meas *m);

/* ---- output (output.c) --------------------------------------------------- */

struct nb_fingerprint;
struct jv;

typedef struct sw_out {
    nb_output fmt;
    FILE *f;
    const struct nb_fingerprint *fp;
    char machine_id[24];       /* a hash of the CPU's identity (see output.c) */
    struct jv *machine;        /* the fingerprint object, built once */
    char backend[64];          /* the backend's name */
    double tsc_ghz;
    bool header_done;
} sw_out;

void sw_out_init(sw_out *o, nb_output fmt, FILE *f, const struct nb_fingerprint *fp);
/* The backend that measured (its name, the TSC frequency it calibrated). */
void sw_out_backend(sw_out *o, const char *name, double tsc_ghz);
/* Write one row, flushed.  Returns 0, or NB_ESYSTEM when the output cannot
 * be written. */
int sw_out_row(sw_out *o, const sweep_row *row);
void sw_out_free(sw_out *o);

#endif
