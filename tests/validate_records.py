#!/usr/bin/python3
"""Check nb's JSON lines against docs/output-schema.json and its CSV against
the same records.

usage: validate_records.py SCHEMA JSONL [CSV]
Every line of JSONL must be one object valid under SCHEMA.  With CSV (the
same benchmarks run with -output csv), the header must be the same in every
file, every row must have as many fields as the header, and each record must
have max(1, number of events) rows.  Prints a one-line summary; exit 1 with
the first problem otherwise."""
import csv
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    n_ok = n_err = n_ev = 0
    for i, line in enumerate(open(sys.argv[2]), 1):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            sys.exit(f"{sys.argv[2]}:{i}: not JSON: {e}")
        errors = sorted(validator.iter_errors(rec), key=lambda e: list(e.path))
        if errors:
            e = errors[0]
            sys.exit(f"{sys.argv[2]}:{i}: {'/'.join(map(str, e.path))}: {e.message}")
        if rec["status"] == "ok":
            n_ok += 1
        else:
            n_err += 1
        n_ev += len(rec["events"])
    summary = f"{n_ok + n_err} records valid ({n_ok} ok, {n_err} errors, {n_ev} events)"
    if len(sys.argv) > 3:
        with open(sys.argv[3], newline="") as f:
            rows = list(csv.reader(f))
        header, body = rows[0], rows[1:]
        for k, r in enumerate(body, 2):
            if len(r) != len(header):
                sys.exit(f"{sys.argv[3]}:{k}: {len(r)} fields, header has {len(header)}")
        for need in ("line", "status", "event.name", "event.value", "command",
                     "machine.cpu.vendor", "options.unroll_count", "error.kind"):
            if need not in header:
                sys.exit(f"{sys.argv[3]}: no column {need}")
        summary += f"; CSV: {len(body)} rows x {len(header)} columns"
    print(summary)


main()
