"""Dataset versions at scale: what a version costs to store, make, digest and read.

Uploads a JSONL file of ``--rows`` rows (1,000,000 by default) into a fresh embedded
studio (SQLite in a temporary folder), validates it as the Celery task does, builds
version 1's row index as the ``datasets.index_dataset`` task does, then makes version 2
with 10 rows added, 10 removed and 10 edited near the end of the file, the way the browser does
(`studio.datasets.versions.create_version`), and reads both versions back in full.

It prints each figure beside its reference: the validation pass and the
row index pass (run after it, once), the bytes version 2 stores against a copy of every
row, the digest of version 2 from the index (no row read) against a digest recomputed
from every row, and the read of version 2 against the read of version 1.

    .venv/bin/python bench/dataset_versions/run.py [--rows 1000000]

Results: ``bench/results/dataset_versions.json``; the table is in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

INPUT_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string"}, "context": {"type": "string"}},
    "required": ["query"],
}
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["answer"],
}
CHANGES = 10


def row(index: int) -> dict[str, object]:
    return {
        "query": f"Natalia sold clips to {index} of her friends in April, and then half as many "
        "in May. How many clips did Natalia sell altogether?",
        "context": "grade-school maths",
        "answer": index * 1.5,
        "tags": ["arithmetic"],
    }


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-versions-"))
    os.environ["DATABASE_URL"] = f"sqlite:///{folder / 'studio.sqlite3'}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings.test")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command

    settings.MEDIA_ROOT = folder / "media"
    settings.STUDIO_UPLOAD_MAX_BYTES = 10**12
    call_command("migrate", verbosity=0)
    from studio.datasets import services, versions
    from studio.datasets.models import DatasetRowChange

    source = folder / "rows.jsonl"
    with source.open("w", encoding="utf-8") as handle:
        for i in range(args.rows):
            handle.write(json.dumps(row(i)) + "\n")
    file_bytes = source.stat().st_size
    owner = get_user_model().objects.create_user("bench", password="bench-password")
    with source.open("rb") as handle:
        upload = SimpleUploadedFile("rows.jsonl", handle.read())
    dataset = services.create_dataset_from_upload(
        owner=owner,
        name="bench",
        uploaded_file=upload,
        input_schema=INPUT_SCHEMA,
        output_schema=OUTPUT_SCHEMA,
        queue_validation=False,
    )
    dataset, validate_s = timed(services.validate_dataset, dataset)
    first, index_s = timed(services.index_dataset, dataset)
    assert first.row_count == args.rows, first.row_count

    last = args.rows
    edits = [
        {"row_id": last - i, "output": {"answer": -1.0, "tags": ["corrected"]}}
        for i in range(CHANGES)
    ]
    removals = [last - CHANGES - i for i in range(CHANGES)]
    additions = [
        {"input": {"query": f"new {i}"}, "output": {"answer": float(i)}, "split": "test"}
        for i in range(CHANGES)
    ]
    second, create_s = timed(
        versions.create_version, dataset, add=additions, remove=removals, edit=edits
    )
    stored = sum(
        len(json.dumps([c.input, c.output, c.previous_input, c.previous_output]))
        for c in DatasetRowChange.objects.filter(version=second)
    )
    line = versions.lineage(second)
    (digest, _, _), digest_s = timed(versions.version_digest, line)

    def full_digest() -> str:
        hasher = hashlib.sha256()
        for r in versions.iter_rows(second):
            hasher.update(bytes([r.split == "test"]))
            hasher.update(bytes.fromhex(versions.row_hash(r.input, r.output)))
        return hasher.hexdigest()

    recomputed, full_digest_s = timed(full_digest)
    assert recomputed == digest == second.digest
    (x1, _), read1_s = timed(services.load_examples, dataset, split="all", version=first)
    (x2, _), read2_s = timed(services.load_examples, dataset, split="all", version=second)
    assert len(x1) == args.rows and len(x2) == args.rows

    results = {
        "rows": args.rows,
        "file_mb": file_bytes / 1e6,
        "validate_s": validate_s,
        "index_s": index_s,
        "index_mb": first.index.size / 1e6,
        "version2_changes": 3 * CHANGES,
        "version2_stored_kb": stored / 1e3,
        "copy_of_rows_mb": file_bytes / 1e6,
        "create_version_s": create_s,
        "digest_from_index_s": digest_s,
        "digest_from_rows_s": full_digest_s,
        "read_v1_s": read1_s,
        "read_v2_s": read2_s,
    }
    rows = [
        ("row index pass, once (s)", f"{index_s:.1f}", f"{validate_s:.1f} validation"),
        ("row index (MB)", f"{first.index.size / 1e6:.1f}", f"{file_bytes / 1e6:.1f} file"),
        (
            f"version 2 stored, {3 * CHANGES} rows changed",
            f"{stored / 1e3:.1f} kB",
            f"{file_bytes / 1e6:.1f} MB a copy",
        ),
        ("make version 2 (s)", f"{create_s:.2f}", ""),
        (
            "digest of version 2 (s)",
            f"{digest_s:.3f} from the index",
            f"{full_digest_s:.1f} from rows",
        ),
        ("read version 2, all rows (s)", f"{read2_s:.1f}", f"{read1_s:.1f} version 1"),
    ]
    width = max(len(name) for name, _, _ in rows)
    print(f"dataset versions at {args.rows:,} rows ({file_bytes / 1e6:.0f} MB JSONL)")
    print(f"{'figure':<{width}} | {'measured':>24} | reference")
    for name, value, reference in rows:
        print(f"{name:<{width}} | {value:>24} | {reference}")
    out = ROOT / "bench" / "results" / "dataset_versions.json"
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
