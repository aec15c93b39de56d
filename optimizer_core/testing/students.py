"""A scripted "student" model whose answers improve with good few-shot examples.

Until a real model is bundled, demos and tests need a language model whose
behaviour training can change, without a network. `FewShotStudent` answers a
task through an oracle, but gets it right only with a probability that grows
with the number of *correct* examples in its prompt; otherwise it answers in a
wrong style (``corrupt``). It is deterministic: the same prompt gives the same
answer. Its decisions depend on the prompt exactly as a Generator writes it
(``Examples:`` then ``Input: {...}`` / ``Output: {...}`` pairs).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

JsonDict = dict[str, Any]

_EXAMPLE = re.compile(r"^Input: (\{.*\})\nOutput: (\{.*\})$", re.MULTILINE)


class FewShotStudent:
    """A responder ``(messages, schema) -> dict`` for `FakeLanguageModel` or `ScriptedServer`.

    Args:
        solve: the oracle, ``input JSON -> correct output JSON``.
        corrupt: ``(input JSON, correct output) -> wrong output`` (the untrained style).
        base_skill: probability of a correct answer with no correct example (default 0.2).
        skill_per_example: added per correct example shown (default 0.3).
    """

    def __init__(
        self,
        *,
        solve: Callable[[JsonDict], JsonDict],
        corrupt: Callable[[JsonDict, JsonDict], JsonDict],
        base_skill: float = 0.2,
        skill_per_example: float = 0.3,
    ) -> None:
        self.solve = solve
        self.corrupt = corrupt
        self.base_skill = base_skill
        self.skill_per_example = skill_per_example

    def correct_examples(self, system: str) -> int:
        count = 0
        for raw_in, raw_out in _EXAMPLE.findall(system):
            try:
                if self.solve(json.loads(raw_in)) == json.loads(raw_out):
                    count += 1
            except (ValueError, KeyError, TypeError):
                continue
        return count

    def __call__(self, messages: list[dict[str, str]], schema: JsonDict | None = None) -> JsonDict:
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        user = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "{}")
        inputs = json.loads(user)
        answer = self.solve(inputs)
        skill = min(1.0, self.base_skill + self.skill_per_example * self.correct_examples(system))
        digest = hashlib.sha256((system + "\x00" + user).encode()).digest()
        draw = int.from_bytes(digest[:8], "big") / 2**64
        return answer if draw < skill else self.corrupt(inputs, answer)

    def from_request(self, request: JsonDict) -> JsonDict:
        """The same, for a `ScriptedServer` responder that receives the OpenAI request body."""
        return self(request.get("messages", []), None)


def capitals_task() -> tuple[list[JsonDict], list[JsonDict], FewShotStudent]:
    """A small demo task: answer a country's capital as a bare name.

    The untrained student answers in a sentence ("The capital of X is Y."),
    which ExactMatch scores 0; shown correct examples, it answers the bare name.
    """
    capitals = {
        "France": "Paris", "Germany": "Berlin", "Italy": "Rome", "Spain": "Madrid",
        "Portugal": "Lisbon", "Austria": "Vienna", "Poland": "Warsaw", "Greece": "Athens",
        "Norway": "Oslo", "Sweden": "Stockholm", "Finland": "Helsinki", "Denmark": "Copenhagen",
        "Ireland": "Dublin", "Belgium": "Brussels", "Netherlands": "Amsterdam", "Hungary": "Budapest",
        "Czechia": "Prague", "Romania": "Bucharest", "Bulgaria": "Sofia", "Croatia": "Zagreb",
        "Serbia": "Belgrade", "Slovakia": "Bratislava", "Slovenia": "Ljubljana", "Estonia": "Tallinn",
        "Latvia": "Riga", "Lithuania": "Vilnius", "Iceland": "Reykjavik", "Japan": "Tokyo",
        "China": "Beijing", "India": "New Delhi", "Egypt": "Cairo", "Kenya": "Nairobi",
        "Canada": "Ottawa", "Mexico": "Mexico City", "Peru": "Lima", "Chile": "Santiago",
        "Argentina": "Buenos Aires", "Australia": "Canberra", "Morocco": "Rabat", "Turkey": "Ankara",
    }  # fmt: skip
    questions = [{"query": f"What is the capital of {country}?"} for country in capitals]
    answers = [{"answer": city} for city in capitals.values()]

    def solve(inputs: JsonDict) -> JsonDict:
        country = str(inputs.get("query", "")).removeprefix("What is the capital of ").rstrip("?")
        return {"answer": capitals.get(country, "unknown")}

    def corrupt(inputs: JsonDict, answer: JsonDict) -> JsonDict:
        country = str(inputs.get("query", "")).removeprefix("What is the capital of ").rstrip("?")
        return {"answer": f"The capital of {country} is {answer['answer']}."}

    return questions, answers, FewShotStudent(solve=solve, corrupt=corrupt)
