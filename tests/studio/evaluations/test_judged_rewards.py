"""An evaluation's reward resolves as a run's does: an LM judge on its own provider, a program
as judge, a code reward of the owner's library pinned to its version; another user's refused
at the field's path."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from optimizer_core.sandbox import prepare
from optimizer_core.testing.scripted_server import ScriptedServer
from studio.evaluations.execution import execute_evaluation
from studio.evaluations.models import Evaluation
from studio.scorers import services as scorers
from tests.studio.runs.factories import make_dataset, make_provider, make_version
from tests.studio.runs.test_judges import judge_version
from tests.studio.scorers.conftest import WITHIN

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

ROWS = 20
VERDICT = {"critique", "reward"}


def _schema_keys(request: dict[str, Any]) -> set[str]:
    schema = ((request.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    return set(schema.get("properties") or {})


@pytest.fixture
def judge_server(allow_outgoing) -> Iterator[ScriptedServer]:
    """Another provider's server: 7 of 10 from an LM judge, 0.25 from a judge program."""

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        if _schema_keys(request) == VERDICT:
            return {"critique": "close enough", "reward": 7}
        return {"reward": 0.25}

    with ScriptedServer(answer) as server:
        allow_outgoing(server)
        yield server


@pytest.fixture
def objects(user, good_server, worse_server, judge_server) -> dict[str, Any]:
    return {
        "version": make_version(user),
        "dataset": make_dataset(user, rows=ROWS, test_fraction=0.5),
        "good": make_provider(user, good_server.base_url),
        "worse": make_provider(user, worse_server.base_url),
        "judge": make_provider(user, judge_server.base_url),
    }


def body(objects: dict[str, Any], reward: Any) -> dict[str, Any]:
    return {
        "candidate_version": objects["version"].pk,
        "candidate_provider": objects["worse"].pk,
        "baseline_version": objects["version"].pk,
        "baseline_provider": objects["good"].pk,
        "dataset": objects["dataset"].pk,
        "reward": reward,
    }


def evaluate(api: Any, data: dict[str, Any], capture: Any) -> tuple[dict[str, Any], dict]:
    """The evaluation as started, and as it ended."""
    with capture(execute=True):
        response = api.post("/api/evaluations/", data, format="json")
    assert response.status_code == 202, response.json()
    started = response.json()
    assert execute_evaluation(started["id"]) == 0
    done = api.get(started["url"]).json()
    assert done["state"] == "succeeded", done["error"]
    return started, done


def refused(api: Any, data: dict[str, Any]) -> dict[str, list[str]]:
    response = api.post("/api/evaluations/", data, format="json")
    assert response.status_code == 400, response.json()
    assert not Evaluation.objects.exists()
    return response.json()


def test_an_lm_judge_on_its_own_provider_judges_both_sides_there(
    api, objects, good_server, worse_server, judge_server, django_capture_on_commit_callbacks
):
    judge = {
        "name": "lm_as_judge",
        "params": {"criteria": "names the right city", "score_type": "Rating10"},
        "provider": objects["judge"].pk,
    }
    started, done = evaluate(api, body(objects, judge), django_capture_on_commit_callbacks)

    assert started["reward"] == judge  # recorded as resolved
    verdicts = [r for r in judge_server.stats.requests if _schema_keys(r) == VERDICT]
    rows = len(done["baseline_rewards"])
    assert len(verdicts) == judge_server.stats.chat_requests == 2 * rows
    assert "names the right city" in verdicts[0]["messages"][0]["content"]
    for server in (good_server, worse_server):  # each side's provider answers its program only
        assert server.stats.chat_requests == rows
        assert not any(_schema_keys(r) == VERDICT for r in server.stats.requests)
    # 7 on the 1-10 scale is (7 - 1) / 9 on both sides: the judge says no change.
    assert done["baseline_rewards"] == pytest.approx([6 / 9] * rows)
    assert done["candidate_rewards"] == pytest.approx([6 / 9] * rows)
    assert done["result"]["verdict"] == "no detectable change"
    assert done["usage"]["calls"] == 4 * rows  # the judge's calls count too


