#!/usr/bin/env python3
"""Maintainer tool: turn the vendors' event JSON into nb's data/ files.

    gen/convert_events.py [--src ../shared/events] [--out data]

Inputs (never copied into the repo): Intel's perfmon JSON and mapfile.csv
(intel/), the Linux kernel's AMD Zen JSON and its x86 mapfile.csv (amd/).
Outputs, in nanoBench's config syntax so nanoBench users can reuse them:

  cfg_<Uarch>_all_core.txt     every Intel core event of that uarch
  cfg_<Uarch>_all_offcore.txt  Intel offcore-response events (MSR_RSP0/1)
  cfg_<Uarch>_common.txt       curated set (see COMMON_INTEL / COMMON_AMD)
  cfg_Zen<N>_all.txt           every AMD core event
  cfg_Zen<N>_common.txt
  msr_RAPL_Intel.txt, msr_RAPL_AMD.txt
  cpumap.txt                   vendor family model stepping coretype -> table

Each event line has its one-line description on a '#' line above it, as in
nanoBench's own configs; nb's generator keeps it for -list_events.  The output is deterministic (no
dates) so `make check-data` can diff a fresh run against the committed files.

What is left out, on purpose:
  * Intel events with EventCode 0x00: pseudo-encodings of fixed counters,
    not programmable (the programmable twins such as INST_RETIRED.ANY_P stay).
  * Events marked Deprecated, and events with a nonzero UMaskExt (nb_event
    has no field for the extended umask).
  * Intel *_matrix.json request x response tables (the core files already
    list the offcore combinations Intel validated).
  * AMD uncore events (JSON entries with a "Unit": L3, data fabric, UMC).
"""
import argparse
import csv
import glob
import json
import os
import re
import sys

# Intel core JSON file -> nb table name.  Hybrid parts get one table per
# core type: ...P for the big core, ...E for the Atom core.
INTEL_NAMES = {
    'NehalemEP_core': 'NehalemEP', 'NehalemEX_core': 'NehalemEX',
    'WestmereEP-SP_core': 'WestmereEPSP', 'WestmereEP-DP_core': 'WestmereEPDP',
    'WestmereEX_core': 'WestmereEX', 'bonnell_core': 'Bonnell',
    'Silvermont_core': 'Silvermont', 'goldmont_core': 'Goldmont',
    'goldmontplus_core': 'GoldmontPlus', 'sandybridge_core': 'SandyBridge',
    'Jaketown_core': 'JakeTown', 'ivybridge_core': 'IvyBridge', 'ivytown_core': 'IvyTown',
    'haswell_core': 'Haswell', 'haswellx_core': 'HaswellX', 'broadwell_core': 'Broadwell',
    'broadwellx_core': 'BroadwellX', 'broadwellde_core': 'BroadwellDE',
    'skylake_core': 'Skylake', 'skylakex_core': 'SkylakeX', 'cascadelakex_core': 'CascadeLakeX',
    'knightslanding_core': 'KnightsLanding', 'icelake_core': 'IceLake',
    'icelakex_core': 'IceLakeX', 'rocketlake_core': 'RocketLake',
    'snowridgex_core': 'SnowRidgeX', 'tigerlake_core': 'TigerLake',
    'sapphirerapids_core': 'SapphireRapids', 'emeraldrapids_core': 'EmeraldRapids',
    'elkhartlake_core': 'ElkhartLake', 'graniterapids_core': 'GraniteRapids',
    'sierraforest_core': 'SierraForest', 'grandridge_core': 'GrandRidge',
    'clearwaterforest_core': 'ClearwaterForest',
    'alderlake_goldencove_core': 'AlderLakeP', 'alderlake_gracemont_core': 'AlderLakeE',
    'meteorlake_redwoodcove_core': 'MeteorLakeP', 'meteorlake_crestmont_core': 'MeteorLakeE',
    'lunarlake_lioncove_core': 'LunarLakeP', 'lunarlake_skymont_core': 'LunarLakeE',
    'arrowlake_lioncove_core': 'ArrowLakeP', 'arrowlake_skymont_core': 'ArrowLakeE',
    'arrowlake_crestmont_core': 'ArrowLakeLPE',
    'pantherlake_cougarcove_core': 'PantherLakeP', 'pantherlake_darkmont_core': 'PantherLakeE',
    'novalake_coyotecove_core': 'NovaLakeP', 'novalake_arcticwolf_core': 'NovaLakeE',
}

AMD_NAMES = {'amdzen%d' % i: 'Zen%d' % i for i in range(1, 7)}

