"""The scripted "language model" of the fit-overhead benchmark.

The task is addition: the user message holds a question ``What is a+b?``. The
scripted model answers it correctly with a probability that grows with the
number of few-shot examples it was shown, so a training run that puts examples
into the prompt shows a reward change:

    p(correct) = min(0.95, 0.30 + 0.20 * examples)

The draw is deterministic: each question gets a fixed number ``u`` in [0, 1)
from a hash of its operands, and the answer is right when ``u < p``. A question
answered right with k examples is therefore also answered right with more, and
the same request always gets the same answer, whatever the concurrency.

The responder reads both libraries' request shapes (looked up, not assumed):

- the question is the last ``What is a+b?`` in the last user message (the
  message content may be a string, a Python dict repr, JSON, or a list of
  OpenAI content parts);
- the examples are the other questions found anywhere in the conversation
  before that message (in the system prompt or as earlier turns);
- the answer is a JSON object with the keys of the ``response_format`` JSON
  schema (``answer`` gets the sum; other keys a type-correct filler), or
  ``{"answer": ...}`` when the request has no schema.

Serve it with the scripted server, e.g.::

    PYTHONPATH=bench/fit_overhead .venv/bin/python -m optimizer_core.testing.scripted_server \
        --port 0 --latency 0.1 --responder responder:respond
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

QUESTION = re.compile(r"What is (\d+)\s*\+\s*(\d+)\s*\?")

BASE_ACCURACY = 0.30
ACCURACY_PER_EXAMPLE = 0.20
MAX_ACCURACY = 0.95


def accuracy(examples: int) -> float:
    """Probability of a right answer after seeing ``examples`` few-shot examples."""
    return min(MAX_ACCURACY, BASE_ACCURACY + ACCURACY_PER_EXAMPLE * examples)


def question_draw(a: int, b: int) -> float:
    """The fixed number in [0, 1) that decides whether ``a+b`` is answered right."""
    digest = hashlib.sha256(f"{a}+{b}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def answer_for(a: int, b: int, *, examples: int) -> int:
    """The scripted model's answer to ``What is a+b?`` given the number of examples."""
    if question_draw(a, b) < accuracy(examples):
        return a + b
    return a + b + 1


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                parts.append(str(part.get("text", "")))
            else:
                parts.append(str(part))
        return "\n".join(parts)
    return "" if content is None else str(content)


def _response_schema(request: dict[str, Any]) -> dict[str, Any] | None:
    response_format = request.get("response_format")
    if not isinstance(response_format, dict):
        return None
    json_schema = response_format.get("json_schema")
    if isinstance(json_schema, dict):
        schema = json_schema.get("schema", json_schema)
        if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
            return schema
    schema = response_format.get("schema")
    if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
        return schema
    return None


_FILLERS: dict[str, Any] = {
    "string": "Add the two numbers.",
    "integer": 0,
    "number": 0.0,
    "boolean": False,
    "array": [],
    "object": {},
}


def _value(prop: dict[str, Any], answer: int | None, key: str) -> Any:
    kind = prop.get("type", "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if key.startswith("answer") and answer is not None:
        if kind in ("integer", "number"):
            return answer
        return str(answer)
    return _FILLERS.get(kind, "")


def _messages(request: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """The request's messages and the index of the last user message (the question)."""
    messages = [m for m in request.get("messages") or [] if isinstance(m, dict)]
    user_indices = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    return messages, user_indices[-1] if user_indices else len(messages) - 1


def examples_in(request: dict[str, Any]) -> int:
    """How many few-shot examples the request shows: the questions outside its last user turn."""
    messages, last_user = _messages(request)
    return sum(
        len(QUESTION.findall(_text(m.get("content"))))
        for i, m in enumerate(messages)
        if i != last_user
    )


def question_in(request: dict[str, Any]) -> tuple[int, int] | None:
    """The operands of the question asked (the last one in the last user turn), if any."""
    messages, last_user = _messages(request)
    if not 0 <= last_user < len(messages):
        return None
    found = QUESTION.findall(_text(messages[last_user].get("content")))
    if not found:
        return None
    a, b = found[-1]
    return int(a), int(b)


def respond(request: dict[str, Any]) -> dict[str, Any]:
    """Answer one chat completion request (the scripted server's responder).

    Args:
        request: the parsed JSON body of a ``/v1/chat/completions`` request.

    Returns:
        The JSON object to send as the message content.
    """
    question = question_in(request)
    answer = None
    if question is not None:
        answer = answer_for(*question, examples=examples_in(request))
    schema = _response_schema(request)
    if schema is None:
        return {"answer": "" if answer is None else str(answer)}
    return {key: _value(prop, answer, key) for key, prop in schema["properties"].items()}
