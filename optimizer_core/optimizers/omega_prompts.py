"""What OMEGA's language model sees: the mutation and crossover prompts and their DataModels.

OMEGA (`omega.py`) decides which variable changes, from which parents, and which
candidates survive; this module says how a variation is asked for, as DSPy keeps
GEPA's instruction proposal beside the algorithm. A mutation shows the language
model the program's description, one variable, the user's guidance and the best
and worst recent predictions (`MutationInputs`); a crossover shows a second
well-scored version as well (`CrossoverInputs`). Each is answered by a
ChainOfThought whose instructions are `mutation_instructions` or
`crossover_instructions`, with the variable's own schema as its output
(`variable_model`, only the fields the model writes: `submodel`), each text
field capped (`capped_answer`, `text_cap`). The predictions shown are the best
and the worst recent ones (`shown_predictions`).

A small model (the bundled SmolLM2-135M: ``LanguageModel.compact_prompts``) cannot
follow that prompt: with its 670 tokens, it answered "127.0.0.1" or "The best way to
improve your skills is to learn a new language.", wrote its thinking until the cap, and
a third of its calls ran past the 180 s timeout on 2 loaded cores. It gets the compact
form instead (`compact_inputs`, about 260 tokens): a two-sentence instruction, the
variable's fields under their own names (nested under ``current`` the model copied
them unchanged, 11 times out of 12), and the worst predictions as mistakes with the
expected answer, answered without a thinking field by a Generator, each text field
capped at `COMPACT_MIN_TEXT_CAP` or the parents' longest (`COMPACT_TEXT_GROWTH`: no
growth: rewrites never outgrow the longer of the two). Of 12 mutations of the demo task's
instructions, 7 parsed and differed from the parent with the full prompt,
12 with the compact one (bench/omega_local). The 135M model mostly extends the text
it is given; OMEGA's scoring keeps the rare rewrite that helps.

With ``use_feedback`` (OMEGA's default), the worst predictions carry what the reward
said of them beside their reward, as GEPA's reflective mutation shows the evaluator's
text: ``feedback`` (ExactMatch's differing fields, a judge's critique, a code reward's
string), cut to `SHOWN_FEEDBACK_CHARS` (`COMPACT_SHOWN_FEEDBACK_CHARS` in the compact
form, whose three mistakes then stay within about 200 more tokens, far below the bundled
model's 4,096-token window); a compact mistake also shows its ``reward``, feedback or not.
The best predictions are shown without it: what to fix is in the worst ones. Without
``use_feedback`` the prompts are word for word those from before feedback existed
(`MutationInputs`, `CrossoverInputs`; with it `ReviewedMutationInputs`,
`ReviewedCrossoverInputs` and one more sentence in the instructions).

References:
    - Agrawal et al., "GEPA: Reflective Prompt Evolution Can Outperform
      Reinforcement Learning" (2025), https://arxiv.org/abs/2507.19457
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import pydantic
from pydantic import Field

from optimizer_core.datamodels import DataModel, JsonDict
from optimizer_core.variables import Variable

RECENT_PREDICTIONS = 64
"""How many of the latest scored predictions the language model's shown examples come from."""
NB_SHOWN_PREDICTIONS = 3
"""How many best and how many worst predictions the language model sees."""
MIN_TEXT_CAP = 500
"""The smallest cap on a rewritten text field, in characters (see `capped_answer`)."""
COMPACT_MIN_TEXT_CAP = 300
"""The smallest cap on a text field a compact-prompt rewrite writes (see `text_cap`): a
small model pads a rewrite with repetitions up to whatever it is allowed."""
COMPACT_TEXT_GROWTH = 1
"""How much longer than its parents' longest text a compact-prompt rewrite may be (see
`text_cap`): not at all. SmolLM2-135M fills the cap it is given, so with the full prompts'
doubling its instructions went 80, 300, 600 characters over two epochs of the demo, and each
mutation call took as much longer (bench/omega_local); a rewrite as long as its parent stays
within what a step's call can write in a few seconds."""

SHOWN_FEEDBACK_CHARS = 500
"""The longest feedback text a full-prompt worst prediction shows (cut with an ellipsis)."""
COMPACT_SHOWN_FEEDBACK_CHARS = 200
"""The longest feedback text a compact-prompt mistake shows: three of them add at most
about 200 tokens to the compact prompt's 260."""

