#!/usr/bin/python3
"""Check nb's JSON lines against docs/output-schema.json and its CSV against
the same records.

usage: validate_records.py SCHEMA JSONL [CSV]
Every line of JSONL must be one object valid under SCHEMA.  With CSV (the
same benchmarks run with -output csv), the header must be the same in every
file, every row must have as many fields as the header, and each record must
have max(1, number of events) rows.  Prints a one-line summary; exit 1 with
the first problem otherwise."""
import sys

from schema_lines import csv_table, valid_lines


def main():
    n_ok = n_err = n_ev = 0
    for _, rec in valid_lines(sys.argv[1], sys.argv[2]):
        if rec["status"] == "ok":
            n_ok += 1
        else:
            n_err += 1
        n_ev += len(rec["events"])
    summary = f"{n_ok + n_err} records valid ({n_ok} ok, {n_err} errors, {n_ev} events)"
    if len(sys.argv) > 3:
        header, body = csv_table(sys.argv[3])
        for need in ("line", "status", "event.name", "event.value", "command",
                     "machine.cpu.vendor", "options.unroll_count", "error.kind"):
            if need not in header:
                sys.exit(f"{sys.argv[3]}: no column {need}")
        summary += f"; CSV: {len(body)} rows x {len(header)} columns"
    print(summary)


main()
