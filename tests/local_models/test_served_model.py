"""The bundled model is served as a Q8_0 copy made once by ``llama-quantize``, else as it is.

A stand-in ``llama-quantize`` (a shell script) records its arguments and writes
its output file, so the caching, naming and fallbacks are checked without the
compiled tool; the last test converts the real bundled model when ``make`` has
built the tool.
"""

from __future__ import annotations

import logging
import stat
from pathlib import Path

import pytest

from optimizer_core.local_models import bundled_model_missing, bundled_model_path
from optimizer_core.local_models.installation import llama_server_path
from optimizer_core.local_models.served_model import (
    SERVED_TYPE,
    converted_path,
    quantize_tool,
    served_model_path,
)


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "package" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    path.parent.mkdir()
    path.write_bytes(b"GGUF q4_1 weights")
    return path


@pytest.fixture
def tool(tmp_path: Path) -> Path:
    """Writes ``converted <type> from <source bytes>`` to its output; logs each run."""
    runs = tmp_path / "runs.log"
    script = (
        "#!/bin/sh\n"
        f'echo "$@" >> "{runs}"\n'
        'printf "converted %s from " "$4" > "$3"\n'
        'cat "$2" >> "$3"\n'
    )
    (tmp_path / "bin").mkdir()
    return executable(tmp_path / "bin" / "llama-quantize", script)


def runs(tool: Path) -> list[str]:
    log = tool.parent.parent / "runs.log"
    return log.read_text().splitlines() if log.exists() else []


def test_the_tool_is_the_one_beside_the_server(tmp_path: Path, tool: Path) -> None:
    assert quantize_tool(tool.with_name("llama-server")) == tool
    assert quantize_tool(tmp_path / "elsewhere" / "llama-server") is None
    assert quantize_tool(None) is None
    tool.chmod(0o644)
    assert quantize_tool(tool.with_name("llama-server")) is None


def test_the_copy_is_made_once_and_named_by_the_source_bytes(
    tmp_path: Path, source: Path, tool: Path
) -> None:
    cache = tmp_path / "cache"
    served = served_model_path(source, tool=tool, cache_dir=cache)

    assert served.parent == cache
    assert served.name.startswith(f"SmolLM2-135M-Instruct.{SERVED_TYPE}.")
    assert served.read_bytes() == b"converted Q8_0 from GGUF q4_1 weights"
    (run,) = runs(tool)
    assert run.split()[0] == "--allow-requantize" and run.split()[1] == str(source)
    assert list(cache.iterdir()) == [served]  # no partial file left behind

    assert served_model_path(source, tool=tool, cache_dir=cache) == served
    assert len(runs(tool)) == 1  # the cached copy is reused

    source.write_bytes(b"GGUF other weights")  # another package version
    other = served_model_path(source, tool=tool, cache_dir=cache)
    assert other != served and other == converted_path(source, cache)
    assert other.read_bytes() == b"converted Q8_0 from GGUF other weights"


def test_without_the_tool_the_source_is_served_and_a_warning_says_so(
    tmp_path: Path, source: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from optimizer_core.local_models import served_model

    served_model._warn_once.cache_clear()  # the warning is once per process
    monkeypatch.setattr(served_model, "llama_server_path", lambda: tmp_path / "llama-server")
    with caplog.at_level(logging.WARNING, logger=served_model.__name__):
        assert served_model_path(source, cache_dir=tmp_path / "cache") == source
    assert "no llama-quantize beside llama-server" in caplog.text
    assert not (tmp_path / "cache").exists()


def test_a_failing_conversion_serves_the_source_and_names_the_tools_error(
    tmp_path: Path, source: Path, caplog: pytest.LogCaptureFixture
) -> None:
    failing = executable(
        tmp_path / "llama-quantize",
        '#!/bin/sh\necho "partial" > "$3"\necho "llama_model_quantize: failed to read" >&2\nexit 1\n',
    )
    cache = tmp_path / "cache"
    with caplog.at_level(logging.WARNING):
        assert served_model_path(source, tool=failing, cache_dir=cache) == source
    assert "exited with code 1" in caplog.text and "failed to read" in caplog.text
    assert list(cache.iterdir()) == []  # neither a partial nor a corrupt copy is kept


@pytest.mark.bundled_model
@pytest.mark.skipif(bundled_model_missing() is not None, reason=str(bundled_model_missing()))
def test_the_bundled_model_converts_to_a_q8_0_gguf(tmp_path: Path) -> None:
    tool = quantize_tool(llama_server_path())
    if tool is None:
        pytest.skip("no llama-quantize beside llama-server: run `make`")
    served = served_model_path(tool=tool, cache_dir=tmp_path)
    assert served.parent == tmp_path
    with served.open("rb") as file:
        assert file.read(4) == b"GGUF"
    # 8.5 bits a weight instead of Q4_1's 5: about 1.5 times the 98 MB file.
    ratio = served.stat().st_size / bundled_model_path().stat().st_size
    assert 1.3 < ratio < 1.7
