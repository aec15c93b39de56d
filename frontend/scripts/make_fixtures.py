"""Write the frontend's test fixtures from the real engine.

Run from the repository root: ``.venv/bin/python frontend/scripts/make_fixtures.py``.
The documents are what `Program.to_json()` saves and the schemas are what
pydantic emits, so the TypeScript model is checked against the engine itself.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Literal

import optimizer_core as s

SRC = Path(__file__).resolve().parent.parent / "src"
OUT = SRC / "features" / "editor" / "__fixtures__"
SCHEMAS_OUT = SRC / "lib" / "datamodel" / "__fixtures__"
CATALOGUE_OUT = SRC / "features" / "runs" / "__fixtures__"


class Query(s.DataModel):
    query: str = s.Field(description="The user's question")


class Answer(s.DataModel):
    answer: str = s.Field(description="The correct answer")


class Source(s.DataModel):
    url: str = s.Field(description="Where the fact comes from")
    score: float = s.Field(default=0.5, description="How much to trust it")


class Report(s.DataModel):
    """A graded answer with its sources."""

    title: str = s.Field(description="A short title")
    count: int = s.Field(default=3, description="How many facts")
    ratio: float = s.Field(description="A number")
    verified: bool = s.Field(default=False, description="Whether it was checked")
    label: Literal["good", "bad", "unsure"] = s.Field(description="The verdict")
    tags: list[str] = s.Field(description="Keywords")
    scores: list[int] = s.Field(default=[], description="Per-fact scores")
    main_source: Source = s.Field(description="The best source")
    sources: list[Source] = s.Field(description="All sources")
    note: str | None = s.Field(default=None, description="An optional note")
    plain: str
    kind: Literal["report"] = s.Field(description="Always 'report'")
    backup_source: Source | None = s.Field(default=None, description="A second source")
    max_tokens2x: int | None = None


async def build_programs() -> dict[str, dict[str, object]]:
    lm = s.LanguageModel(model="ollama/mistral")
    inputs = s.Input(data_model=Query)
    x = await s.Generator(data_model=Answer, language_model=lm)(inputs)
    y = await s.ChainOfThought(
        data_model=Answer, language_model=lm, temperature=0.2, instructions="Think first."
    )(x)
    qa = s.Program(inputs=inputs, outputs=y, name="qa", description="Answer questions")

    # Two inputs, two outputs, compiled, with examples in a variable.
    q = s.Input(data_model=Query, name="question")
    a = s.Input(data_model=Answer, name="draft")
    g1 = await s.Generator(
        data_model=Report,
        language_model=lm,
        name="reporter",
        examples=[{"inputs": {"query": "2+2?"}, "outputs": {"answer": "4"}}],
        use_inputs_schema=True,
    )(q)
    g2 = await s.ChainOfThought(
        data_model=Answer, language_model=lm, name="reviser", use_outputs_schema=True
    )(a)
    multi = s.Program(inputs=[q, a], outputs=[g1, g2], name="multi")
    multi.compile(
        reward=s.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=s.optimizers.RandomFewShot(),
    )
    # An output that also feeds another module.
    start = s.Input(data_model=Query)
    draft = await s.Generator(data_model=Answer, language_model=lm, name="draft")(start)
    final = await s.ChainOfThought(data_model=Answer, language_model=lm, name="final")(draft)
    both = s.Program(inputs=start, outputs=[draft, final], name="both_outputs")
    return {
        "program_qa.json": qa.to_json(),
        "program_multi.json": multi.to_json(),
        "program_both_outputs.json": both.to_json(),
    }


def template_documents() -> dict[str, dict[str, object]]:
    """The "new program" templates (studio/programs/templates.py), as the dialog sends them."""
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings.test")
    import django

    django.setup()
    from studio.programs.templates import catalogue

    return {f"template_{entry['name']}.json": entry["document"] for entry in catalogue()}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    documents = {**asyncio.run(build_programs()), **template_documents()}
    for name, document in documents.items():
        (OUT / name).write_text(json.dumps(document, indent=2) + "\n")
    schemas = {
        model.__name__: model.model_json_schema() for model in (Query, Answer, Source, Report)
    }
    SCHEMAS_OUT.mkdir(parents=True, exist_ok=True)
    (SCHEMAS_OUT / "schemas.json").write_text(json.dumps(schemas, indent=2) + "\n")
    # What GET /api/catalogue/ answers (it reads the engine's registry; no database needed).
    from studio.runs.catalogue import run_catalogue

    CATALOGUE_OUT.mkdir(parents=True, exist_ok=True)
    (CATALOGUE_OUT / "catalogue.json").write_text(json.dumps(run_catalogue(), indent=2) + "\n")


if __name__ == "__main__":
    main()