# Keys the base optimizer writes into a variable's JSON that are not listed as bookkeeping.
_ENGINE_KEYS = frozenset({"current_candidate"})


class ScoredPrediction(DataModel):
    """One prediction of the module that owns the variable, with the reward it earned."""

    inputs: JsonDict | None = Field(description="What the module received")
    outputs: JsonDict | None = Field(description="What the module answered")
    ground_truth: JsonDict | None = Field(
        default=None, description="The expected output of the program, when known"
    )
    reward: float = Field(description="The reward of this prediction (higher is better)")


class ReviewedPrediction(ScoredPrediction):
    """A prediction with what the reward said of it (OMEGA's ``use_feedback``)."""

    feedback: str | None = Field(
        default=None, description="What the reward said of this prediction (None: nothing)"
    )


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


_REVIEWED_WORST = Field(
    description="Recent predictions with the lowest rewards, each with what the reward said "
    "of it (its feedback, when it said something): fix what makes them fail"
)


class ReviewedMutationInputs(MutationInputs):
    """What the mutation program sees with ``use_feedback``: the worst rows' feedback too."""

    worst_predictions: list[ReviewedPrediction] = _REVIEWED_WORST  # type: ignore[assignment]


class ReviewedCrossoverInputs(CrossoverInputs):
    """What the crossover program sees with ``use_feedback``."""

    worst_predictions: list[ReviewedPrediction] = _REVIEWED_WORST  # type: ignore[assignment]


_CONTEXT = (
    "You are part of an optimizer that improves the JSON variables of a language-model "
    "program. A variable is what a module of the program reads: its instructions, a plan, "
    "rules, code or any other JSON. You see what the program is for, the variable, and "
    "recent predictions of the module with their rewards (and the expected output when "
    "it is known)."
)


_FEEDBACK_RULE = (
    "- A worst prediction's `feedback`, when given, is what the reward found wrong: use it.\n"
)


def mutation_instructions(keys: Sequence[str], *, feedback: bool = False) -> str:
    """The system prompt of the mutation program (``feedback``: the worst rows carry it)."""
    return (
        f"{_CONTEXT}\n\n"
        "Write an improved version of `current_variable`.\n"
        "- Work out what the `worst_predictions` get wrong and change the variable to fix "
        "it; keep what makes the `best_predictions` succeed.\n"
        + (_FEEDBACK_RULE if feedback else "")
        + "- Change one aspect at a time and say why in your thinking.\n"
        "- Stay general: the variable must work for every input of the task, not only the "
        "ones shown. Keep any general information it already holds.\n"
        "- Keep it about as long as it is: reword or merge rather than pile up rules.\n"
        "- Follow `guidance` when it is given.\n"
        f"- Answer with every one of these keys: {json.dumps(list(keys))}."
    )


def crossover_instructions(keys: Sequence[str], *, feedback: bool = False) -> str:
    """The system prompt of the crossover program (``feedback``: as above)."""
    return (
        f"{_CONTEXT}\n\n"
        "Merge `current_variable` and `other_variable`, two well-scored versions of the same "
        "variable, into one better version.\n"
        "- Take from each what makes it work; use the `worst_predictions` to decide what the "
        "merge must fix and the `best_predictions` to see what it must keep.\n"
        + (_FEEDBACK_RULE if feedback else "")
        + "- Merge overlapping rules into one instead of concatenating them; the result must "
        "not be longer than the longer of the two.\n"
        "- Stay general: the variable must work for every input of the task.\n"
        "- Follow `guidance` when it is given.\n"
        f"- Answer with every one of these keys: {json.dumps(list(keys))}."
    )


_COMPACT_KEYS = frozenset({"task", "current", "mistakes", "guidance", "other"})


