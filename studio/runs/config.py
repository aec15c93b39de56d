"""A run's compile and fit configurations: their JSON shape, validation, and objects.

``compile_config`` (what `Program.compile` receives)::

    {"reward": {"name": "exact_match", "params": {"in_mask": ["answer"]}},
     "metrics": [{"name": "f1_score", "params": {"in_mask": ["answer"]}}],
     "optimizer": {"name": "random_few_shot", "params": {"nb_max_examples": 3, "seed": 0}}}

A bare name stands for ``{"name": name, "params": {}}``. A name must be one of
the family's built-ins (CamelCase or snake_case); the object is built through
the family's own `deserialize`, in safe mode, so a parameter that holds a
serialised object (a `MeanRewardWrapper`'s ``fn``, a `ProgramAsJudge`'s
``program``) resolves only to a registered object of the right kind. Parameters
are checked by building the object, so the library's own message (which names
the argument) reaches the user.

``fit_config``: ``epochs``, ``batch_size``, ``validation_split``, ``seed``,
``shuffle`` and ``evaluations`` (how many times the test split is evaluated
before and after training, for a mean ± std).

Errors are a `django.core.exceptions.ValidationError` whose dict keys are dotted
paths to the offending field, e.g. ``compile_config.optimizer.params``.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import ValidationError

from optimizer_core import metrics as metrics_family
from optimizer_core import optimizers as optimizers_family
from optimizer_core import rewards as rewards_family
from optimizer_core.saving import RefusedObjectError, locate, safe_mode_scope

JsonDict = dict[str, Any]

# Rewards and optimizers whose constructor needs a language model get the run's provider;
# those that need an embedding model get the owner's (see providers.default_embedding_model).
_NEEDS_LANGUAGE_MODEL = {"LMAsJudge", "OMEGA"}
_NEEDS_EMBEDDING_MODEL = {"CosineSimilarity", "OMEGA"}

FIT_DEFAULTS: JsonDict = {
    "epochs": 1,
    "batch_size": 32,
    "validation_split": 0.0,
    "seed": None,
    "shuffle": True,
    "evaluations": 3,
}
_INT_RANGES = {"epochs": (1, 1000), "batch_size": (1, 4096), "evaluations": (1, 20)}


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _class_name(family_objects: dict[str, Any], name: str) -> str | None:
    wanted = _squash(name)
    for key, cls in family_objects.items():
        if _squash(key) == wanted:
            return str(cls.__name__)
    return None


def _entry(value: Any, where: str) -> tuple[str, JsonDict]:
    if isinstance(value, str):
        return value, {}
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"name", "params"})
        if unknown:
            raise ValidationError({where: f"unknown key(s) {unknown}; expected name, params"})
        name, params = value.get("name"), value.get("params") or {}
        if not isinstance(name, str) or not name:
            raise ValidationError({f"{where}.name": "a name is required"})
        if not isinstance(params, dict):
            raise ValidationError({f"{where}.params": "must be an object"})
        return name, dict(params)
    raise ValidationError({where: 'expected a name or {"name": ..., "params": {...}}'})


def needs_embedding_model(config: Any) -> bool:
    """Whether a compile config names something that needs an embedding model."""
    entries = [config.get("reward"), config.get("optimizer"), *(config.get("metrics") or [])]
    for entry in entries if isinstance(config, dict) else []:
        name = entry if isinstance(entry, str) else (entry or {}).get("name", "")
        if _squash(str(name)) in {_squash(n) for n in _NEEDS_EMBEDDING_MODEL} | {"omega"}:
            return True
    return False


def _build(
    family: Any, value: Any, where: str, language_model: Any, embedding_model: Any = None
) -> Any:
    name, params = _entry(value, where)
    class_name = _class_name(family.ALL_OBJECTS, name)
    if class_name is None:
        known = sorted({cls.__name__ for cls in family.ALL_OBJECTS.values()})
        raise ValidationError({f"{where}.name": f"unknown name {name!r}; known: {known}"})
    for reserved in ("language_model", "embedding_model", "distance_function"):
        if reserved in params:
            raise ValidationError(
                {f"{where}.params.{reserved}": "set by the studio from the run's providers"}
            )
    if class_name in _NEEDS_LANGUAGE_MODEL:
        if language_model is None:
            from optimizer_core.language_models import FakeLanguageModel

            language_model = FakeLanguageModel()  # stands in while validating only
        params["language_model"] = language_model
    if class_name in _NEEDS_EMBEDDING_MODEL:
        if embedding_model is None:
            from optimizer_core.language_models import FakeEmbeddingModel

            embedding_model = FakeEmbeddingModel()  # stands in while validating only
        params["embedding_model"] = embedding_model
    try:
        with safe_mode_scope(True):
            return family.get(family.deserialize({"class_name": class_name, "config": params}))
    except RefusedObjectError as error:
        inside = locate(params, error.config)
        field = f"{where}.params.{inside}" if inside else f"{where}.params"
        raise ValidationError({field: error.reason}) from None
    except KeyError as error:
        raise ValidationError({f"{where}.params": f"missing parameter {error}"}) from None
    except (TypeError, ValueError) as error:
        raise ValidationError({f"{where}.params": str(error)}) from None


def build_compile_objects(
    config: JsonDict, language_model: Any = None, embedding_model: Any = None
) -> JsonDict:
    """``{"reward", "optimizer", "metrics"}`` objects for `Program.compile`.

    Raises:
        ValidationError: naming the field (``compile_config.reward.name`` ...).
    """
    if not isinstance(config, dict):
        raise ValidationError({"compile_config": "must be an object"})
    unknown = sorted(set(config) - {"reward", "optimizer", "metrics"})
    if unknown:
        raise ValidationError({"compile_config": f"unknown key(s) {unknown}"})
    for required in ("reward", "optimizer"):
        if config.get(required) in (None, ""):
            raise ValidationError({f"compile_config.{required}": "this field is required"})
    metrics = config.get("metrics") or []
    if not isinstance(metrics, list):
        raise ValidationError({"compile_config.metrics": "must be a list"})
    models = (language_model, embedding_model)
    return {
        "reward": _build(rewards_family, config["reward"], "compile_config.reward", *models),
        "optimizer": _build(
            optimizers_family, config["optimizer"], "compile_config.optimizer", *models
        ),
        "metrics": [
            _build(metrics_family, m, f"compile_config.metrics[{i}]", *models)
            for i, m in enumerate(metrics)
        ],
    }


def validate_compile_config(config: Any) -> JsonDict:
    """Check a compile config (by building it) and return it unchanged."""
    build_compile_objects(config)
    return dict(config)


def validate_fit_config(config: Any) -> JsonDict:
    """Check a fit config and return it with defaults filled in."""
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise ValidationError({"fit_config": "must be an object"})
    unknown = sorted(set(config) - set(FIT_DEFAULTS))
    if unknown:
        raise ValidationError(
            {"fit_config": f"unknown key(s) {unknown}; known: {sorted(FIT_DEFAULTS)}"}
        )
    merged = {**FIT_DEFAULTS, **config}
    for key, (low, high) in _INT_RANGES.items():
        value = merged[key]
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ValidationError(
                {f"fit_config.{key}": f"must be an integer in [{low}, {high}], got {value!r}"}
            )
    split = merged["validation_split"]
    if not isinstance(split, int | float) or isinstance(split, bool) or not 0.0 <= split < 1.0:
        raise ValidationError({"fit_config.validation_split": f"must be in [0, 1), got {split!r}"})
    seed = merged["seed"]
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise ValidationError({"fit_config.seed": f"must be an integer or null, got {seed!r}"})
    if not isinstance(merged["shuffle"], bool):
        raise ValidationError({"fit_config.shuffle": "must be true or false"})
    return merged
