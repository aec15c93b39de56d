"""A run config naming a code reward or metric of the owner's library.

In a compile config, the reward slot or a metric names one by its library name::

    {"reward": {"name": "code_reward",
                "params": {"code": {"name": "within_1pct", "version": 3}, "in_mask": ["answer"]}},
     "metrics": [{"name": "code_metric", "params": {"code": {"name": "word_count"}}}]}

``code.version`` omitted means the newest. `pin` resolves each such entry through
the owner's library and stores it pinned, ``{"id", "name", "version"}``: the stored
config says exactly which code the run used, and a rename of the scorer later does not
change what the run resolves to (by ``id``) nor the name its metric logged under
(``name``). The other params are the wrappers' own (``in_mask``, ``out_mask``,
``in_mask_pattern``, ``out_mask_pattern``).

`Library` turns a pinned entry into the engine's objects, ``MeanRewardWrapper(fn=
CodeFunction(source, ...))`` or ``MeanMetricWrapper(...)``, for `studio.runs.config`,
which calls it for the entries named `CODE_ENTRIES`. It reads the versions when made
(a sync context: the run's worker makes it before training) and never while building.

Why names and not source: a run config is a request like any other, and nothing a
user sends may hand the server code to run except through the library, where it is
versioned, checked and owned (the engine's safe mode refuses a serialised
`CodeFunction` in a config, too).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from studio.common.exceptions import DomainError
from studio.scorers.exceptions import ReferenceInvalid
from studio.scorers.models import Scorer, ScorerUse, ScorerVersion

JsonDict = dict[str, Any]
#: How a caller refuses a field: its own DomainError class (a run's: RunConfigError), called
#: with a message and a path; the runs app passes its own, so this app never imports it.
Refusal = Callable[..., DomainError]

#: The entry name of a code scorer, per slot kind (``reward``, ``metric``).
CODE_ENTRIES = {"reward": "code_reward", "metric": "code_metric"}
#: What the wrappers take besides ``fn`` (the masks).
WRAPPER_PARAMS = ("in_mask", "out_mask", "in_mask_pattern", "out_mask_pattern")


#: Where a run's entries sit in its request; an evaluation's reward sits at the top (``""``).
RUN_ROOT = "compile_config"


def _slots(config: Any, root: str = RUN_ROOT) -> list[tuple[str, str, Any]]:
    """``(kind, path, entry)`` of the reward and each metric of a compile config; ``root``
    prefixes each path (``compile_config.reward``; ``""``: ``reward``)."""
    if not isinstance(config, dict):
        return []
    metrics = config.get("metrics")
    prefix = f"{root}." if root else ""
    return [
        ("reward", f"{prefix}reward", config.get("reward")),
        *(
            ("metric", f"{prefix}metrics[{index}]", entry)
            for index, entry in enumerate(metrics if isinstance(metrics, list) else [])
        ),
    ]


def is_code_entry(kind: str, entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("name") == CODE_ENTRIES.get(kind)


def logged_name(entry: JsonDict) -> str:
    """The name a pinned code entry's figures are logged under: the scorer's, when pinned."""
    code = (entry.get("params") or {}).get("code") or {}
    return str(code.get("name") or CODE_ENTRIES["metric"])


def _resolve(kind: str, params: JsonDict, where: str, owner: Any, refuse: Refusal) -> ScorerVersion:
    at = f"{where}.params.code"
    code = params.get("code")
    if not isinstance(code, dict):
        raise refuse('expected {"name": ..., "version": ...}', path=at)
    unknown = sorted(set(code) - {"id", "name", "version"})
    if unknown:
        raise refuse(f"unknown key(s) {unknown}; expected name, version", path=at)
    scorers = Scorer.objects.filter(owner=owner)
    if isinstance(code.get("id"), int) and not isinstance(code.get("id"), bool):
        scorer = scorers.filter(pk=code["id"]).first()
    elif isinstance(code.get("name"), str) and code["name"]:
        scorer = scorers.filter(name=code["name"]).first()
    else:
        raise refuse("the name of one of your code rewards", path=f"{at}.name")
    if scorer is None:
        raise refuse(
            f"you have no code reward or metric named {code.get('name')!r}", path=f"{at}.name"
        )
    if kind == "reward" and scorer.kind != Scorer.Kind.REWARD:
        raise refuse(
            f"{scorer.name!r} is a metric (any number); a reward must score in [0, 1]",
            path=f"{at}.name",
        )
    number = code.get("version")
    if number is None:
        version = scorer.latest_version
    elif isinstance(number, int) and not isinstance(number, bool):
        version = scorer.versions.filter(number=number).first()
    else:
        raise refuse(f"must be a version number, got {number!r}", path=f"{at}.version")
    if version is None:
        raise refuse(f"{scorer.name!r} has no version {number}", path=f"{at}.version")
    return version


def _check_params(params: JsonDict, where: str, refuse: Refusal) -> None:
    unknown = sorted(set(params) - {"code", *WRAPPER_PARAMS})
    if unknown:
        raise refuse(
            f"unknown key(s) {unknown}; a code reward takes code and the masks",
            path=f"{where}.params",
        )


def pin(
    config: Any, owner: Any, refuse: Refusal = ReferenceInvalid, *, root: str = RUN_ROOT
) -> Any:
    """The compile config with each code entry pinned to ``{"id", "name", "version"}``.

    Args:
        root: where the config sits in the request (see `_slots`): the refusals' paths.

    Raises:
        refuse: a code entry names nothing of the owner's library (at
            ``...params.code.name`` / ``.version``), or a metric in the reward slot.
    """
    if not isinstance(config, dict):
        return config
    pinned = dict(config)
    metrics = list(config.get("metrics") or []) if isinstance(config.get("metrics"), list) else None
    for kind, where, entry in _slots(config, root):
        if not is_code_entry(kind, entry):
            continue
        params = dict(entry.get("params") or {})
        _check_params(params, where, refuse)
        version = _resolve(kind, params, where, owner, refuse)
        params["code"] = {
            "id": version.scorer_id,
            "name": version.scorer.name,
            "version": version.number,
        }
        fixed = {"name": entry["name"], "params": params}
        if kind == "reward":
            pinned["reward"] = fixed
        elif metrics is not None:
            metrics[int(where.rsplit("[", 1)[1].rstrip("]"))] = fixed
    if metrics is not None:
        pinned["metrics"] = metrics
    return pinned


def pinned_versions(config: Any) -> dict[str, tuple[int, int]]:
    """``{slot path: (scorer id, version number)}`` of a pinned config's code entries."""
    found = {}
    for kind, where, entry in _slots(config):
        if is_code_entry(kind, entry):
            code = (entry.get("params") or {}).get("code") or {}
            found[where] = (code.get("id"), code.get("version"))
    return found


