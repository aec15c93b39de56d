"""The hostile-code corpus, against the real sandbox: every case a clear per-row error.

One function holds the whole corpus and runs the case its row names, so each
case is one row of a real batch: no escape may succeed, each row must fail
with an error naming what was refused, a time-out or a crash replaces the
sandbox process, the next row still works, and nothing is left running.
"""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

import pytest

from optimizer_core.sandbox import CodeFunction, SandboxLimits

pytestmark = pytest.mark.usefixtures("sandbox_runtime")

CHECKOUT = Path(__file__).resolve().parents[2]

CORPUS = """
import os, sys

def attempt(case, arg):
    if case == "connect":
        import socket
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect(("127.0.0.1", arg))
        return "connected"
    if case == "udp":
        import socket
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(b"x", ("127.0.0.1", arg))
        return "sent"
    if case == "urllib":
        import urllib.request
        return urllib.request.urlopen(f"http://127.0.0.1:{arg}/", timeout=2).read()
    if case == "read":
        with open(arg) as handle:
            return handle.read(100)
    if case == "listdir":
        return os.listdir(arg)
    if case == "write":
        with open(arg, "w") as handle:
            handle.write("owned")
        return "written"
    if case == "environ":
        return dict(os.environ)
    if case == "getenv":
        return os.environ[arg]
    if case == "ctypes":
        import ctypes
        return ctypes.CDLL(None)
    if case == "system":
        return __import__("os").system("id")
    if case == "popen":
        import subprocess
        return subprocess.run(["id"], capture_output=True).stdout
    if case == "fork_bomb":
        while True:
            os.fork()
    if case == "spawn":
        return os.posix_spawn("/bin/sh", ["sh"], {})
    if case == "threads":
        import threading
        while True:
            threading.Thread(target=lambda: None).start()
    if case == "loop":
        while True:
            pass
    if case == "sleep":
        import time
        time.sleep(1e9)
    if case == "recursion":
        def down(n):
            return down(n + 1)
        return down(0)
    if case == "deep_recursion":
        sys.setrecursionlimit(10**7)
        def deeper(n):
            return deeper(n + 1)
        return deeper(0)
    if case == "huge_allocation":
        return len(bytearray(10 * 1024**3))
    if case == "gigabyte_string":
        return len(" " * 1024**3)
    if case == "exit":
        sys.exit(0)
    if case == "garble":
        os.write(1, (5).to_bytes(4, "big") + b"{oops")
        return 1.0
    if case == "flood":
        os.write(1, (50 * 1024 * 1024).to_bytes(4, "big") + b"x" * 65536)
        return 1.0
    if case == "print_flood":
        for _ in range(20000):
            print("x" * 100)
        return 1.0
    if case == "import":
        return __import__(arg)
    raise AssertionError(f"no case {case}")

def reward(y_true, y_pred):
    result = attempt(y_pred["case"], y_pred.get("arg"))
    return 1.0, f"escaped: {str(result)[:200]}"
"""


@pytest.fixture
async def corpus():
    limits = SandboxLimits(cpu_time_s=0.5, wall_time_s=1.5, output_bytes=16384, output_chars=1000)
    function = CodeFunction(CORPUS, name="hostile", limits=limits)
    yield function
    await function.close()


async def run_case(function: CodeFunction, case: str, arg=None) -> str:
    [result] = await function.score_rows([(None, {"case": case, "arg": arg})])
    assert result.error is not None, f"{case}({arg!r}) was not refused: {result.feedback}"
    assert result.score == 0.0
    return result.error


async def still_works(function: CodeFunction) -> None:
    [result] = await function.score_rows([(None, {"case": "import", "arg": "json"})])
    assert result.error is None
    assert "module 'json'" in (result.feedback or "")


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.setblocking(False)
    yield server.getsockname()[1], server
    server.close()


def host_environment(pid: int) -> bytes:
    with open(f"/proc/{pid}/environ", "rb") as environ:
        return environ.read()


def still_there(pid: int) -> bool:
    """Whether process `pid` still exists (running, or a zombie nobody reaped)."""
    return os.path.exists(f"/proc/{pid}")


def nothing_connected(server: socket.socket) -> bool:
    try:
        server.accept()
    except BlockingIOError:
        return True
    return False


async def test_no_network(corpus, listener) -> None:
    port, server = listener
    for target in (5432, 6379, port):
        error = await run_case(corpus, "connect", target)
        assert error.startswith("OSError"), error
        assert "not supported" in error.lower() or "errno" in error.lower(), error
        assert (await run_case(corpus, "udp", target)).startswith("OSError")
    # WASI has no name resolution either: urllib stops before any socket.
    assert "has no attribute 'getaddrinfo'" in await run_case(corpus, "urllib", port)
    assert nothing_connected(server)
    await still_works(corpus)


