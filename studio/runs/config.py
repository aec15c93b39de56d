"""A run's compile and fit configurations: their JSON shape, validation, and objects.

``compile_config`` (what `Program.compile` receives)::

    {"reward": {"name": "exact_match", "params": {"in_mask": ["answer"]}},
     "metrics": [{"name": "f1_score", "params": {"in_mask": ["answer"]}}],
     "optimizer": {"name": "random_few_shot", "params": {"nb_max_examples": 3, "seed": 0}}}

A bare name stands for ``{"name": name, "params": {}}``. An entry that needs a
language model or a program (a judge) may also carry ``"provider"`` (the
judge's own provider, default the run's) and ``"program"`` (the judge program's
version id); see `studio.runs.judges`, which resolves them, and stores them
filled in. A ``field_rules`` reward or metric holds ``{"rules": [...]}``
(`optimizer_core.rewards.field_rules`): each rule is checked at its own path
(``compile_config.reward.params.rules.0.tolerance``), and each field it names
must be an output field of the run's program. A name is looked up in
the engine's family (`optimizer_core.saving.family`): a built-in in any
spelling (``"ExactMatch"``, ``"exact_match"``) or the registered name of a
registered member class. What the class needs (its ``needs``: a language model,
an embedding model) the studio supplies; its parameters are checked against the
settings it declares (type, range, choices), then by building the object
through the family's own `deserialize`, in safe mode, so a parameter that holds
a serialised object (a `MeanRewardWrapper`'s ``fn``, a `ProgramAsJudge`'s
``program``) resolves only to a registered object of the right kind. Either
check names the argument in its message.

``fit_config``: ``epochs``, ``batch_size``, ``validation_split``, ``seed``,
``shuffle``, ``evaluation_temperature``, ``evaluations``, the hard caps
``max_calls``, ``max_tokens``, ``max_cost`` (None: no cap; see `budget_caps`
and `studio.runs.training`), ``cache`` (the owner's response cache, on by
default) and ``early_stopping`` (None, the default: off; else
``{"patience", "min_delta", "monitor", "restore_best_variables"}``, the engine's
`EarlyStopping` settings, see `EARLY_STOPPING_PARAMS`: its ``monitor`` must be
a figure the run's history will have, see `history_keys`). The test split is
evaluated before and after training with every module's model pinned to
``evaluation_temperature`` (default 0: the same prompt gets the same answer, so
the difference is the training's, not sampling noise) and, at temperature 0, to
the run's seed where the provider takes one. ``evaluations`` repeats each
evaluation (for a mean ± std) only when that temperature is above 0: at 0 a
repeat would give the same answers again (`evaluation_settings`).

A reward or metric may be code from the owner's library: ``{"name": "code_reward",
"params": {"code": {"name": "within_1pct", "version": 3}, "in_mask": [...]}}``
(``code_metric`` for a metric), resolved and pinned by `studio.scorers.references`;
`validate_compile_config` returns the config pinned when given the owner, and the
objects are built by a `references.Library` handed to `build_compile_objects`.

Errors are a `studio.runs.exceptions.RunConfigError` (a `DomainError`, 400) whose
`FieldError` path is the dotted path to the offending field, e.g.
``compile_config.optimizer.params``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from optimizer_core.rewards.field_rules import FieldRuleError
from optimizer_core.saving import (
    Param,
    RefusedObjectError,
    check_params,
    family,
    get_registered_name,
    locate,
    needs_of,
    safe_mode_scope,
    user_params,
)
from optimizer_core.saving.naming import snake_case
from optimizer_core.saving.params import completed
from studio.runs.exceptions import RunConfigError
from studio.scorers import references

if TYPE_CHECKING:
    from studio.runs.judges import Judges

JsonDict = dict[str, Any]

#: What the studio supplies to a class that needs it: the run's provider (or the entry's
#: own), the owner's embedding model (see providers.default_embedding_model), and a
#: judge program, one of the owner's program versions (see `studio.runs.judges`).
SUPPLIED_NEEDS = ("language_model", "embedding_model", "program")
#: The keys an entry may hold beside name and params (`studio.runs.judges`).
JUDGE_KEYS = ("provider", "program")
#: Constructor arguments a run config may not set.
_RESERVED_PARAMS = ("language_model", "embedding_model", "distance_function", "program")

#: The fit settings, their defaults and ranges (what run setup shows and this module checks).
FIT_PARAMS: tuple[Param, ...] = tuple(
    completed(param)
    for param in (
        Param("epochs", "passes over the training rows", type="int", default=1,
              minimum=1, maximum=1000),
        Param("batch_size", "rows predicted together; the optimizer steps once per batch",
              type="int", default=32, minimum=1, maximum=4096),
        Param("validation_split",
              "fraction of the training rows held out to score candidates and epochs",
              type="float", default=0.0, minimum=0.0, maximum=1.0, exclusive_maximum=True),
        Param("seed", "seed of the split and the shuffle (none: random)", type="int",
              default=None),
        Param("evaluation_temperature",
              "temperature of every LM call of the evaluations before and after training; "
              "0 gives repeatable scores, so before and after differ by the training alone",
              label="Evaluation temperature", type="float", default=0.0, minimum=0.0,
              maximum=2.0),
        Param("evaluations",
              "times the test split is evaluated before and after training, for a mean ± std; "
              "only above evaluation temperature 0 (at 0 a repeat gives the same answers)",
              label="Evaluations (before / after)", type="int", default=1, minimum=1,
              maximum=20),
        Param("shuffle", "shuffle the training rows every epoch", type="bool", default=True),
        Param("max_calls",
              "hard cap on requests to the provider (retries count, cache hits do not); "
              "the run stops with its best program when it is spent (none: no cap)",
              label="Max LM calls", type="int", default=None, minimum=1, maximum=10_000_000),
        Param("max_tokens",
              "hard cap on tokens (prompt + completion); the request that crosses it is the "
              "last (none: no cap)",
              label="Max tokens", type="int", default=None, minimum=1,
              maximum=100_000_000_000),
        Param("max_cost",
              "hard cap on cost in US dollars, where the provider has prices; the request that "
              "crosses it is the last (none: no cap)",
              label="Max cost ($)", type="float", default=None, minimum=0.0,
              exclusive_minimum=True, maximum=1_000_000.0),
        Param("cache",
              "reuse your earlier answers to identical requests (same model, messages, schema, "
              "temperature, seed and parameters) across your runs; a cached answer repeats, "
              "even above temperature 0: turn off for fresh samples",
              label="Response cache", type="bool", default=True),
    )
)  # fmt: skip
#: The settings of ``fit_config.early_stopping`` (the engine's `EarlyStopping`); ``monitor``
#: defaults to ``val_reward`` when the run holds validation rows, else ``reward``.
EARLY_STOPPING_PARAMS: tuple[Param, ...] = tuple(
    completed(param)
    for param in (
        Param("patience", "epochs without improvement of the monitored figure before the run "
              "stops", type="int", default=1, minimum=1, maximum=1000),
        Param("min_delta", "the least rise of the monitored figure that counts as an "
              "improvement", label="Min delta", type="float", default=0.0, minimum=0.0,
              maximum=1_000_000.0),
        Param("monitor", "the figure watched: val_reward (the validation rows' reward) or "
              "reward, or a metric", type="str", default=None),
        Param("restore_best_variables",
              "when it stops, keep the program of the epoch with the best monitored figure",
              label="Restore best variables", type="bool", default=False),
    )
)  # fmt: skip
_EARLY_STOPPING_PARAM = {param.name: param for param in EARLY_STOPPING_PARAMS}
FIT_DEFAULTS: JsonDict = {param.name: param.default for param in FIT_PARAMS}
#: Every key of a fit config: the settings, and ``early_stopping`` (None: off).
_FIT_KEYS = {*FIT_DEFAULTS, "early_stopping"}
_FIT_PARAM = {param.name: param for param in FIT_PARAMS}
_INT_RANGES = {
    param.name: (int(param.minimum), int(param.maximum))
    for param in FIT_PARAMS
    if param.type == "int"
    and param.minimum is not None
    and param.maximum is not None
    and param.default is not None  # the caps may be None: Param.check checks them
}


def _entry(value: Any, where: str) -> tuple[str, JsonDict, JsonDict]:
    """An entry's name, params and judge keys (``provider``, ``program``: None when absent)."""
    if isinstance(value, str):
        return value, {}, {}
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"name", "params", *JUDGE_KEYS})
        if unknown:
            raise RunConfigError(
                f"unknown key(s) {unknown}; expected name, params (and provider, program "
                "for a judge)",
                path=where,
            )
        name, params = value.get("name"), value.get("params") or {}
        if not isinstance(name, str) or not name:
            raise RunConfigError("a name is required", path=f"{where}.name")
        if not isinstance(params, dict):
            raise RunConfigError("must be an object", path=f"{where}.params")
        extras = {key: value[key] for key in JUDGE_KEYS if value.get(key) is not None}
        return name, dict(params), extras
    raise RunConfigError('expected a name or {"name": ..., "params": {...}}', path=where)


