"""Upload validation throughput: rows/s, wall time and peak memory on a large file.

Generates a JSONL file (100,000 rows by default; also CSV with ``--formats``) in
a temporary folder, then, in a fresh interpreter per format, validates every
row with the studio's validation service (`studio.datasets.validation.validate_file`,
what the ``validate_dataset`` Celery task runs) and hashes the file as the
upload does. Peak memory is the child's ``ru_maxrss``, reported whole and above
its footprint once Django and the service are imported.

Targets (issue #5): < 10 s and < 300 MB peak for 100,000 JSONL rows.

    .venv/bin/python bench/upload/run.py [--rows 100000] [--formats jsonl,csv,json] [--bad-every 0]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

INPUT_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string"}, "context": {"type": "string"}},
    "required": ["query"],
}
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "number"},
        "thinking": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["answer", "thinking"],
}


def make_row(index: int, *, bad: bool) -> dict[str, object]:
    return {
        "query": f"Natalia sold clips to {index} of her friends in April, and then half as many "
        "in May. How many clips did Natalia sell altogether in April and May?",
        "context": "grade-school maths",
        "answer": "not a number" if bad else index * 1.5,
        "thinking": f"She sold {index} / 2 = {index / 2} clips in May, so {index * 1.5} in all.",
        "tags": ["arithmetic", "word problem"],
    }


def generate(path: Path, *, rows: int, file_format: str, bad_every: int) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        if file_format == "jsonl":
            for i in range(rows):
                row = make_row(i, bad=bool(bad_every) and i % bad_every == 0)
                handle.write(json.dumps(row) + "\n")
            return
        if file_format == "json":
            handle.write("[\n")
            for i in range(rows):
                row = make_row(i, bad=bool(bad_every) and i % bad_every == 0)
                handle.write(("" if i == 0 else ",\n") + json.dumps(row))
            handle.write("\n]\n")
            return
        writer = csv.writer(handle)
        writer.writerow(["query", "context", "answer", "thinking", "tags"])
        for i in range(rows):
            row = make_row(i, bad=bool(bad_every) and i % bad_every == 0)
            row["tags"] = json.dumps(row["tags"])
            writer.writerow(list(row.values()))


CHILD = r"""
import hashlib, json, os, resource, sys, time
from pathlib import Path
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings.test")
django.setup()
from studio.datasets import validation
from studio.datasets.models import Dataset

path, file_format, input_schema, output_schema = sys.argv[1:5]
baseline_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
dataset = Dataset(format=file_format, input_schema=json.loads(input_schema),
                  output_schema=json.loads(output_schema))
start = time.perf_counter()
digest = hashlib.sha256()
with open(path, "rb") as handle:
    for chunk in iter(lambda: handle.read(1 << 20), b""):
        digest.update(chunk)
hashed = time.perf_counter()
report = validation.validate_file(file_format, Path(path), validation.row_schema(dataset))
done = time.perf_counter()
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({
    "rows": report.row_count, "errors": report.error_count, "stored_errors": len(report.errors),
    "hash_s": hashed - start, "validate_s": done - hashed, "wall_s": done - start,
    "peak_mb": peak_kb / 1024, "baseline_mb": baseline_kb / 1024,
}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--formats", default="jsonl,csv,json")
    parser.add_argument("--bad-every", type=int, default=0, help="make every n-th row invalid")
    args = parser.parse_args()
    print(
        f"{'format':<6} {'rows':>8} {'errors':>7} {'MB':>7} {'wall s':>7} {'rows/s':>9} "
        f"{'peak MB':>8} {'above base':>10}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for file_format in args.formats.split(","):
            path = Path(folder) / f"rows.{file_format}"
            generate(path, rows=args.rows, file_format=file_format, bad_every=args.bad_every)
            size_mb = path.stat().st_size / 1e6
            result = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    CHILD,
                    str(path),
                    file_format,
                    json.dumps(INPUT_SCHEMA),
                    json.dumps(OUTPUT_SCHEMA),
                ],
                cwd=REPO_ROOT,
                capture_output=True,
                text=True,
                check=False,
                env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
            )
            if result.returncode != 0:
                print(result.stderr, file=sys.stderr)
                return 1
            figures = json.loads(result.stdout.strip().splitlines()[-1])
            rate = figures["rows"] / figures["wall_s"]
            print(
                f"{file_format:<6} {figures['rows']:>8} {figures['errors']:>7} {size_mb:>7.1f} "
                f"{figures['wall_s']:>7.2f} {rate:>9.0f} {figures['peak_mb']:>8.1f} "
                f"{figures['peak_mb'] - figures['baseline_mb']:>10.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