async def test_no_file_outside_the_sandbox(corpus, tmp_path) -> None:
    database = tmp_path / "db.sqlite3"
    database.write_text("rows of every user")
    targets = [
        "/etc/passwd",
        "/proc/self/environ",
        str(database),
        str(CHECKOUT / "var" / "secret-key"),
        str(CHECKOUT / "pyproject.toml"),
        "pyproject.toml",
        "../../etc/passwd",
    ]
    for target in targets:
        error = await run_case(corpus, "read", target)
        assert error.startswith("FileNotFoundError"), (target, error)
    for folder in ("/", ".", str(CHECKOUT), "/proc"):
        assert (await run_case(corpus, "listdir", folder)).startswith("FileNotFoundError")
    assert (await run_case(corpus, "write", str(tmp_path / "dropped"))).startswith(
        "FileNotFoundError"
    )
    assert not (tmp_path / "dropped").exists()
    await still_works(corpus)


async def test_no_environment_of_the_studio(corpus, monkeypatch) -> None:
    monkeypatch.setenv("STUDIO_ENCRYPTION_KEY", "a-secret-the-sandbox-must-not-see")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-another-secret")
    [result] = await corpus.score_rows([(None, {"case": "environ"})])
    assert result.error is None
    assert result.feedback == "escaped: {}"
    error = await run_case(corpus, "getenv", "STUDIO_ENCRYPTION_KEY")
    assert error.startswith("KeyError")
    # The host process that runs the interpreter has no environment either.
    host = corpus._worker.process.pid
    assert host_environment(host) == b""


async def test_no_native_code_and_no_processes(corpus) -> None:
    assert (await run_case(corpus, "ctypes")).startswith("ModuleNotFoundError: No module named")
    assert "no attribute 'system'" in await run_case(corpus, "system")
    assert "does not support processes" in await run_case(corpus, "popen")
    assert "no attribute 'fork'" in await run_case(corpus, "fork_bomb")
    assert "no attribute 'posix_spawn'" in await run_case(corpus, "spawn")
    assert "can't start new thread" in await run_case(corpus, "threads")
    for module in ("_ctypes", "_posixsubprocess", "_multiprocessing", "mmap"):
        error = await run_case(corpus, "import", module)
        assert error.startswith("ModuleNotFoundError"), (module, error)
    await still_works(corpus)


async def test_time_limits_end_the_row_and_the_sandbox_recovers(corpus) -> None:
    before = list(corpus._worker.pids) if corpus._worker else []
    # On a busy machine the clock's limit may come first.
    assert re.fullmatch(
        r"timed out after (0.5 s of CPU time|1.5 s)", await run_case(corpus, "loop")
    )
    await still_works(corpus)
    assert await run_case(corpus, "sleep") == "timed out after 1.5 s"
    await still_works(corpus)
    # Each time-out replaced the process: the replaced ones are gone.
    pids = corpus._worker.pids
    assert len(pids) == len(before) + 3
    for pid in pids[:-1]:
        assert not still_there(pid)


async def test_recursion_memory_and_exit_are_row_errors(corpus) -> None:
    assert (await run_case(corpus, "recursion")).startswith(
        "RecursionError: maximum recursion depth exceeded"
    )
    error = await run_case(corpus, "deep_recursion")
    assert re.match(r"MemoryError|RecursionError|the sandbox stopped|timed out after", error), error
    await still_works(corpus)
    error = await run_case(corpus, "huge_allocation")
    assert error.startswith(("MemoryError", "OverflowError")), error
    error = await run_case(corpus, "gigabyte_string")
    assert error.startswith("MemoryError") and "256 MiB" in error, error
    assert (await run_case(corpus, "exit")).startswith("SystemExit")
    await still_works(corpus)


async def test_output_is_bounded(corpus) -> None:
    assert "garbled" in await run_case(corpus, "garble")
    assert "over the output limit of 16384 bytes" in await run_case(corpus, "flood")
    [printed] = await corpus.score_rows([(None, {"case": "print_flood"})])
    assert printed.error is None
    assert len(printed.output) < 1100
    assert "more characters of output dropped" in printed.output
    await still_works(corpus)


async def test_nothing_is_left_running(corpus) -> None:
    assert (await run_case(corpus, "loop")).startswith("timed out after")
    await still_works(corpus)
    pids = list(corpus._worker.pids)
    await corpus.close()
    for pid in pids:
        assert not still_there(pid), f"sandbox process {pid} is still there"
    # The next call starts a fresh process.
    await still_works(corpus)
    assert corpus._worker.pids[-1] not in pids
    assert os.getpid() != corpus._worker.pids[-1]
