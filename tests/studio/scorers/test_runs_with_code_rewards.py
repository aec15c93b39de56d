"""A run whose reward (and a metric) is code from the library: pinned, trained, kept."""

from __future__ import annotations

from typing import Any

import pytest

from studio.runs import services
from studio.runs.exceptions import RunConfigError
from studio.runs.models import Run
from studio.runs.training import execute_run
from studio.scorers import services as scorers
from studio.scorers.models import ScorerUse
from tests.studio.runs.factories import make_dataset, make_provider, make_version
from tests.studio.scorers.conftest import WITHIN

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

FIT = {"epochs": 1, "batch_size": 8, "seed": 0}
OPTIMIZER = {"name": "random_few_shot", "params": {"nb_max_examples": 3, "seed": 0}}
LENGTH = "def metric(y_true, y_pred):\n    return float(len(y_pred['answer']))\n"


def start(user: Any, server: Any, compile_config: dict[str, Any]) -> Run:
    return services.start_run(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        provider=make_provider(user, server.base_url),
        compile_config=compile_config,
        fit_config=FIT,
    )


def test_a_run_with_a_code_reward_records_its_version_and_scores_with_the_code(
    user, scripted_server
):
    scorer = scorers.create_scorer(owner=user, name="same answer", source=WITHIN)
    scorers.create_version(scorer, source=WITHIN.replace("return 1.0", "return 0.875"))
    scorers.create_scorer(owner=user, name="length", kind="metric", source=LENGTH)
    run = start(
        user,
        scripted_server,
        {
            "reward": {"name": "code_reward", "params": {"code": {"name": "same answer"}}},
            "metrics": [{"name": "code_metric", "params": {"code": {"name": "length"}}}],
            "optimizer": OPTIMIZER,
        },
    )
    pinned = run.compile_config["reward"]["params"]["code"]
    assert pinned == {"id": scorer.pk, "name": "same answer", "version": 2}
    # A newer version after the start does not change what the run uses.
    scorers.create_version(scorer, source=WITHIN.replace("return 1.0", "return 0.5"))

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error
    rewards = {example["reward"] for example in run.after["examples"]}
    assert 0.875 in rewards  # the right answers score what version 2 returns
    assert rewards <= {0.875, 0.0}
    assert "length" in run.after["summary"]
    assert run.after["summary"]["length"]["mean"] > 1.0  # a metric is not bounded to [0, 1]
    assert sorted(ScorerUse.objects.filter(run=run).values_list("slot", flat=True)) == [
        "compile_config.metrics[0]",
        "compile_config.reward",
    ]
    # A fork keeps the version its parent used, though a newer one exists now.
    fork = services.fork_run(run=run, epoch=1, fit_config={"epochs": 2})
    assert fork.compile_config["reward"]["params"]["code"]["version"] == 2
    assert ScorerUse.objects.filter(run=fork, version__number=2).count() == 1


def test_a_used_code_reward_cannot_be_deleted_until_its_runs_are(user, scripted_server, api):
    scorer = scorers.create_scorer(owner=user, name="same answer", source=WITHIN)
    run = start(
        user,
        scripted_server,
        {
            "reward": {"name": "code_reward", "params": {"code": {"name": "same answer"}}},
            "optimizer": OPTIMIZER,
        },
    )
    refused = api.delete(f"/api/scorers/{scorer.pk}/")
    assert refused.status_code == 409 and "1 run(s)" in refused.json()["detail"]
    assert api.get(f"/api/scorers/{scorer.pk}/").json()["run_count"] == 1
    run.delete()
    assert api.delete(f"/api/scorers/{scorer.pk}/").status_code == 204


def test_a_code_reward_that_fails_on_every_row_fails_the_run_with_the_reason(user, scripted_server):
    broken = "def reward(y_true, y_pred):\n    return y_pred['missing']\n"
    scorers.create_scorer(owner=user, name="broken", source=broken)
    run = start(
        user,
        scripted_server,
        {"reward": {"name": "code_reward", "params": {"code": {"name": "broken"}}},
         "optimizer": OPTIMIZER},
    )  # fmt: skip
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.state == Run.State.FAILED
    assert "UserCodeError" in run.error and "KeyError: 'missing'" in run.error, run.error


@pytest.mark.parametrize(
    ("reward", "path", "message"),
    [
        ({"name": "code_reward", "params": {"code": {"name": "nope"}}},
         "compile_config.reward.params.code.name", "no code reward"),
        ({"name": "code_reward", "params": {"code": {"name": "same answer", "version": 9}}},
         "compile_config.reward.params.code.version", "no version 9"),
        ({"name": "code_reward", "params": {"code": {"name": "length"}}},
         "compile_config.reward.params.code.name", "is a metric"),
        ({"name": "code_reward", "params": {"code": {"name": "same answer"}, "source": "x"}},
         "compile_config.reward.params", "unknown key"),
        ({"name": "mean_reward_wrapper", "params": {"fn": {"class_name": "CodeFunction",
          "config": {"source": "def reward(a, b):\n    return 1.0\n"}}}},
         "compile_config.reward.params", "CodeFunction"),
    ],
)  # fmt: skip
def test_a_run_config_names_code_only_through_the_owners_library(
    user, other_user, scripted_server, reward, path, message
):
    scorers.create_scorer(owner=user, name="same answer", source=WITHIN)
    scorers.create_scorer(owner=user, name="length", kind="metric", source=LENGTH)
    with pytest.raises(RunConfigError) as refused:
        start(user, scripted_server, {"reward": reward, "optimizer": OPTIMIZER})
    assert refused.value.path.startswith(path) and message in str(refused.value)


def test_another_users_code_reward_is_not_found_by_name(user, other_user, scripted_server):
    scorers.create_scorer(owner=other_user, name="theirs", source=WITHIN)
    with pytest.raises(RunConfigError) as refused:
        start(
            user,
            scripted_server,
            {"reward": {"name": "code_reward", "params": {"code": {"name": "theirs"}}},
             "optimizer": OPTIMIZER},
        )  # fmt: skip
    assert refused.value.path == "compile_config.reward.params.code.name"