def _entries(config: Any) -> list[tuple[str, Any]]:
    if not isinstance(config, dict):
        return []
    metrics = config.get("metrics")
    return [
        ("reward", config.get("reward")),
        ("optimizer", config.get("optimizer")),
        *(("metric", entry) for entry in (metrics if isinstance(metrics, list) else [])),
    ]


def needs_embedding_model(config: Any) -> bool:
    """Whether a compile config names something that needs an embedding model."""
    for kind, entry in _entries(config):
        name = entry if isinstance(entry, str) else (entry or {}).get("name", "")
        cls = family(kind).find(str(name))
        if cls is not None and "embedding_model" in needs_of(cls):
            return True
    return False


def _rules_error(error: FieldRuleError, where: str) -> RunConfigError:
    path = f"{where}.params.rules"
    if error.index is not None:
        path += f".{error.index}"
    if error.key is not None:
        path += f".{error.key}"
    return RunConfigError(error.reason, path=path)


def _check_rule_fields(built: Any, where: str, fields: list[str] | None) -> None:
    """Each field rule names one of the program's output fields, else refused at its path."""
    if fields is None:
        return
    for index, rule in enumerate(getattr(built, "rules", ())):
        if rule.field not in fields:
            raise RunConfigError(
                f"the program's outputs have no field {rule.field!r}; they have {fields}",
                path=f"{where}.params.rules.{index}.field",
            )


