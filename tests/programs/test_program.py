"""Building, running, describing and saving programs."""

from __future__ import annotations

import json

import pytest

import optimizer_core as synalinks
from optimizer_core.exceptions import DataError, GraphDisconnectedError, SerializationError
from tests.support import Answer, Query, build_program


async def test_functional_program_runs_and_returns_the_output_model() -> None:
    lm = synalinks.FakeLanguageModel(responses=[{"answer": "Paris"}])
    program = await build_program(lm)
    result = await program(Query(query="Capital of France?"))
    assert isinstance(result, Answer)
    assert result.get("answer") == "Paris"
    system, user = lm.calls[0].messages
    assert system["role"] == "system" and '["answer"]' in system["content"]
    assert json.loads(user["content"]) == {"query": "Capital of France?"}
    assert lm.calls[0].schema == Answer.model_json_schema()


async def test_program_accepts_a_dict_input_and_rejects_a_wrong_one() -> None:
    lm = synalinks.FakeLanguageModel(responses=[{"answer": "4"}])
    program = await build_program(lm)
    assert (await program({"query": "2+2?"})).answer == "4"
    with pytest.raises(DataError, match="Query"):
        await program({"question": "2+2?"})


async def test_chain_of_thought_adds_a_leading_thinking_field() -> None:
    lm = synalinks.FakeLanguageModel(responses=[{"thinking": "France -> Paris", "answer": "Paris"}])
    program = await build_program(lm, cot=True)
    result = await program(Query(query="Capital of France?"))
    assert list(result.get_json()) == ["thinking", "answer"]
    assert list(lm.calls[0].schema["properties"]) == ["thinking", "answer"]


async def test_a_failed_call_gives_none_not_an_exception() -> None:
    lm = synalinks.FakeLanguageModel(responses=["not json"] * 3, max_retries=2, backoff_base=0.0)
    program = await build_program(lm)
    assert await program(Query(query="?")) is None


async def test_output_from_an_input_outside_inputs_is_disconnected() -> None:
    lm = synalinks.FakeLanguageModel(responses=[])
    used = synalinks.Input(data_model=Query)
    stray = synalinks.Input(data_model=Query, name="stray_input")
    outputs = await synalinks.Generator(data_model=Answer, language_model=lm)(stray)
    with pytest.raises(GraphDisconnectedError, match="stray_input"):
        synalinks.Program(inputs=used, outputs=outputs)


async def test_an_input_that_reaches_no_output_is_disconnected() -> None:
    lm = synalinks.FakeLanguageModel(responses=[])
    a = synalinks.Input(data_model=Query)
    b = synalinks.Input(data_model=Query, name="unused_input")
    outputs = await synalinks.Generator(data_model=Answer, language_model=lm)(a)
    with pytest.raises(GraphDisconnectedError, match="unused_input"):
        synalinks.Program(inputs=[a, b], outputs=outputs)


def test_forgetting_await_is_explained() -> None:
    lm = synalinks.FakeLanguageModel(responses=[])
    inputs = synalinks.Input(data_model=Query)
    outputs = synalinks.Generator(data_model=Answer, language_model=lm)(inputs)
    with pytest.raises(TypeError, match="forget `await`"):
        synalinks.Program(inputs=inputs, outputs=outputs)


async def test_two_generators_chain_in_order() -> None:
    lm = synalinks.FakeLanguageModel(responses=[{"answer": "draft"}, {"answer": "final"}])
    inputs = synalinks.Input(data_model=Query)
    first = await synalinks.Generator(data_model=Answer, language_model=lm, name="draft")(inputs)
    second = await synalinks.Generator(data_model=Answer, language_model=lm, name="final")(first)
    program = synalinks.Program(inputs=inputs, outputs=second)
    assert [m.name for m in program.modules][1:] == ["draft", "final"]
    assert (await program(Query(query="q"))).answer == "final"
    assert json.loads(lm.calls[1].messages[1]["content"]) == {"answer": "draft"}
    assert len(program.trainable_variables) == 2


async def test_summary_lists_modules_and_models() -> None:
    program = await build_program(synalinks.FakeLanguageModel(responses=[]), name="qa")
    lines: list[str] = []
    text = program.summary(print_fn=lines.append)
    assert lines and text.startswith('Program: "qa"')
    assert "Generator" in text and "Query" in text and "Answer" in text
    assert "Trainable variables: 1" in text


async def test_save_and_load_round_trip_everything(tmp_path) -> None:
    lm = synalinks.FakeLanguageModel(responses=[{"answer": "Paris"}], cycle=True)
    program = await build_program(lm, name="qa")
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(nb_max_examples=2, seed=3),
        metrics=[synalinks.metrics.F1Score(in_mask=["answer"])],
    )
    variable = program.trainable_variables[0]
    variable.assign({"instructions": "Answer with the city only.", "examples": []})
    program.save(tmp_path / "model.json")

    loaded = synalinks.Program.load(tmp_path / "model.json")
    assert loaded.name == "qa"
    assert loaded.trainable_variables[0].get("instructions") == "Answer with the city only."
    assert isinstance(loaded.reward, synalinks.rewards.ExactMatch)
    assert isinstance(loaded.optimizer, synalinks.optimizers.RandomFewShot)
    assert loaded.optimizer.nb_max_examples == 2
    assert [m.name for m in loaded.metrics] == ["f1_score"]
    assert loaded.input_data_model is Query  # importable classes come back as themselves
    assert (await loaded(Query(query="France?"))).answer == "Paris"
    assert loaded.to_json() == program.to_json()