def record_uses(run: Any) -> None:
    """Record which versions a run's (pinned) config uses: they cannot be deleted now."""
    for slot, (scorer_id, number) in pinned_versions(run.compile_config).items():
        version = ScorerVersion.objects.get(
            scorer_id=scorer_id, scorer__owner_id=run.owner_id, number=number
        )
        ScorerUse.objects.create(run=run, version=version, slot=slot)


class Library:
    """Builds a pinned config's code entries, from the owner's versions read up front.

    Args:
        config: a compile config (pinned or not: `pin` is applied).
        owner: whose library the names resolve in.
        refuse: the caller's error class for a bad entry (the runs app's RunConfigError).
        root: where the config sits in the request (`_slots`): ``""`` for an evaluation's
            ``{"reward": ...}``, whose refusals are at ``reward.params.code...``.
    """

    def __init__(
        self,
        config: Any,
        owner: Any,
        refuse: Refusal = ReferenceInvalid,
        *,
        root: str = RUN_ROOT,
    ) -> None:
        self.refuse = refuse
        self.config = pin(config, owner, refuse, root=root)
        self._built: list[Any] = []
        self._sources: dict[tuple[int, int], tuple[str, str]] = {}
        for kind, where, entry in _slots(self.config, root):
            if is_code_entry(kind, entry):
                version = _resolve(kind, entry["params"], where, owner, refuse)
                self._sources[(version.scorer_id, version.number)] = (
                    version.source,
                    version.scorer.kind,
                )

    def __call__(self, kind: str, params: JsonDict, where: str) -> Any:
        """The reward or metric object of one code entry (no database access)."""
        from optimizer_core.metrics import MeanMetricWrapper
        from optimizer_core.rewards import MeanRewardWrapper
        from studio.scorers.services import code_function

        _check_params(params, where, self.refuse)
        code = params.get("code") or {}
        found = self._sources.get((code.get("id"), code.get("version")))
        if found is None:
            raise self.refuse("not pinned in this config", path=f"{where}.params.code")
        source, scorer_kind = found
        name = str(code.get("name"))
        masks = {key: params[key] for key in WRAPPER_PARAMS if params.get(key) is not None}
        fn = code_function(source, kind=scorer_kind, name=name)
        self._built.append(fn)
        wrapper = MeanRewardWrapper if kind == "reward" else MeanMetricWrapper
        try:
            return wrapper(fn=fn, name=name, **masks)
        except (TypeError, ValueError) as error:
            raise self.refuse(str(error), path=f"{where}.params") from None

    async def close(self) -> None:
        """Stop the sandbox processes of the functions built (the end of a run)."""
        built, self._built = self._built, []
        for fn in built:
            await fn.close()
