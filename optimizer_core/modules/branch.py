"""Branch: a Decision, then the module of the label it chose.

A Branch holds a `Decision` (or a `MultiDecision`) and one module per label.
Called, it asks the decision, runs the chosen label's module, and outputs a
tuple with one slot per label: the chosen slot holds that module's output, the
others None. ``(easy, hard) = await Branch(...)(inputs)``; ``easy | hard`` (an
`Or`) brings the slots back together.

- ``inject_decision`` (default True): a branch's module sees the input with the
  decision's fields (``thinking``, ``choice``) added.
- ``return_decision`` (default True): a slot holds the decision's fields followed
  by the module's output.
- A label whose module is None routes: its slot holds the branch input itself
  (the input, with the decision when injected), so the modules after it can be
  drawn downstream in the graph. (The reference library gives None for such a
  label whatever the decision.)

The trace shows the route: the Branch's step lists the labels ``taken``; its
decision and each branch module have steps of their own under it (``parent``),
the modules of the labels not taken a ``skipped`` one. In training, only the
module of the label a row took receives that row (its inputs, its output, the
row's own reward) as a prediction: a row gives no example to a branch it did not
reach.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from optimizer_core import model_algebra
from optimizer_core.datamodels import DataModel, JsonDict
from optimizer_core.modules.decision import Decision, MultiDecision, check_labels
from optimizer_core.modules.module import Module, Node, SymbolicDataModel, note_step
from optimizer_core.saving.families import family

__all__ = ["DECISION_TYPES", "Branch"]

#: The decisions a Branch can use, by the name its config saves.
DECISION_TYPES: dict[str, type[Decision]] = {"Decision": Decision, "MultiDecision": MultiDecision}


def _decision_type(value: Any) -> type[Decision]:
    if isinstance(value, str) and value in DECISION_TYPES:
        return DECISION_TYPES[value]
    if isinstance(value, type) and value in DECISION_TYPES.values():
        return value
    raise ValueError(
        f"`decision_type` must be one of {sorted(DECISION_TYPES)} (or the class), got {value!r}"
    )


class Branch(Module):
    """Route the input to the module of the label a Decision chooses.

    Args:
        question: the question the decision answers (``"How hard is this query?"``).
        labels: the labels, one per branch (at least two, distinct).
        branches: one module per label, in the labels' order; None for a label whose
            slot just carries the input on (see the module docstring).
        language_model: the decision's `LanguageModel`.
        decision_type: ``Decision`` (default: one label per row) or ``MultiDecision``
            (one or more: several slots may hold values), the class or its name.
        inject_decision: the branches see the decision's fields (default True).
        return_decision: the slots hold the decision's fields too (default True).
        instructions: the decision's initial instructions (default: its own).
        examples: the decision's initial few-shot examples.
        name, description, trainable: see `Module`; the decision is named
            ``<name>_decision``.
        **decision_settings: the decision's other `Generator` arguments
            (``temperature``...).

    Example:
        ```python
        (easy, hard) = await Branch(
            question="Evaluate the difficulty to answer the provided query",
            labels=["easy", "difficult"],
            branches=[
                Generator(data_model=Answer, language_model=lm),
                ChainOfThought(data_model=Answer, language_model=lm),
            ],
            language_model=lm,
        )(inputs)
        answer = easy | hard
        ```
    """

    def __init__(
        self,
        *,
        question: str | None = None,
        labels: Sequence[str] | None = None,
        branches: Sequence[Module | None] | None = None,
        language_model: Any = None,
        decision_type: Any = "Decision",
        inject_decision: bool = True,
        return_decision: bool = True,
        instructions: str | None = None,
        examples: list[JsonDict] | None = None,
        name: str | None = None,
        description: str | None = None,
        trainable: bool = True,
        **decision_settings: Any,
    ) -> None:
        super().__init__(name=name, description=description, trainable=trainable)
        owner = f"Branch {self.name!r}"
        checked = check_labels(labels, owner=owner)
        if isinstance(branches, Module) or not isinstance(branches, Sequence):
            raise ValueError(f"{owner}: `branches` must be a list with one module per label")
        modules = list(branches)
        if len(modules) != len(checked):
            raise ValueError(
                f"{owner}: {len(checked)} labels {checked} but {len(modules)} branches; "
                "give one module (or None) per label"
            )
        for label, module in zip(checked, modules, strict=True):
            if module is not None and not isinstance(module, Module):
                raise TypeError(
                    f"{owner}: the branch of label {label!r} must be a Module or None, "
                    f"got {type(module).__name__}"
                )
        for argument, flag in (
            ("inject_decision", inject_decision),
            ("return_decision", return_decision),
        ):
            if not isinstance(flag, bool):
                raise TypeError(f"{owner}: `{argument}` must be True or False, got {flag!r}")
        self.labels = checked
        self.decision_type = _decision_type(decision_type)
        self.inject_decision = inject_decision
        self.return_decision = return_decision
        self.decision: Decision = self.decision_type(
            question=question,
            labels=checked,
            language_model=language_model,
            instructions=instructions,
            examples=examples,
            name=f"{self.name}_decision",
            trainable=trainable,
            **decision_settings,
        )
        self.add_module(self.decision)
        self.branches: list[Module | None] = modules
        for module in modules:
            if module is not None:
                self.add_module(module)

    @property
    def question(self) -> str:
        return self.decision.question

    @property
    def language_model(self) -> Any:
        """The decision's model (`Program.set_language_model` reaches every held module)."""
        return self.decision.language_model

    @language_model.setter
    def language_model(self, language_model: Any) -> None:
        self.decision.language_model = language_model

    # Graph ----------------------------------------------------------------------------------

    def compute_output_spec(self, inputs: list[SymbolicDataModel]) -> tuple[type[DataModel], ...]:
        if not inputs:
            raise TypeError(f"Branch {self.name!r} needs at least one input")
        merged = model_algebra.concat_models([s.data_model for s in inputs], base=DataModel)
        decided = self.decision.output_model
        routed = (
            model_algebra.concat_models([merged, decided], base=DataModel)
            if self.inject_decision
            else merged
        )
        slots: list[type[DataModel]] = []
        for label, module in zip(self.labels, self.branches, strict=True):
            model = routed
            if module is not None:
                placeholder = SymbolicDataModel(routed, node=Node(self, []))
                spec = module.compute_output_spec([placeholder])
                if not isinstance(spec, type):
                    raise TypeError(
                        f"Branch {self.name!r}: the module of label {label!r} "
                        f"({module.name!r}) must have one output"
                    )
                model = spec
            if self.return_decision and (module is not None or not self.inject_decision):
                model = model_algebra.concat_models([decided, model], base=DataModel)
            slots.append(model)
        return tuple(slots)

    def none_output(self) -> tuple[None, ...]:
        return tuple(None for _ in self.labels)

    # Run ------------------------------------------------------------------------------------

    async def call(self, inputs: Any, *, training: bool = False) -> tuple[DataModel | None, ...]:
        values = list(inputs) if isinstance(inputs, list | tuple) else [inputs]
        merged = model_algebra.concat_values(values, base=DataModel)
        decision = await self.decision(merged, training=training)
        taken = set(self.decision.chosen(decision))
        note_step(taken=[label for label in self.labels if label in taken])
        routed: DataModel | None = None
        if decision is not None and self.inject_decision:
            routed = model_algebra.concat_values([merged, decision], base=DataModel)
        elif decision is not None:
            routed = merged

        async def run(label: str, module: Module | None) -> DataModel | None:
            if routed is None or decision is None or label not in taken:
                if module is not None:
                    await module(None, training=training)  # its trace step says: skipped
                return None
            if module is None:
                output: DataModel | None = routed
                wrap = self.return_decision and not self.inject_decision
            else:
                output = await module(routed, training=training)
                wrap = self.return_decision
            if output is None or not wrap:
                return output
            return model_algebra.concat_values([decision, output], base=DataModel)

        slots = await asyncio.gather(
            *(run(label, module) for label, module in zip(self.labels, self.branches, strict=True))
        )
        return tuple(slots)

    # Config ---------------------------------------------------------------------------------

    def get_config(self) -> JsonDict:
        modules_family = family("module")
        decision = self.decision.get_config()
        for key in ("name", "description", "trainable", "labels"):
            decision.pop(key, None)
        return {
            **super().get_config(),
            "labels": list(self.labels),
            "branches": [
                modules_family.serialize(module) if module is not None else None
                for module in self.branches
            ],
            "decision_type": self.decision_type.__name__,
            "inject_decision": self.inject_decision,
            "return_decision": self.return_decision,
            **decision,
        }

    @classmethod
    def from_config(cls, config: JsonDict) -> Branch:
        from optimizer_core import language_models

        modules_family = family("module")
        config = dict(config)
        config["language_model"] = language_models.deserialize(config["language_model"])
        config["branches"] = [
            modules_family.deserialize(entry) if entry is not None else None
            for entry in config.get("branches") or []
        ]
        return cls(**config)
