"""Every ```python snippet of the training guide runs with only the import line changed.

The guide (``../shared/spec/training-guide.md``) is read at test time, so a new
snippet there is a new test here. Each snippet runs in a fresh namespace that
holds what the guide assumes was defined earlier (``Query``, ``Answer``, ``lm``,
``em``, ``x_train``..., a compiled ``program``, its ``history``), twice:

- ``fake``: ``lm`` and ``em`` are the library's scripted fake models;
- ``litellm``: ``lm`` and ``em`` are real ``LanguageModel`` / ``EmbeddingModel``
  objects for ``openai/...`` models, reaching a local scripted OpenAI-compatible
  server through litellm and the ``OPENAI_API_BASE`` environment variable.

Models a snippet constructs itself (``synalinks.LanguageModel(model="openai/gpt-4o-mini")``)
go to that server in both modes. The guide writes ``...`` as a placeholder for
"your other arguments" in a few places; `PLACEHOLDERS` fills each one and says
why. Nothing else in a snippet is changed.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import optimizer_core
from optimizer_core.testing.scripted_server import ScriptedServer, schema_filler
from tests.support import GSM8K_FILES, SHARED, Answer, Query, capitals, missing_shared

GUIDE_FILE = "spec/training-guide.md"
GUIDE = SHARED / GUIDE_FILE
DATA = SHARED / "data"
# Without ../shared beside the clone there is no guide to read: one skipped test says so.
GUIDE_MISSING = missing_shared(GUIDE_FILE)

# Placeholders the guide writes as `...`, and what fills them (the only edits besides the import).
PLACEHOLDERS: list[tuple[str, str, str]] = [
    ("judge = synalinks.Program(...)", "judge = judge_program", "the guide elides the judge's graph"),
    ("    ...\n)", ")", "`...` after keyword arguments: 'the rest of your compile arguments'"),
    ("    optimizer=...,\n", "", "`optimizer=...`: 'your optimizer'"),
    ("callbacks=[...],", "callbacks=[],", "`[...]`: 'your callbacks'"),
    ("program.fit(..., callbacks=", "program.fit(x=x_train, y=y_train, validation_split=0.25, epochs=2, callbacks=",
     "`fit(...)`: 'your fit arguments'"),
    ("OMEGA(..., distance_function=", "OMEGA(language_model=lm, embedding_model=em, distance_function=",
     "`OMEGA(...)`: 'your OMEGA arguments'"),
]  # fmt: skip


def guide_snippets() -> list[tuple[str, str]]:
    if GUIDE_MISSING is not None:
        return []
    text = GUIDE.read_text(encoding="utf-8")
    snippets: list[tuple[str, str]] = []
    heading = "top"
    pattern = r"^(#+ [^\n]*)$|^([ \t]*)```python\n(.*?)^[ \t]*```"
    for block in re.finditer(pattern, text, re.M | re.S):
        if block.group(1):
            heading = re.sub(r"[^a-z0-9]+", "-", block.group(1).lstrip("# ").lower()).strip("-")
        else:
            # Snippets inside list items are indented with the item.
            source = textwrap.dedent(block.group(3))
            snippets.append((f"{len(snippets):02d}-{heading}", source))
    return snippets


def prepare(source: str) -> str:
    source = source.replace("import synalinks", "import optimizer_core as synalinks")
    for placeholder, replacement, _why in PLACEHOLDERS:
        source = source.replace(placeholder, replacement)
    return source


def split_gotcha(source: str) -> tuple[str, str] | None:
    """Gotcha snippets show a WRONG call (which must fail loudly) then a CORRECT one."""
    if "# WRONG" not in source or "# CORRECT" not in source:
        return None
    wrong, correct = source.split("# CORRECT", 1)
    return wrong, correct


def student_responder(request: dict[str, Any]) -> dict[str, Any] | str:
    """Answer capitals questions as the few-shot student; fill any other schema."""
    _, _, student = capitals()
    schema = (request.get("response_format") or {}).get("json_schema", {}).get("schema")
    if schema and set(schema.get("properties", {})) == {"answer"}:
        return student.from_request(request)
    return schema_filler(schema) if schema else "ok"


@pytest.fixture(scope="module")
def server():
    with ScriptedServer(responder=student_responder) as running:
        yield running


async def namespace(mode: str, server: ScriptedServer) -> dict[str, Any]:
    synalinks = optimizer_core
    _, _, student = capitals()
    if mode == "fake":
        lm = synalinks.FakeLanguageModel(responder=student)
        em = synalinks.FakeEmbeddingModel()
    else:
        lm = synalinks.LanguageModel(model="openai/gpt-4o-mini")
        em = synalinks.EmbeddingModel(model="openai/text-embedding-3-small")
    x, y, _ = capitals(40)
    x_train, y_train, x_val, y_val, x_test, y_test = (
        x[:24],
        y[:24],
        x[24:30],
        y[24:30],
        x[30:],
        y[30:],
    )
    inputs = synalinks.Input(data_model=Query)
    outputs = await synalinks.Generator(data_model=Answer, language_model=lm)(inputs)
    program = synalinks.Program(inputs=inputs, outputs=outputs, description="Name a capital")
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0),
        metrics=[synalinks.metrics.F1Score(in_mask=["answer"])],
    )
    baseline_results = [await program.evaluate(x=x_test, y=y_test, verbose=0) for _ in range(2)]
    history = await program.fit(
        x=x_train, y=y_train, validation_split=0.25, epochs=2, batch_size=6, verbose=0
    )
    trained_results = [await program.evaluate(x=x_test, y=y_test, verbose=0) for _ in range(2)]

    class JudgeInput(synalinks.DataModel):
        gold_answer: str | None = None
        answer: str | None = None

    class Verdict(synalinks.DataModel):
        critique: str
        reward: float

    judge_in = synalinks.Input(data_model=JudgeInput)
    judge_out = await synalinks.Generator(data_model=Verdict, language_model=lm)(judge_in)
    judge_program = synalinks.Program(inputs=judge_in, outputs=judge_out)
    return {
        "synalinks": synalinks, "np": np, "Query": Query, "Answer": Answer, "lm": lm, "em": em,
        "x_train": x_train, "y_train": y_train, "x_val": x_val, "y_val": y_val,
        "x_test": x_test, "y_test": y_test, "program": program, "history": history,
        "baseline_results": baseline_results, "trained_results": trained_results,
        "judge_program": judge_program,
        "OMEGA": synalinks.optimizers.OMEGA,  # the gotchas write it bare
    }  # fmt: skip


async def run_source(source: str, ns: dict[str, Any]) -> None:
    import ast

    code = compile(source, "<training-guide>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(code, ns)
    if result is not None:
        await result


def snippet_params() -> list[Any]:
    """One param per snippet; a snippet that loads a built-in data set skips without it."""
    if GUIDE_MISSING is not None:
        return [pytest.param("no-guide", "", marks=pytest.mark.skip(reason=GUIDE_MISSING))]
    params = []
    for name, source in SNIPPETS:
        missing = missing_shared(*GSM8K_FILES) if "datasets." in source else None
        marks = [pytest.mark.skip(reason=missing)] if missing else []
        params.append(pytest.param(name, source, id=name, marks=marks))
    return params


SNIPPETS = guide_snippets()


@pytest.mark.litellm
@pytest.mark.parametrize("mode", ["fake", "litellm"])
@pytest.mark.parametrize(("name", "source"), snippet_params())
async def test_guide_snippet_runs(name, source, mode, server, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-scripted")
    monkeypatch.setenv("OPTIMIZER_CORE_DATA_DIR", str(DATA))
    monkeypatch.chdir(tmp_path)
    ns = await namespace(mode, server)
    source = prepare(source)
    gotcha = split_gotcha(source)
    if gotcha is not None:
        wrong, correct = gotcha
        if "OMEGA(" in wrong:
            with pytest.raises((ValueError, TypeError)):
                await run_source(wrong, ns)
        else:
            await run_source(wrong, ns)  # a plain assignment: nothing to call yet
        await run_source(correct, ns)
    else:
        await run_source(source, ns)
    CHECKS.get(name.split("-", 1)[1], lambda ns, path: None)(ns, tmp_path)


def _check_workflow(ns: dict[str, Any], path: Path) -> None:
    assert set(ns["history"].history) >= {"reward", "val_reward", "f1_score", "val_f1_score"}
    assert len(ns["history"].history["reward"]) == 10
    assert set(ns["metrics"]) >= {"reward", "f1_score"}


def _check_custom_reward(ns: dict[str, Any], path: Path) -> None:
    assert isinstance(ns["program"].reward, optimizer_core.rewards.MeanRewardWrapper)


def _check_checkpoint(ns: dict[str, Any], path: Path) -> None:
    assert (path / "best_model.json").exists()
    assert optimizer_core.Program.load(str(path / "best_model.json")).compiled


def _check_builtin_dataset(ns: dict[str, Any], path: Path) -> None:
    assert len(ns["x_train"]) == 7473 and len(ns["x_test"]) == 1319


def _check_full_program(ns: dict[str, Any], path: Path) -> None:
    assert (path / "model.json").exists() and isinstance(ns["program"], optimizer_core.Program)


def _check_variables(ns: dict[str, Any], path: Path) -> None:
    assert (path / "variables.json").exists()


def _check_history_plot(ns: dict[str, Any], path: Path) -> None:
    assert (path / "output" / "training_history.png").stat().st_size > 1000


def _check_comparison_plot(ns: dict[str, Any], path: Path) -> None:
    assert any((path / "output").glob("*.png"))


CHECKS = {
    "training-workflow": _check_workflow,
    "custom-rewards": _check_custom_reward,
    "programcheckpoint": _check_checkpoint,
    "using-built-in-datasets": _check_builtin_dataset,
    "full-program": _check_full_program,
    "variables-only": _check_variables,
    "training-history": _check_history_plot,
    "metrics-comparison": _check_comparison_plot,
    "before-after-comparison": _check_comparison_plot,
}


@pytest.mark.skipif(GUIDE_MISSING is not None, reason=GUIDE_MISSING or "")
def test_every_placeholder_is_still_in_the_guide() -> None:
    """A placeholder the guide no longer writes would hide an edit of the guide."""
    text = GUIDE.read_text(encoding="utf-8")
    for placeholder, _, why in PLACEHOLDERS:
        assert placeholder in text, f"placeholder gone from the guide: {placeholder!r} ({why})"
