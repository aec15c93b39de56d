"""What the trainer tells an optimizer about the fit it runs in, passed to each call.

An optimizer's steps need two things that are not theirs: where their events go
(the fit's callbacks, ``on_optimizer_event``) and what the program is for (OMEGA
shows the program's description to the language model that rewrites a variable).
`Trainer.fit` builds one `TrainingContext` per fit and hands it to every call it
makes (`Optimizer.build`, `on_epoch_begin`, `begin_step`, `on_epoch_end`), which
hand it on to their job (`optimizers.steps.StepJob`) and to `propose_candidates` /
`keep_scored`. Nothing of it is stored on the optimizer: an optimizer trained by
two fits in turn, or driven by hand (``train_step`` in a test, with the default
silent context), never reports to a fit that has ended.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable

from optimizer_core.datamodels import JsonDict

EventSink = Callable[[str, JsonDict], Awaitable[None]]
"""``async sink(event, payload)``: where an optimizer's events go (see `Optimizer`)."""


@dataclasses.dataclass(frozen=True)
class TrainingContext:
    """The fit an optimizer call runs in.

    Args:
        description: what the program does (its ``description``; default empty).
        on_event: receives each event the optimizer emits (default None: dropped).

    Example:
        ```python
        seen = []

        async def sink(event, payload):
            seen.append(event)

        context = TrainingContext(description="Answer trivia", on_event=sink)
        await optimizer.train_step(0, variables, batch_reward=0.5, evaluate=score, context=context)
        ```
    """

    description: str = ""
    on_event: EventSink | None = None

    async def emit(self, event: str, payload: JsonDict) -> None:
        """Send one event to the fit's observers (nothing when there are none)."""
        if self.on_event is not None:
            await self.on_event(event, payload)


SILENT = TrainingContext()
"""The context of an optimizer driven by hand: no description, events dropped."""


__all__ = ["SILENT", "EventSink", "TrainingContext"]
