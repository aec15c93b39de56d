"""A throwaway studio for the benchmarks that measure the studio itself.

The runner side (no Django imported):

- `throwaway_studio(backend)`: the environment of a studio on a fresh database,
  an SQLite file or a new PostgreSQL database at ``STUDIO_TEST_PG`` (default
  ``postgresql://postgres@127.0.0.1:5432``, as the scaled-out tests), with its own
  ``STUDIO_VAR_DIR`` (media, LM cache, Celery broker); all of it removed after;
- `scripted_server()`: the engine's scripted OpenAI-compatible server
  (schema-filling answers) in its own process, so that it weighs nothing in the
  measured process.

The child side, after `django.setup()`: `migrate`, `make_user`,
`make_program_version`, `make_dataset` (a JSON Lines file of generated rows) and
`make_provider` (pointing at the scripted server), rows created through the models
as the studio's own code creates them.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PG = os.environ.get("STUDIO_TEST_PG", "postgresql://postgres@127.0.0.1:5432")
BACKENDS = ("sqlite", "postgresql")


def base_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env["DJANGO_SETTINGS_MODULE"] = "studio.settings.test"
    env["PYTHONUNBUFFERED"] = "1"
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env


@contextlib.contextmanager
def throwaway_studio(backend: str) -> Iterator[dict[str, str]]:
    """The environment of a studio on a database made for this run and dropped after it.

    Raises:
        RuntimeError: PostgreSQL cannot be reached (the message says where it was looked for).
    """
    with tempfile.TemporaryDirectory(prefix="studio-bench-") as folder:
        env = base_env()
        env["STUDIO_VAR_DIR"] = folder
        env["STUDIO_LOG_LEVEL"] = "WARNING"
        if backend == "sqlite":
            env["DATABASE_URL"] = f"sqlite:///{folder}/studio.sqlite3"
            yield env
            return
        import psycopg

        name = f"studio_bench_{os.getpid()}"
        try:
            admin = psycopg.connect(f"{PG}/postgres", autocommit=True, connect_timeout=3)
        except psycopg.OperationalError as error:
            raise RuntimeError(f"PostgreSQL unreachable at {PG}: {error}") from None
        with admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
            admin.execute(f'CREATE DATABASE "{name}"')
        try:
            env["DATABASE_URL"] = f"{PG}/{name}"
            yield env
        finally:
            with psycopg.connect(f"{PG}/postgres", autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def scripted_server() -> Iterator[str]:
    """The base URL of a scripted OpenAI-compatible server running in its own process."""
    process = subprocess.Popen(
        [sys.executable, "-m", "optimizer_core.testing.scripted_server", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=base_env(),
    )
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        if not base_url.startswith("http"):
            raise RuntimeError(f"the scripted server did not start (said {base_url!r})")
        yield base_url
    finally:
        process.terminate()
        process.wait(timeout=10)


def allowed_outgoing(env: dict[str, str], base_url: str) -> dict[str, str]:
    """`env` letting providers reach the scripted server (as an administrator would)."""
    host_port = base_url.split("//", 1)[1].split("/", 1)[0]
    return {**env, "STUDIO_ALLOWED_OUTGOING": host_port}


# The child side ----------------------------------------------------------------------------


def setup_django() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings.test")
    django.setup()


def migrate() -> None:
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def make_user(username: str = "bench") -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username, f"{username}@example.com", "x" * 20)


def program_document() -> dict[str, Any]:
    """`Program.to_json()` of a one-Generator program: a question in, an answer out."""
    import asyncio

    import optimizer_core as synalinks

    class Query(synalinks.DataModel):
        query: str = synalinks.Field(description="The user's question")

    class Answer(synalinks.DataModel):
        answer: str = synalinks.Field(description="The answer, as short as possible")

    async def build() -> dict[str, Any]:
        lm = synalinks.LanguageModel(model="openai/placeholder")
        inputs = synalinks.Input(data_model=Query)
        outputs = await synalinks.Generator(data_model=Answer, language_model=lm)(inputs)
        program = synalinks.Program(
            inputs=inputs, outputs=outputs, name="answers", description="Answer a question"
        )
        return program.to_json()

    return asyncio.run(build())


def make_program_version(owner: Any, name: str = "answers") -> Any:
    from studio.programs.models import Program, ProgramVersion

    program = Program.objects.create(owner=owner, name=name)
    return ProgramVersion.objects.create(program=program, number=1, document=program_document())


def row(index: int) -> dict[str, str]:
    """A generated row, a support-ticket-sized question and a short answer."""
    return {
        "query": f"Ticket {index}: my order {index * 7919 % 100000} arrived late and the box "
        "was damaged; the invoice shows the wrong address. What should I do next?",
        "answer": f"refund-{index % 5}",
    }


def make_dataset(owner: Any, *, rows: int, test_fraction: float, name: str = "tickets") -> Any:
    """A valid JSON Lines dataset of `rows` generated rows, split by row hash."""
    from django.core.files.base import ContentFile

    from studio.datasets.models import Dataset

    lines = "\n".join(json.dumps(row(i)) for i in range(rows)).encode()
    dataset = Dataset(
        owner=owner,
        name=name,
        format=Dataset.Format.JSONL,
        input_schema={"type": "object", "properties": {"query": {"type": "string"}}},
        output_schema={"type": "object", "properties": {"answer": {"type": "string"}}},
        status=Dataset.Status.VALID,
        row_count=rows,
        size_bytes=len(lines),
        test_fraction=test_fraction,
        split_seed=0,
    )
    dataset.file.save(f"{name}.jsonl", ContentFile(lines), save=False)
    dataset.save()
    return dataset


def make_provider(owner: Any, base_url: str) -> Any:
    from studio.providers.models import Provider

    return Provider.objects.create(
        owner=owner,
        name="scripted",
        model="openai/scripted",
        api_base=base_url,
        params={"max_retries": 1, "backoff_base": 0.01, "timeout": 30},
    )


COMPILE_CONFIG: dict[str, Any] = {
    "reward": {"name": "exact_match", "params": {"in_mask": ["answer"]}},
    "optimizer": {"name": "random_few_shot", "params": {"nb_max_examples": 3, "seed": 0}},
}


def peak_rss_mb() -> float:
    """This process's resident-set high-water mark, in MB (Linux: ``ru_maxrss`` in KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
