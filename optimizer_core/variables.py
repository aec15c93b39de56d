"""Trainable variables: the JSON state an optimizer rewrites.

A Generator owns one variable. Its *trainable fields* (by default
``instructions`` and ``examples``) are what the language model sees; the rest
of the JSON is the optimizer's bookkeeping: the scored ``predictions`` of the
current epoch, the proposed ``candidates``, the kept ``best_candidates``
(the population), ``nb_visit``, ``cumulative_reward``, and the ``history`` of
the best candidate's value at each epoch end (written by the optimizers that
keep one, as the reference library's base optimizer does).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import Any

from optimizer_core.datamodels import DataModel, JsonDict

BOOKKEEPING_KEYS = (
    "current_candidate",
    "predictions",
    "candidates",
    "best_candidates",
    "nb_visit",
    "cumulative_reward",
    "history",
)


# Values to use instead of the stored ones, by variable name, for the current task.
# The trainer sets it in the tasks that run samples: to try a candidate without
# writing it into the variable, and to give every sample of a batch the values the
# batch started from while the optimizer works beside it. Modules read variables
# with `get` / `peek`, which honour it, so a custom module needs nothing special.
OVERRIDES: ContextVar[Mapping[str, Mapping[str, Any]] | None] = ContextVar(
    "optimizer_core_overrides", default=None
)


class Variable:
    """A named JSON value, optionally trainable, with a schema for its trainable fields.

    Args:
        name: unique name inside a program (the owning module's name + ``/state``).
        initial_value: the trainable fields' initial JSON.
        data_model: the DataModel describing the trainable fields; optimizers that
            rewrite the variable (OMEGA) constrain their output to its schema.
        trainable: whether optimizers may change it.

    Example:
        ```python
        v = Variable(name="gen/state", initial_value={"instructions": "Be brief."},
                     data_model=MyState)
        v.get("instructions")
        ```
    """

    def __init__(
        self,
        *,
        name: str,
        initial_value: JsonDict,
        data_model: type[DataModel] | None = None,
        trainable: bool = True,
    ) -> None:
        if not name:
            raise ValueError("`name` must be a non-empty string")
        if not isinstance(initial_value, dict):
            raise TypeError(f"`initial_value` must be a dict, got {type(initial_value).__name__}")
        self.name = name
        self.data_model = data_model
        self.trainable = trainable
        if data_model is not None:
            initial_value = data_model.model_validate(initial_value).get_json()
        self._value: JsonDict = copy.deepcopy(initial_value)
        self.reset_bookkeeping()

    @property
    def trainable_fields(self) -> list[str]:
        """The keys an optimizer may rewrite."""
        if self.data_model is not None:
            return list(self.data_model.model_fields)
        return [k for k in self._value if k not in BOOKKEEPING_KEYS]

    def get(self, key: str, default: Any = None) -> Any:
        """Read one key of the value in force for this task (see `peek`)."""
        return self.peek().get(key, default)

    def peek(self) -> Mapping[str, Any]:
        """The value in force for this task, without a copy: read it, never change it.

        That is the task's override when the trainer set one (a candidate being
        scored, or the values a batch started from), else the stored JSON.
        """
        overrides = OVERRIDES.get()
        if overrides is not None and self.name in overrides:
            return overrides[self.name]
        return self._value

    def get_json(self) -> JsonDict:
        """The whole JSON value, bookkeeping included (a deep copy)."""
        return copy.deepcopy(self._value)

    def get_trainable_json(self) -> JsonDict:
        """Only the trainable fields (a deep copy)."""
        return {k: copy.deepcopy(self._value.get(k)) for k in self.trainable_fields}

    def assign(self, value: JsonDict) -> None:
        """Replace the trainable fields; validates against the schema when there is one."""
        fields = {k: value[k] for k in self.trainable_fields if k in value}
        if self.data_model is not None:
            merged = {**self.get_trainable_json(), **fields}
            fields = self.data_model.model_validate(merged).get_json()
        for key, item in fields.items():
            self._value[key] = copy.deepcopy(item)

    def update(self, value: JsonDict) -> None:
        """Merge keys into the JSON (bookkeeping included), without validation."""
        for key, item in value.items():
            self._value[key] = item

    def reset_bookkeeping(self) -> None:
        self._value.setdefault("predictions", [])
        self._value.setdefault("candidates", [])
        self._value.setdefault("best_candidates", [])
        self._value.setdefault("nb_visit", 0)
        self._value.setdefault("cumulative_reward", 0.0)

    def load_json(self, value: JsonDict) -> None:
        """Restore a value written by `get_json` (trainable fields and bookkeeping)."""
        if self.data_model is not None:
            trainable = {k: value[k] for k in self.trainable_fields if k in value}
            self.data_model.model_validate({**self.get_trainable_json(), **trainable})
        self._value = copy.deepcopy(value)
        self.reset_bookkeeping()

    def __repr__(self) -> str:
        return f"<Variable {self.name} trainable={self.trainable} fields={self.trainable_fields}>"


# Snapshots: what putting the trainable variables back needs (the best epoch's restore,
# EarlyStopping's restore_best_variables). Beside Variable so that the programs and the
# callbacks packages both import it without importing each other.

Snapshot = dict[str, JsonDict]
"""Each trainable variable's trainable fields and ``current_candidate``, by variable name."""


def snapshot(trainable_variables: Sequence[Variable]) -> Snapshot:
    """What restoring needs of the variables as they are now (a copy)."""
    return {
        v.name: copy.deepcopy(
            {**v.get_trainable_json(), "current_candidate": v.get("current_candidate")}
        )
        for v in trainable_variables
    }


def restore(trainable_variables: Sequence[Variable], values: Mapping[str, JsonDict]) -> None:
    """Put each variable named in `values` back as it was there (others stay)."""
    for variable in trainable_variables:
        kept = values.get(variable.name)
        if kept is None:
            continue
        variable.assign(kept)
        variable.update({"current_candidate": kept.get("current_candidate")})