def _build(
    kind: str,
    value: Any,
    where: str,
    language_model: Any,
    embedding_model: Any = None,
    judges: Judges | None = None,
    library: references.Library | None = None,
) -> Any:
    return _build_entry(kind, value, where, language_model, embedding_model, judges, library)[0]


def _build_entry(
    kind: str,
    value: Any,
    where: str,
    language_model: Any,
    embedding_model: Any = None,
    judges: Judges | None = None,
    library: references.Library | None = None,
) -> tuple[Any, Any]:
    """The entry's object, and the entry as the run stores it (the judges' ids filled in)."""
    name, params, extras = _entry(value, where)
    stored: Any = value
    if references.is_code_entry(kind, {"name": name}):
        if library is None:
            raise RunConfigError(
                "a code reward or metric is for a run: it resolves in the run owner's library",
                path=f"{where}.name",
            )
        return library(kind, params, where), stored
    members = family(kind)
    cls = members.find(name)
    if cls is None:
        known = sorted(members.name_of(member) for member in members.members())
        raise RunConfigError(f"unknown name {name!r}; known: {known}", path=f"{where}.name")
    for reserved in _RESERVED_PARAMS:
        if reserved in params:
            source = "run's providers" if reserved != "program" else "entry's program (an id)"
            raise RunConfigError(
                f"set by the studio from the {source}", path=f"{where}.params.{reserved}"
            )
    try:
        # The declared ranges, where the constructor does not check them itself.
        check_params(user_params(cls), params)
    except (TypeError, ValueError) as error:
        raise RunConfigError(str(error), path=f"{where}.params") from None
    needs = needs_of(cls)
    for key, need in (("provider", "language_model"), ("program", "program")):
        if key in extras and need not in needs and not (key == "provider" and "program" in needs):
            raise RunConfigError(f"{name!r} takes no {key}: it is no judge", path=f"{where}.{key}")
    if judges is not None and ({"language_model", "program"} & set(needs)):
        provider = judges.provider(extras.get("provider"), f"{where}.provider")
        language_model = judges.language_model(provider)
        stored = {"name": name, "params": dict(params), "provider": provider.pk}
        if "program" in needs:
            version = judges.version(extras.get("program"), f"{where}.program")
            params["program"] = judges.program(version, language_model, f"{where}.program")
            stored["program"] = version.pk
    if "language_model" in needs:
        if language_model is None:
            from optimizer_core.language_models import FakeLanguageModel

            language_model = FakeLanguageModel()  # stands in while validating only
        params["language_model"] = language_model
    if "embedding_model" in needs:
        if embedding_model is None:
            from optimizer_core.language_models import FakeEmbeddingModel

            embedding_model = FakeEmbeddingModel()  # stands in while validating only
        params["embedding_model"] = embedding_model
    serialised = {
        "class_name": cls.__name__,
        "registered_name": get_registered_name(cls),
        "config": params,
    }
    try:
        with safe_mode_scope(True):
            built = members.get(members.deserialize(serialised))
    except FieldRuleError as error:
        raise _rules_error(error, where) from None
    except RefusedObjectError as error:
        inside = locate(params, error.config)
        field = f"{where}.params.{inside}" if inside else f"{where}.params"
        raise RunConfigError(error.reason, path=field) from None
    except KeyError as error:
        raise RunConfigError(f"missing parameter {error}", path=f"{where}.params") from None
    except (TypeError, ValueError) as error:
        if isinstance(error.__cause__, FieldRuleError):
            raise _rules_error(error.__cause__, where) from None
        raise RunConfigError(str(error), path=f"{where}.params") from None
    _check_rule_fields(built, where, judges.run_output_fields if judges is not None else None)
    return built, stored


