"""What a provider delivered on the user's recent finished runs: the run form's expectations.

The run form estimates a run's LM calls before it starts (frontend
``features/runs/model/estimate.ts``); this turns the calls into a duration, tokens and
a cost from what the same user's finished runs on the same provider measured, never
from a constant:

- **calls per second**: each run's LM calls (``usage["calls"]``) over its wall time
  (``finished_at - started_at``: evaluations and training, as the form's estimate
  counts them), the median over the last `RECENT_RUNS` finished runs with the optimizer
  the form picked (OMEGA's calls are longer than RandomFewShot's), else over the
  provider's last runs with any optimizer (``pace_from`` says which);
- **tokens per call**: ``usage["total_tokens"] / usage["calls"]``, the median over the
  last runs of the same program with the same optimizer on this provider, else with any
  optimizer, else of any program with the optimizer, else of any run on it
  (``tokens_from`` says which);
- **cost per token**: ``usage["cost"] / usage["total_tokens"]`` (litellm's prices, as
  the run recorded them), the median over the provider's last runs. A provider whose
  runs spent tokens but cost nothing has no price litellm knows: its cost is unknown,
  not $0, except for the bundled local model, which costs nothing.

Finished means succeeded or stopped by a budget cap: a failed or cancelled run says
more about the failure than about the provider's pace.
"""

from __future__ import annotations

import statistics
from typing import Any, Literal

from django.db.models import QuerySet

from studio.providers.models import Provider
from studio.providers.services import LOCAL_PREFIX
from studio.runs.models import Run
from studio.runs.optimizer_names import with_optimizer

RECENT_RUNS = 5
"""How many of the latest finished runs a figure is the median of."""

SCANNED_RUNS = 4 * RECENT_RUNS
"""How far back to look for runs that measured a figure (a run without calls has none)."""

FINISHED = (Run.State.SUCCEEDED, Run.State.BUDGET_SPENT)

Prices = Literal["priced", "free", "unknown"]
PaceFrom = Literal["optimizer", "provider"]
TokensFrom = Literal["program_optimizer", "program", "optimizer", "provider"]


def _calls(run: Run) -> int:
    usage = run.usage or {}
    return int(usage.get("calls") or 0)


def _calls_per_second(run: Run) -> float | None:
    if run.started_at is None or run.finished_at is None:
        return None
    seconds = (run.finished_at - run.started_at).total_seconds()
    calls = _calls(run)
    return calls / seconds if seconds > 0 and calls > 0 else None


def _tokens_per_call(run: Run) -> float | None:
    tokens = float((run.usage or {}).get("total_tokens") or 0)
    calls = _calls(run)
    return tokens / calls if tokens > 0 and calls > 0 else None


def _cost_per_token(run: Run) -> float | None:
    usage = run.usage or {}
    tokens = float(usage.get("total_tokens") or 0)
    return float(usage.get("cost") or 0.0) / tokens if tokens > 0 else None


def _recent(runs: list[Run], figure: Any) -> list[float]:
    """The figure of each of the latest `RECENT_RUNS` runs that has it, latest first."""
    values = [value for value in map(figure, runs) if value is not None]
    return values[:RECENT_RUNS]


def _median(values: list[float]) -> float | None:
    return float(statistics.median(values)) if values else None


def _first_measured(
    sources: list[tuple[Any, QuerySet[Run]]], figure: Any
) -> tuple[Any, list[float]]:
    """The first source whose latest runs measure `figure`: its label and their values."""
    for label, runs in sources:
        values = _recent(list(runs[:SCANNED_RUNS]), figure)
        if values:
            return label, values
    return None, []


def provider_throughput(
    *,
    owner: Any,
    provider: Provider,
    program_id: int | None = None,
    optimizer: str | None = None,
) -> dict[str, Any]:
    """What `owner`'s recent finished runs on `provider` measured (see the module docstring).

    Args:
        owner: the user whose runs count (no one else's ever do).
        provider: one of `owner`'s providers.
        program_id: the program the form trains; its runs give tokens per call first.
        optimizer: the catalogue name of the optimizer the form picked (the caller checked
            the engine knows it); its runs give the pace and tokens per call first.

    Returns:
        ``{provider, local, optimizer, runs, calls_per_second, pace_from, tokens_per_call,
        tokens_from, tokens_runs, cost_per_token, prices, cost_runs}``; a figure without a
        run to measure it from is None, and so is the source it came from.
    """
    finished = (
        Run.objects.filter(owner=owner, provider=provider, state__in=FINISHED)
        .exclude(started_at=None)
        .exclude(finished_at=None)
    )
    latest = finished.only("usage", "started_at", "finished_at").order_by("-finished_at", "-pk")
    same_optimizer = with_optimizer(latest, optimizer) if optimizer is not None else None
    pace_sources: list[tuple[PaceFrom, QuerySet[Run]]] = [("provider", latest)]
    token_sources: list[tuple[TokensFrom, QuerySet[Run]]] = [("provider", latest)]
    if program_id is not None:
        token_sources.insert(0, ("program", latest.filter(program_version__program_id=program_id)))
    if same_optimizer is not None:
        pace_sources.insert(0, ("optimizer", same_optimizer))
        token_sources.insert(-1, ("optimizer", same_optimizer))
        if program_id is not None:
            mine = same_optimizer.filter(program_version__program_id=program_id)
            token_sources.insert(0, ("program_optimizer", mine))
    pace_from, paces = _first_measured(pace_sources, _calls_per_second)
    tokens_from, per_call = _first_measured(token_sources, _tokens_per_call)
    runs = list(latest[:SCANNED_RUNS])
    local = provider.model.startswith(LOCAL_PREFIX)
    per_token = _recent(runs, _cost_per_token)
    cost_per_token = _median(per_token)
    prices: Prices
    if local:
        prices, cost_per_token = "free", 0.0
    elif cost_per_token is not None and cost_per_token > 0:
        prices = "priced"
    else:
        # Tokens with no cost: litellm has no price for this model (or no run measured it).
        prices, cost_per_token = "unknown", None
    return {
        "provider": provider.pk,
        "local": local,
        "optimizer": optimizer,
        "runs": len(paces),
        "calls_per_second": _median(paces),
        "pace_from": pace_from,
        "tokens_per_call": _median(per_call),
        "tokens_from": tokens_from,
        "tokens_runs": len(per_call),
        "cost_per_token": cost_per_token,
        "prices": prices,
        "cost_runs": 0 if local else len(per_token),
    }
