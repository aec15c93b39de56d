"""`Worker`: one sandbox process, loaded with one function's code, scoring batches of rows.

A worker is a host process (`_host.py`: Python with only wasmtime imported)
running CPython-on-WASI, started with an empty environment in its own session,
with no core file, no file writes and few descriptors (`resource.prlimit`). It
loads one user function and then scores batches: one message carries a batch's
rows, one answer comes back per row, so rows cost microseconds, not a process.

The limits are the parent's to enforce, per row: the next answer must come
within the wall-time limit, and the host's CPU time (from ``/proc``) may not
grow by more than the CPU-time limit meanwhile. A row over either, a row whose
answer is over the output limit or garbled, or a guest that crashes ends
*that* row with the reason: the process is killed (its whole session), a fresh
one loads the code again, and the batch goes on from the next row. A batch
whose rows end that way more than `max_restarts` times stops there; its remaining
rows fail unrun with the same reason, so a function that loops on every row
costs a few time limits, not one per row.

Why not time the rows inside the guest: the guest cannot interrupt itself (no
signals, no threads in WASI), and wasmtime's epoch deadline would end the
instance anyway. Killing from outside is the one mechanism that also covers a
host stuck in wasmtime, and it leaves nothing running.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import resource
import signal
import weakref
from collections.abc import Sequence
from typing import Any

from optimizer_core.exceptions import SandboxError, UserCodeError
from optimizer_core.sandbox import runtime
from optimizer_core.sandbox.limits import SandboxLimits
from optimizer_core.sandbox.results import RowResult

__all__ = ["Worker"]

#: How long a host may take to start (Python, wasmtime, the interpreter's own start).
START_TIMEOUT_S = 60.0
#: Bytes of an answer beyond the output limit taken by its JSON framing.
FRAME_OVERHEAD = 1024
#: The host's own error output kept (a Python traceback of the host itself).
HOST_STDERR_BYTES = 4000
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

#: Every worker with a live process, so none outlives the interpreter.
_LIVE: weakref.WeakSet[Worker] = weakref.WeakSet()


def kill_all() -> None:
    """Kill every live worker's process (at interpreter exit, and for tests)."""
    for worker in list(_LIVE):
        worker.kill()