def build_compile_objects(
    config: JsonDict,
    language_model: Any = None,
    embedding_model: Any = None,
    judges: Judges | None = None,
    *,
    library: references.Library | None = None,
) -> JsonDict:
    """``{"reward", "optimizer", "metrics"}`` objects for `Program.compile`.

    Args:
        judges: resolves the judges' providers and programs, and checks field rules
            against the program's outputs (`studio.runs.judges`); None: a judge that
            needs a program cannot be built, a judge LM is the run's.
        library: builds the code rewards and metrics the config names (the owner's).

    Raises:
        RunConfigError: at the path of the field (``compile_config.reward.name`` ...).
    """
    return _compile(config, language_model, embedding_model, judges, library)[0]


def _compile(
    config: Any,
    language_model: Any,
    embedding_model: Any,
    judges: Judges | None,
    library: references.Library | None = None,
) -> tuple[JsonDict, JsonDict]:
    """The compile objects, and the config as the run stores it."""
    if not isinstance(config, dict):
        raise RunConfigError("must be an object", path="compile_config")
    unknown = sorted(set(config) - {"reward", "optimizer", "metrics"})
    if unknown:
        raise RunConfigError(f"unknown key(s) {unknown}", path="compile_config")
    for required in ("reward", "optimizer"):
        if config.get(required) in (None, ""):
            raise RunConfigError("this field is required", path=f"compile_config.{required}")
    metrics = config.get("metrics") or []
    if not isinstance(metrics, list):
        raise RunConfigError("must be a list", path="compile_config.metrics")
    models = (language_model, embedding_model, judges, library)
    reward, stored_reward = _build_entry(
        "reward", config["reward"], "compile_config.reward", *models
    )
    optimizer = _build("optimizer", config["optimizer"], "compile_config.optimizer", *models)
    built_metrics = [
        _build_entry("metric", m, f"compile_config.metrics[{i}]", *models)
        for i, m in enumerate(metrics)
    ]
    stored = {**config, "reward": stored_reward}
    if "metrics" in config:
        stored["metrics"] = [entry for _, entry in built_metrics]
    objects = {
        "reward": reward,
        "optimizer": optimizer,
        "metrics": [metric for metric, _ in built_metrics],
    }
    return objects, stored


