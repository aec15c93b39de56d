"""RandomFewShot: pick few-shot examples among the best-scored predictions."""

from __future__ import annotations

from typing import Any, ClassVar

from optimizer_core.datamodels import JsonDict
from optimizer_core.optimizers.optimizer import (
    Optimizer,
    softmax,
    weighted_sample_without_replacement,
)
from optimizer_core.saving.params import Param
from optimizer_core.variables import Variable


class RandomFewShot(Optimizer):
    """Propose new few-shot examples drawn from the scored training predictions.

    At each step, for every trainable variable that has ``examples``, draw
    ``n`` in [`nb_min_examples`, `nb_max_examples`] and sample ``n`` of the
    scored predictions without replacement, weighted by
    ``softmax(reward / sampling_temperature)``; that set is a new candidate.
    A candidate's identity includes its examples, so the examples keep
    changing as training finds better ones (the reference library keys
    candidates on instructions only, which freezes the examples after the
    first draw; we do not copy that).

    RandomFewShot's job is example selection, so it always samples examples;
    `few_shot_learning` is accepted for the guide's signature and matters for
    subclasses (OMEGA), where it adds example sampling to instruction rewriting.

    Args:
        few_shot_learning: see above (default False).
        nb_min_examples: fewest examples in a candidate (default 1).
        nb_max_examples: most examples in a candidate (default 3).
        sampling_temperature: softmax temperature over rewards (default 0.3, > 0).
        population_size: candidates kept per variable (default 10).
        seed: random seed (default None).

    Example:
        ```python
        program.compile(reward=ExactMatch(in_mask=["answer"]), optimizer=RandomFewShot())
        ```
    """

    user_params: ClassVar[tuple[Param, ...]] = (
        Param(
            "few_shot_learning",
            "re-sample the few-shot examples in every proposal (OMEGA)",
            label="Few-shot learning",
        ),
        Param("nb_min_examples", "fewest examples in a candidate", label="Min examples", minimum=0),
        Param(
            "nb_max_examples",
            "most examples in a candidate (at least the fewest)",
            label="Max examples",
            minimum=0,
        ),
        Param(
            "sampling_temperature",
            "softmax temperature over rewards when drawing examples",
            minimum=0,
            exclusive_minimum=True,
        ),
    )

    def __init__(
        self,
        *,
        few_shot_learning: bool = False,
        nb_min_examples: int = 1,
        nb_max_examples: int = 3,
        sampling_temperature: float = 0.3,
        population_size: int = 10,
        seed: int | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(population_size=population_size, seed=seed, name=name)
        if kwargs:
            raise TypeError(f"RandomFewShot got unexpected arguments: {sorted(kwargs)}")
        if nb_min_examples < 0:
            raise ValueError(f"`nb_min_examples` must be >= 0, got {nb_min_examples}")
        if nb_max_examples < nb_min_examples:
            raise ValueError(
                f"`nb_max_examples` must be >= `nb_min_examples` ({nb_min_examples}), "
                f"got {nb_max_examples}"
            )
        if sampling_temperature <= 0:
            raise ValueError(f"`sampling_temperature` must be > 0, got {sampling_temperature}")
        self.few_shot_learning = few_shot_learning
        self.nb_min_examples = nb_min_examples
        self.nb_max_examples = nb_max_examples
        self.sampling_temperature = sampling_temperature

    def sample_examples(self, variable: Variable) -> list[JsonDict] | None:
        """A fresh example set from the variable's scored predictions (None if it has none)."""
        predictions: list[JsonDict] = [
            p for p in variable.get("predictions") or [] if p.get("outputs") is not None
        ]
        if not predictions:
            return None
        n = self.rng.randint(self.nb_min_examples, self.nb_max_examples)
        weights = softmax([float(p["reward"]) for p in predictions], self.sampling_temperature)
        drawn = weighted_sample_without_replacement(self.rng, predictions, weights, n)
        return [
            {"inputs": p["inputs"], "outputs": p["outputs"], "reward": p["reward"]} for p in drawn
        ]

    async def propose_candidates(
        self, step: int, trainable_variables: list[Variable]
    ) -> list[tuple[Variable, JsonDict, list[str], str]]:
        proposals = []
        for variable in trainable_variables:
            if "examples" not in variable.trainable_fields:
                continue
            examples = self.sample_examples(variable)
            if examples is None:
                continue
            value = {**variable.get_trainable_json(), "examples": examples}
            current = variable.get("current_candidate")
            proposals.append((variable, value, [current] if current else [], "few_shot"))
        return proposals

    def get_config(self) -> JsonDict:
        return {
            **super().get_config(),
            "few_shot_learning": self.few_shot_learning,
            "nb_min_examples": self.nb_min_examples,
            "nb_max_examples": self.nb_max_examples,
            "sampling_temperature": self.sampling_temperature,
        }
