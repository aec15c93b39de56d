"""RandomFewShot: pick few-shot examples among the training rows and the best-scored predictions."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any, ClassVar

from optimizer_core.datamodels import JsonDict
from optimizer_core.optimizers.context import TrainingContext
from optimizer_core.optimizers.optimizer import (
    Optimizer,
    softmax,
    weighted_sample_without_replacement,
)
from optimizer_core.saving.params import Param
from optimizer_core.variables import Variable


class RandomFewShot(Optimizer):
    """Propose new few-shot examples drawn from the training rows the module has seen.

    At each step, for one trainable variable that has ``examples`` (in turn, among
    those with rows to draw from: ``variables[step % count]``), draw
    ``n`` in [`nb_min_examples`, `nb_max_examples`] examples; that set is a new
    candidate. Where they come from depends on the module:

    - **labelled examples** (`labelled_examples`, the default): when the module
      answers the program's output (its outputs have exactly the keys of the
      training row's expected output), an example is a training row the module
      has seen with its *expected* output, as the guide's "randomly selects
      examples from training data" says. Every row is as good as another, so
      ``n`` distinct rows are drawn uniformly, rows whose expected output is not
      shown yet first: three examples of a four-label task show three labels.
      A small model that cannot answer a row yet (it does not know the labels'
      names or the answer's format) is shown the right answer all the same;
      drawn from its own answers only, such a task never starts learning
      (SmolLM2-135M on a ticket-topic task: 0 of 60 rows right at temperature
      0.8, so no good example to draw; see docs/benchmarks.md);
    - **scored predictions** otherwise (a module inside the program, a
      ChainOfThought whose ``thinking`` the rows do not hold, or
      ``labelled_examples=False``): ``n`` of the module's own predictions (its
      traced inputs and output) on rows that scored above 0, one per input,
      without replacement, weighted by ``softmax(reward / sampling_temperature)``
      (`scored_well`). In a program that branches, a Decision's examples then show
      the labels of rows the program got right, and a branch module only ever
      sees the rows that went through it.
    A candidate's identity includes its examples, so the examples keep
    changing as training finds better ones (the reference library keys
    candidates on instructions only, which freezes the examples after the
    first draw; we do not copy that).

    RandomFewShot's job is example selection, so it always samples examples;
    `few_shot_learning` is accepted for the guide's signature and matters for
    subclasses (OMEGA), where it adds example sampling to instruction rewriting.

    Args:
        few_shot_learning: see above (default False).
        labelled_examples: show a training row's expected output where the module
            answers the program's output (default True); False draws from the
            module's own scored predictions only, as the reference library does.
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
        Param(
            "labelled_examples",
            "examples show a training row's expected output (where the module answers the "
            "program's output); off: only the module's own best-scored answers",
            label="Labelled examples",
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
        labelled_examples: bool = True,
        nb_min_examples: int = 1,
        nb_max_examples: int = 3,
        sampling_temperature: float = 0.3,
        population_size: int = 10,
        seed: int | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if kwargs:
            raise TypeError(f"RandomFewShot got unexpected arguments: {sorted(kwargs)}")
        self.check_settings(locals())
        if nb_max_examples < nb_min_examples:
            raise ValueError(
                f"`nb_max_examples` must be >= `nb_min_examples` ({nb_min_examples}), "
                f"got {nb_max_examples}"
            )
        super().__init__(population_size=population_size, seed=seed, name=name)
        self.few_shot_learning = few_shot_learning
        self.labelled_examples = labelled_examples
        self.nb_min_examples = nb_min_examples
        self.nb_max_examples = nb_max_examples
        self.sampling_temperature = sampling_temperature

    def sample_examples(self, variable: Variable) -> list[JsonDict] | None:
        """A fresh example set from the rows the variable's module has seen (None if none).

        Labelled rows when the module answers the program's output (see the class
        docstring), else its scored predictions.
        """
        predictions: list[JsonDict] = [
            p for p in variable.get("predictions") or [] if p.get("outputs") is not None
        ]
        if not predictions:
            return None
        n = self.rng.randint(self.nb_min_examples, self.nb_max_examples)
        labelled = labelled_rows(predictions) if self.labelled_examples else []
        if labelled:
            return draw_distinct_outputs(self.rng, labelled, n)
        scored = scored_well(predictions)
        if not scored:
            return None
        weights = softmax([float(p["reward"]) for p in scored], self.sampling_temperature)
        drawn = weighted_sample_without_replacement(self.rng, scored, weights, n)
        return [
            {"inputs": p["inputs"], "outputs": p["outputs"], "reward": p["reward"]} for p in drawn
        ]

    async def propose_candidates(
        self, step: int, trainable_variables: list[Variable], context: TrainingContext
    ) -> list[tuple[Variable, JsonDict, list[str], str]]:
        ready = [
            v
            for v in trainable_variables
            if "examples" in v.trainable_fields and self._has_examples_to_draw(v)
        ]
        if not ready:
            return []
        # One variable a step, in turn: a step costs one minibatch however many modules
        # the program has, and a proposal's score is its own variable's doing.
        variable = ready[step % len(ready)]
        examples = self.sample_examples(variable)
        if examples is None:
            return []
        value = {**variable.get_trainable_json(), "examples": examples}
        current = variable.get("current_candidate")
        return [(variable, value, [current] if current else [], "few_shot")]

    def _has_examples_to_draw(self, variable: Variable) -> bool:
        """Whether `sample_examples` has anything to draw from (it draws nothing to say)."""
        predictions = [p for p in variable.get("predictions") or [] if p.get("outputs") is not None]
        if not predictions:
            return False
        if self.labelled_examples and labelled_rows(predictions):
            return True
        return bool(scored_well(predictions))

    def get_config(self) -> JsonDict:
        return {
            **super().get_config(),
            "few_shot_learning": self.few_shot_learning,
            "labelled_examples": self.labelled_examples,
            "nb_min_examples": self.nb_min_examples,
            "nb_max_examples": self.nb_max_examples,
            "sampling_temperature": self.sampling_temperature,
        }


def labelled_rows(predictions: Sequence[JsonDict]) -> list[JsonDict]:
    """The predictions' rows as examples with their expected output, one per distinct input.

    Only where the module answers the program's output: every prediction's
    ``ground_truth`` has exactly the keys of its ``outputs``. Otherwise (a module
    inside the program, a ChainOfThought's extra ``thinking``, rows without an
    expected output) there are no labelled rows: ``[]``. An example keeps the
    reward its module earned when its answer was the expected one, else None
    (the expected output itself was never scored). The latest prediction of an
    input wins.
    """
    rows: dict[str, JsonDict] = {}
    for prediction in predictions:
        truth = prediction.get("ground_truth")
        outputs = prediction.get("outputs")
        if not isinstance(truth, dict) or not isinstance(outputs, dict) or not truth:
            return []
        if set(truth) != set(outputs):
            return []
        answered = outputs == truth
        key = json.dumps(prediction.get("inputs"), sort_keys=True, ensure_ascii=False)
        rows[key] = {
            "inputs": prediction.get("inputs"),
            "outputs": dict(truth),
            "reward": prediction.get("reward") if answered else None,
        }
    return list(rows.values())


def scored_well(predictions: Sequence[JsonDict]) -> list[JsonDict]:
    """The predictions an example may be drawn from: those of rows that earned a reward
    above 0, one per distinct input (its best-rewarded one, the latest on a tie).

    A module's prediction holds its own inputs and output and the reward of the row
    it belongs to, so in a program that branches or chains, a Decision's examples are
    the labels of rows the program got right and a branch's are the rows that went
    through it and scored. A row that scored 0 (a wrong label, a failed answer) is
    never shown to imitate; when no row scored, there is nothing to draw.
    """
    best: dict[str, JsonDict] = {}
    for prediction in predictions:
        reward = float(prediction.get("reward") or 0.0)
        if reward <= 0.0:
            continue
        key = json.dumps(prediction.get("inputs"), sort_keys=True, ensure_ascii=False)
        held = best.get(key)
        if held is None or reward >= float(held.get("reward") or 0.0):
            best[key] = prediction
    return list(best.values())


def draw_distinct_outputs(rng: random.Random, rows: Sequence[JsonDict], k: int) -> list[JsonDict]:
    """``k`` distinct rows drawn uniformly, those whose output is not drawn yet first.

    On a classification task this shows as many labels as ``k`` allows before it
    repeats one; rows with free-text outputs (all different) are simply drawn
    uniformly.
    """
    pool = list(rows)
    chosen: list[JsonDict] = []
    shown: set[str] = set()
    for _ in range(min(k, len(pool))):
        fresh = [i for i, row in enumerate(pool) if _output_key(row) not in shown] or list(
            range(len(pool))
        )
        row = pool.pop(rng.choice(fresh))
        shown.add(_output_key(row))
        chosen.append(row)
    return chosen


def _output_key(row: JsonDict) -> str:
    return json.dumps(row.get("outputs"), sort_keys=True, ensure_ascii=False)
