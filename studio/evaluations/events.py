"""An evaluation's history: `EvaluationEvent` rows (``evaluation_<id>`` messages).

The evaluations' stream of `studio.common.event_log`, written as a run's and a
batch job's are. Events (``kind``: payload): ``state`` ({state, error?,
attempt?}), ``progress`` ({side: "baseline" | "candidate", rows}) when a side is
evaluated, ``usage`` (the LM usage of both sides). No websocket route serves it
yet: the gate polls the evaluation itself (``GET /api/evaluations/<id>/``).

No model import here, as the other streams' modules.
"""

from __future__ import annotations

from studio.common.event_log import EventStream

EVALUATION_EVENTS = EventStream(
    key="evaluation",
    route="evaluations",
    event_model="evaluations.EvaluationEvent",
    parent_field="evaluation",
)