def compact_inputs(
    current: JsonDict,
    mistakes: list[JsonDict],
    *,
    task: str,
    guidance: str = "",
    other: JsonDict | None = None,
) -> JsonDict:
    """What a small model's mutation (or, with ``other``, crossover) program is shown.

    ``{"task", <the variable's fields>, "mistakes", "guidance"?, "other"?}``: the
    fields sit at the top, under their own names, as the answer will have them (under
    a ``current`` key when a name is one of these keys); ``guidance`` only when given.
    """
    shown: JsonDict = {"task": task}
    if _COMPACT_KEYS.isdisjoint(current):
        shown.update(current)
    else:
        shown["current"] = current
    shown["mistakes"] = mistakes
    if guidance:
        shown["guidance"] = guidance
    if other is not None:
        shown["other"] = other
    return shown


_COMPACT_FEEDBACK_SENTENCE = " A mistake's `feedback` says what was wrong."


def compact_mutation_instructions(keys: Sequence[str], *, feedback: bool = False) -> str:
    """The system prompt of a small model's mutation program: what it can follow.

    ``feedback``: the mistakes carry the reward's feedback (one more sentence says so).
    """
    named = ", ".join(f"`{key}`" for key in keys)
    return (
        f"Rewrite {named} so that the assistant that reads it gives the `expected` answers "
        "of the `mistakes`."
        + (_COMPACT_FEEDBACK_SENTENCE if feedback else "")
        + " Keep it short and general; follow `guidance` when it is given."
    )


def compact_crossover_instructions(keys: Sequence[str], *, feedback: bool = False) -> str:
    """The system prompt of a small model's crossover program (``feedback``: as above)."""
    named = ", ".join(f"`{key}`" for key in keys)
    return (
        f"Merge {named} with the version in `other` into one short text that makes the "
        "assistant give the `expected` answers of the `mistakes`;"
        + (_COMPACT_FEEDBACK_SENTENCE[:-1] + ";" if feedback else "")
        + " follow `guidance` when it is given."
    )


