from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from optimizer_core.datasets import _files
from optimizer_core.exceptions import DataError


def test_cache_root_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPTIMIZER_CORE_CACHE_DIR", str(tmp_path / "mine"))
    assert _files.cache_dir("gsm8k") == tmp_path / "mine" / "datasets" / "gsm8k"

    monkeypatch.delenv("OPTIMIZER_CORE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _files.cache_dir("gsm8k") == tmp_path / "xdg" / "optimizer_core" / "datasets" / "gsm8k"

    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    expected = tmp_path / "home" / ".cache" / "optimizer_core" / "datasets" / "banking77"
    assert _files.cache_dir("banking77") == expected


def test_file_sha256_is_remembered_per_path_size_and_mtime(tmp_path: Path) -> None:
    file = tmp_path / "data.txt"
    file.write_bytes(b"first")
    first = _files.file_sha256(file)
    assert first == hashlib.sha256(b"first").hexdigest()
    stat = file.stat()

    # Same size, same mtime: the remembered digest is used, the file is not read again.
    file.write_bytes(b"other")
    os.utime(file, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert _files.file_sha256(file) == first

    # A new mtime invalidates it.
    os.utime(file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert _files.file_sha256(file) == hashlib.sha256(b"other").hexdigest()


def test_explicit_path_must_be_a_folder(tmp_path: Path) -> None:
    file = tmp_path / "train.jsonl"
    file.write_text("{}")
    wanted = _files.DataFile("gsm8k", "train.jsonl", "http://127.0.0.1:1/train.jsonl", "0" * 64)

    with pytest.raises(DataError, match="`path` must be a folder"):
        _files.resolve(wanted, path=file)
