"""Dataset test helpers: eager Celery, the shared data folder, an upload helper."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from studio import celery_app
from tests.support import BANKING77_FILES, GSM8K_FILES, require_shared

REPO_ROOT = Path(__file__).resolve().parents[3]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"

QUERY_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string"}},
    "required": ["query"],
}
ANSWER_SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["answer"],
}


@pytest.fixture(autouse=True)
def _eager_celery() -> Iterator[None]:
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = previous


@pytest.fixture
def shared_data(monkeypatch, tmp_path) -> Path:
    require_shared(*GSM8K_FILES, *BANKING77_FILES)
    monkeypatch.setenv("OPTIMIZER_CORE_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("OPTIMIZER_CORE_CACHE_DIR", str(tmp_path / "cache"))
    return SHARED_DATA


@pytest.fixture
def upload(django_capture_on_commit_callbacks) -> Callable[..., Any]:
    """POST a file to /api/datasets/ and run the validation queued on commit."""

    def post(client, content: bytes, filename: str = "rows.jsonl", **fields: Any):
        handle = io.BytesIO(content)
        handle.name = filename
        body = {
            "file": handle,
            "name": fields.pop("name", filename),
            "input_schema": json.dumps(fields.pop("input_schema", QUERY_SCHEMA)),
            "output_schema": json.dumps(fields.pop("output_schema", ANSWER_SCHEMA)),
            **{k: json.dumps(v) if isinstance(v, dict) else v for k, v in fields.items()},
        }
        with django_capture_on_commit_callbacks(execute=True):
            return client.post("/api/datasets/", body, format="multipart")

    return post
