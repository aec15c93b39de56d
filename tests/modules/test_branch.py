"""Decision, MultiDecision and Branch: labels, the route in the trace, configs."""

from __future__ import annotations

import json
from typing import Any

import pytest

import optimizer_core as synalinks
from tests.support import Answer, Query


class Ask(synalinks.DataModel):
    question: str


def by_query(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> dict[str, Any]:
    """Routes ``math`` queries to "math", the rest to "other"; answers name their branch."""
    shown = json.loads(messages[-1]["content"])
    properties = (schema or {}).get("properties", {})
    if "choice" in properties:
        label = "math" if "+" in json.dumps(shown) else "other"
        return {"thinking": "t", "choice": label}
    system = messages[0]["content"]
    return {"answer": "math answer" if "Do the sum" in system else "other answer"}


async def routed(
    lm: Any, *, branches: list[Any] | None = None, **options: Any
) -> synalinks.Program:
    inputs = synalinks.Input(data_model=Query)
    if branches is None:
        branches = [
            synalinks.Generator(
                data_model=Answer,
                language_model=lm,
                instructions="Do the sum.",
                name="mathematician",
            ),
            synalinks.Generator(data_model=Answer, language_model=lm, name="generalist"),
        ]
    (math, other) = await synalinks.Branch(
        question="Is this an arithmetic question?",
        labels=["math", "other"],
        branches=branches,
        language_model=lm,
        name="router",
        **options,
    )(inputs)
    return synalinks.Program(inputs=inputs, outputs=math | other, name="routed")


def test_decision_labels_are_checked() -> None:
    lm = synalinks.FakeLanguageModel(responses=[])
    with pytest.raises(ValueError, match="at least two labels"):
        synalinks.Decision(question="?", labels=["only"], language_model=lm)
    with pytest.raises(ValueError, match=r"labels must be distinct, \['a'\] repeat"):
        synalinks.Decision(question="?", labels=["a", "a", "b"], language_model=lm)
    with pytest.raises(ValueError, match="`labels` must be a list of strings"):
        synalinks.Decision(question="?", labels="ab", language_model=lm)
    with pytest.raises(ValueError, match="`question` must be a non-empty string"):
        synalinks.Decision(question="", labels=["a", "b"], language_model=lm)


async def test_a_decision_answer_outside_the_labels_is_retried() -> None:
    lm = synalinks.FakeLanguageModel(
        responses=[{"thinking": "t", "choice": "maybe"}, {"thinking": "t", "choice": "yes"}],
        backoff_base=0.0,
    )
    decision = synalinks.Decision(question="Is it?", labels=["yes", "no"], language_model=lm)
    output = await decision(Query(query="q"))
    assert output is not None and output["choice"] == "yes" and len(lm.calls) == 2


async def test_the_question_is_renamed_when_the_input_has_one() -> None:
    lm = synalinks.FakeLanguageModel(responses=[{"thinking": "t", "choice": "yes"}])
    decision = synalinks.Decision(question="Is it polite?", labels=["yes", "no"], language_model=lm)
    await decision(Ask(question="Could you pass the salt?"))
    assert json.loads(lm.calls[0].messages[-1]["content"]) == {
        "question": "Could you pass the salt?",
        "question_1": "Is it polite?",
    }


async def test_a_multi_decision_gives_at_least_one_label() -> None:
    lm = synalinks.FakeLanguageModel(
        responses=[{"thinking": "t", "choices": []}, {"thinking": "t", "choices": ["b", "a"]}],
        backoff_base=0.0,
    )
    decision = synalinks.MultiDecision(question="Which?", labels=["a", "b", "c"], language_model=lm)
    output = await decision(Query(query="q"))
    assert output["choices"] == ["b", "a"] and decision.chosen(output) == ["a", "b"]


@pytest.mark.parametrize("cls", [synalinks.Decision, synalinks.MultiDecision])
def test_decisions_round_trip(cls: type[synalinks.Decision]) -> None:
    lm = synalinks.FakeLanguageModel(responses=[])
    module = cls(
        question="Which?", labels=["a", "b"], language_model=lm, temperature=0.0,
        instructions="Pick well.", name="picker",
    )  # fmt: skip
    config = synalinks.modules.serialize(module)
    assert "data_model" not in config["config"]
    again = synalinks.modules.deserialize(config)
    assert type(again) is cls and again.get_config() == module.get_config()
    assert again.state.get("instructions") == "Pick well."


async def test_the_trace_shows_the_branch_taken_and_skips_the_other() -> None:
    lm = synalinks.FakeLanguageModel(responder=by_query)
    program = await routed(lm)

    trace = await program.trace(Query(query="What is 2+3?"))

    assert trace.output["answer"] == "math answer" and trace.output["choice"] == "math"
    steps = {step.module: step for step in trace.steps}
    order = [step.module for step in trace.steps]
    assert order[:4] == ["router", "router_decision", "mathematician", "generalist"]
    assert len(order) == 5 and order[-1].startswith("or")  # then the Or that merges
    assert steps["router"].taken == ["math"] and steps["router"].parent is None
    assert steps["router_decision"].parent == "router"
    assert steps["router_decision"].inputs == {
        "query": "What is 2+3?",
        "question": "Is this an arithmetic question?",
    }
    assert steps["mathematician"].parent == "router" and not steps["mathematician"].skipped
    assert steps["mathematician"].inputs == {
        "query": "What is 2+3?", "thinking": "t", "choice": "math",
    }  # fmt: skip
    assert steps["generalist"].skipped and steps["generalist"].outputs is None
    assert steps["router"].outputs == [trace.output.get_json(), None]
    assert len(lm.calls) == 2  # the decision and the branch taken


async def test_a_label_without_a_module_routes_its_input_on() -> None:
    lm = synalinks.FakeLanguageModel(responder=by_query)
    inputs = synalinks.Input(data_model=Query)
    (math, other) = await synalinks.Branch(
        question="Is this an arithmetic question?",
        labels=["math", "other"],
        branches=[None, None],
        language_model=lm,
        return_decision=False,
    )(inputs)
    solved = await synalinks.Generator(
        data_model=Answer, language_model=lm, instructions="Do the sum.", name="mathematician"
    )(math)
    chatted = await synalinks.Generator(data_model=Answer, language_model=lm, name="chat")(other)
    program = synalinks.Program(inputs=inputs, outputs=solved | chatted)

    trace = await program.trace(Query(query="Hello there"))

    assert trace.output == Answer(answer="other answer")
    steps = {step.module: step for step in trace.steps}
    assert steps["mathematician"].skipped and steps["mathematician"].parent is None
    assert steps["chat"].inputs == {"query": "Hello there", "thinking": "t", "choice": "other"}


async def test_a_failed_decision_leaves_every_slot_empty_with_its_error() -> None:
    lm = synalinks.FakeLanguageModel(responses=["no"], cycle=True, max_retries=0)
    program = await routed(lm)
    trace = await program.trace(Query(query="1+1"))
    assert trace.output is None
    [failed] = [step for step in trace.steps if step.error]
    assert failed.module == "router_decision"
    assert {s.module for s in trace.steps if s.skipped} >= {"mathematician", "generalist"}


async def test_branch_options_shape_the_slots() -> None:
    lm = synalinks.FakeLanguageModel(responder=by_query)
    inputs = synalinks.Input(data_model=Query)
    plain = await synalinks.Branch(
        question="?", labels=["math", "other"], language_model=lm,
        branches=[synalinks.Generator(data_model=Answer, language_model=lm)] * 1 + [None],
        inject_decision=False, return_decision=False,
    )(inputs)  # fmt: skip
    assert [list(slot.data_model.model_fields) for slot in plain] == [["answer"], ["query"]]
    with pytest.raises(ValueError, match=r"2 labels .* but 1 branches"):
        synalinks.Branch(question="?", labels=["a", "b"], branches=[None], language_model=lm)
    with pytest.raises(ValueError, match="`decision_type` must be one of"):
        synalinks.Branch(
            question="?", labels=["a", "b"], branches=[None, None], language_model=lm,
            decision_type="Vote",
        )  # fmt: skip


async def test_a_branch_round_trips_with_its_modules_and_variables() -> None:
    lm = synalinks.FakeLanguageModel(responder=by_query)
    program = await routed(lm, temperature=0.0)
    program.get_variable("mathematician/state").assign({"instructions": "Do the sum, carefully."})

    again = synalinks.Program.from_json(program.to_json(), safe_mode=True)

    assert again.get_config() == program.get_config()
    assert again.get_module("router_decision").temperature == 0.0
    assert again.get_variable("mathematician/state").get("instructions") == (
        "Do the sum, carefully."
    )
    layout = {entry["variable"]: entry["path"] for entry in again.get_variables_layout()}
    assert layout == {
        "router_decision/state": "0:state",
        "mathematician/state": "1:state",
        "generalist/state": "2:state",
    }
    fresh = synalinks.FakeLanguageModel(responder=by_query)
    again.set_language_model(fresh)
    assert (await again(Query(query="4+4")))["answer"] == "math answer"
    assert len(fresh.calls) == 2


async def test_two_modules_of_one_name_are_refused_even_inside_a_branch() -> None:
    lm = synalinks.FakeLanguageModel(responses=[])
    inputs = synalinks.Input(data_model=Query)
    first = await synalinks.Generator(data_model=Answer, language_model=lm, name="twin")(inputs)
    (a, b) = await synalinks.Branch(
        question="?", labels=["a", "b"], language_model=lm,
        branches=[synalinks.Generator(data_model=Answer, language_model=lm, name="twin"), None],
    )(inputs)  # fmt: skip
    with pytest.raises(synalinks.exceptions.GraphDisconnectedError, match="named 'twin'"):
        synalinks.Program(inputs=inputs, outputs=[first, a, b])


async def test_a_document_names_a_branch_slot_by_its_output_index() -> None:
    lm = synalinks.FakeLanguageModel(responder=by_query)
    program = await routed(lm)
    document = program.to_json()
    merge = document["program"]["modules"][-1]
    assert merge["inbound"] == [
        {"module": "router", "output": 0},
        {"module": "router", "output": 1},
    ]
    merge["inbound"] = ["router"]
    with pytest.raises(synalinks.exceptions.SerializationError, match="has 2 outputs") as error:
        synalinks.Program.from_json(document)
    assert error.value.path == "program.modules[2].inbound[0]"
    merge["inbound"] = [{"module": "router", "output": 2}]
    with pytest.raises(synalinks.exceptions.SerializationError, match="outputs 0 to 1, got 2"):
        synalinks.Program.from_json(document)
