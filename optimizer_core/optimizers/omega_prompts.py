"""What OMEGA's language model sees: the mutation and crossover prompts and their DataModels.

OMEGA (`omega.py`) decides which variable changes, from which parents, and which
candidates survive; this module says how a variation is asked for, as DSPy keeps
GEPA's instruction proposal beside the algorithm. A mutation shows the language
model the program's description, one variable, the user's guidance and the best
and worst recent predictions (`MutationInputs`); a crossover shows a second
well-scored version as well (`CrossoverInputs`). Each is answered by a
ChainOfThought whose instructions are `mutation_instructions` or
`crossover_instructions`, with the variable's own schema as its output.

References:
    - Agrawal et al., "GEPA: Reflective Prompt Evolution Can Outperform
      Reinforcement Learning" (2025), https://arxiv.org/abs/2507.19457
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import Field

from optimizer_core.datamodels import DataModel, JsonDict


class ScoredPrediction(DataModel):
    """One prediction of the module that owns the variable, with the reward it earned."""

    inputs: JsonDict | None = Field(description="What the module received")
    outputs: JsonDict | None = Field(description="What the module answered")
    ground_truth: JsonDict | None = Field(
        default=None, description="The expected output of the program, when known"
    )
    reward: float = Field(description="The reward of this prediction (higher is better)")


class MutationInputs(DataModel):
    """What the mutation program sees."""

    program_description: str = Field(description="What the whole program does")
    variable_name: str = Field(description="The name of the variable to improve")
    guidance: str = Field(description="Task-specific guidance from the user (may be empty)")
    current_variable: JsonDict = Field(description="The variable to improve")
    best_predictions: list[ScoredPrediction] = Field(
        description="Recent predictions with the highest rewards: keep them working"
    )
    worst_predictions: list[ScoredPrediction] = Field(
        description="Recent predictions with the lowest rewards: fix what makes them fail"
    )


class CrossoverInputs(MutationInputs):
    """What the crossover program sees: two good versions of the variable."""

    other_variable: JsonDict = Field(description="Another well-scored version of the variable")


_CONTEXT = (
    "You are part of an optimizer that improves the JSON variables of a language-model "
    "program. A variable is what a module of the program reads: its instructions, a plan, "
    "rules, code or any other JSON. You see what the program is for, the variable, and "
    "recent predictions of the module with their rewards (and the expected output when "
    "it is known)."
)


def mutation_instructions(keys: Sequence[str]) -> str:
    """The system prompt of the mutation program."""
    return (
        f"{_CONTEXT}\n\n"
        "Write an improved version of `current_variable`.\n"
        "- Work out what the `worst_predictions` get wrong and change the variable to fix "
        "it; keep what makes the `best_predictions` succeed.\n"
        "- Change one aspect at a time and say why in your thinking.\n"
        "- Stay general: the variable must work for every input of the task, not only the "
        "ones shown. Keep any general information it already holds.\n"
        "- Keep it about as long as it is: reword or merge rather than pile up rules.\n"
        "- Follow `guidance` when it is given.\n"
        f"- Answer with every one of these keys: {json.dumps(list(keys))}."
    )


def crossover_instructions(keys: Sequence[str]) -> str:
    """The system prompt of the crossover program."""
    return (
        f"{_CONTEXT}\n\n"
        "Merge `current_variable` and `other_variable`, two well-scored versions of the same "
        "variable, into one better version.\n"
        "- Take from each what makes it work; use the `worst_predictions` to decide what the "
        "merge must fix and the `best_predictions` to see what it must keep.\n"
        "- Merge overlapping rules into one instead of concatenating them; the result must "
        "not be longer than the longer of the two.\n"
        "- Stay general: the variable must work for every input of the task.\n"
        "- Follow `guidance` when it is given.\n"
        f"- Answer with every one of these keys: {json.dumps(list(keys))}."
    )


__all__ = [
    "CrossoverInputs",
    "MutationInputs",
    "ScoredPrediction",
    "crossover_instructions",
    "mutation_instructions",
]
