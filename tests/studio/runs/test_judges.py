"""Rewards and metrics you configure: field rules, an LM judge on its own provider, a program
as judge; refused at the field's path, trained end to end on scripted servers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

import optimizer_core as synalinks
from optimizer_core.testing.scripted_server import ScriptedServer
from studio.programs.models import Program, ProgramVersion
from studio.providers.models import Provider
from studio.runs import services
from studio.runs.exceptions import RunConfigError
from studio.runs.models import Run
from studio.runs.training import execute_run
from tests.studio.runs.factories import make_dataset, make_provider, make_version

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

FIT = {"epochs": 1, "batch_size": 8, "seed": 0, "cache": False}
OPTIMIZER = {"name": "random_few_shot", "params": {"nb_max_examples": 2, "seed": 0}}
RULES = [{"field": "answer", "comparison": "normalized", "weight": 1}]


def config(reward: Any, *metrics: Any) -> dict[str, Any]:
    return {"reward": reward, "metrics": list(metrics), "optimizer": OPTIMIZER}


def start(user: Any, server: Any, compile_config: dict[str, Any], **kwargs: Any) -> Run:
    return services.start_run(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user, rows=10),
        provider=kwargs.pop("provider", None) or make_provider(user, server.base_url),
        compile_config=compile_config,
        fit_config=FIT,
        **kwargs,
    )


def refusal(user: Any, server: Any, compile_config: dict[str, Any]) -> dict[str, list[str]]:
    with pytest.raises(RunConfigError) as caught:
        start(user, server, compile_config)
    return caught.value.by_path()


class JudgeQuery(synalinks.DataModel):
    gold_answer: str = synalinks.Field(description="The expected answer")
    answer: str = synalinks.Field(description="The answer given")


class Verdict(synalinks.DataModel):
    reward: float = synalinks.Field(description="1.0 when the answer is right, else 0.0")


def judge_version(owner: Any, *, name: str = "strict judge") -> ProgramVersion:
    """One of the owner's programs whose output has a `reward` field."""

    async def build() -> dict[str, Any]:
        lm = synalinks.LanguageModel(model="openai/placeholder")
        inputs = synalinks.Input(data_model=JudgeQuery)
        outputs = await synalinks.Generator(data_model=Verdict, language_model=lm)(inputs)
        return synalinks.Program(inputs=inputs, outputs=outputs, name="judge").to_json()

    program = Program.objects.create(owner=owner, name=name)
    return ProgramVersion.objects.create(program=program, number=1, document=asyncio.run(build()))


