"""The scripted "language model" of the OMEGA benchmark: the task and the optimizer's requests.

One responder answers every chat request the training run sends:

- **task requests** (the response schema's keys are exactly ``answer``): the
  fit-overhead bench's addition model (`bench/fit_overhead/responder.py`),
  whose accuracy also grows with the quality of the instructions the request
  holds::

      p(correct) = min(0.95, 0.30 + 0.20 * examples + 0.15 * level)

  ``level`` counts the `MARKERS` (four fixed sentences, a prefix of the list)
  found outside the last user message, i.e. in the instructions. Default
  instructions hold none.
- **optimizer requests** (any other schema, e.g. ``{thinking, instructions}``
  for OMEGA's mutation and crossover programs): the schema is filled, and an
  ``instructions`` key gets new instructions one marker better or worse than
  the variables shown in the last user message (for a crossover that is both
  parents, so a merge starts from the better one), with a tag drawn from the
  request so that no two proposals are the same text. The move is a hash of
  the request: +1 with probability 1/2, 0 with 1/4, -1 with 1/4.

`request_kind` tells the three kinds apart by the request alone: ``"task"``,
``"crossover"`` (the user message names an ``other_variable``, the key both
libraries use for the second parent) and ``"mutation"`` (any other optimizer
request). Everything is deterministic given the request, whatever the timing.
"""

from __future__ import annotations

import hashlib
from typing import Any

from bench.fit_overhead import responder as fit

MARKERS = (
    "Add the units first.",
    "Carry the tens.",
    "Check the sum twice.",
    "Answer with the number only.",
)
"""The sentences that make instructions better, in the order the optimizer finds them."""

ACCURACY_PER_LEVEL = 0.15
INSTRUCTIONS_PREFIX = "Answer the addition question with a JSON holding the key `answer`."
THINKING = "The worst predictions are off by one: state one more rule about the sum."


def schema_keys(request: dict[str, Any]) -> list[str]:
    """The property names of the request's ``response_format`` schema (empty without one)."""
    schema = fit._response_schema(request)
    return [] if schema is None else list(schema["properties"])


def request_kind(request: dict[str, Any]) -> str:
    """``"task"``, ``"mutation"`` or ``"crossover"``, read from the request alone."""
    keys = schema_keys(request)
    if not keys or keys == ["answer"]:
        return "task"
    return "crossover" if "other_variable" in last_user_text(request) else "mutation"


def last_user_text(request: dict[str, Any]) -> str:
    messages, last_user = fit._messages(request)
    if not 0 <= last_user < len(messages):
        return ""
    return str(fit._text(messages[last_user].get("content")))


def context_text(request: dict[str, Any]) -> str:
    """Everything outside the last user message (system prompt, earlier turns)."""
    messages, last_user = fit._messages(request)
    return "\n".join(
        str(fit._text(m.get("content"))) for i, m in enumerate(messages) if i != last_user
    )


def level_of(text: str) -> int:
    """How good instructions are: the length of the prefix of `MARKERS` found in ``text``."""
    level = 0
    for marker in MARKERS:
        if marker not in text:
            break
        level += 1
    return level


def task_accuracy(examples: int, level: int) -> float:
    """Probability of a right answer given the examples shown and the instructions' level."""
    accuracy = fit.BASE_ACCURACY + fit.ACCURACY_PER_EXAMPLE * examples
    return float(min(fit.MAX_ACCURACY, accuracy + ACCURACY_PER_LEVEL * level))


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def proposed_instructions(request: dict[str, Any]) -> str:
    """New instructions for an optimizer request: one marker more or less, and a unique tag."""
    shown = last_user_text(request)
    digest = _digest(shown)
    move = (1, 1, 0, -1)[digest[0] % 4]
    level = max(0, min(len(MARKERS), level_of(shown) + move))
    return " ".join([INSTRUCTIONS_PREFIX, *MARKERS[:level], f"(draft {digest[1:4].hex()})"])


def respond_task(request: dict[str, Any]) -> dict[str, Any]:
    question = fit.question_in(request)
    answer = None
    if question is not None:
        a, b = question
        accuracy = task_accuracy(fit.examples_in(request), level_of(context_text(request)))
        answer = a + b if fit.question_draw(a, b) < accuracy else a + b + 1
    schema = fit._response_schema(request)
    if schema is None:
        return {"answer": "" if answer is None else str(answer)}
    return {key: fit._value(prop, answer, key) for key, prop in schema["properties"].items()}


def respond_optimizer(request: dict[str, Any]) -> dict[str, Any]:
    schema = fit._response_schema(request) or {"properties": {}}
    out: dict[str, Any] = {}
    for key, prop in schema["properties"].items():
        if key == "instructions":
            out[key] = proposed_instructions(request)
        elif key == "thinking":
            out[key] = THINKING
        else:
            out[key] = fit._value(prop, None, key)
    return out


def respond(request: dict[str, Any]) -> dict[str, Any]:
    """Answer one chat completion request (the scripted server's responder).

    Args:
        request: the parsed JSON body of a ``/v1/chat/completions`` request.

    Returns:
        The JSON object to send as the message content.
    """
    if request_kind(request) == "task":
        return respond_task(request)
    return respond_optimizer(request)
