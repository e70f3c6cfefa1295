/* nb tsc port probes: whether another thread shared the core's load ports,
 * its store ports, its ALUs, its multipliers, its vector units, its
 * vector divider or its integer divider while the tsc backend measured.
 *
 * A chain waits on one instruction at a time and hardly notices a
 * neighbour that keeps the core's ports busy: on a Zen 5 guest, while the
 * host ran such a neighbour for minutes at a time, independent loads from
 * one L1 line ran 12-36 % slower (0.28-0.34 cycles a load against 0.250), a
 * store and a load of one address a copy 0.68-0.86 against 0.50, and the L1
 * load chain, the ADD chain and the NOP loop within 0-2 % of a quiet
 * core's: a single run of that store-load pair read 0.68 +/- 0.02,
 * unflagged.  Later, beside the same kind of neighbour, the pair read
 * 0.677 +/- 0.019 once, unflagged, while the loads ran 4 % slow: the stores
 * had been held up more.  And a POPCNT chain x 100 read 1.078 +/- 0.018,
 * unflagged, against 1.00, with every probe quiet.
 *
 * So the first pass of every start also times loops of instructions that
 * do not wait on each other, one probe per kind of port: each is CAL_BODY
 * copies of one 4-byte instruction in loops of loop_a and loop_b
 * iterations, `burst` pairs of those programs (two stretches of three,
 * tsc_frontend_fit), ~2,000 cycles a program on a Zen 5 core.  With three
 * pairs, one stretch, a quiet core's load-port probe read up to 3.5 % slow
 * alone and 4.2 % beside a busy loop on nb's CPU, against 1.4 % with six.
 * Each probe's quietest stretch is compared with the most cycles one of its
 * instructions takes on a quiet core of this microarchitecture, or the
 * fewest this measuring process has seen where that is not known (as the
 * NOP loop's: tsc_keep_quietest).
 *
 * The integer divider's probe is a chain instead: DIV reads the RDX:RAX
 * the last one wrote, and no 4-byte form waits on nothing.  Its divides are
 * of 0 by R14, a pointer, so RDX stays 0 and none can raise #DE; a chain
 * waits on the divider as code that divides does, and on a Zen 5 guest its
 * 10 cycles a DIV hold the divider 7 of them (independent DIVs: 7.0). */
#ifndef NB_PMU_TSC_PORTS_H
#define NB_PMU_TSC_PORTS_H

#include <stdbool.h>

enum {
    TSC_PORT_LOAD,    /* ds mov rax, [r14]: loads from one L1 line */
    TSC_PORT_STORE,   /* ds mov [r14], rax: stores to one line of their own */
    TSC_PORT_ALU,     /* popcnt eax, ebx: ALU work that waits on nothing */
    TSC_PORT_MUL,     /* imul rax, rbx, 3: multiplies that wait on nothing */
    TSC_PORT_VEC,     /* vpaddd xmm0, xmm1, xmm2: vector adds (AVX) */
    TSC_PORT_DIV,     /* vdivps xmm0, xmm1, xmm2: vector divides (AVX) */
    TSC_PORT_IDIV,    /* ds div r14: a chain of integer divides of 0 by R14 */
    TSC_PORTS
};

typedef struct tsc_port_probe {
    const char *json, *json_hw;  /* JSON names: its slowdown, their half-width */
    const char *what;            /* for the backend line: "loads from one L1 line" */
    unsigned char insn[4];
    long loop_a, loop_b;         /* CAL_BODY instructions an iteration */
    unsigned burst;              /* pairs of programs in the first pass */
    bool line;                   /* R14 points to a line of the probe's own */
    bool avx;                    /* VEX-encoded: built only where the CPU has AVX */
    double loop_ops;             /* the loop's own instructions an iteration on
                                    the same ports (its DEC and JNZ, fused, on
                                    an ALU: 1) */
} tsc_port_probe;

extern const tsc_port_probe tsc_ports[TSC_PORTS];

/* The most cycles one of port probe `port`'s instructions takes on an idle
 * core of `uarch` (an event table's name, from CPUID): one over the loads
 * from the L1, the stores to it or the POPCNTs the core starts a cycle,
 * where that is known for a core with SMT (loads: 2 for Sandy Bridge to
 * Rocket Lake and for Zen 1 and 2; 3 for Golden Cove and Redwood Cove cores
 * and for Zen 3 and 4; 4 for Zen 5.  Stores: 1 for Sandy Bridge to Cascade
 * Lake and for Zen 1 and 2, 2 from Ice Lake and Zen 3 on.  POPCNTs: 6 on
 * Zen 5, one an ALU, measured here; elsewhere not known.  64-bit
 * multiplies: 1 on every Intel core listed and Zen 1 to 4 (one multiplier
 * port), 3 on Zen 5, measured here (0.334 cycles each, 1.00 for three a
 * copy).  128-bit vector adds: 2 on Sandy Bridge to Broadwell, 3 from
 * Skylake on, 4 on Zen 5, measured here (0.250); not known on Zen 1 to 4.
 * 128-bit single-precision divides: 0.4 on Zen 5, measured here (2.51
 * cycles each, with zero operands, as the probe's are, and with 1.0s);
 * elsewhere not known, the divider's throughput depending on the core's
 * generation and, on some, on the operands.  64-bit integer divides of 0
 * by R14 (a pointer), each waiting on the last: 10 on Zen 5, measured here
 * (10.0 cycles a DIV; independent ones took 7); elsewhere not known, the
 * integer divider's latency depending on the operands' bits);
 * 0 where it is not (the probe is then compared with itself only, as the
 * NOP loop is: tsc_frontend_slowdown). */
double tsc_port_floor(const char *uarch, int port);

/* The floor of probe `port`'s loop, `body` instructions an iteration, a
 * cycle per instruction: `floor` (tsc_port_floor) with its loop's own
 * instructions (loop_ops) spread over them.  Against a sixth of a cycle
 * a quiet Zen 5 guest's POPCNT probe read 2.0-2.7 % slow in the slowest
 * tenth of 40 single runs (3.6 % beside a busy loop on nb's CPU); against
 * this, 1.1-1.4 %. */
double tsc_port_probe_floor(int port, double floor, double body);

/* Whether a port was shared: its probe's quietest stretch ran more than
 * TSC_PORT_SHARED slower than the quiet core's (tsc_frontend_slowdown with
 * that probe's fit and the least of tsc_port_floor and the quietest this
 * process has seen).  On a quiet Zen 5 guest, single runs' quietest
 * stretches lay within 2.2 % of 0.25 cycles a load, 2.0 % of 0.50 a store
 * and 1.4 % of a sixth a POPCNT (its loop's floor: tsc_port_probe_floor);
 * a neighbour on the load ports slowed the first 6-39 %, the store-load
 * pair's neighbour the second 7-22 %. */
#define TSC_PORT_SHARED 0.05
bool tsc_port_shared(double slowdown);
/* Whether any of them was: slowdown[k] for probe k. */
bool tsc_ports_shared(const double slowdown[TSC_PORTS]);

#endif
