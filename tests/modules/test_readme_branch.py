"""The README's Branch example (its engine section) runs as written, on a scripted model.

The snippet continues the README's first one (`Query`, `Answer`, `lm`, `inputs`); here
`lm` is a `FakeLanguageModel` whose decision is "easy" for ``2 + 2``.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import optimizer_core as synalinks
from tests.support import Answer, Query

README = Path(__file__).resolve().parents[2] / "README.md"


def branch_snippet() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    found = [block for block in blocks if "synalinks.Branch(" in block]
    assert len(found) == 1, f"README.md has {len(found)} python blocks with a Branch"
    return found[0]


def decide(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> Any:
    properties = (schema or {}).get("properties", {})
    shown = messages[-1]["content"]
    if "choice" in properties:
        return {
            "thinking": "It is arithmetic.",
            "choice": "easy" if "2 + 2" in shown else "difficult",
        }
    query = json.loads(shown)["query"]
    return {key: f"{key} to {query}" for key in properties}


async def test_the_readme_branch_example_routes_and_traces() -> None:
    lm = synalinks.FakeLanguageModel(responder=decide)
    namespace: dict[str, Any] = {
        "synalinks": synalinks,
        "Query": Query,
        "Answer": Answer,
        "lm": lm,
        "inputs": synalinks.Input(data_model=Query),
    }
    code = compile(branch_snippet(), str(README), "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    await eval(code, namespace)

    trace = namespace["trace"]
    # The Or holds the fields of both slots; the easy one answered, with no `thinking`.
    assert trace.output.get_json() == {"answer": "answer to What is 2 + 2?", "thinking": None}
    branch = next(step for step in trace.steps if step.taken)
    assert branch.taken == ["easy"]
    skipped = [step.module for step in trace.steps if step.skipped]
    assert len(skipped) == 1  # the ChainOfThought of "difficult" did not run
    hard = await namespace["program"](Query(query="Prove Fermat's last theorem"))
    assert hard["thinking"] == "thinking to Prove Fermat's last theorem"
