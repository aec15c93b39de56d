"""How the optimizer got there: each variable's candidates and their parents, from its events.

An optimizer reports what it does through ``on_optimizer_event`` (see
`optimizer_core.optimizers.optimizer`): the seed of each population
(``"initial"``), each scored proposal with its parents and operation and the
rows it was scored on (``"candidate"``), the rows of each training batch with
the candidates that predicted them (``"batch_scored"``) and each competition
(``"population"``, with DNS scores under OMEGA and the ids kept and dropped).
`Lineage` folds those events, in order, into one DAG per variable: a mutation
or a few-shot sample has one parent, a crossover two.

A candidate is compared with each parent on the rows both were scored on: it
*won* a row where its reward is higher than its parent's there, *lost* one where
it is lower. A row scored several times counts with its mean reward.

Example:
    ```python
    lineage = Lineage()
    class Recorder(Callback):
        def on_optimizer_event(self, event, payload):
            lineage.add(event, payload)
    await program.fit(x, y, callbacks=[Recorder()])
    for node in lineage.nodes("generator/state"):
        print(node.id, node.operation, node.parents, node.reward)
    ```
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from optimizer_core.datamodels import JsonDict

UNKNOWN = "unknown"
"""The operation of a candidate known only as another one's parent."""


@dataclasses.dataclass
class LineageNode:
    """One candidate of a variable.

    ``score`` is its DNS score at the last competition it took part in (None
    without DNS); ``dropped_at`` the epoch of the competition that dropped it;
    ``merged_into`` the identical candidate its evaluations were folded into;
    ``in_population`` whether it is in the variable's population after the last
    event; ``rows`` its mean reward on each row it was scored on.
    """

    id: str
    variable: str
    parents: list[str] = dataclasses.field(default_factory=list)
    operation: str = UNKNOWN
    epoch: int | None = None
    step: int | None = None
    value: JsonDict | None = None
    reward: float | None = None
    nb_evaluations: int = 0
    score: float | None = None
    merged_into: str | None = None
    dropped_at: int | None = None
    in_population: bool = False
    rows: dict[int, float] = dataclasses.field(default_factory=dict)
    _sums: dict[int, tuple[float, int]] = dataclasses.field(default_factory=dict, repr=False)

    def add_rows(self, rows: Sequence[Any], rewards: Sequence[Any]) -> None:
        for row, reward in zip(rows, rewards, strict=False):
            if not isinstance(row, int) or not isinstance(reward, int | float):
                continue
            total, count = self._sums.get(row, (0.0, 0))
            self._sums[row] = (total + float(reward), count + 1)
            self.rows[row] = self._sums[row][0] / self._sums[row][1]


@dataclasses.dataclass(frozen=True)
class RowOutcome:
    """A row where a candidate and its parent differ: both rewards there."""

    row: int
    reward: float
    parent_reward: float


@dataclasses.dataclass(frozen=True)
class Comparison:
    """A candidate against one parent on the rows both were scored on."""

    parent: str
    shared: int
    won: list[RowOutcome]
    lost: list[RowOutcome]
    tied: int