# The curated sets: what a microbenchmark user reads first.  Patterns are
# matched against the full event name; every generation keeps whichever of
# them its JSON has (names changed over the years, hence the alternatives).
COMMON_INTEL = [
    r'CPU_CLK_UNHALTED\.(THREAD_P|CORE_P)',                          # core cycles
    r'INST_RETIRED\.ANY_P',                                          # instructions
    r'UOPS_ISSUED\.ANY',
    r'UOPS_EXECUTED\.(THREAD|CORE)',
    r'UOPS_RETIRED\.(ALL|SLOTS|RETIRE_SLOTS|ANY)',
    r'UOPS_(DISPATCHED|EXECUTED)_PORT\.PORT_\d+(_CORE)?',            # per port (NHM..SKL)
    r'UOPS_DISPATCHED\.PORT_[0-9_]+',                                # per port (ICL+)
    r'UOPS_DISPATCHED\.(ALU|LOAD|STA|STD|JMP|SHIFT|SLOW|INT_EU_ALL)',  # per unit (Lion Cove+)
    r'TOPDOWN_(FE_BOUND|BE_BOUND|BAD_SPECULATION|RETIRING)\.ALL',     # E cores: slot accounting
    r'IDQ\.(MITE_UOPS|DSB_UOPS|MS_UOPS)', r'LSD\.UOPS',               # front-end delivery
    r'BR_INST_RETIRED\.(ALL_BRANCHES|ANY)', r'BR_MISP_RETIRED\.(ALL_BRANCHES|ANY)',
    r'MEM_LOAD_(UOPS_)?RETIRED\.(L[123]D?_(HIT|MISS)|LLC_(UNSHARED_)?HIT|LLC_MISS)',
    r'MEM_LOAD_(UOPS_)?RETIRED\.(L2_HIT|L2_MISS|L1_HIT|L1_MISS|L3_HIT|L3_MISS)',
]
COMMON_AMD = [
    r'LS_NOT_HALTED_CYC', r'EX_RET_INSTR', r'EX_RET_OPS', r'EX_RET_COPS', r'EX_RET_BRN', r'EX_RET_BRN_MISP',
    r'EX_RET_BRN_TKN', r'FPU_PIPE_ASSIGNMENT\.TOTAL\d?', r'FP_.*PIPE_ASSIGN.*',
    r'DE_SRC_OP_DISP\..*', r'DE_DIS_(UOPS|OPS|COPS)_FROM_DECODER\..*', r'OP_CACHE_HIT_MISS\..*',
    r'UOPS_DISPATCHED', r'LS_DISPATCH\..*', r'DE_NO_DISPATCH_PER_SLOT\..*',
    r'LS_DC_ACCESSES', r'ALL_DC_ACCESSES', r'LS_MAB_ALLOC\.(LOADS|LOAD_STORE_ALLOCATIONS)',
    r'L2_CACHE_REQ_STAT\.(LS_RD_BLK_.*|IC_DC_HIT_IN_L2|IC_DC_MISS_IN_L2|DC_.*)',
    # where L1 data misses were served: L2, the rest of the CCX, DRAM, all
    r'LS_DMND_FILLS_FROM_SYS\.(LCL_L2|LOCAL_L2|INT_CACHE|LOCAL_CCX|MEM_IO_LOCAL|DRAM_IO_ALL|ALL)',
    r'LS_REFILLS_FROM_SYS\.LS_MABRESP_LCL_(L2|CACHE|DRAM)', r'IC_FW32', r'IC_FW32_MISS',
    r'IC_TAG_HIT_MISS\.INSTRUCTION_CACHE_(HIT|MISS)', r'IC_OC_MODE_SWITCH\..*',
    r'FP_RET_SSE_AVX_OPS\.ALL', r'FP_RET_X87_FP_OPS\.ALL',   # Zen 3+: no pipe assignment
]

# The AMD copy in ../shared lacks amdzen5/execution.json, so Zen 5 would
# have no retired-instruction event.  These encodings are the same in every
# Zen generation's JSON that has them (Zen 1-4, Zen 6), so they fill the gap
# where a generation's files do not name them; the description says so.
AMD_SUPPLEMENT = [
    ('0C0.00', 'EX_RET_INSTR', 'Retired instructions.'),
    ('0C1.00', 'EX_RET_OPS', 'Retired macro-ops.'),
    ('0C2.00', 'EX_RET_BRN', 'Retired branch instructions.'),
    ('0C3.00', 'EX_RET_BRN_MISP', 'Retired branch instructions mispredicted.'),
    ('0C4.00', 'EX_RET_BRN_TKN', 'Retired taken branch instructions.'),
    ('0C5.00', 'EX_RET_BRN_TKN_MISP', 'Retired taken branch instructions mispredicted.'),
]