def build_reward(
    value: Any,
    *,
    path: str = "compile_config.reward",
    language_model: Any = None,
    embedding_model: Any = None,
    judges: Judges | None = None,
    library: references.Library | None = None,
) -> Any:
    """One reward object from its config (a name or ``{"name", "params"}``), checked as a
    run's reward is; what it needs is supplied (a stand-in while only validating).

    Args:
        judges, library: as `build_compile_objects`'s (an evaluation's reward passes its
            own: its judge on its own provider, its code from the owner's library).

    Raises:
        RunConfigError: at ``path`` (``reward.name``, ``reward.params``...).
    """
    if value in (None, ""):
        raise RunConfigError("this field is required", path=path)
    return _build("reward", value, path, language_model, embedding_model, judges, library)


def reward_library(value: Any, owner: Any, *, path: str = "reward") -> references.Library:
    """The owner's library for a lone reward ``value`` (an evaluation's) whose refusals are
    at ``path`` (``reward.params.code.name``...); its ``config["reward"]`` is ``value``
    pinned."""
    root = path.removesuffix("reward").removesuffix(".")
    return references.Library({"reward": value}, owner, RunConfigError, root=root)


def validate_reward(value: Any, judges: Judges, *, owner: Any, path: str = "reward") -> JsonDict:
    """Check a lone reward (an evaluation's) as a run's reward is checked, and return it as
    stored: its judge's ``provider`` (and ``program``) ids filled in, a code reward pinned
    to its version (`references.pin`).

    Raises:
        RunConfigError: at ``path`` (``reward.provider``, ``reward.params.code.name``...).
    """
    if value in (None, ""):
        raise RunConfigError("this field is required", path=path)
    if isinstance(value, str):
        value = {"name": value, "params": {}}
    library = reward_library(value, owner, path=path)
    pinned = library.config["reward"]
    stored = _build_entry("reward", pinned, path, None, None, judges, library)[1]
    if isinstance(stored, dict):
        stored = {**stored, "params": dict(stored.get("params") or {})}
    return dict(stored)


def validate_compile_config(
    config: Any, judges: Judges | None = None, *, owner: Any = None
) -> JsonDict:
    """Check a compile config (by building it) and return it as the run stores it.

    Args:
        judges: see `build_compile_objects`; with it, the entries of judges come back
            with their ``provider`` (and ``program``) ids filled in.
        owner: whose library its code rewards and metrics resolve in (None: it may name
            none); each is returned pinned to the version it resolved to.
    """
    library = references.Library(config, owner, RunConfigError) if owner is not None else None
    pinned = library.config if library is not None else config
    return dict(_compile(pinned, None, None, judges, library)[1])


def validate_fit_config(config: Any, *, metrics: list[str] | None = None) -> JsonDict:
    """Check a fit config and return it with defaults filled in.

    Args:
        config: the fit config sent.
        metrics: the names the run's metrics log under (`metric_names`): what
            ``early_stopping.monitor`` may name besides the reward.
    """
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise RunConfigError("must be an object", path="fit_config")
    unknown = sorted(set(config) - _FIT_KEYS)
    if unknown:
        raise RunConfigError(
            f"unknown key(s) {unknown}; known: {sorted(_FIT_KEYS)}", path="fit_config"
        )
    merged = {**FIT_DEFAULTS, "early_stopping": None, **config}
    for key, (low, high) in _INT_RANGES.items():
        value = merged[key]
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise RunConfigError(
                f"must be an integer in [{low}, {high}], got {value!r}", path=f"fit_config.{key}"
            )
    split = merged["validation_split"]
    if not isinstance(split, int | float) or isinstance(split, bool) or not 0.0 <= split < 1.0:
        raise RunConfigError(
            f"must be in [0, 1), got {split!r}", path="fit_config.validation_split"
        )
    seed = merged["seed"]
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise RunConfigError(f"must be an integer or null, got {seed!r}", path="fit_config.seed")
    if not isinstance(merged["shuffle"], bool):
        raise RunConfigError("must be true or false", path="fit_config.shuffle")
    for key in ("evaluation_temperature", "max_calls", "max_tokens", "max_cost", "cache"):
        try:
            _FIT_PARAM[key].check(merged[key])
        except (TypeError, ValueError) as error:
            raise RunConfigError(str(error), path=f"fit_config.{key}") from None
    merged["early_stopping"] = _early_stopping(
        merged["early_stopping"], validation=split > 0, metrics=metrics
    )
    return merged


