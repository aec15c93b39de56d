"""Training programs of several modules: a Branch, a Generator fed two inputs, several
inputs and outputs, and OMEGA choosing what to rewrite.

Every model here is scripted (`FakeLanguageModel`), deterministic, and answers after a
delay drawn from the request, so calls finish out of order: a reward that travelled
with the order calls finished, not with its row (the reference library was seen doing
that with a Branch), would show.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from typing import Any

import numpy as np

import optimizer_core as synalinks
from optimizer_core.optimizers import OMEGA
from tests.support import Answer, Query

CAPITALS = {
    "France": "Paris", "Italy": "Rome", "Spain": "Madrid", "Peru": "Lima", "Japan": "Tokyo",
    "Kenya": "Nairobi", "Chile": "Santiago", "Egypt": "Cairo", "Cuba": "Havana",
    "Greece": "Athens", "Norway": "Oslo", "Poland": "Warsaw", "Ghana": "Accra",
    "Nepal": "Kathmandu", "Iran": "Tehran", "Mali": "Bamako",
}  # fmt: skip
SUM = re.compile(r"What is (\d+)\+(\d+)\?")
CAPITAL = re.compile(r"Capital of (\w+)\?")
EXAMPLE = re.compile(r"^Input: (\{.*\})\nOutput: (\{.*\})$", re.MULTILINE)


class SumAnswer(synalinks.DataModel):
    answer: str


class CapitalAnswer(synalinks.DataModel):
    answer: str


def kind(query: str) -> str:
    return "sum" if SUM.search(query) else "capital"


def solve(query: str) -> str:
    found = SUM.search(query)
    if found:
        return str(int(found[1]) + int(found[2]))
    return CAPITALS[CAPITAL.search(query)[1]]


def draw(*parts: Any) -> float:
    digest = hashlib.sha256(json.dumps(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def rows() -> tuple[list[Query], list[Answer]]:
    queries = []
    for i, country in enumerate(CAPITALS):
        queries.append(f"What is {i + 3}+{2 * i + 5}?")
        queries.append(f"Capital of {country}?")
    return [Query(query=q) for q in queries], [Answer(answer=solve(q)) for q in queries]


def routing_model(*, skill_per_example: float = 0.35, capital_branch_works: bool = True) -> Any:
    """The decision picks the right label with a probability that grows with the right
    labels its examples show; each branch answers its own kind of query only."""

    async def respond(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> Any:
        shown = json.loads(messages[-1]["content"])
        await asyncio.sleep(draw(shown) * 0.004)  # calls finish out of order
        properties = (schema or {}).get("properties", {})
        query = shown["query"]
        if "choice" in properties:
            right = sum(
                json.loads(out).get("choice") == kind(json.loads(inp)["query"])
                for inp, out in EXAMPLE.findall(messages[0]["content"])
            )
            correct = draw(query, right) < min(1.0, 0.25 + skill_per_example * right)
            label = kind(query) if correct else {"sum": "capital", "capital": "sum"}[kind(query)]
            return {"thinking": "t", "choice": label}
        branch = "sum" if (schema or {}).get("title") == "SumAnswer" else "capital"
        works = branch == "sum" or capital_branch_works
        return {"answer": solve(query) if works and kind(query) == branch else "unknown"}

    return synalinks.FakeLanguageModel(responder=respond)


async def routed_program(lm: Any) -> synalinks.Program:
    inputs = synalinks.Input(data_model=Query)
    (sums, capitals) = await synalinks.Branch(
        question="Is this a sum or a question about a capital?",
        labels=["sum", "capital"],
        branches=[
            synalinks.Generator(data_model=SumAnswer, language_model=lm, name="adder"),
            synalinks.Generator(data_model=CapitalAnswer, language_model=lm, name="geographer"),
        ],
        language_model=lm,
        return_decision=False,
        name="router",
    )(inputs)
    return synalinks.Program(
        inputs=inputs, outputs=sums | capitals, name="router_program",
        description="Answer sums and capitals",
    )  # fmt: skip


async def test_a_branch_program_learns_to_route_and_each_reward_stays_with_its_row() -> None:
    x, y = rows()
    x_train, y_train, x_test, y_test = x[:20], y[:20], x[20:], y[20:]
    program = await routed_program(routing_model())
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(nb_min_examples=2, nb_max_examples=3, seed=3),
    )
    before = await program.evaluate(x_test, y_test, verbose=0)

    await program.fit(
        x=np.array(x_train, dtype=object), y=np.array(y_train, dtype=object),
        epochs=3, batch_size=4, validation_split=0.25, seed=0, verbose=0,
    )  # fmt: skip
    after = await program.evaluate(x_test, y_test, verbose=0)

    assert before["reward"] <= 0.5 < 0.9 <= after["reward"]
    decision = program.get_variable("router_decision/state")
    # A decision's reward is its row's: 1 exactly when it chose the row's kind.
    recorded = decision.get("predictions")
    assert recorded and all(
        p["reward"] == float(p["outputs"]["choice"] == kind(p["inputs"]["query"])) for p in recorded
    )
    # Its examples show right labels only.
    examples = decision.get("examples")
    assert len(examples) >= 2
    assert all(e["outputs"]["choice"] == kind(e["inputs"]["query"]) for e in examples)
    for name, label in (("adder", "sum"), ("geographer", "capital")):
        predictions = program.get_variable(f"{name}/state").get("predictions")
        # Only the rows routed to it, each with its own row's reward.
        assert predictions and all(p["inputs"]["choice"] == label for p in predictions)
        assert all(
            p["reward"] == float(p["outputs"]["answer"] == solve(p["inputs"]["query"]))
            for p in predictions
        )
        assert all(e["inputs"]["choice"] == label for e in program.get_variable(
            f"{name}/state").get("examples"))  # fmt: skip


async def test_omega_rewrites_the_module_that_earns_least_and_shows_it_its_own_rows() -> None:
    x, y = rows()
    program = await routed_program(routing_model(skill_per_example=1.0, capital_branch_works=False))
    writer = synalinks.FakeLanguageModel()  # schema-valid rewrites: instructions ""
    optimizer = OMEGA(
        language_model=writer, embedding_model=synalinks.FakeEmbeddingModel(), seed=0,
        selection_temperature=0.2,
    )  # fmt: skip
    program.compile(reward=synalinks.rewards.ExactMatch(in_mask=["answer"]), optimizer=optimizer)

    await program.fit(
        x=np.array(x, dtype=object), y=np.array(y, dtype=object),
        epochs=2, batch_size=2, validation_split=0.25, seed=0, verbose=0,
    )  # fmt: skip

    picks = optimizer.selections
    assert set(picks) == {"router_decision/state", "adder/state", "geographer/state"}
    assert picks["geographer/state"] > picks["adder/state"] + picks["router_decision/state"]
    shown = [json.loads(call.messages[-1]["content"]) for call in writer.calls]
    geographer = [s for s in shown if s["variable_name"] == "geographer/state"]
    assert geographer
    for prompt in geographer:
        for prediction in prompt["best_predictions"] + prompt["worst_predictions"]:
            assert prediction["inputs"]["choice"] == "capital"
            assert prediction["reward"] == 0.0  # the geographer never answers right


class Measure(synalinks.DataModel):
    query: str = synalinks.Field(description="A product question with a unit")


class Draft(synalinks.DataModel):
    draft: str = synalinks.Field(description="The number")


def merged_inputs_model() -> Any:
    """The drafter writes the number; the finisher must give "<number> <unit>": the number
    is in the draft only, the unit in the question only. It is right with a probability
    growing with its right examples, and never without both inputs."""

    async def respond(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> Any:
        shown = json.loads(messages[-1]["content"])
        await asyncio.sleep(draw(shown) * 0.004)
        a, b, unit = re.search(r"(\d+) times (\d+) in (\w+)", shown["query"]).groups()
        if "draft" in (schema or {}).get("properties", {}):
            return {"draft": str(int(a) * int(b))}
        if "draft" not in shown:
            return {"answer": f"? {unit}"}
        right = 0
        for inp, out in EXAMPLE.findall(messages[0]["content"]):
            seen = json.loads(inp)
            wanted = f"{seen.get('draft')} {seen['query'].rsplit(' ', 1)[-1].rstrip('?')}"
            right += json.loads(out).get("answer") == wanted
        if draw(shown, right) < min(1.0, 0.2 + 0.4 * right):
            return {"answer": f"{shown['draft']} {unit}"}
        return {"answer": f"{shown['draft']}{unit}"}  # the untrained style: no space

    return synalinks.FakeLanguageModel(responder=respond)


async def test_a_final_answer_that_needs_both_inputs_learns_from_merged_examples() -> None:
    lm = merged_inputs_model()
    units = ["apples", "pears", "plums", "figs"]
    x = [Measure(query=f"What is {i + 2} times {i % 5 + 3} in {units[i % 4]}?") for i in range(24)]
    y = [Answer(answer=f"{(i + 2) * (i % 5 + 3)} {units[i % 4]}") for i in range(24)]
    question = synalinks.Input(data_model=Measure)
    draft = await synalinks.Generator(data_model=Draft, language_model=lm, name="drafter")(question)
    answer = await synalinks.Generator(data_model=Answer, language_model=lm, name="finisher")(
        [question, draft]
    )
    program = synalinks.Program(inputs=question, outputs=answer, name="merged")
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(
            nb_min_examples=2, nb_max_examples=3, labelled_examples=False, seed=0
        ),
    )
    before = await program.evaluate(x[18:], y[18:], verbose=0)
    await program.fit(x=x[:18], y=y[:18], epochs=3, batch_size=3, validation_split=0.25, seed=1,
                      verbose=0)  # fmt: skip
    after = await program.evaluate(x[18:], y[18:], verbose=0)

    assert before["reward"] < 0.5 < 0.8 <= after["reward"]
    finisher = program.get_variable("finisher/state")
    examples = finisher.get("examples")
    assert examples and all(set(e["inputs"]) == {"query", "draft"} for e in examples)
    assert all(e["reward"] == 1.0 for e in examples)
    assert all(set(p["inputs"]) == {"query"} for p in program.get_variable(
        "drafter/state").get("predictions"))  # fmt: skip


class Critique(synalinks.DataModel):
    critique: str


async def test_several_inputs_and_outputs_fit_evaluate_and_predict_with_a_mask_across_outputs() -> (
    None
):
    def respond(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> Any:
        shown = json.loads(messages[-1]["content"])
        if "critique" in schema["properties"]:
            return {"critique": "looks fine"}
        return {"answer": solve(shown["query"]) if "draft" in shown else "?"}

    lm = synalinks.FakeLanguageModel(responder=respond)
    question = synalinks.Input(data_model=Query, name="question")
    draft = synalinks.Input(data_model=Draft, name="draft")
    answer = await synalinks.Generator(data_model=Answer, language_model=lm, name="answerer")(
        [question, draft]
    )
    critique = await synalinks.Generator(data_model=Critique, language_model=lm, name="critic")(
        answer
    )
    program = synalinks.Program(inputs=[question, draft], outputs=[answer, critique])
    # The answer is right; the critique is not what the targets say: masking everything
    # but `answer` across both outputs, the reward is 1.
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0),
        metrics=[synalinks.metrics.F1Score(in_mask=["critique"])],
    )
    queries = ["What is 1+2?", "Capital of Peru?", "What is 4+4?", "Capital of Cuba?"]
    x = (
        np.array([Query(query=q) for q in queries], dtype=object),
        np.array([Draft(draft="d") for _ in queries], dtype=object),
    )
    y = (
        np.array([Answer(answer=solve(q)) for q in queries], dtype=object),
        np.array([Critique(critique="wrong") for _ in queries], dtype=object),
    )

    logs = await program.evaluate(x, y, verbose=0)
    assert logs["reward"] == 1.0 and logs["f1_score"] == 0.0

    history = await program.fit(x=x, y=y, epochs=1, batch_size=2, verbose=0)
    assert history.history["reward"] == [1.0]

    predictions = await program.predict(x, verbose=0)
    assert [p[0]["answer"] for p in predictions] == [solve(q) for q in queries]
    assert all(p[1] == Critique(critique="looks fine") for p in predictions)

    result = await program.evaluate(x, y, verbose=0, return_examples=True)
    first = result.examples[0]
    assert first.input == [{"query": "What is 1+2?"}, {"draft": "d"}]
    assert first.expected == [{"answer": "3"}, {"critique": "wrong"}]
    assert first.output == [{"answer": "3"}, {"critique": "looks fine"}]
    assert [step.module for step in first.trace] == ["answerer", "critic"]

    # A target per output, None where an output is not scored; a wrong shape is named.
    rows_y = [(Answer(answer=solve(q)), None) for q in queries]
    assert (await program.evaluate(list(zip(*x, strict=True)), rows_y, verbose=0))["reward"] == 1.0
    try:
        await program.evaluate(x, y[0], verbose=0)
    except synalinks.exceptions.DataError as error:
        assert "the program has 2 outputs" in str(error)
    else:
        raise AssertionError("a single target per row was accepted for two outputs")
