"""``python -m optimizer_core.sandbox prepare | check``: compile the runtime, or try it."""

from __future__ import annotations

import asyncio
import sys
import time

from optimizer_core.exceptions import OptimizerCoreError
from optimizer_core.sandbox import CodeFunction, prepare

_CHECK_SOURCE = """
import difflib, json, math, re, statistics

def reward(y_true, y_pred):
    ratio = difflib.SequenceMatcher(None, y_true["answer"], y_pred["answer"]).ratio()
    return round(ratio, 3), "similarity of the answers"
"""


async def _check() -> None:
    function = CodeFunction(_CHECK_SOURCE)
    started = time.perf_counter()
    try:
        result = await function.score({"answer": "Paris"}, {"answer": "Paris, France"})
    finally:
        await function.close()
    print(f"sandbox works: scored {result.score} ({result.feedback}) in "
          f"{time.perf_counter() - started:.2f} s, start-up included")  # fmt: skip


def main(argv: list[str]) -> int:
    if argv not in (["prepare"], ["check"]):
        print("usage: python -m optimizer_core.sandbox prepare | check", file=sys.stderr)
        return 2
    try:
        if argv == ["prepare"]:
            started = time.perf_counter()
            path = prepare()
            print(f"sandbox runtime ready: {path} ({time.perf_counter() - started:.1f} s)")
        else:
            asyncio.run(_check())
    except OptimizerCoreError as error:
        print(f"sandbox: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