RAPL = {
    'Intel': [(0x611, 'RAPL_PKG_ENERGY', 'package energy status (MSR_PKG_ENERGY_STATUS)'),
              (0x639, 'RAPL_PP0_ENERGY', 'cores energy status (MSR_PP0_ENERGY_STATUS)'),
              (0x641, 'RAPL_PP1_ENERGY', 'uncore/graphics energy status (MSR_PP1_ENERGY_STATUS)'),
              (0x619, 'RAPL_DRAM_ENERGY', 'DRAM energy status (MSR_DRAM_ENERGY_STATUS)')],
    'AMD': [(0xC001029A, 'RAPL_CORE_ENERGY', 'core energy status (Core::X86::Msr::CORE_ENERGY_STAT)'),
            (0xC001029B, 'RAPL_PKG_ENERGY', 'package energy status (Core::X86::Msr::PKG_ENERGY_STAT)')],
}


def num(s):
    s = (s or '0').strip()
    return int(s, 16) if s.lower().startswith('0x') else int(s)


def one_line(desc):
    """First sentence of a description, on one line, at most 100 chars."""
    d = ' '.join((desc or '').split())
    m = re.match(r'(.+?\.)(\s|$)', d)
    if m:
        d = m.group(1)
    if len(d) > 100:
        d = d[:97].rstrip() + '...'
    return d.replace('#', '')


def fmt_sel(sel, amd):
    return ('%03X' % sel) if (amd or sel > 0xFF) else ('%02X' % sel)


def intel_event(e):
    """One Intel JSON event -> (kind, spec) or None when left out."""
    if 'EventCode' not in e or e.get('Deprecated') == '1':
        return None
    if num(e.get('UMaskExt')) != 0:
        return None
    codes = [num(c) for c in e['EventCode'].split(',')]
    if codes[0] == 0:
        return None
    umasks = [num(u) for u in e['UMask'].split(',')]
    idx = [num(x) for x in (e.get('MSRIndex') or '0').split(',')]
    # Lists ("0xB7, 0xBB" / "0x01,0x02") pair with the offcore MSRs 0x1A6 and
    # 0x1A7 in order; an event that only names 0x1A7 uses the second pair.
    pick = -1 if idx == [0x1A7] else 0
    umask = umasks[pick]
    spec = '%s.%02X' % (fmt_sel(codes[pick], False), umask)
    if num(e.get('CounterMask')):
        spec += '.CMSK=%d' % num(e['CounterMask'])
    if e.get('AnyThread') == '1':
        spec += '.AnyT'
    if e.get('EdgeDetect') == '1':
        spec += '.EDG'
    if e.get('Invert') == '1':
        spec += '.INV'
    # An event that needs an extra MSR (offcore response, load latency,
    # front-end) shares that one MSR with every other such event, so it must
    # run alone, as nanoBench's own offcore configs mark it.
    if e.get('TakenAlone') == '1' or idx[0] in (0x1A6, 0x1A7, 0x3F6, 0x3F7):
        spec += '.TakenAlone'
    ctrs = (e.get('Counter') or '').replace(' ', '')
    if re.fullmatch(r'\d+', ctrs):
        spec += '.CTR=%s' % ctrs
    kind = 'core'
    val = num(e.get('MSRValue'))
    if idx[0] == 0x3F6:
        spec += '.MSR_3F6H=0x%X' % val
    elif idx[0] == 0x3F7:
        spec += '.MSR_PF=0x%X' % val
    elif idx[0] == 0x1A6:
        spec += '.MSR_RSP0=0x%X' % val
        kind = 'offcore'
    elif idx[0] == 0x1A7:
        spec += '.MSR_RSP1=0x%X' % val
        kind = 'offcore'
    elif idx[0] != 0:
        return None   # 0x3E0.. (4 events): no nanoBench field for them
    if e.get('Offcore') == '1':
        kind = 'offcore'
    return kind, spec


def amd_event(e):
    if 'EventCode' not in e or 'Unit' in e or e.get('Deprecated') == '1':
        return None
    return '%s.%02X' % (fmt_sel(num(e['EventCode']), True), num(e.get('UMask')))