def test_an_lm_judge_without_a_provider_is_recorded_on_the_baselines(
    api, objects, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/evaluations/", body(objects, "lm_as_judge"), format="json")

    assert response.status_code == 202, response.json()
    assert response.json()["reward"] == {
        "name": "lm_as_judge",
        "params": {},
        "provider": objects["good"].pk,
    }


def test_a_program_judges_on_the_judges_provider(
    api, user, objects, judge_server, django_capture_on_commit_callbacks
):
    version = judge_version(user)
    judge = {"name": "program_as_judge", "program": version.pk, "provider": objects["judge"].pk}
    started, done = evaluate(api, body(objects, judge), django_capture_on_commit_callbacks)

    assert started["reward"] == {**judge, "params": {}}
    rows = len(done["baseline_rewards"])
    assert judge_server.stats.chat_requests == 2 * rows
    assert all(_schema_keys(r) == {"reward"} for r in judge_server.stats.requests)
    assert done["baseline_rewards"] == done["candidate_rewards"] == [0.25] * rows


@pytest.fixture
def sandbox_runtime() -> Any:
    return prepare()


def test_a_code_reward_is_pinned_to_its_version_and_scores_in_the_sandbox(
    api, user, objects, sandbox_runtime, django_capture_on_commit_callbacks
):
    scorer = scorers.create_scorer(owner=user, name="same answer", source=WITHIN)
    scorers.create_version(scorer, source=WITHIN.replace("return 1.0", "return 0.875"))
    reward = {"name": "code_reward", "params": {"code": {"name": "same answer"}}}
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/evaluations/", body(objects, reward), format="json")
    assert response.status_code == 202, response.json()
    started = response.json()
    pinned = {"id": scorer.pk, "name": "same answer", "version": 2}
    assert started["reward"] == {"name": "code_reward", "params": {"code": pinned}}
    # A newer version after the start does not change what the evaluation scores with.
    scorers.create_version(scorer, source=WITHIN.replace("return 1.0", "return 0.5"))

    execute_evaluation(started["id"])

    done = api.get(started["url"]).json()
    assert done["state"] == "succeeded", done["error"]
    rows = len(done["baseline_rewards"])
    assert done["baseline_rewards"] == [0.875] * rows  # right on every row: version 2's score
    assert set(done["candidate_rewards"]) == {0.875, 0.0}  # wrong on some rows


def test_a_code_metric_is_no_reward(api, user, objects):
    source = "def metric(y_true, y_pred):\n    return 2.0\n"
    scorers.create_scorer(owner=user, name="length", kind="metric", source=source)
    errors = refused(
        api, body(objects, {"name": "code_reward", "params": {"code": {"name": "length"}}})
    )
    assert list(errors) == ["reward.params.code.name"]
    assert "is a metric" in errors["reward.params.code.name"][0]


def test_another_users_judge_provider_program_and_code_reward_are_refused_at_their_path(
    api, objects, other_user, judge_server
):
    provider = make_provider(other_user, judge_server.base_url)
    version = judge_version(other_user)
    scorers.create_scorer(owner=other_user, name="theirs", source=WITHIN)
    cases = [
        ({"name": "lm_as_judge", "provider": provider.pk},
         "reward.provider", f"you have no provider {provider.pk}"),
        ({"name": "program_as_judge", "program": version.pk},
         "reward.program", f"you have no program version {version.pk}"),
        ({"name": "code_reward", "params": {"code": {"name": "theirs"}}},
         "reward.params.code.name", "you have no code reward or metric named 'theirs'"),
    ]  # fmt: skip
    for reward, path, message in cases:
        errors = refused(api, body(objects, reward))
        assert errors == {path: [message]}, errors


@pytest.mark.parametrize(
    ("reward", "path", "message"),
    [
        ({"name": "exact_match", "provider": 1},
         "reward.provider", "'exact_match' takes no provider: it is no judge"),
        ({"name": "program_as_judge"}, "reward.program", "choose the judge"),
        ({"name": "field_rules", "params": {"rules": [
            {"field": "total", "comparison": "exact"}]}},
         "reward.params.rules.0.field", "the program's outputs have no field 'total'"),
    ],
)  # fmt: skip
def test_a_bad_judge_is_refused_at_its_path(api, objects, reward, path, message):
    errors = refused(api, body(objects, reward))
    assert list(errors) == [path], errors
    assert message in errors[path][0]


def test_a_judge_program_without_a_reward_output_is_refused(api, user, objects):
    answers = make_version(user, name="answers")
    errors = refused(api, body(objects, {"name": "program_as_judge", "program": answers.pk}))
    assert "cannot judge: its output needs a 'reward' field" in errors["reward.program"][0]


def test_field_rules_on_a_field_both_sides_output_are_stored_as_sent(
    api, objects, django_capture_on_commit_callbacks
):
    rules = {
        "name": "field_rules",
        "params": {"rules": [{"field": "answer", "comparison": "exact"}]},
    }
    started, done = evaluate(api, body(objects, rules), django_capture_on_commit_callbacks)

    assert started["reward"] == rules
    assert done["baseline_rewards"] == [1.0] * len(done["baseline_rewards"])
