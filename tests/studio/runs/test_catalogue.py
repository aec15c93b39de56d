"""GET /api/catalogue/: run setup's choices, read from the engine's registry.

The last tests register a reward and an optimizer here, in the test, and only
here: they show up in the catalogue with their settings, and a run started with
them validates (against their declared ranges) and trains, with no change to
the studio or the browser app.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from optimizer_core.optimizers import RandomFewShot
from optimizer_core.rewards import Reward
from optimizer_core.saving import Param, register_synalinks_serializable
from studio.runs.catalogue import run_catalogue
from studio.runs.config import FIT_DEFAULTS
from studio.runs.models import Run
from studio.runs.training import execute_run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider, make_version

pytestmark = pytest.mark.django_db


@register_synalinks_serializable(package="CatalogueTests")
class StartsLike(Reward):
    """1.0 when the prediction starts like the ground truth."""

    user_params = (
        Param("prefix_length", "characters compared", label="Prefix length", minimum=1),
        Param("case_sensitive", "whether case counts"),
    )

    def __init__(
        self, *, prefix_length: int = 3, case_sensitive: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)  # no range check here: the declaration is what the studio uses
        self.prefix_length = prefix_length
        self.case_sensitive = case_sensitive

    async def call(self, y_true: Any, y_pred: Any) -> float:
        def start(value: Any) -> str:
            text = " ".join(str(v) for v in (value or {}).values())
            return (text if self.case_sensitive else text.lower())[: self.prefix_length]

        return float(start(y_true) == start(y_pred))

    def get_config(self) -> dict[str, Any]:
        return {
            "prefix_length": self.prefix_length,
            "case_sensitive": self.case_sensitive,
            **super().get_config(),
        }


@register_synalinks_serializable(package="CatalogueTests")
class EveryOtherStep(RandomFewShot):
    """RandomFewShot that proposes only every `every` steps."""

    user_params = (Param("every", "steps between proposals", minimum=1, maximum=100),)

    def __init__(self, *, every: int = 2, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.every = every

    async def propose_candidates(
        self, step: int, trainable_variables: list[Any], context: Any
    ) -> list[Any]:
        if step % self.every:
            return []
        return await super().propose_candidates(step, trainable_variables, context)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "every": self.every}


def by_name(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in entries}


def params_of(entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {param["name"]: param for param in entry["params"]}


def test_only_a_signed_in_user_reads_the_catalogue(api: APIClient) -> None:
    assert APIClient().get("/api/catalogue/").status_code in (401, 403)
    response = api.get("/api/catalogue/")
    assert response.status_code == 200
    assert set(response.json()) == {
        "rewards", "metrics", "optimizers", "fit", "comparisons", "score_types"
    }  # fmt: skip


def test_the_built_ins_with_their_needs_and_settings(api: APIClient) -> None:
    catalogue = api.get("/api/catalogue/").json()
    rewards = by_name(catalogue["rewards"])
    # What the studio cannot supply (a function) is left out; a judge program is one of
    # the user's program versions, named by the entry.
    assert {"ExactMatch", "FieldRules", "LMAsJudge", "CosineSimilarity"} <= set(rewards)
    assert "MeanRewardWrapper" not in rewards
    assert rewards["ProgramAsJudge"]["needs"] == ["program"]
    [rules] = rewards["FieldRules"]["params"]
    assert rules["name"] == "rules" and rules["type"] == "field_rules" and rules["required"]
    assert params_of(by_name(catalogue["metrics"])["FieldRulesMetric"]) == {"rules": rules}
    comparisons = by_name(catalogue["comparisons"])
    assert list(comparisons) == [
        "exact", "normalized", "numeric", "regex", "contains", "token_f1", "set_f1", "json_equal"
    ]  # fmt: skip
    assert comparisons["numeric"]["options"] == ["tolerance", "relative"]
    assert comparisons["regex"]["options"] == ["pattern"]
    scales = by_name(catalogue["score_types"])
    assert scales["Rating"] == {"name": "Rating", "label": "Rating 1-5", "levels": [1, 2, 3, 4, 5]}
    assert scales["Score"]["levels"][:2] == [0.0, 0.1] and len(scales["Rating10"]["levels"]) == 10
    assert params_of(rewards["LMAsJudge"])["score_type"]["choices"] == list(scales)
    judge = rewards["LMAsJudge"]
    assert judge["label"] == "LM as judge" and judge["needs"] == ["language_model"]
    assert judge["description"].startswith("A language model grades")
    criteria = params_of(judge)["criteria"]
    assert criteria["type"] == "str" and criteria["nullable"] and criteria["default"] is None
    assert criteria["description"]
    assert params_of(rewards["ExactMatch"])["in_mask"]["type"] == "fields"
    assert rewards["CosineSimilarity"]["needs"] == ["embedding_model"]
    assert {"F1Score", "Precision", "Recall"} <= set(by_name(catalogue["metrics"]))
    assert "MeanMetricWrapper" not in by_name(catalogue["metrics"])

    optimizers = by_name(catalogue["optimizers"])
    omega = params_of(optimizers["OMEGA"])
    assert optimizers["OMEGA"]["needs"] == ["embedding_model", "language_model"]
    assert omega["algorithm"]["choices"] == ["dns", "ga"] and omega["algorithm"]["default"] == "dns"
    assert omega["population_size"]["minimum"] == 2 and omega["population_size"]["type"] == "int"
    assert omega["mutation_temperature"]["exclusive_minimum"] is True
    assert omega["merging_rate"]["maximum"] == 1
    assert "distance_function" not in omega and "name" not in omega
    few_shot = params_of(optimizers["RandomFewShot"])
    assert few_shot["seed"]["nullable"] and not few_shot["seed"]["required"]

    fit = {param["name"]: param for param in catalogue["fit"]}
    assert {name: param["default"] for name, param in fit.items()} == FIT_DEFAULTS
    assert (fit["epochs"]["minimum"], fit["epochs"]["maximum"]) == (1, 1000)
    assert fit["validation_split"]["exclusive_maximum"] is True


def test_the_catalogue_is_what_the_schema_describes(api: APIClient) -> None:
    schema = api.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/catalogue/"]["get"]
    assert operation["operationId"] == "catalogue"
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    component = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert set(component["required"]) == set(run_catalogue())


def test_the_browser_app_fixture_is_what_the_endpoint_answers() -> None:
    """frontend/src/features/runs/__fixtures__/catalogue.json, which the run setup tests
    read, is the built-ins' catalogue (rewrite it with frontend/scripts/make_fixtures.py)."""
    fixture = Path(__file__).resolve().parents[3] / (
        "frontend/src/features/runs/__fixtures__/catalogue.json"
    )
    built_ins = {
        section: [e for e in entries if ">" not in e["name"]] if section != "fit" else entries
        for section, entries in run_catalogue().items()
    }
    assert json.loads(fixture.read_text()) == built_ins


