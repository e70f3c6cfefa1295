"""What validate_records.py and validate_sweep.py share: JSON lines checked
one by one against a JSON Schema, and a CSV whose rows all have the
header's fields.  The first problem ends the program with its place."""
import csv
import json
import sys

import jsonschema


def valid_lines(schema_path, path):
    """(line number, record) for each line of path, every one valid under
    the schema at schema_path"""
    schema = json.load(open(schema_path))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for i, line in enumerate(open(path), 1):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            sys.exit(f"{path}:{i}: not JSON: {e}")
        errors = sorted(validator.iter_errors(rec), key=lambda e: list(e.path))
        if errors:
            e = errors[0]
            sys.exit(f"{path}:{i}: {'/'.join(map(str, e.path))}: {e.message}")
        yield i, rec


def csv_table(path):
    """(header, rows) of the CSV at path, every row as wide as the header"""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    for k, r in enumerate(body, 2):
        if len(r) != len(header):
            sys.exit(f"{path}:{k}: {len(r)} fields, header has {len(header)}")
    return header, body
