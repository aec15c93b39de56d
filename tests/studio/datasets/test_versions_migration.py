"""The migration that makes every stored dataset its version 1, run forward on a populated DB.

The database is taken back to before versions existed, filled as that schema allows (an
upload with a file, a built-in, a run on the upload), then migrated forward: each dataset
has its version 1 with its row count, the run records it, and the version's rows, split
and digest are those of the dataset as the studio read it before.
"""

from __future__ import annotations

import json

import pytest
from django.core.files.base import ContentFile
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from studio.datasets import services, versions
from studio.datasets.models import Dataset
from studio.datasets.splits import split_indices
from studio.runs.models import Run
from tests.studio.runs.factories import COMPILE_CONFIG, program_document

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("datasets", "0003_keep_valid_rows"), ("runs", "0004_budget_spent")]


def migrate(targets: list[tuple[str, str]]):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def leaves() -> list[tuple[str, str]]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def test_existing_datasets_and_runs_migrate_to_version_1(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    latest = leaves()
    old = migrate(BEFORE)
    try:
        User = old.get_model("auth", "User")
        OldDataset = old.get_model("datasets", "Dataset")
        owner = User.objects.create(username="ada", password="!")
        lines = [json.dumps({"query": f"q{i}", "answer": f"a{i}"}) for i in range(10)]
        upload = OldDataset(
            owner=owner,
            name="old upload",
            format="jsonl",
            input_schema={"type": "object", "properties": {"query": {"type": "string"}}},
            output_schema={"type": "object", "properties": {"answer": {"type": "string"}}},
            status="valid",
            row_count=10,
            test_fraction=0.3,
            split_seed=4,
        )
        upload.file.save("old.jsonl", ContentFile("\n".join(lines).encode()), save=False)
        upload.save()
        invalid = OldDataset.objects.create(
            owner=owner,
            name="broken",
            format="jsonl",
            input_schema={},
            output_schema={},
            status="invalid",
        )
        program = old.get_model("programs", "Program").objects.create(owner=owner, name="p")
        version = old.get_model("programs", "ProgramVersion").objects.create(
            program=program, number=1, document=program_document()
        )
        run = old.get_model("runs", "Run").objects.create(
            owner=owner,
            program_version=version,
            dataset=upload,
            compile_config=COMPILE_CONFIG,
            fit_config={"epochs": 1},
        )
    finally:
        migrate(latest)

    dataset = Dataset.objects.get(pk=upload.pk)
    first = versions.first_version(dataset)
    assert (first.number, first.source, first.row_count, first.parent) == (1, "upload", 10, None)
    assert Dataset.objects.get(pk=invalid.pk).versions.get().row_count == 0
    migrated = Run.objects.get(pk=run.pk)
    assert migrated.dataset_version_id == first.pk

    # Its rows and split are what the studio read before; the index comes on first use.
    assert first.digest == ""
    x_test, y_test = services.load_examples(dataset, split="test", version=first)
    assert len(x_test) == 3
    indexed = versions.ensure_index(first)
    assert indexed.digest and (indexed.train_count, indexed.test_count) == (7, 3)
    _, test = split_indices(10, test_fraction=0.3, seed=4)
    assert x_test == [{"query": f"q{i}"} for i in test]
    assert y_test == [{"answer": f"a{i}"} for i in test]