def test_a_class_registered_in_the_engine_is_offered(api: APIClient) -> None:
    catalogue = api.get("/api/catalogue/").json()
    reward = by_name(catalogue["rewards"])["CatalogueTests>StartsLike"]
    assert reward["label"] == "Starts like"
    assert reward["description"] == "1.0 when the prediction starts like the ground truth."
    assert reward["needs"] == []
    settings = params_of(reward)
    assert settings["prefix_length"] == {
        "name": "prefix_length",
        "label": "Prefix length",
        "description": "characters compared",
        "type": "int",
        "default": 3,
        "nullable": False,
        "required": False,
        "minimum": 1.0,
        "maximum": None,
        "exclusive_minimum": False,
        "exclusive_maximum": False,
        "choices": None,
    }
    assert settings["case_sensitive"]["type"] == "bool"
    assert {"in_mask", "out_mask"} <= set(settings)  # inherited from Reward
    optimizer = by_name(catalogue["optimizers"])["CatalogueTests>EveryOtherStep"]
    every = params_of(optimizer)["every"]
    assert (every["default"], every["minimum"], every["maximum"]) == (2, 1, 100)
    assert "population_size" in params_of(optimizer)  # inherited from RandomFewShot


CUSTOM = {
    "reward": {
        "name": "CatalogueTests>StartsLike",
        "params": {"prefix_length": 4, "in_mask": ["answer"]},
    },
    "metrics": COMPILE_CONFIG["metrics"],
    "optimizer": {"name": "CatalogueTests>EveryOtherStep", "params": {"every": 1, "seed": 0}},
}


def _body(user: Any, base_url: str, compile_config: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": "custom",
        "program_version": make_version(user).pk,
        "dataset": make_dataset(user).pk,
        "provider": make_provider(user, base_url).pk,
        "compile_config": compile_config,
        "fit_config": {"epochs": 2, "batch_size": 8, "evaluations": 1, "seed": 0},
    }


@pytest.mark.parametrize(
    ("section", "params", "words"),
    [
        ("reward", {"prefix_length": 0}, "`prefix_length` must be >= 1, got 0"),
        ("reward", {"case_sensitive": "yes"}, "`case_sensitive` must be true or false"),
        ("optimizer", {"every": 101}, "`every` must be <= 100, got 101"),
        ("optimizer", {"every": 1.5}, "`every` must be an integer, got 1.5"),
    ],
)
def test_a_run_with_registered_classes_is_checked_against_their_declarations(
    api: APIClient, user: Any, section: str, params: dict[str, Any], words: str
) -> None:
    config = {**CUSTOM, section: {"name": CUSTOM[section]["name"], "params": params}}
    response = api.post(
        "/api/runs/", _body(user, "http://provider.invalid/v1", config), format="json"
    )
    assert response.status_code == 400
    errors = response.json()
    assert list(errors) == [f"compile_config.{section}.params"], errors
    assert words in errors[f"compile_config.{section}.params"][0]
    assert not Run.objects.exists()


@pytest.mark.litellm
def test_a_run_with_registered_classes_trains(
    api: APIClient, user: Any, scripted_server: Any, enqueued: list[int]
) -> None:
    response = api.post("/api/runs/", _body(user, scripted_server.base_url, CUSTOM), format="json")
    assert response.status_code == 201, response.json()
    run_id = response.json()["id"]

    execute_run(run_id)

    run = Run.objects.get(pk=run_id)
    assert run.state == Run.State.SUCCEEDED, run.error
    assert run.after["summary"]["reward"]["mean"] > 0
    saved = run.trained_document["compile_config"]
    assert saved["reward"]["registered_name"] == "CatalogueTests>StartsLike"
    assert saved["reward"]["config"]["prefix_length"] == 4
    assert saved["optimizer"]["registered_name"] == "CatalogueTests>EveryOtherStep"