class _Stopped(Exception):
    """The process answered no more: it exited, was over a limit, or garbled its answer."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _frame(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, allow_nan=False).encode("utf-8") + b"\n"


class Worker:
    """One sandbox process serving one function's code.

    Args:
        source: the user's code.
        entry: the name of the function it defines to call per row.
        bounded: whether a score must be in [0, 1].
        limits: the limits of each call.
    """

    def __init__(self, source: str, *, entry: str, bounded: bool, limits: SandboxLimits) -> None:
        self.source = source
        self.entry = entry
        self.bounded = bounded
        self.limits = limits
        self.process: asyncio.subprocess.Process | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        #: The ids of the processes started, the first included (a restart follows each
        #: time-out or crash).
        self.pids: list[int] = []
        #: Batches sent to the sandbox.
        self.batches = 0
        #: What loading the code printed.
        self.load_output = ""
        self._stderr = bytearray()
        self._stderr_task: asyncio.Task[None] | None = None
        #: The host's /proc/<pid>/stat, kept open: read again for each row's CPU time.
        self._stat: int | None = None

    # Lifecycle ------------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def start(self) -> None:
        """Start the process and load the code (again, after a kill).

        Raises:
            UserCodeError: the code cannot be loaded (syntax error, no `entry`
                function, an error or a time-out while its module runs).
            SandboxError: the runtime is missing or the host would not start.
        """
        self.kill()
        compiled = await asyncio.to_thread(runtime.prepare)
        try:
            await self._spawn(compiled)
        except _Incompatible:
            # Compiled for another CPU or wasmtime (a copied cache): compile here, once.
            compiled = await asyncio.to_thread(runtime.prepare, force=True)
            await self._spawn(compiled)
        await self._load()

    async def _spawn(self, compiled: Any) -> None:
        self.loop = asyncio.get_running_loop()
        self._stderr = bytearray()
        memory = self.limits.memory_mb * 1024 * 1024
        process = await asyncio.create_subprocess_exec(
            *runtime.host_command(compiled, memory),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={},
            cwd="/",
            start_new_session=True,
            limit=self.limits.output_bytes + FRAME_OVERHEAD,  # the longest line read
        )
        self.process = process
        self.pids.append(process.pid)
        _LIVE.add(self)
        with contextlib.suppress(OSError):
            self._stat = os.open(f"/proc/{process.pid}/stat", os.O_RDONLY)
        with contextlib.suppress(OSError, ValueError):
            resource.prlimit(process.pid, resource.RLIMIT_CORE, (0, 0))
            resource.prlimit(process.pid, resource.RLIMIT_FSIZE, (0, 0))
            resource.prlimit(process.pid, resource.RLIMIT_NOFILE, (64, 64))
        self._stderr_task = asyncio.ensure_future(self._drain_stderr(process))
        try:
            ready = await asyncio.wait_for(self._read(), START_TIMEOUT_S)
        except (TimeoutError, _Stopped) as error:
            await self.close()
            reason = getattr(error, "reason", f"no answer in {START_TIMEOUT_S:.0f} s")
            raise SandboxError(f"the sandbox did not start: {reason}") from None
        if isinstance(ready, dict) and ready.get("exit") == runtime.INCOMPATIBLE:
            await self.close()
            raise _Incompatible(str(ready.get("trap")))
        if ready != {"ready": True}:
            await self.close()
            raise SandboxError(f"the sandbox did not start: it said {str(ready)[:200]}")

    async def _load(self) -> None:
        message = {
            "op": "load",
            "source": self.source,
            "entry": self.entry,
            "bounded": self.bounded,
            "output_chars": self.limits.output_chars,
            "feedback_chars": self.limits.feedback_chars,
            "memory_mb": self.limits.memory_mb,
        }
        try:
            await self._send(message)
            answer = await self._next()
        except _Stopped as stopped:
            self.kill()
            raise UserCodeError(f"loading the code failed: {stopped.reason}") from None
        if isinstance(answer, dict) and "exit" in answer:
            self.kill()
            raise UserCodeError(f"loading the code failed: {self._exit_reason(answer)}")
        if not isinstance(answer, dict) or not (answer.get("ok") or answer.get("error")):
            self.kill()
            raise UserCodeError("loading the code failed: its answer was garbled")
        self.load_output = str(answer.get("output") or "")
        if answer.get("error"):
            self.kill()
            raise UserCodeError(str(answer["error"]))

    def kill(self) -> None:
        """Kill the process and everything in its session, now (idempotent, synchronous)."""
        process, self.process = self.process, None
        _LIVE.discard(self)
        stat, self._stat = self._stat, None
        if stat is not None:
            os.close(stat)
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        # Close the pipes too: asyncio's wait() returns only once they are, and a reader
        # paused on an oversized answer would never see their end. (Not the transport's
        # close(): it polls the child, racing asyncio's own reaping of it.)
        for stream in (process.stdin, process.stdout, process.stderr):
            transport = getattr(stream, "_transport", None) if stream is not None else None
            if transport is not None:
                with contextlib.suppress(RuntimeError):  # its loop is closed: nothing to tell
                    transport.close()

    async def close(self) -> None:
        """Kill the process and wait for it to be gone."""
        process = self.process
        self.kill()
        if process is not None:
            with contextlib.suppress(ProcessLookupError):
                await process.wait()
        if self._stderr_task is not None:
            self._stderr_task.cancel()
            self._stderr_task = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter exit, modules may be gone
            self.kill()

    # Scoring --------------------------------------------------------------------------------

    async def score(
        self, rows: Sequence[tuple[Any, Any]], *, max_restarts: int = 3
    ) -> list[RowResult]:
        """Score `rows` (JSON-compatible ``(y_true, y_pred)`` pairs) in order, one result each.

        Raises:
            UserCodeError: the code cannot be loaded again after a restart.
            SandboxError: the process cannot be started.
        """
        results: list[RowResult] = []
        restarts = 0
        while len(results) < len(rows):
            if not self.alive:
                await self.start()
            pending = rows[len(results) :]
            self.batches += 1
            try:
                await self._send({"op": "rows", "rows": [list(row) for row in pending]})
                for _ in pending:
                    results.append(self._row(await self._next()))
            except _Stopped as stopped:
                await self.close()
                results.append(RowResult.failed(stopped.reason))
                restarts += 1
                if restarts > max_restarts and len(results) < len(rows):
                    skipped = f"not run: the code failed this way on {restarts} rows: "
                    results.extend(
                        RowResult.failed(skipped + stopped.reason)
                        for _ in range(len(rows) - len(results))
                    )
        return results

    def _row(self, answer: Any) -> RowResult:
        if not isinstance(answer, dict):
            raise _Stopped("its answer was garbled (the code wrote to the sandbox's own output)")
        output = answer.get("output")
        output = output if isinstance(output, str) else ""
        if "exit" in answer:
            raise _Stopped(self._exit_reason(answer))
        error = answer.get("error")
        if isinstance(error, str):
            return RowResult.failed(error, output)
        score, feedback = answer.get("score"), answer.get("feedback")
        if (
            isinstance(score, bool)
            or not isinstance(score, int | float)
            or not math.isfinite(score)
            or (self.bounded and not 0.0 <= score <= 1.0)
            or not isinstance(feedback, str | None)
        ):
            raise _Stopped("its answer was garbled (the code wrote to the sandbox's own output)")
        return RowResult(score=float(score), feedback=feedback, output=output)

    def _exit_reason(self, answer: dict[str, Any]) -> str:
        trap = answer.get("trap")
        if trap:
            return f"the sandbox stopped: {str(trap)[:300]}"
        stderr = str(answer.get("stderr") or "").strip().splitlines()
        last = stderr[-1][:300] if stderr else f"exit status {answer.get('exit')}"
        return f"the sandbox's interpreter stopped: {last}"

    # Messages -------------------------------------------------------------------------------

    async def _send(self, message: dict[str, Any]) -> None:
        process = self.process
        if process is None or process.stdin is None:
            raise _Stopped("the sandbox is not running")
        try:
            process.stdin.write(_frame(message))
            await process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise _Stopped(await self._death()) from None

    async def _read(self) -> Any:
        """The next message. Cancelled while it waits, it has consumed nothing."""
        process = self.process
        if process is None or process.stdout is None:
            raise _Stopped("the sandbox is not running")
        try:
            line = await process.stdout.readuntil(b"\n")
        except asyncio.LimitOverrunError:
            raise _Stopped(
                f"its answer was over the output limit of {self.limits.output_bytes} bytes"
            ) from None
        except (asyncio.IncompleteReadError, ConnectionResetError):
            raise _Stopped(await self._death()) from None
        try:
            return json.loads(line)
        except ValueError:
            raise _Stopped(
                "its answer was garbled (the code wrote to the sandbox's own output)"
            ) from None

    async def _next(self) -> Any:
        """The next answer, within the wall-time and CPU-time limits of one call."""
        limits = self.limits
        loop = asyncio.get_running_loop()
        started = loop.time()
        cpu_start = self._cpu_seconds()
        # A process cannot use more CPU time than time passes (one thread runs the guest),
        # so the first check is due when the smaller limit has passed on the clock.
        wait = min(limits.wall_time_s, limits.cpu_time_s)
        while True:
            try:
                async with asyncio.timeout(wait):
                    return await self._read()
            except TimeoutError:
                pass
            elapsed = loop.time() - started
            if elapsed >= limits.wall_time_s:
                raise _Stopped(f"timed out after {limits.wall_time_s:g} s")
            now = self._cpu_seconds()
            cpu_left = math.inf
            if cpu_start is not None and now is not None:
                cpu_left = limits.cpu_time_s - (now - cpu_start)
                if cpu_left <= 0:
                    raise _Stopped(f"timed out after {limits.cpu_time_s:g} s of CPU time")
            wait = max(0.01, min(limits.wall_time_s - elapsed, cpu_left))

    def _cpu_seconds(self) -> float | None:
        """The process's user + system CPU time, or None where /proc cannot tell."""
        if self._stat is None:
            return None
        try:
            fields = os.pread(self._stat, 1024, 0).rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            return None
        return (int(fields[11]) + int(fields[12])) / _TICKS

    async def _death(self) -> str:
        """Why the process stopped answering, from its last message if it wrote one."""
        process = self.process
        if process is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), 5)
        host = self._stderr.decode("utf-8", "replace").strip().splitlines()
        if host:
            return f"the sandbox's host stopped: {host[-1][:300]}"
        code = process.returncode if process is not None else None
        return f"the sandbox stopped (exit status {code})"

    async def _drain_stderr(self, process: asyncio.subprocess.Process) -> None:
        assert process.stderr is not None
        while chunk := await process.stderr.read(4096):
            self._stderr.extend(chunk)
            del self._stderr[:-HOST_STDERR_BYTES]


class _Incompatible(SandboxError):
    """The compiled runtime in the cache does not fit this wasmtime or CPU."""