def history_keys(metrics: list[str], *, validation: bool) -> list[str]:
    """The figures a run's epochs log: ``reward`` and each metric, with ``val_`` twins
    when the run holds validation rows (what early stopping may watch)."""
    keys = ["reward", *metrics]
    return [*(f"val_{key}" for key in keys), *keys] if validation else keys


def metric_names(compile_config: Any) -> list[str]:
    """The names the metrics of a (valid) compile config log under (``f1_score``...)."""
    metrics = (compile_config or {}).get("metrics") or []
    return [
        _metric_name(entry, f"compile_config.metrics[{index}]")
        for index, entry in enumerate(metrics)
    ]


def _metric_name(entry: Any, where: str) -> str:
    if references.is_code_entry("metric", entry):
        return references.logged_name(entry)
    name, params, _ = _entry(entry, where)
    cls = family("metric").find(name)
    if cls is not None and "program" in needs_of(cls):  # its judge is only resolved with judges
        return str(params.get("name") or snake_case(cls.__name__))
    return str(_build("metric", entry, where, None).name)


def _early_stopping(value: Any, *, validation: bool, metrics: list[str] | None) -> JsonDict | None:
    """``fit_config.early_stopping`` checked, with its defaults; None when off."""
    where = "fit_config.early_stopping"
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RunConfigError("must be an object or null (off)", path=where)
    unknown = sorted(set(value) - set(_EARLY_STOPPING_PARAM))
    if unknown:
        raise RunConfigError(
            f"unknown key(s) {unknown}; known: {sorted(_EARLY_STOPPING_PARAM)}", path=where
        )
    merged = {param.name: param.default for param in EARLY_STOPPING_PARAMS}
    merged.update(value)
    if merged["monitor"] in (None, ""):
        merged["monitor"] = "val_reward" if validation else "reward"
    for param in EARLY_STOPPING_PARAMS:
        try:
            param.check(merged[param.name])
        except (TypeError, ValueError) as error:
            raise RunConfigError(str(error), path=f"{where}.{param.name}") from None
    merged["min_delta"] = float(merged["min_delta"])
    choices = history_keys(metrics or [], validation=validation)
    if merged["monitor"] not in choices:
        why = "" if validation else " (val_ figures need a validation_split above 0)"
        raise RunConfigError(
            f"unknown figure {merged['monitor']!r}{why}; one of {', '.join(choices)}",
            path=f"{where}.monitor",
        )
    return merged


def budget_caps(fit_config: JsonDict) -> JsonDict | None:
    """``{"max_calls", "max_tokens", "max_cost"}`` of a run with a cap, else None."""
    caps = {key: fit_config.get(key) for key in ("max_calls", "max_tokens", "max_cost")}
    return caps if any(value is not None for value in caps.values()) else None


def evaluation_settings(fit_config: JsonDict) -> tuple[float | None, int | None, int]:
    """``(temperature, seed, repeats)`` of a run's evaluations before and after training.

    At temperature 0 an evaluation runs once, with the run's seed (0 when it has
    none) for providers that take one; above 0, ``evaluations`` times and
    unseeded, so the repeats sample. A config saved before the setting existed
    has no key: its run keeps evaluating as it began (the models' own
    temperature, repeated), so its before and after stay comparable.
    """
    temperature = fit_config.get("evaluation_temperature")
    temperature = None if temperature is None else float(temperature)
    if temperature == 0.0:
        seed = fit_config.get("seed")
        return temperature, 0 if seed is None else int(seed), 1
    return temperature, None, int(fit_config.get("evaluations", FIT_DEFAULTS["evaluations"]))
