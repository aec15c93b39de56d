"""The reference library's examples for Decision, Branch, the merges, the masks and
SelfCritique, with ``synalinks`` replaced by ``optimizer_core``: each builds, runs on a
scripted model, and comes back from ``save`` / ``Program.load`` (safe mode) running
the same.

The examples are synalinks 0.10.14's: ``examples/3_decisions.py``,
``examples/4_conditional_branches.py``, ``examples/5a_data_model_operators.py`` and the
docstring examples of ``Branch`` (single-label, merged by ``|``, and MultiDecision),
``InMask``, ``OutMask`` and ``SelfCritique``. (``Decision``'s docstring example reads
``ChatMessages``, which optimizer_core does not have; ``3_decisions.py`` is its
example here.) Only the language model differs: a `FakeLanguageModel` whose
responder answers from the request (the difficulty of ``2 + 2`` is "easy").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import optimizer_core as synalinks


class Query(synalinks.DataModel):
    """A user query."""

    query: str = synalinks.Field(description="The user query")


class Answer(synalinks.DataModel):
    """A simple answer."""

    answer: str = synalinks.Field(description="The correct answer")


class AnswerWithThinking(synalinks.DataModel):
    """An answer with reasoning."""

    thinking: str = synalinks.Field(description="Your step by step thinking")
    answer: str = synalinks.Field(description="The correct answer")


class Critique(synalinks.DataModel):
    """A critique of an answer."""

    critique: str = synalinks.Field(description="The critique of the answer")


class Article(synalinks.DataModel):
    text: str


class ScienceSummary(synalinks.DataModel):
    thinking: str
    science_summary: str


class FinanceSummary(synalinks.DataModel):
    thinking: str
    finance_summary: str


class SportsSummary(synalinks.DataModel):
    thinking: str
    sports_summary: str


class Document(synalinks.DataModel):
    title: str = synalinks.Field(description="The title of the document")
    text: str = synalinks.Field(description="The content of the document")


class Summary(synalinks.DataModel):
    summary: str = synalinks.Field(description="the concise summary of the document")


def answer_from_request(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> Any:
    """The scripted model: easy for ``2 + 2``, an answer naming the query, a fixed critique."""
    shown = json.loads(messages[-1]["content"])
    text = json.dumps(shown)
    properties = (schema or {}).get("properties", {})
    if "choice" in properties:
        return {
            "thinking": "Judging the query.",
            "choice": "easy" if "2 + 2" in text else "difficult",
        }
    if "choices" in properties:
        picked = [label for label in ("science", "finance", "sports") if label in text.lower()]
        return {"thinking": "Reading the article.", "choices": picked or ["science"]}
    answer: dict[str, Any] = {}
    for key, spec in properties.items():
        if key == "reward":
            answer[key] = 0.8
        elif key == "thinking":
            answer[key] = "Step by step."
        elif spec.get("type") == "string" or "anyOf" not in spec:
            answer[key] = f"{key}: {shown.get('query') or shown.get('text') or '?'}"
    return answer


def scripted() -> synalinks.FakeLanguageModel:
    return synalinks.FakeLanguageModel(responder=answer_from_request)


async def reloaded(program: synalinks.Program, tmp_path: Path) -> synalinks.Program:
    path = tmp_path / f"{program.name}.json"
    program.save(path)
    again = synalinks.Program.load(path, safe_mode=True)
    again.set_language_model(scripted())
    assert again.get_config() == program.get_config()
    assert again.get_variables_json() == program.get_variables_json()
    return again


def as_json(result: Any) -> Any:
    if isinstance(result, list | tuple):
        return [as_json(item) for item in result]
    return None if result is None else result.get_json()


async def test_decisions(tmp_path: Path) -> None:
    language_model = scripted()
    inputs = synalinks.Input(data_model=Query)
    outputs = await synalinks.Decision(
        question="Evaluate the difficulty to answer the provided query",
        labels=["easy", "difficult"],
        language_model=language_model,
    )(inputs)
    program = synalinks.Program(
        inputs=inputs,
        outputs=outputs,
        name="decision_making",
        description="Classifies queries by difficulty",
    )

    easy = await program(Query(query="What is 2 + 2?"))
    hard = await program(Query(query="Explain the implications of Gödel's incompleteness theorems"))
    assert easy["choice"] == "easy" and hard["choice"] == "difficult"
    assert easy["thinking"]
    # The question travels with the input, as the model's last field.
    sent = json.loads(language_model.calls[0].messages[-1]["content"])
    assert sent == {
        "query": "What is 2 + 2?",
        "question": "Evaluate the difficulty to answer the provided query",
    }
    assert language_model.calls[0].schema["properties"]["choice"]["enum"] == ["easy", "difficult"]

    again = await reloaded(program, tmp_path)
    assert (await again(Query(query="What is 2 + 2?")))["choice"] == "easy"


async def test_conditional_branches(tmp_path: Path) -> None:
    language_model = scripted()
    inputs = synalinks.Input(data_model=Query)
    (easy_branch, hard_branch) = await synalinks.Branch(
        question="Evaluate the difficulty to answer the provided query",
        labels=["easy", "difficult"],
        language_model=language_model,
        branches=[
            synalinks.Generator(
                data_model=Answer, language_model=language_model, name="easy_answerer"
            ),
            synalinks.Generator(
                data_model=AnswerWithThinking, language_model=language_model, name="hard_answerer"
            ),
        ],
    )(inputs)
    program = synalinks.Program(
        inputs=inputs,
        outputs=[easy_branch, hard_branch],
        name="conditional_branches",
        description="Routes queries to different handlers based on difficulty",
    )

    results = await program(Query(query="What is 2 + 2?"))
    assert results[1] is None
    assert results[0]["choice"] == "easy" and results[0]["answer"] == "answer: What is 2 + 2?"
    results = await program(Query(query="Explain quantum entanglement"))
    assert results[0] is None and results[1]["answer"].startswith("answer:")
    # return_decision: the decision's fields come first; its thinking and the branch's
    # are two fields.
    assert results[1].keys() == ["thinking", "choice", "thinking_1", "answer"]
    # inject_decision: the branch saw the decision.
    shown = json.loads(language_model.calls[-1].messages[-1]["content"])
    assert shown["query"] == "Explain quantum entanglement" and shown["choice"] == "difficult"

    again = await reloaded(program, tmp_path)
    assert as_json(await again(Query(query="What is 2 + 2?"))) == as_json(
        await program(Query(query="What is 2 + 2?"))
    )
    assert {v.name for v in again.trainable_variables} == {
        f"{program.modules[1].name}_decision/state",
        "easy_answerer/state",
        "hard_answerer/state",
    }


async def test_data_model_operators(tmp_path: Path) -> None:
    language_model = scripted()

    # Example 1: concatenation (+).
    inputs = synalinks.Input(data_model=Query)
    answer_1 = await synalinks.Generator(
        data_model=Answer, language_model=language_model, name="answer_generator"
    )(inputs)
    critique_1 = await synalinks.Generator(
        data_model=Critique, language_model=language_model, name="critique_generator"
    )(inputs)
    outputs = answer_1 + critique_1
    concatenation = synalinks.Program(
        inputs=inputs, outputs=outputs, name="concatenation",
        description="Demonstrates field concatenation",
    )  # fmt: skip
    result = await concatenation(Query(query="What is 2 + 2?"))
    assert list(result.keys()) == ["answer", "critique"]
    assert result["critique"] == "critique: What is 2 + 2?"

    # Example 2: or (|) merges the branches' outputs.
    inputs = synalinks.Input(data_model=Query)
    (easy, hard) = await synalinks.Branch(
        question="Evaluate the difficulty to answer the query",
        labels=["easy", "difficult"],
        language_model=language_model,
        branches=[
            synalinks.Generator(data_model=Answer, language_model=language_model),
            synalinks.Generator(data_model=AnswerWithThinking, language_model=language_model),
        ],
        return_decision=False,
    )(inputs)
    outputs = easy | hard
    logical_or = synalinks.Program(
        inputs=inputs, outputs=outputs, name="logical_or",
        description="Demonstrates merging branch outputs",
    )  # fmt: skip
    result = await logical_or(Query(query="What is 1 + 1?"))
    assert result["answer"] == "answer: What is 1 + 1?"
    assert result["thinking"] == "Step by step."  # the hard branch answered
    easy_result = await logical_or(Query(query="What is 2 + 2?"))
    assert easy_result["thinking"] is None  # only the hard branch has a `thinking`

    # Example 3: and (&) as a safe concatenation on each branch, then or.
    inputs = synalinks.Input(data_model=Query)
    (easy, hard) = await synalinks.Branch(
        question="Evaluate the difficulty to answer the query",
        labels=["easy", "difficult"],
        language_model=language_model,
        branches=[
            synalinks.Generator(data_model=Answer, language_model=language_model),
            synalinks.Generator(data_model=AnswerWithThinking, language_model=language_model),
        ],
        return_decision=False,
    )(inputs)
    easy_with_query = inputs & easy
    hard_with_query = inputs & hard
    easy_critique = await synalinks.Generator(
        data_model=Critique, language_model=language_model, return_inputs=True
    )(easy_with_query)
    hard_critique = await synalinks.Generator(
        data_model=Critique, language_model=language_model, return_inputs=True
    )(hard_with_query)
    outputs = easy_critique | hard_critique
    logical_and = synalinks.Program(
        inputs=inputs, outputs=outputs, name="logical_and",
        description="Demonstrates safe concatenation with branches",
    )  # fmt: skip
    trace = await logical_and.trace(Query(query="What is 2 + 2?"))
    result = trace.output
    assert result["query"] == "What is 2 + 2?" and result["critique"].startswith("critique:")
    skipped = [step.module for step in trace.steps if step.skipped]
    assert len(skipped) == 3  # the hard branch, its `&` and its critique did not run

    # Examples 4 and 5: not (~) and xor (^) on data.
    data_a, data_b = Answer(answer="Answer A"), Answer(answer="Answer B")
    assert ~data_a is None
    assert (data_a ^ None) is data_a and (None ^ data_b) is data_b and (data_a ^ data_b) is None

    for program in (concatenation, logical_or, logical_and):
        again = await reloaded(program, tmp_path)
        query = Query(query="What is 2 + 2?")
        assert as_json(await again(query)) == as_json(await program(query))


async def test_multi_label_branch(tmp_path: Path) -> None:
    language_model = scripted()
    x0 = synalinks.Input(data_model=Article)
    (sci, fin, spo) = await synalinks.Branch(
        question="Which topics does this article cover?",
        labels=["science", "finance", "sports"],
        branches=[
            synalinks.Generator(data_model=ScienceSummary, language_model=language_model),
            synalinks.Generator(data_model=FinanceSummary, language_model=language_model),
            synalinks.Generator(data_model=SportsSummary, language_model=language_model),
        ],
        decision_type=synalinks.MultiDecision,
        language_model=language_model,
    )(x0)
    program = synalinks.Program(inputs=x0, outputs=[sci, fin, spo], name="topics")

    article = Article(text="A biotech startup's science raised finance from investors.")
    science, finance, sports = await program(article)
    assert science["science_summary"] and finance["finance_summary"] and sports is None
    assert science["choices"] == ["science", "finance"]

    again = await reloaded(program, tmp_path)
    assert as_json(await again(article)) == as_json(await program(article))


async def test_in_mask_and_out_mask(tmp_path: Path) -> None:
    language_model = scripted()
    inputs = synalinks.Input(data_model=Document)
    summary = await synalinks.ChainOfThought(data_model=Summary, language_model=language_model)(
        inputs
    )
    kept = await synalinks.InMask(mask=["summary"])(summary)
    program = synalinks.Program(
        inputs=inputs, outputs=kept, name="summary_generator",
        description="Generate a summary from a document",
    )  # fmt: skip
    document = Document(title="T", text="Some text.")
    assert (await program(document)).get_json() == {"summary": "summary: Some text."}

    inputs = synalinks.Input(data_model=Document)
    summary = await synalinks.ChainOfThought(data_model=Summary, language_model=language_model)(
        inputs
    )
    dropped = await synalinks.OutMask(mask=["thinking"])(summary)
    other = synalinks.Program(inputs=inputs, outputs=dropped, name="summary_without_thinking")
    assert (await other(document)).get_json() == {"summary": "summary: Some text."}

    for each in (program, other):
        again = await reloaded(each, tmp_path)
        assert (await again(document)).get_json() == {"summary": "summary: Some text."}


async def test_self_critique(tmp_path: Path) -> None:
    language_model = scripted()
    x0 = synalinks.Input(data_model=Query)
    x1 = await synalinks.ChainOfThought(
        data_model=Answer, language_model=language_model, return_inputs=True
    )(x0)
    x2 = await synalinks.SelfCritique(language_model=language_model)(x1)
    program = synalinks.Program(
        inputs=x0, outputs=x2, name="answer_with_cot_and_self_critique",
        description="Useful to answer accurately",
    )  # fmt: skip

    result = await program(Query(query="What is 15% of 80?"))
    assert result.keys() == ["query", "thinking", "answer", "critique", "reward"]
    assert result["reward"] == 0.8 and result["critique"].startswith("critique:")

    again = await reloaded(program, tmp_path)
    query = Query(query="What is 15% of 80?")
    assert as_json(await again(query)) == as_json(await program(query))


class AnswerWithCritique(synalinks.DataModel):
    thinking: str
    critique: str
    answer: str


async def test_adaptive_chain_of_thought(tmp_path: Path) -> None:
    # Branch's single-label docstring example: the slots, decision fields included
    # (return_decision), merged back by `|`.
    language_model = scripted()
    x0 = synalinks.Input(data_model=Query)
    (x1, x2) = await synalinks.Branch(
        question="What is the difficulty level of the above query?",
        labels=["easy", "difficult"],
        branches=[
            synalinks.Generator(data_model=Answer, language_model=language_model),
            synalinks.Generator(data_model=AnswerWithCritique, language_model=language_model),
        ],
        language_model=language_model,
    )(x0)
    x3 = x1 | x2
    program = synalinks.Program(
        inputs=x0, outputs=x3, name="adaptative_chain_of_thought",
        description="Useful to answer step by step only when needed",
    )  # fmt: skip

    easy = await program(Query(query="What is 2 + 2?"))
    hard = await program(Query(query="Why is the sky blue?"))
    assert easy["choice"] == "easy" and easy["answer"] == "answer: What is 2 + 2?"
    assert easy["critique"] is None  # only the difficult branch critiques
    assert hard["choice"] == "difficult" and hard["critique"] == "critique: Why is the sky blue?"
    assert hard["thinking"] == "Judging the query." and hard["thinking_1"] == "Step by step."

    again = await reloaded(program, tmp_path)
    for query in (Query(query="What is 2 + 2?"), Query(query="Why is the sky blue?")):
        assert as_json(await again(query)) == as_json(await program(query))
