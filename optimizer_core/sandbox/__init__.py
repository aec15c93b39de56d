"""The sandbox for user code: code rewards and metrics, run where they can reach nothing.

`CodeFunction` turns source code defining ``def reward(y_true, y_pred)`` (or
``async def``) into the async function a `MeanRewardWrapper` or
`MeanMetricWrapper` takes. The code runs in CPython 3.12 compiled for WASI,
under wasmtime, in a process of its own (`worker.Worker`): no network, no file,
no environment variable and no process exist for it; each row has a CPU-time,
a wall-time and an output limit, and the interpreter a memory limit
(`SandboxLimits`). docs/rewards.md says why this runtime (measured beside
Pyodide under Deno and bubblewrap), and what the code can use.

``python -m optimizer_core.sandbox prepare`` compiles the runtime for this
machine once (``make`` runs it); ``python -m optimizer_core.sandbox check``
runs a row in the sandbox.
"""

from optimizer_core.sandbox.function import CodeFunction
from optimizer_core.sandbox.limits import SandboxLimits
from optimizer_core.sandbox.results import RowResult
from optimizer_core.sandbox.runtime import prepare

__all__ = ["CodeFunction", "RowResult", "SandboxLimits", "prepare"]