def _schema_keys(request: dict[str, Any]) -> set[str]:
    schema = ((request.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    return set(schema.get("properties") or {})


@pytest.fixture
def judge_server(allow_outgoing) -> Iterator[ScriptedServer]:
    """A second provider's server: it answers an LM judge's verdict and a judge program's."""

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        if _schema_keys(request) == {"critique", "reward"}:
            return {"critique": "close enough", "reward": 7}
        return {"reward": 0.25}

    with ScriptedServer(answer) as server:
        allow_outgoing(server)
        yield server


# Refusals at the field's path ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("compile_config", "path", "message"),
    [
        (config({"name": "field_rules", "params": {"rules": [
            {"field": "answer", "comparison": "numeric", "tolerance": -1}]}}),
         "compile_config.reward.params.rules.0.tolerance", "must be a number >= 0"),
        (config({"name": "field_rules", "params": {"rules": [
            *RULES, {"field": "answer", "comparison": "fuzzy"}]}}),
         "compile_config.reward.params.rules.1.comparison", "must be one of"),
        (config({"name": "field_rules", "params": {"rules": [
            {"field": "total", "comparison": "exact"}]}}),
         "compile_config.reward.params.rules.0.field",
         "the program's outputs have no field 'total'; they have ['answer']"),
        (config({"name": "field_rules", "params": {}}),
         "compile_config.reward.params", "rules"),
        (config("exact_match", {"name": "field_rules", "params": {"rules": [
            {"field": "answer", "comparison": "regex", "pattern": "("}]}}),
         "compile_config.metrics[0].params.rules.0.pattern", "not a valid regular expression"),
        (config({"name": "exact_match", "provider": 1}),
         "compile_config.reward.provider", "'exact_match' takes no provider: it is no judge"),
        (config({"name": "lm_as_judge", "provider": "mine"}),
         "compile_config.reward.provider", "must be the id of one of your providers"),
        (config({"name": "lm_as_judge", "provider": 999_999}),
         "compile_config.reward.provider", "you have no provider 999999"),
        (config({"name": "lm_as_judge", "params": {"score_type": "Rating7"}}),
         "compile_config.reward.params", "must be one of"),
        (config({"name": "program_as_judge"}),
         "compile_config.reward.program", "choose the judge"),
        (config({"name": "program_as_judge", "program": 999_999}),
         "compile_config.reward.program", "you have no program version 999999"),
    ],
)  # fmt: skip
def test_a_bad_configuration_is_refused_at_its_path(
    user, scripted_server, compile_config, path, message
):
    problems = refusal(user, scripted_server, compile_config)

    assert list(problems) == [path], problems
    assert message in problems[path][0]
    assert not Run.objects.exists()


def test_a_judge_provider_must_be_your_own_language_provider(user, other_user, scripted_server):
    theirs = make_provider(other_user, scripted_server.base_url)
    embedding = Provider.objects.create(
        owner=user, name="embeddings", kind="embedding", model="openai/embed",
        api_base=scripted_server.base_url,
    )  # fmt: skip

    for provider, message in ((theirs, f"you have no provider {theirs.pk}"),
                              (embedding, "an embedding provider cannot run a program")):  # fmt: skip
        problems = refusal(
            user, scripted_server, config({"name": "lm_as_judge", "provider": provider.pk})
        )
        assert problems == {"compile_config.reward.provider": [message]}


def test_a_judge_program_needs_a_reward_output_and_must_be_yours(user, other_user, scripted_server):
    answers = make_version(user, name="answers")
    problems = refusal(
        user, scripted_server, config({"name": "program_as_judge", "program": answers.pk})
    )
    assert problems == {
        "compile_config.reward.program": [
            "program 'answers' v1 cannot judge: its output needs a 'reward' field (a number in "
            "[0, 1]); its output fields are ['answer']"
        ]
    }
    theirs = judge_version(other_user)
    problems = refusal(
        user, scripted_server, config({"name": "program_as_judge", "program": theirs.pk})
    )
    assert problems == {
        "compile_config.reward.program": [f"you have no program version {theirs.pk}"]
    }


# Trained end to end ------------------------------------------------------------------------


def test_a_run_trains_on_field_rules_as_reward_and_metric(user, scripted_server):
    rules = {"name": "field_rules", "params": {"rules": RULES}}
    run = start(user, scripted_server, config(rules, {**rules, "params": {**rules["params"]}}))

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error
    assert run.compile_config["reward"] == rules  # no judge: stored as sent
    before, after = run.before["summary"], run.after["summary"]
    # The untrained student may answer in a sentence; shown examples, the bare city.
    assert before["reward"]["mean"] < after["reward"]["mean"] == 1.0
    assert after["field_rules_metric"]["mean"] == after["reward"]["mean"]


def test_an_lm_judge_calls_its_own_provider_and_the_run_records_it(
    user, scripted_server, judge_server
):
    run_provider = make_provider(user, scripted_server.base_url)
    judge_provider = make_provider(user, judge_server.base_url)
    judge = {
        "name": "lm_as_judge",
        "params": {"criteria": "names the right city", "score_type": "Rating10"},
        "provider": judge_provider.pk,
    }
    run = start(user, scripted_server, config(judge), provider=run_provider)
    assert run.compile_config["reward"] == judge

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error
    verdicts = [r for r in judge_server.stats.requests if _schema_keys(r) == {"critique", "reward"}]
    assert verdicts and len(verdicts) == judge_server.stats.chat_requests
    assert "names the right city" in verdicts[0]["messages"][0]["content"]
    assert not any(
        _schema_keys(r) == {"critique", "reward"} for r in scripted_server.stats.requests
    )
    # 7 on the 1-10 scale is brought back to 0-1: (7 - 1) / 9.
    assert run.after["summary"]["reward"]["mean"] == pytest.approx(6 / 9)


def test_an_lm_judge_without_a_provider_judges_on_the_runs_and_says_so(user, scripted_server):
    provider = make_provider(user, scripted_server.base_url)
    run = start(user, scripted_server, config("lm_as_judge"), provider=provider)

    assert run.compile_config["reward"] == {
        "name": "lm_as_judge",
        "params": {},
        "provider": provider.pk,
    }


def test_a_program_judges_on_the_judge_provider(user, scripted_server, judge_server):
    version = judge_version(user)
    judge_provider = make_provider(user, judge_server.base_url)
    judge = {"name": "program_as_judge", "program": version.pk, "provider": judge_provider.pk}
    run = start(user, scripted_server, config(judge))
    assert run.compile_config["reward"] == {**judge, "params": {}}

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error
    assert judge_server.stats.chat_requests > 0
    assert all(_schema_keys(r) == {"reward"} for r in judge_server.stats.requests)
    asked = json.dumps(judge_server.stats.requests[0]["messages"])
    assert "gold_answer" in asked
    assert run.after["summary"]["reward"]["mean"] == pytest.approx(0.25)


def test_a_judge_watched_as_a_metric_calls_its_own_provider(user, scripted_server, judge_server):
    judge_provider = make_provider(user, judge_server.base_url)
    metric = {
        "name": "lm_as_judge",
        "params": {"score_type": "Rating10"},
        "provider": judge_provider.pk,
    }
    run = start(user, scripted_server, config("exact_match", metric))
    assert run.compile_config["metrics"] == [metric]

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error
    assert judge_server.stats.chat_requests > 0
    assert run.after["summary"]["lm_as_judge_metric"]["mean"] == pytest.approx(6 / 9)
    assert "reward" in run.after["summary"]  # exact match, optimised apart from the judge


def test_a_judge_program_watched_as_a_metric_is_checked_too(user, scripted_server):
    answers = make_version(user, name="answers")
    problems = refusal(
        user,
        scripted_server,
        config("exact_match", {"name": "program_as_judge", "program": answers.pk}),
    )
    assert list(problems) == ["compile_config.metrics[0].program"]


def test_a_judge_whose_provider_fails_fails_the_run_naming_the_judges_provider(
    user, scripted_server, judge_server, monkeypatch
):
    from studio.providers import crypto, redaction

    key = "judge-live-key-5Rt8Yu2Io6Pa"  # no known key shape: only the registry catches it
    judge_server.fail_next(status=401, times=10_000, echo_key=True)
    run_provider = make_provider(user, scripted_server.base_url)
    judge_provider = make_provider(user, judge_server.base_url)
    judge_provider.name = "judging endpoint"
    judge_provider.encrypted_api_key = crypto.encrypt(key)
    judge_provider.save()
    monkeypatch.setattr(redaction, "_secrets", set())  # only the worker's decrypt teaches it
    monkeypatch.setattr(redaction, "_snapshot", frozenset())
    judge = {"name": "lm_as_judge", "provider": judge_provider.pk}
    run = start(user, scripted_server, config(judge), provider=run_provider)

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.FAILED
    assert judge_server.stats.chat_requests > 0 and scripted_server.stats.chat_requests > 0
    assert "provider 'judging endpoint': " in run.error, run.error
    assert run_provider.name not in run.error
    assert "AuthenticationError" in run.error and key not in run.error


def test_when_the_runs_own_provider_fails_the_error_names_it(user, scripted_server, judge_server):
    scripted_server.fail_next(status=401, times=10_000)
    run_provider = make_provider(user, scripted_server.base_url)
    judge_provider = make_provider(user, judge_server.base_url)
    judge = {"name": "lm_as_judge", "provider": judge_provider.pk}
    run = start(user, scripted_server, config(judge), provider=run_provider)

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.FAILED
    assert f"provider {run_provider.name!r}: " in run.error, run.error
    assert judge_provider.name not in run.error