def write_cfg(path, header, rows):
    with open(path, 'w') as f:
        # The description goes on a comment line above its event, the way
        # nanoBench's own config files have it (nanoBench reads everything
        # after the spec as the name, so a trailing comment would not do).
        for h in header:
            f.write('# %s\n' % h)
        f.write('\n')
        for spec, name, desc in rows:
            f.write('%s%s %s\n' % (('# %s\n' % desc) if desc else '', spec, name))


def common_rows(rows, pats):
    """Rows whose name matches; one per encoding (CPU_CLK_UNHALTED.THREAD_P
    and .CORE_P are the same counter setting, measuring both wastes one)."""
    rx = re.compile('|'.join('(?:%s)' % p for p in pats))
    out, specs = [], set()
    for r in rows:
        if rx.fullmatch(r[1]) and r[0] not in specs:
            specs.add(r[0])
            out.append(r)
    return out


def expand_mapfile(rows, vendor_key, fam_fmt):
    """Evaluate the mapfile regexes over every family-model(-stepping) and
    return {(vendor, fam, model, stepping or None, coretype): table}, first
    match wins (the kernel's mapfile relies on that order for AMD)."""
    out = {}
    for pat, fam, table, core in rows:
        rx = re.compile(pat.replace('[[:xdigit:]]', '[0-9A-F]'))
        for model in range(256):
            s = '%s-%s-%X' % (vendor_key, fam_fmt(fam), model)
            # A pattern either names the model alone or model and stepping
            # (SkylakeX vs CascadeLakeX share model 0x55).
            steps = [None] if rx.fullmatch(s) else range(16)
            for st in steps:
                if st is None or rx.fullmatch('%s-%X' % (s, st)):
                    out.setdefault((fam, model, st, core), table)
    return out


