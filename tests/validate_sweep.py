#!/usr/bin/python3
"""Check nb -sweep's JSON lines against docs/sweep-schema.json and its CSV
against the same forms.

usage: validate_sweep.py SCHEMA JSONL [CSV]
Every line of JSONL must be one object valid under SCHEMA; a form that was
measured must have its latency equal to its largest measured pair.  With CSV
(the same sweep with -output csv) the header must hold the issue's columns,
every row as many fields as the header, and the forms must be the JSON's in
the same order.  Prints a one-line summary; exit 1 with the first problem."""
import sys

from schema_lines import csv_table, valid_lines

COLUMNS = ["form", "example", "latency", "latency_bound", "latency_pairs", "throughput",
           "uops", "ports", "uncertainty", "status", "error", "isa_set", "category",
           "machine_id"]


def main():
    forms, status = [], {}
    for i, rec in valid_lines(sys.argv[1], sys.argv[2]):
        lat = [p["latency"] for p in rec["latency_pairs"] if p["latency"] is not None]
        if lat and rec["latency"] != max(lat):
            sys.exit(f"{sys.argv[2]}:{i}: latency {rec['latency']} is not the largest pair {max(lat)}")
        forms.append(rec["form"])
        status[rec["status"]] = status.get(rec["status"], 0) + 1
    summary = f"{len(forms)} rows valid ({status})"
    if len(sys.argv) > 3:
        header, body = csv_table(sys.argv[3])
        if header != COLUMNS:
            sys.exit(f"{sys.argv[3]}: header {header}, want {COLUMNS}")
        if [r[0] for r in body] != forms:
            sys.exit(f"{sys.argv[3]}: not the JSON's forms")
        summary += f"; CSV: {len(body)} rows"
    print(summary)


main()
