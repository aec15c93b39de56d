"""The sandbox host: a process that runs CPython-on-WASI under wasmtime, and nothing else.

Run by `worker.Worker` as ``python -I _host.py run <compiled module> <memory bytes>``
with an empty environment, or by `runtime.prepare` as ``... compile <wasm> <out>``.
It imports only the standard library and wasmtime (never optimizer_core), so
it starts in a fraction of a second.

What the guest gets is what WASI grants and nothing more: the guest program
(`_guest.py`, in its argv), this process's stdin and stdout as its own (the
parent's pipes), no environment variable, no preopened directory (so no file
at all), no socket, and a linear memory capped at the given size (a larger
allocation fails inside the guest with MemoryError). WASI has no process
creation and the build has no threads.

When the guest ends (the parent closed stdin, or it trapped), the host writes one
last message to stdout, ``{"exit": code, "trap": text | None, "stderr": tail}``,
in the guest's framing (a line of JSON). The host also exits
on its own when its parent dies, so a guest stuck in a loop never outlives it.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import wasmtime

#: The guest's stderr kept for the last message (a crash's own report).
STDERR_TAIL = 4000
#: Exit status when the compiled module does not fit this wasmtime or CPU.
INCOMPATIBLE = 3


def send(message: dict[str, object]) -> None:
    os.write(1, json.dumps(message).encode("utf-8") + b"\n")


def engine() -> wasmtime.Engine:
    """The engine; `compile` and `run` must use the same settings for a module to load."""
    return wasmtime.Engine(wasmtime.Config())


def compile_module(wasm: str, out: str) -> None:
    module = wasmtime.Module.from_file(engine(), wasm)
    partial = f"{out}.{os.getpid()}.part"
    Path(partial).write_bytes(module.serialize())
    os.replace(partial, out)


def exit_with_parent() -> None:
    parent = os.getppid()
    while True:
        time.sleep(0.2)
        if os.getppid() != parent:
            os._exit(1)


def run(compiled: str, memory_bytes: int) -> None:
    threading.Thread(target=exit_with_parent, daemon=True).start()
    store_engine = engine()
    try:
        module = wasmtime.Module.deserialize_file(store_engine, compiled)
    except wasmtime.WasmtimeError as error:
        send({"exit": INCOMPATIBLE, "trap": f"cannot load the compiled runtime: {error}"})
        sys.exit(INCOMPATIBLE)
    guest = Path(__file__).with_name("_guest.py").read_text(encoding="utf-8")
    stderr = bytearray()

    def keep_stderr(data: bytes) -> None:
        stderr.extend(data)
        del stderr[:-STDERR_TAIL]

    wasi = wasmtime.WasiConfig()
    wasi.argv = ["python", "-I", "-B", "-c", guest]
    wasi.inherit_stdin()
    wasi.inherit_stdout()
    wasi.stderr_custom = keep_stderr
    store = wasmtime.Store(store_engine)
    store.set_wasi(wasi)
    store.set_limits(memory_size=memory_bytes)
    linker = wasmtime.Linker(store_engine)
    linker.define_wasi()
    code, trap = 0, None
    try:
        instance = linker.instantiate(store, module)
        start = instance.exports(store)["_start"]
        assert isinstance(start, wasmtime.Func)
        start(store)
    except wasmtime.ExitTrap as error:
        code = error.code
    except wasmtime.WasmtimeError as error:
        code, trap = 1, str(error).splitlines()[0][:500]
    send({"exit": code, "trap": trap, "stderr": stderr.decode("utf-8", "replace")})


def main(argv: list[str]) -> None:
    if len(argv) == 3 and argv[0] == "compile":
        compile_module(argv[1], argv[2])
    elif len(argv) == 3 and argv[0] == "run":
        run(argv[1], int(argv[2]))
    else:
        sys.exit("usage: _host.py compile <wasm> <out> | run <compiled> <memory bytes>")


if __name__ == "__main__":
    main(sys.argv[1:])
