"""Per-call settings pinned for some models, for the current task and the tasks it starts.

`Program.evaluate(x, y, temperature=0.0, seed=7)` pins its Generators' models to a
temperature (and a seed, where the provider takes one) for the evaluation alone:
the models and the modules that hold them are not changed, so a run's training,
a concurrent evaluation and the module's own ``temperature`` are untouched. Like
`variables.OVERRIDES`, it is a context variable: `LanguageModel.__call__` reads it
for the model it is, and asyncio tasks started inside the block inherit it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar


@dataclasses.dataclass(frozen=True)
class CallOverrides:
    """What a pinned model's calls use instead of their own settings.

    Attributes:
        temperature: the sampling temperature, or None to keep the call's own.
        seed: the sampling seed sent to providers that take one, or None.
    """

    temperature: float | None = None
    seed: int | None = None


# By id of the model; each entry holds the model too, so the id cannot be reused
# while the pin is in force.
CALL_OVERRIDES: ContextVar[Mapping[int, tuple[object, CallOverrides]] | None] = ContextVar(
    "optimizer_core_call_overrides", default=None
)


def overrides_for(model: object) -> CallOverrides | None:
    """The overrides pinned for ``model`` in the current context, or None."""
    pinned = CALL_OVERRIDES.get()
    if not pinned:
        return None
    entry = pinned.get(id(model))
    return entry[1] if entry is not None and entry[0] is model else None


@contextlib.contextmanager
def pin_calls(
    models: Iterable[object], *, temperature: float | None = None, seed: int | None = None
) -> Iterator[None]:
    """Pin ``models``' calls to ``temperature`` and ``seed`` inside the block.

    Nothing is pinned when both are None. Pins set outside the block stay in force
    for other models; a model pinned again takes the inner settings.

    Args:
        models: the language models whose calls to pin.
        temperature: the temperature their calls use (>= 0), or None.
        seed: the seed their requests carry, or None.

    Example:
        ```python
        with pin_calls([lm], temperature=0.0, seed=7):
            await lm(messages)  # sent with temperature 0 and seed 7
        ```
    """
    if temperature is not None and (
        isinstance(temperature, bool)
        or not isinstance(temperature, int | float)
        or not math.isfinite(temperature)
        or temperature < 0
    ):
        raise ValueError(f"`temperature` must be a number >= 0, got {temperature!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ValueError(f"`seed` must be an int, got {seed!r}")
    if temperature is None and seed is None:
        yield
        return
    overrides = CallOverrides(
        temperature=None if temperature is None else float(temperature), seed=seed
    )
    pinned = dict(CALL_OVERRIDES.get() or {})
    for model in models:
        pinned[id(model)] = (model, overrides)
    token = CALL_OVERRIDES.set(pinned)
    try:
        yield
    finally:
        CALL_OVERRIDES.reset(token)


__all__ = ["CALL_OVERRIDES", "CallOverrides", "overrides_for", "pin_calls"]