def compress(entries, vendor):
    """{(fam, model, st, core): table} -> sorted cpumap lines with ranges."""
    # Group steppings of one model first, then runs of models.
    by = {}
    for (fam, model, st, core), table in entries.items():
        by.setdefault((fam, model, core, table), []).append(st)
    items = []
    for (fam, model, core, table), sts in by.items():
        if None in sts:
            srange = '-'
        else:
            sts = sorted(sts)
            srange = '%d-%d' % (sts[0], sts[-1])
            assert sts == list(range(sts[0], sts[-1] + 1))
        items.append((fam, model, srange, core, table))
    items.sort(key=lambda t: (t[0], t[1], t[2], t[3]))
    lines, i = [], 0
    while i < len(items):
        fam, m0, sr, core, table = items[i]
        j = i
        while (j + 1 < len(items) and items[j + 1][0] == fam and items[j + 1][1] == items[j][1] + 1
               and items[j + 1][2:] == (sr, core, table)):
            j += 1
        m1 = items[j][1]
        mr = ('0x%02X' % m0) if m0 == m1 else ('0x%02X-0x%02X' % (m0, m1))
        lines.append('%-6s 0x%02X %-11s %-5s %-7s %s' % (vendor, fam, mr, sr, core, table))
        i = j + 1
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    here = os.path.dirname(os.path.abspath(__file__))
    # ../shared next to the checkout (main), or two levels up (a worktree).
    cands = [os.path.join(here, '..', '..', 'shared', 'events'),
             os.path.join(here, '..', '..', '..', 'shared', 'events')]
    src = os.environ.get('NB_EVENTS_SRC') or next((c for c in cands if os.path.isdir(c)), cands[0])
    ap.add_argument('--src', default=src)
    ap.add_argument('--out', default=os.path.join(here, '..', 'data'))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    counts = []

    # ---- Intel ----
    imap = list(csv.reader(open(os.path.join(a.src, 'intel', 'mapfile.csv'))))[1:]
    cpumap_rows = []
    done = set()
    for r in imap:
        fm, ver, fname, etype = r[0], r[1], r[2], r[3]
        if etype not in ('core', 'hybridcore'):
            continue
        base = os.path.splitext(os.path.basename(fname))[0]
        table = INTEL_NAMES[base]
        core = '-'
        if etype == 'hybridcore':
            core = {'Atom': 'atom', 'Core': 'core', 'LowPower_Atom': 'atom-lp'}[r[6]]
        fam = int(fm.split('-')[1])
        cpumap_rows.append((fm, fam, table, core))
        if table in done:
            continue
        done.add(table)
        path = os.path.join(a.src, 'intel', fname.lstrip('/'))
        evs = json.load(open(path))['Events']
        core_rows, off_rows, seen = [], [], set()
        for e in evs:
            got = intel_event(e)
            if not got or e['EventName'] in seen:
                continue
            seen.add(e['EventName'])
            kind, spec = got
            row = (spec, e['EventName'], one_line(e.get('BriefDescription')))
            (off_rows if kind == 'offcore' else core_rows).append(row)
        src = 'intel/perfmon %s (%s)' % (fname.lstrip('/'), ver)
        hdr = ['nb event table %s: %%s. Generated by gen/convert_events.py from %s;' % (table, src),
               'do not edit. Format: "# description" line, then EvtSel.UMASK(.modifiers) Name']
        com = common_rows(core_rows, COMMON_INTEL)
        for kind, rows in (('all_core', core_rows), ('all_offcore', off_rows), ('common', com)):
            h = [hdr[0] % kind.replace('_', ' ')] + hdr[1:]
            write_cfg(os.path.join(a.out, 'cfg_%s_%s.txt' % (table, kind)), h, rows)
            counts.append((table, kind, len(rows)))
    intel_map = expand_mapfile([(fm.replace('GenuineIntel', 'GenuineIntel'), fam, t, c)
                                for fm, fam, t, c in cpumap_rows], 'GenuineIntel', str)

    # ---- AMD ----
    amap = list(csv.reader(open(os.path.join(a.src, 'amd', 'mapfile.csv'))))[1:]
    amd_rows = []
    for r in amap:
        if not r[0].startswith('AuthenticAMD') or r[3] != 'core':
            continue
        fam = int(r[0].split('-')[1])
        amd_rows.append((r[0], fam, AMD_NAMES[r[2]], '-'))
    for d, table in sorted(AMD_NAMES.items()):
        rows, seen = [], set()
        for f in sorted(glob.glob(os.path.join(a.src, 'amd', d, '*.json'))):
            for e in json.load(open(f)):
                spec = amd_event(e)
                name = e.get('EventName', '').upper()
                if not spec or name in seen:
                    continue
                seen.add(name)
                rows.append((spec, name, one_line(e.get('BriefDescription'))))
        specs = {r[0] for r in rows}
        for spec, name, desc in AMD_SUPPLEMENT:
            if name not in seen and spec not in specs:
                rows.append((spec, name, desc + ' (nb: same encoding as Zen 3/4/6; not in the source JSON)'))
        hdr = ['nb event table %s: %%s. Generated by gen/convert_events.py from the Linux '
               'kernel\'s tools/perf/pmu-events/arch/x86/%s;' % (table, d),
               'do not edit. Format: "# description" line, then EvtSel.UMASK Name (names upper-cased)']
        for kind, rs in (('all', rows), ('common', common_rows(rows, COMMON_AMD))):
            write_cfg(os.path.join(a.out, 'cfg_%s_%s.txt' % (table, kind)),
                      [hdr[0] % kind] + hdr[1:], rs)
            counts.append((table, kind, len(rs)))
    amd_map = expand_mapfile(amd_rows, 'AuthenticAMD', str)

    # ---- RAPL ----
    for vendor, regs in RAPL.items():
        with open(os.path.join(a.out, 'msr_RAPL_%s.txt' % vendor), 'w') as f:
            f.write('# nb msr config: RAPL energy status counters (%s). Generated by '
                    'gen/convert_events.py.\n' % vendor)
            f.write('# These MSRs are read-only counters, so the lines have no msr_ADDR=VALUE\n'
                    '# writes: just the MSR to read and a name. Units: see MSR_RAPL_POWER_UNIT.\n')
            for addr, name, desc in regs:
                f.write('msr_0x%X %s  # %s\n' % (addr, name, desc))

    # ---- CPU map ----
    with open(os.path.join(a.out, 'cpumap.txt'), 'w') as f:
        f.write('# nb CPU map: which event table a CPU uses. Generated by gen/convert_events.py\n'
                '# from intel/mapfile.csv and the kernel\'s x86 mapfile.csv (AMD rows).\n'
                '# vendor family model(s) stepping(s) coretype table\n'
                '# coretype: "-" any; atom/core = CPUID 0x1A core type 0x20/0x40 on hybrid\n'
                '# parts; atom-lp = the low-power Atom of Arrow Lake-H (told apart only by\n'
                '# the native model id, so nb picks it with -uarch only).\n')
        for line in compress(intel_map, 'intel') + compress(amd_map, 'amd'):
            f.write(line + '\n')

    for t, k, n in counts:
        print('%-18s %-12s %5d' % (t, k, n), file=sys.stderr)


if __name__ == '__main__':
    main()
