"""A run's event log: `RunEvent` rows, then messages on the run's group (``run_<id>``).

The runs' stream of `studio.common.event_log` (the one writer and reader of every
event log; its docstring says why rows come first). Events (``kind``: payload):
``state`` ({state, error?, attempt?, reason?}), ``cancel_requested``, ``resumed``,
what `studio.runs.callback` reports of training (``train_begin``, ``batch``,
``epoch``, ``optimizer``, ``variables``, ``checkpoint``, ``usage``...) and of the
evaluations (``evaluation``, ``evaluation_progress``, ``evaluation_summary``,
``evaluation_examples``), ``early_stopped`` (training stopped before its last
epoch: {epoch, epochs, monitor, patience, min_delta, best, best_epoch,
restored_best}), ``budget_spent``, ``error``.

No model import here: the realtime app (and its channel layer, loaded before the
apps are ready) reads this stream's group names.
"""

from __future__ import annotations

from studio.common.event_log import EventStream

RUN_EVENTS = EventStream(key="run", route="runs", event_model="runs.RunEvent", parent_field="run")
