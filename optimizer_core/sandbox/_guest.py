"""The program the sandboxed interpreter runs: load one user function, then score rows.

This file is never imported by optimizer_core. Its text is handed to CPython
compiled for WASI (``python -c <this file>``) inside the sandbox host
(`_host.py`), so it runs with the sandbox's limits: no files, no network, no
environment, no processes, bounded memory.

The protocol, on the guest's stdin and stdout: one JSON document per line (JSON
escapes every newline inside a string, so a line is a message).

- the guest first writes ``{"ready": true}``;
- ``{"op": "load", "source": str, "entry": str, "bounded": bool, ...limits}``
  runs the source in a fresh namespace and answers ``{"ok": true}`` or
  ``{"error": str}``;
- ``{"op": "rows", "rows": [[y_true, y_pred], ...]}`` answers one message per
  row, in order: ``{"score": float, "feedback": str | None, "output": str}``
  or ``{"error": str, "output": str}``.

User code can reach this interpreter's stdin and stdout too; all it can do
with them is garble its own answers, which the parent then reports as that
row's error. It cannot reach anything outside the sandbox.
"""

import builtins
import functools
import io
import math
import sys
from collections.abc import Callable
from json import dumps as _dumps
from json import loads as _loads
from typing import Any

_readline = sys.stdin.buffer.readline
_write = sys.stdout.buffer.write
_flush = sys.stdout.buffer.flush
_USER_FILE = "<code>"

NO_LOOP = (
    "the function awaited something that needs an event loop (a sleep, a network call); "
    "the sandbox has none: await only other coroutines"
)
state: dict[str, Any] = {
    "entry": None,
    "bounded": True,
    "output_chars": 4000,
    "feedback_chars": 2000,
}


def send(message: dict[str, Any]) -> None:
    _write(_dumps(message, ensure_ascii=False, allow_nan=False).encode("utf-8") + b"\n")
    _flush()


def receive() -> Any:
    line = _readline()
    return _loads(line) if line else None


class Capture(io.TextIOBase):
    """What the user's code prints, kept up to a bound."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        room = self.limit - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(len(text), room)
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def text(self) -> str:
        shown = "".join(self.parts)
        if self.dropped:
            shown += f"\n[{self.dropped} more characters of output dropped]"
        return shown


def user_line(error: BaseException) -> int | None:
    """The line of the user's code the error was raised from (its last frame there), or None."""
    if isinstance(error, SyntaxError) and error.filename == _USER_FILE:
        return error.lineno
    line, frame = None, error.__traceback__
    while frame is not None:  # a walk, not extract_tb: a deep recursion's chain is long
        if frame.tb_frame.f_code.co_filename == _USER_FILE:
            line = frame.tb_lineno
        frame = frame.tb_next
    return line


def describe(error: BaseException) -> str:
    """``ZeroDivisionError: division by zero (line 3)``: the error and where in the user's code."""
    name = type(error).__name__
    try:
        message = error.msg if isinstance(error, SyntaxError) else str(error)
        message = str(message)[:1000]
    except BaseException:  # an exception whose __str__ fails
        message = "(its message could not be shown)"
    if isinstance(error, MemoryError):
        message = (message or "out of memory") + (
            f" (the sandbox's memory limit is {state['memory_mb']} MiB)"
        )
    if isinstance(error, RuntimeError) and message == "no running event loop":
        message = NO_LOOP
    text = f"{name}: {message}" if message else name
    line = user_line(error)
    return f"{text} (line {line})" if line else text


def run_coroutine(coroutine: Any) -> Any:
    """Drive an ``async def`` result to its end: no event loop exists in the sandbox."""
    try:
        while True:
            coroutine.send(None)
            coroutine.close()
            raise RuntimeError(NO_LOOP)
    except StopIteration as stop:
        return stop.value


def as_score(value: Any) -> tuple[float, str | None]:
    """``(score, feedback)`` from what the user's function returned."""
    feedback = None
    if isinstance(value, tuple | list):
        if len(value) != 2 or not isinstance(value[1], str | type(None)):
            raise TypeError(
                f"returned a {type(value).__name__} of {len(value)} items; expected a number, "
                "or (number, feedback text)"
            )
        value, feedback = value
    if isinstance(value, bool) or not isinstance(value, int | float):
        shown = repr(value)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        raise TypeError(f"returned {type(value).__name__} ({shown}), expected a number")
    score = float(value)
    if not math.isfinite(score):
        raise ValueError(f"returned {score}, expected a finite number")
    if state["bounded"] and not 0.0 <= score <= 1.0:
        raise ValueError(f"returned {score}, expected a number in [0, 1]")
    if feedback is not None and len(feedback) > state["feedback_chars"]:
        feedback = feedback[: state["feedback_chars"]] + "..."
    return score, feedback


def captured(call: Callable[[], Any]) -> tuple[Any, str | None, str]:
    """Run `call` with the user's prints captured; returns (result or error, printed text)."""
    capture = Capture(state["output_chars"])
    sys.stdout = sys.stderr = capture
    try:
        return call(), None, capture.text()
    except BaseException as error:  # SystemExit too: every row answers
        return None, describe(error), capture.text()
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__


def load(message: dict[str, Any]) -> None:
    for key in ("bounded", "output_chars", "feedback_chars", "memory_mb"):
        state[key] = message[key]
    namespace: dict[str, Any] = {"__name__": "user_code", "__builtins__": builtins}

    def run() -> Any:
        exec(compile(message["source"], _USER_FILE, "exec"), namespace)
        entry = namespace.get(message["entry"])
        if not callable(entry):
            defined = sorted(
                name
                for name, value in namespace.items()
                if callable(value) and not name.startswith("__")
            )
            also = f" (it defines: {', '.join(defined)})" if defined else ""
            raise NameError(f"the code defines no function `{message['entry']}`{also}")
        return entry

    entry, error, output = captured(run)
    if error is not None:
        send({"error": error, "output": output})
        return
    state["entry"] = entry
    send({"ok": True, "output": output})


def score_row(y_true: Any, y_pred: Any) -> tuple[float, str | None]:
    result = state["entry"](y_true, y_pred)
    if type(result).__name__ == "coroutine":
        result = run_coroutine(result)
    return as_score(result)


def rows(message: dict[str, Any]) -> None:
    for y_true, y_pred in message["rows"]:
        result, error, output = captured(functools.partial(score_row, y_true, y_pred))
        if error is not None:
            send({"error": error, "output": output})
        else:
            send({"score": result[0], "feedback": result[1], "output": output})


def main() -> None:
    send({"ready": True})
    while True:
        message = receive()
        if message is None:
            return
        if message["op"] == "load":
            load(message)
        elif message["op"] == "rows":
            rows(message)


main()
