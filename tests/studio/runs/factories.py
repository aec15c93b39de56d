"""Rows the runs tests need, created straight through the ORM.

Programs, datasets and providers belong to other apps; these factories write
their rows directly so the runs app is tested on its own. The program is a real
`optimizer_core` document (a Generator answering a country's capital), the
dataset a JSON Lines file under MEDIA_ROOT, the provider a litellm model name
pointing at a local `ScriptedServer`.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from django.core.files.base import ContentFile

import optimizer_core as synalinks
from optimizer_core.testing.students import capitals_task
from studio.datasets.models import Dataset
from studio.programs.models import Program, ProgramVersion
from studio.providers.models import Provider

COMPILE_CONFIG: dict[str, Any] = {
    "reward": {"name": "exact_match", "params": {"in_mask": ["answer"]}},
    "metrics": [{"name": "f1_score", "params": {"in_mask": ["answer"]}}],
    "optimizer": {"name": "random_few_shot", "params": {"nb_max_examples": 3, "seed": 0}},
}


class Query(synalinks.DataModel):
    query: str = synalinks.Field(description="The user's question")


class Answer(synalinks.DataModel):
    answer: str = synalinks.Field(description="The answer, as short as possible")


def program_document() -> dict[str, Any]:
    """`Program.to_json()` of a one-Generator program (its model is replaced by the provider's)."""

    async def build() -> dict[str, Any]:
        lm = synalinks.LanguageModel(model="openai/placeholder")
        inputs = synalinks.Input(data_model=Query)
        outputs = await synalinks.Generator(data_model=Answer, language_model=lm)(inputs)
        program = synalinks.Program(
            inputs=inputs, outputs=outputs, name="capitals", description="Name a capital"
        )
        return program.to_json()

    return asyncio.run(build())


def make_version(owner: Any, *, name: str | None = None) -> ProgramVersion:
    program = Program.objects.create(
        owner=owner, name=name or f"capitals {Program.objects.count() + 1}"
    )
    return ProgramVersion.objects.create(program=program, number=1, document=program_document())


def make_dataset(owner: Any, *, rows: int = 40, test_fraction: float = 0.2) -> Dataset:
    questions, answers, _ = capitals_task()
    lines = [json.dumps({**q, **a}) for q, a in zip(questions[:rows], answers[:rows], strict=True)]
    dataset = Dataset(
        owner=owner,
        name="capitals",
        format=Dataset.Format.JSONL,
        input_schema={"type": "object", "properties": {"query": {"type": "string"}}},
        output_schema={"type": "object", "properties": {"answer": {"type": "string"}}},
        status=Dataset.Status.VALID,
        row_count=len(lines),
        test_fraction=test_fraction,
        split_seed=0,
    )
    dataset.file.save("capitals.jsonl", ContentFile("\n".join(lines).encode()), save=False)
    dataset.save()
    return dataset


def make_provider(owner: Any, base_url: str, **params: Any) -> Provider:
    return Provider.objects.create(
        owner=owner,
        name=f"scripted {Provider.objects.count()}",
        model="openai/scripted",
        api_base=base_url,
        params={"max_retries": 1, "backoff_base": 0.01, "timeout": 5, **params},
    )