# What the language model is shown, and the schema of its answer ---------------------------


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def shown_predictions(
    variable: Variable, *, feedback: bool = False
) -> tuple[list[JsonDict], list[JsonDict]]:
    """The best and the worst of the variable's recent scored predictions, best first.

    ``feedback``: each worst prediction also shows the reward's feedback (cut to
    `SHOWN_FEEDBACK_CHARS`; None when the reward gave none).
    """
    recent = list(variable.get("predictions") or [])[-RECENT_PREDICTIONS:]
    ranked = sorted(range(len(recent)), key=lambda i: (float(recent[i].get("reward") or 0.0), i))
    nb_worst = min(NB_SHOWN_PREDICTIONS, len(ranked) // 2)
    nb_best = min(NB_SHOWN_PREDICTIONS, len(ranked) - nb_worst)
    worst = ranked[:nb_worst]
    best = list(reversed(ranked[len(ranked) - nb_best :]))

    def shown(i: int) -> JsonDict:
        prediction = recent[i]
        truth = prediction.get("ground_truth", prediction.get("y_true"))
        return {
            "inputs": prediction.get("inputs"),
            "outputs": prediction.get("outputs"),
            "ground_truth": truth if isinstance(truth, dict) else None,
            "reward": float(prediction.get("reward") or 0.0),
        }

    def with_feedback(i: int) -> JsonDict:
        text = recent[i].get("feedback")
        given = _cut(text, SHOWN_FEEDBACK_CHARS) if isinstance(text, str) and text else None
        return {**shown(i), "feedback": given}

    return [shown(i) for i in best], [(with_feedback if feedback else shown)(i) for i in worst]


def mistakes(variable: Variable, *, feedback: bool = False) -> list[JsonDict]:
    """The worst recent predictions as a compact prompt shows them: inputs, answer, expected.

    ``feedback``: each also shows its reward and, when the reward gave some, its
    feedback (cut to `COMPACT_SHOWN_FEEDBACK_CHARS`).
    """
    _, worst = shown_predictions(variable, feedback=feedback)
    shown: list[JsonDict] = []
    for p in worst:
        mistake: JsonDict = {
            "inputs": p["inputs"],
            "answer": p["outputs"],
            "expected": p["ground_truth"],
        }
        if feedback:
            mistake["reward"] = round(p["reward"], 3)
            if p["feedback"] is not None:
                mistake["feedback"] = _cut(p["feedback"], COMPACT_SHOWN_FEEDBACK_CHARS)
        shown.append(mistake)
    return shown


def variable_model(variable: Variable) -> type[DataModel]:
    """The DataModel of a variable's trainable fields: its own, or one inferred from its value."""
    if variable.data_model is not None:
        return variable.data_model
    fields: dict[str, Any] = {}
    for key in variable.trainable_fields:
        if key in _ENGINE_KEYS:
            continue
        fields[key] = (_infer_type(variable.get(key)), ...)
    title = "".join(part.title() for part in re.split(r"[^0-9A-Za-z]+", variable.name) if part)
    model: type[DataModel] = pydantic.create_model(
        f"{title or 'Variable'}State", __base__=DataModel, **fields
    )
    return model


def capped_answer(model: type[DataModel], cap: int, *, thinking: bool = True) -> type[DataModel]:
    """`model` with a leading ``thinking`` field, every plain text field at most `cap` characters.

    The answer of a mutation or crossover: the prompt asks for a rewrite "about as
    long as it is", and a model that cannot follow it (SmolLM2-135M) otherwise writes
    its thinking until the context is full, minutes per call on a small machine. A
    grammar-constrained local model cannot exceed the cap; another provider's longer
    answer fails validation and the proposal is skipped, as any invalid answer is.
    ``thinking=False`` leaves the thinking out (the compact prompts').
    """
    fields: dict[str, Any] = {}
    if thinking:
        fields["thinking"] = (
            str,
            pydantic.Field(description="Your step by step thinking", max_length=cap),
        )
    for key, info in model.model_fields.items():
        if key == "thinking":
            continue
        if info.annotation is str:
            capped = pydantic.Field(
                default=info.default, description=info.description, max_length=cap
            )
            fields[key] = (str, capped)
        else:
            fields[key] = (info.annotation, info)
    answer: type[DataModel] = pydantic.create_model(
        f"{model.__name__}Rewrite", __base__=DataModel, __doc__=model.__doc__, **fields
    )
    return answer


def submodel(model: type[DataModel], keys: Sequence[str]) -> type[DataModel]:
    """A DataModel with only some fields of `model` (same types and descriptions)."""
    fields: dict[str, Any] = {
        key: (model.model_fields[key].annotation, model.model_fields[key]) for key in keys
    }
    sub: type[DataModel] = pydantic.create_model(
        model.__name__, __base__=DataModel, __doc__=model.__doc__, **fields
    )
    return sub


def _infer_type(value: Any) -> Any:
    if isinstance(value, bool):
        return bool
    if isinstance(value, int):
        return int
    if isinstance(value, float):
        return float
    if isinstance(value, str):
        return str
    if isinstance(value, list):
        return list[Any]
    if isinstance(value, dict):
        return dict[str, Any]
    return Any


def text_cap(parents: Sequence[JsonDict], minimum: int = MIN_TEXT_CAP, *, growth: int = 2) -> int:
    """The longest text a rewrite may write in a field: `growth` times the parents' longest
    (twice by default), at least `minimum`, rounded up to a multiple of it (so few distinct
    programs). The compact prompts' `COMPACT_TEXT_GROWTH` of 1 keeps every rewrite within
    the longer of `minimum` and the starting text (rounded up), generation after generation."""
    longest = 0
    for parent in parents:
        for value in (parent.get("value") or {}).values():
            if isinstance(value, str):
                longest = max(longest, len(value))
    cap = max(minimum, growth * longest)
    return -(-cap // minimum) * minimum


__all__ = [
    "COMPACT_MIN_TEXT_CAP",
    "COMPACT_SHOWN_FEEDBACK_CHARS",
    "COMPACT_TEXT_GROWTH",
    "MIN_TEXT_CAP",
    "NB_SHOWN_PREDICTIONS",
    "RECENT_PREDICTIONS",
    "SHOWN_FEEDBACK_CHARS",
    "CrossoverInputs",
    "MutationInputs",
    "ReviewedCrossoverInputs",
    "ReviewedMutationInputs",
    "ReviewedPrediction",
    "ScoredPrediction",
    "capped_answer",
    "compact_crossover_instructions",
    "compact_inputs",
    "compact_mutation_instructions",
    "crossover_instructions",
    "mistakes",
    "mutation_instructions",
    "shown_predictions",
    "submodel",
    "text_cap",
    "variable_model",
]