class Lineage:
    """Every variable's candidates and their parents, folded from optimizer events."""

    def __init__(self) -> None:
        self._nodes: dict[str, dict[str, LineageNode]] = {}

    @classmethod
    def from_events(cls, events: Iterable[tuple[str, Mapping[str, Any]]]) -> Lineage:
        """The lineage of ``(event, payload)`` pairs, in the order they were emitted."""
        lineage = cls()
        for event, payload in events:
            lineage.add(event, payload)
        return lineage

    @property
    def variables(self) -> list[str]:
        return list(self._nodes)

    def nodes(self, variable: str) -> list[LineageNode]:
        """The variable's candidates, in the order they appeared."""
        return list(self._nodes.get(variable, {}).values())

    def node(self, variable: str, candidate_id: str) -> LineageNode | None:
        return self._nodes.get(variable, {}).get(candidate_id)

    # Folding events -------------------------------------------------------------------------

    def add(self, event: str, payload: Mapping[str, Any]) -> None:
        """Fold one optimizer event in (events this class does not know are ignored)."""
        if event == "initial":
            node = self._describe(payload.get("variable"), payload.get("candidate"))
            if node is not None:
                node.in_population = True
        elif event == "candidate":
            self._add_candidate(payload)
        elif event == "batch_scored":
            candidates = payload.get("candidates") or {}
            for variable, candidate_id in candidates.items():
                node = self._node(str(variable), str(candidate_id))
                node.add_rows(payload.get("rows") or [], payload.get("rewards") or [])
        elif event == "population":
            self._add_population(payload)

    def seed(self, variable: str, population: Sequence[Mapping[str, Any]]) -> None:
        """Candidates a run starts with (a resumed or forked run's saved population)."""
        for candidate in population:
            node = self._describe(variable, candidate)
            if node is not None:
                node.in_population = True

    def _add_candidate(self, payload: Mapping[str, Any]) -> None:
        variable = payload.get("variable")
        node = self._describe(variable, payload.get("candidate"))
        if node is None:
            return
        node.add_rows(payload.get("rows") or [], payload.get("rewards") or [])
        merged_into = payload.get("merged_into")
        if isinstance(merged_into, str) and merged_into != node.id:
            node.merged_into = merged_into
            twin = self._node(node.variable, merged_into)
            twin.add_rows(payload.get("rows") or [], payload.get("rewards") or [])
        else:
            node.in_population = True

    def _add_population(self, payload: Mapping[str, Any]) -> None:
        variable = payload.get("variable")
        if not isinstance(variable, str):
            return
        epoch = payload.get("epoch")
        members = [c for c in payload.get("population") or [] if isinstance(c, Mapping)]
        for candidate in members:
            node = self._describe(variable, candidate)
            if node is not None and "score" in candidate:
                node.score = _number(candidate.get("score"))
        if "kept" in payload:
            kept = {str(i) for i in payload.get("kept") or []}
        else:
            kept = {str(c.get("id")) for c in members}
        for node in self._nodes.get(variable, {}).values():
            if node.in_population and node.id not in kept:
                node.in_population = False
                if isinstance(epoch, int):
                    node.dropped_at = epoch
            elif node.id in kept:
                node.in_population = True

    def _describe(self, variable: Any, candidate: Any) -> LineageNode | None:
        """The node of a candidate dict, created or brought up to date."""
        if not isinstance(variable, str) or not isinstance(candidate, Mapping):
            return None
        candidate_id = candidate.get("id")
        if not isinstance(candidate_id, str):
            return None
        node = self._node(variable, candidate_id)
        parents = candidate.get("parents")
        if isinstance(parents, list):
            node.parents = [str(p) for p in parents]
            for parent in node.parents:
                self._node(variable, parent, before=node.id)
        if isinstance(candidate.get("operation"), str):
            node.operation = candidate["operation"]
        for key in ("epoch", "step", "nb_evaluations"):
            if isinstance(candidate.get(key), int):
                setattr(node, key, candidate[key])
        if "reward" in candidate:
            node.reward = _number(candidate.get("reward"))
        if isinstance(candidate.get("value"), Mapping):
            node.value = dict(candidate["value"])
        return node

    def _node(self, variable: str, candidate_id: str, *, before: str | None = None) -> LineageNode:
        """The node of an id, made (before ``before``, if given) when first named."""
        nodes = self._nodes.setdefault(variable, {})
        if candidate_id in nodes:
            return nodes[candidate_id]
        node = LineageNode(id=candidate_id, variable=variable)
        if before is None or before not in nodes:
            nodes[candidate_id] = node
        else:
            # A parent named before it is described still comes before its child.
            items = list(nodes.items())
            at = next(i for i, (key, _) in enumerate(items) if key == before)
            items.insert(at, (candidate_id, node))
            nodes.clear()
            nodes.update(items)
        return node

    # Reading ---------------------------------------------------------------------------------

    def comparisons(self, variable: str, candidate_id: str) -> list[Comparison]:
        """The candidate against each of its parents, on the rows both were scored on."""
        node = self.node(variable, candidate_id)
        if node is None:
            return []
        found = []
        for parent_id in node.parents:
            parent = self.node(variable, parent_id)
            theirs = parent.rows if parent is not None else {}
            shared = sorted(set(node.rows) & set(theirs))
            won = [
                RowOutcome(r, node.rows[r], theirs[r]) for r in shared if node.rows[r] > theirs[r]
            ]
            lost = [
                RowOutcome(r, node.rows[r], theirs[r]) for r in shared if node.rows[r] < theirs[r]
            ]
            found.append(
                Comparison(
                    parent=parent_id,
                    shared=len(shared),
                    won=won,
                    lost=lost,
                    tied=len(shared) - len(won) - len(lost),
                )
            )
        return found


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