async def test_a_local_data_model_is_rebuilt_from_its_schema(tmp_path) -> None:
    class Local(synalinks.DataModel):
        city: str = synalinks.Field(description="A city")

    inputs = synalinks.Input(data_model=Query)
    outputs = await synalinks.Generator(
        data_model=Local, language_model=synalinks.FakeLanguageModel(responses=[{"city": "Rome"}])
    )(inputs)
    synalinks.Program(inputs=inputs, outputs=outputs).save(tmp_path / "p.json")
    loaded = synalinks.Program.load(tmp_path / "p.json")
    assert loaded.output_data_model is not Local
    assert loaded.output_data_model.model_json_schema() == Local.model_json_schema()


async def test_variables_round_trip_with_the_guides_file_name(tmp_path) -> None:
    program = await build_program(synalinks.FakeLanguageModel(responses=[]))
    program.trainable_variables[0].assign({"instructions": "Be brief.", "examples": []})
    program.save_variables(tmp_path / "variables.json")
    other = await build_program(synalinks.FakeLanguageModel(responses=[]))
    # Different auto-generated names: variables are matched by name, so rename first.
    other_variable = other.trainable_variables[0]
    document = json.loads((tmp_path / "variables.json").read_text())
    assert document["kind"] == "optimizer_core.variables"
    (tmp_path / "renamed.json").write_text(
        json.dumps(
            {
                **document,
                "variables": {other_variable.name: next(iter(document["variables"].values()))},
            }
        )
    )
    other.load_variables(tmp_path / "renamed.json")
    assert other_variable.get("instructions") == "Be brief."


async def test_bad_files_give_clear_errors(tmp_path) -> None:
    program = await build_program(synalinks.FakeLanguageModel(responses=[]))
    with pytest.raises(ValueError, match=r"must end with '\.json'"):
        program.save(tmp_path / "model.keras")
    with pytest.raises(ValueError, match=r"must end with '\.json'"):
        program.save_variables(tmp_path / "variables.txt")
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(SerializationError, match="not valid JSON"):
        synalinks.Program.load(tmp_path / "broken.json")
    (tmp_path / "other.json").write_text(json.dumps({"kind": "something", "format_version": 1}))
    with pytest.raises(SerializationError, match=r"expected a .optimizer_core\.program."):
        synalinks.Program.load(tmp_path / "other.json")
    (tmp_path / "vars.json").write_text(
        json.dumps(
            {
                "kind": "optimizer_core.variables",
                "format_version": 1,
                "variables": {"nope/state": {}},
            }
        )
    )
    with pytest.raises(SerializationError, match="nope/state"):
        program.load_variables(tmp_path / "vars.json")
    (tmp_path / "future.json").write_text(
        json.dumps({"kind": "optimizer_core.program", "format_version": 99})
    )
    with pytest.raises(SerializationError, match="format_version"):
        synalinks.Program.load(tmp_path / "future.json")


async def test_loading_a_program_with_an_unregistered_function_names_it(tmp_path) -> None:
    program = await build_program(synalinks.FakeLanguageModel(responses=[]))

    @synalinks.saving.register_synalinks_serializable(package="Tests", name="gone_reward")
    async def gone_reward(y_true, y_pred):
        return 1.0

    program.compile(
        reward=synalinks.rewards.MeanRewardWrapper(fn=gone_reward), optimizer="random_few_shot"
    )
    program.save(tmp_path / "p.json")
    text = (tmp_path / "p.json").read_text().replace("Tests>gone_reward", "Tests>missing_reward")
    (tmp_path / "p.json").write_text(text)
    with pytest.raises(SerializationError, match="missing_reward"):
        synalinks.Program.load(tmp_path / "p.json")


async def test_loading_refuses_to_import_code_named_by_a_file(tmp_path) -> None:
    """A saved file names classes to rebuild; in safe mode it cannot name arbitrary code."""
    program = await build_program(synalinks.FakeLanguageModel(responses=[]))
    program.compile(reward="exact_match", optimizer="random_few_shot")
    document = program.to_json()
    document["compile_config"]["reward"] = {
        "module": "subprocess", "class_name": "Popen", "registered_name": "subprocess.Popen",
        "config": {"args": ["touch", str(tmp_path / "pwned")]},
    }  # fmt: skip
    with pytest.raises(SerializationError, match="safe mode"):
        synalinks.Program.from_json(document)
    assert not (tmp_path / "pwned").exists()


async def test_safe_mode_still_loads_registered_functions_and_known_classes(tmp_path) -> None:
    @synalinks.saving.register_synalinks_serializable(package="Tests", name="always_one")
    async def always_one(y_true, y_pred):
        return 1.0

    program = await build_program(synalinks.FakeLanguageModel(responses=[]))
    program.compile(
        reward=synalinks.rewards.MeanRewardWrapper(fn=always_one), optimizer="random_few_shot"
    )
    program.save(tmp_path / "p.json")
    loaded = synalinks.Program.load(tmp_path / "p.json")
    assert loaded.reward.get_config() == program.reward.get_config()
    assert loaded.input_data_model is Query  # tests.support is already imported
