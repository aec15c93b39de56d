"""`CodeFunction`: user code run in the sandbox, as the async scoring function a reward takes.

The source is data. It is never compiled or run in this interpreter: a
`Worker` (CPython-on-WASI under wasmtime, in a process of its own) loads it and
scores rows. ``MeanRewardWrapper(fn=CodeFunction(source))`` is a reward,
``MeanMetricWrapper(fn=CodeFunction(source, entry="metric"))`` a metric, and
either saves the source in its config, so a program document or a run config
carries a code reward and a worker rebuilds it in safe mode.

Rows are scored in batches. The trainer scores a batch's rows concurrently:
each call waits on a future, and the calls that arrive together go to the
sandbox as one message (at most `max_batch` rows); calls arriving while a
batch is in the sandbox go in the next one. So a row costs the sandbox's
per-row time, not a round trip, let alone a process.

Failures, from the narrowest:

- a row whose code raises, returns something that is not a score, or is over a
  limit scores 0.0; its `RowResult.error` says why (``"KeyError: 'answer'
  (line 2)"``, ``"timed out after 2 s of CPU time"``), `errors` keeps the last
  ones and the first of each kind is logged;
- a batch (of two rows or more) in which every row failed, or a tenth failed
  row in a row, raises `UserCodeError` with the first row's error in each call
  of the batch: the run stops with that reason instead of training on zeros;
- code that cannot be loaded (syntax error, no such function, its module
  raising or timing out) raises `UserCodeError` at once.

Isolation: a `CodeFunction` owns its sandbox process; the process is loaded with
this source only and never serves another function, so one user's code cannot
see another's rows or state. Its module runs once per process, like an imported
module, so a compiled regex at the top level is built once; after a time-out or
a crash the process is replaced and the module runs again. Copying or pickling a
`CodeFunction` gives one with no process. The process is killed by `close`,
when the function is garbage-collected, after `IDLE_TIMEOUT_S` without calls,
and at interpreter exit.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import json
import logging
from collections.abc import Iterable
from typing import Any

from optimizer_core.exceptions import SandboxError, UserCodeError
from optimizer_core.rewards.reward import as_json
from optimizer_core.sandbox.limits import SandboxLimits
from optimizer_core.sandbox.results import RowResult
from optimizer_core.sandbox.worker import Worker, kill_all
from optimizer_core.saving.object_registry import ConfigurableFunction, register_library_objects

__all__ = ["CodeFunction"]

logger = logging.getLogger("optimizer_core")

#: The longest source accepted, in characters.
MAX_SOURCE_CHARS = 100_000
#: Failed rows in a row after which the function is taken for broken.
MAX_CONSECUTIVE_FAILURES = 10
#: Seconds without a call after which the sandbox process is stopped (restarted on demand).
IDLE_TIMEOUT_S = 120.0
#: Errors kept in `CodeFunction.errors`.
KEPT_ERRORS = 100

atexit.register(kill_all)


class CodeFunction(ConfigurableFunction):
    """User code that defines ``def reward(y_true, y_pred)``, run in the sandbox per row.

    The function may be ``async def`` or a plain ``def``. It receives each
    sample as a JSON dict (or None for a missing ground truth), and returns a
    number in [0, 1], or a number and a feedback text (``return 0.5, "half
    right"``). It runs under `optimizer_core.sandbox`'s limits: no network, no
    files, no environment, no processes, bounded CPU time, time, memory and
    output; the standard library's pure-Python modules are there, numpy is not.

    Args:
        source: the code (at most 100,000 characters).
        entry: the name of the function to call (default ``"reward"``).
        name: the name it is logged under (default: `entry`).
        bounded: whether a score must be in [0, 1] (default True); a metric
            that counts something may set False (any finite number).
        limits: a `SandboxLimits` or its config dict (default: the defaults).
        max_batch: the most rows sent to the sandbox in one message (default 256).

    Example:
        ```python
        source = '''
        def reward(y_true, y_pred):
            expected, got = float(y_true["answer"]), float(y_pred["answer"])
            if abs(got - expected) <= 0.01 * abs(expected):
                return 1.0
            return 0.0, f"expected {expected}, got {got}"
        '''
        reward = MeanRewardWrapper(fn=CodeFunction(source, name="within_one_percent"))
        ```
    """

    def __init__(
        self,
        source: str,
        *,
        entry: str = "reward",
        name: str | None = None,
        bounded: bool = True,
        limits: SandboxLimits | dict[str, Any] | None = None,
        max_batch: int = 256,
    ) -> None:
        if not isinstance(source, str) or not source.strip():
            raise ValueError("`source` must be the function's code, got an empty value")
        if len(source) > MAX_SOURCE_CHARS:
            raise ValueError(
                f"`source` is {len(source)} characters long; at most {MAX_SOURCE_CHARS} are allowed"
            )
        if not isinstance(entry, str) or not entry.isidentifier():
            raise ValueError(f"`entry` must be a Python function name, got {entry!r}")
        if name is not None and (not isinstance(name, str) or not name):
            raise ValueError(f"`name` must be a non-empty string or None, got {name!r}")
        if not isinstance(bounded, bool):
            raise TypeError(f"`bounded` must be True or False, got {bounded!r}")
        if isinstance(max_batch, bool) or not isinstance(max_batch, int) or max_batch < 1:
            raise ValueError(f"`max_batch` must be an integer >= 1, got {max_batch!r}")
        if isinstance(limits, dict):
            limits = SandboxLimits.from_config(limits)
        elif limits is None:
            limits = SandboxLimits()
        elif not isinstance(limits, SandboxLimits):
            raise TypeError(f"`limits` must be SandboxLimits or a dict, got {limits!r}")
        self.source = source
        self.entry = entry
        self.name = name
        self.__name__ = name or entry
        self.bounded = bounded
        self.limits = limits
        self.max_batch = max_batch
        #: The last failed rows' errors, oldest first.
        self.errors: collections.deque[str] = collections.deque(maxlen=KEPT_ERRORS)
        #: Rows scored, and how many of them failed.
        self.rows_scored = 0
        self.rows_failed = 0
        self._consecutive_failures = 0
        self._logged: set[str] = set()
        self._worker: Worker | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: list[tuple[tuple[Any, Any], asyncio.Future[RowResult]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._lock: asyncio.Lock | None = None
        self._idle: asyncio.TimerHandle | None = None

    # The scoring function -------------------------------------------------------------------

    async def __call__(self, y_true: Any, y_pred: Any) -> float | tuple[float, str]:
        """The row's score, with its feedback when the code gave one: ``(score, feedback)``.

        A failed row scores 0.0 (see `score` for the error). A reward or metric
        wrapper keeps the feedback beside the score (`optimizer_core.rewards.Scored`).

        Raises:
            UserCodeError: the code cannot be loaded, or failed on every row of the batch.
        """
        result = await self.score(y_true, y_pred)
        return (result.score, result.feedback) if result.feedback else result.score

    async def score(self, y_true: Any, y_pred: Any) -> RowResult:
        """Score one row, batched with the calls made at the same time.

        Raises:
            UserCodeError: the code cannot be loaded, or failed on every row of the batch.
            SandboxError: the sandbox cannot start (an installation problem).
        """
        row = (as_json(y_true), as_json(y_pred))
        loop = self._bind()
        future: asyncio.Future[RowResult] = loop.create_future()
        self._pending.append((row, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = loop.create_task(self._flush())
        return await future

    async def score_rows(self, rows: Iterable[tuple[Any, Any]]) -> list[RowResult]:
        """Score rows as one batch and return every row's result, failed ones included.

        For trying code on a dataset: unlike `score`, a batch whose rows all failed
        is returned as it is.

        Raises:
            UserCodeError: the code cannot be loaded.
            SandboxError: the sandbox cannot start.
        """
        json_rows = [(as_json(y_true), as_json(y_pred)) for y_true, y_pred in rows]
        self._bind()
        results: list[RowResult] = []
        for start in range(0, len(json_rows), self.max_batch):
            results.extend(await self._run(json_rows[start : start + self.max_batch]))
        return results

    async def check(self) -> str | None:
        """Load the code in the sandbox: None if it loads, else why it does not."""
        self._bind()
        try:
            await self._run([])
        except UserCodeError as error:
            return str(error)
        return None

    async def close(self) -> None:
        """Stop the sandbox process (a later call starts a new one)."""
        worker, self._worker = self._worker, None
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        if worker is not None:
            await worker.close()

    # Batching -------------------------------------------------------------------------------

    def _bind(self) -> asyncio.AbstractEventLoop:
        """The running loop; a new loop (a new ``asyncio.run``) gets a new process."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            if self._worker is not None:
                self._worker.kill()
            self._worker = None
            self._pending = []
            self._flusher = None
            self._idle = None
            self._lock = asyncio.Lock()
            self._loop = loop
        return loop

    async def _flush(self) -> None:
        # Let the other calls of a gathered batch reach the queue first.
        await asyncio.sleep(0)
        while self._pending:
            batch = self._pending[: self.max_batch]
            del self._pending[: self.max_batch]
            failure: UserCodeError | SandboxError | None
            try:
                results = await self._run([row for row, _ in batch])
                failure = self._batch_failure(results)
            except (UserCodeError, SandboxError) as error:
                failure, results = error, []
            for index, (_, future) in enumerate(batch):
                if future.done():
                    continue
                if failure is not None:
                    future.set_exception(failure)
                else:
                    future.set_result(results[index])

    async def _run(self, rows: list[tuple[Any, Any]]) -> list[RowResult]:
        assert self._lock is not None
        async with self._lock:
            if self._idle is not None:
                self._idle.cancel()
            if self._worker is None:
                self._worker = Worker(
                    self.source, entry=self.entry, bounded=self.bounded, limits=self.limits
                )
            try:
                if not self._worker.alive:
                    await self._worker.start()
                results = await self._worker.score(rows) if rows else []
            except UserCodeError as error:
                raise UserCodeError(f"the code of {self.__name__!r} cannot run: {error}") from None
            finally:
                self._idle = asyncio.get_running_loop().call_later(IDLE_TIMEOUT_S, self._stop_idle)
        self._record(results)
        return results

    def _stop_idle(self) -> None:
        if self._worker is not None:
            self._worker.kill()

    def _record(self, results: list[RowResult]) -> None:
        self.rows_scored += len(results)
        for result in results:
            if result.error is None:
                self._consecutive_failures = 0
                continue
            self.rows_failed += 1
            self._consecutive_failures += 1
            self.errors.append(result.error)
            kind = result.error.split(":", 1)[0]
            if kind not in self._logged and len(self._logged) < 20:
                self._logged.add(kind)
                logger.warning("%r scored a row 0: %s", self.__name__, result.error)

    def _batch_failure(self, results: list[RowResult]) -> UserCodeError | None:
        if not results or any(result.ok for result in results):
            return None
        if len(results) < 2 and self._consecutive_failures < MAX_CONSECUTIVE_FAILURES:
            return None
        if len(results) >= 2:
            what = f"every row of a batch of {len(results)}"
        else:
            what = f"{self._consecutive_failures} rows in a row"
        return UserCodeError(f"the code of {self.__name__!r} failed on {what}: {results[0].error}")

    # Saving ---------------------------------------------------------------------------------

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments: the source is saved as data."""
        return {
            "source": self.source,
            "entry": self.entry,
            "name": self.name,
            "bounded": self.bounded,
            "limits": self.limits.get_config(),
            "max_batch": self.max_batch,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> CodeFunction:
        return cls(**config)

    def __reduce__(self) -> tuple[Any, ...]:
        # A copy (copy, deepcopy, pickle) is the same code with no process of its own.
        return (_rebuild, (json.dumps(self.get_config()),))

    def __del__(self) -> None:
        worker = getattr(self, "_worker", None)
        if worker is not None:
            with contextlib.suppress(Exception):  # at interpreter exit, modules may be gone
                worker.kill()

    def __repr__(self) -> str:
        return f"<CodeFunction name={self.__name__!r} entry={self.entry!r}>"


def _rebuild(config: str) -> CodeFunction:
    return CodeFunction.from_config(json.loads(config))


register_library_objects(CodeFunction)
