"""Finding, downloading and verifying the files of the built-in data sets.

A data file is looked up, in order:

1. in the folder given as ``path=`` (the file itself, or a ``<dataset>/`` subfolder);
2. under ``$OPTIMIZER_CORE_DATA_DIR/<dataset>/``;
3. in the cache, ``$OPTIMIZER_CORE_CACHE_DIR/datasets/<dataset>/`` (by default
   ``~/.cache/optimizer_core/datasets/<dataset>/``, honouring ``$XDG_CACHE_HOME``);
4. by downloading the canonical file into the cache.

An explicit ``path=`` is final: when the file is not there, nothing else is tried.
Every file is checked against its known sha256 before it is read; the check is
remembered per (path, size, mtime) for the life of the process, so loading the
same data set twice hashes it once.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import tempfile
import threading
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from optimizer_core.exceptions import DataError

DATA_DIR_ENV = "OPTIMIZER_CORE_DATA_DIR"
CACHE_DIR_ENV = "OPTIMIZER_CORE_CACHE_DIR"
DOWNLOAD_TIMEOUT_S = 10.0

StrPath = str | os.PathLike[str]

_verified_lock = threading.Lock()
# (resolved path, size, mtime_ns) -> sha256 hex digest of the file's content.
_digests: dict[tuple[str, int, int], str] = {}


@dataclass(frozen=True)
class DataFile:
    """One file of a data set: its name, where it comes from, and its sha256.

    Args:
        dataset: the data set's folder name, e.g. ``"gsm8k"``.
        name: the file name, e.g. ``"train.jsonl"``.
        url: where the canonical file is downloaded from.
        sha256: the hex digest the file must have.
    """

    dataset: str
    name: str
    url: str
    sha256: str


def cache_root() -> Path:
    """The folder under which downloaded data sets are kept."""
    configured = os.environ.get(CACHE_DIR_ENV)
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "optimizer_core"


def cache_dir(dataset: str) -> Path:
    """The cache folder of one data set."""
    return cache_root() / "datasets" / dataset


def file_sha256(path: StrPath) -> str:
    """The sha256 of a file, remembered per (path, size, mtime) within the process."""
    resolved = Path(path).resolve()
    stat = resolved.stat()
    key = (str(resolved), stat.st_size, stat.st_mtime_ns)
    with _verified_lock:
        known = _digests.get(key)
    if known is not None:
        return known
    with resolved.open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    with _verified_lock:
        _digests[key] = digest
    return digest


def verify(path: Path, data_file: DataFile) -> Path:
    """Check a file's sha256 against the expected one and return the path.

    Raises:
        DataError: the digests differ; the message names the file and both digests.
    """
    actual = file_sha256(path)
    if actual != data_file.sha256:
        raise DataError(
            f"sha256 mismatch for {path}: expected {data_file.sha256}, got {actual}. "
            f"The file is damaged or is not the canonical {data_file.dataset} "
            f"{data_file.name}; replace or delete it."
        )
    return path


def resolve(data_file: DataFile, *, path: StrPath | None = None) -> Path:
    """Find (or download) a verified copy of a data file and return its path.

    Args:
        data_file: the file wanted.
        path: a folder holding the file, or holding a ``<dataset>/`` folder
            with it. When given, no other place is searched. Defaults to None.

    Raises:
        DataError: the file is missing everywhere and cannot be downloaded, or a
            copy found does not have the expected sha256.
    """
    if path is not None:
        return verify(_in_explicit_folder(data_file, Path(path).expanduser()), data_file)

    searched: list[str] = []
    data_dir = os.environ.get(DATA_DIR_ENV)
    if data_dir:
        candidate = Path(data_dir).expanduser() / data_file.dataset / data_file.name
        if candidate.is_file():
            return verify(candidate, data_file)
        searched.append(f"{candidate} (${DATA_DIR_ENV}): not found")
    else:
        searched.append(f"${DATA_DIR_ENV}: not set")

    cached = cache_dir(data_file.dataset) / data_file.name
    if cached.is_file():
        return verify(cached, data_file)
    searched.append(f"{cached} (cache): not found")

    try:
        return _download(data_file, cached)
    except (OSError, http.client.HTTPException, ValueError) as error:
        if isinstance(error, DataError):
            raise
        searched.append(f"download from {data_file.url}: failed ({error})")

    places = "\n".join(f"  - {line}" for line in searched)
    raise DataError(
        f"The {data_file.dataset} data set file {data_file.name!r} was not found and "
        f"could not be downloaded. Searched:\n{places}\n"
        f"Set {DATA_DIR_ENV} to a folder holding {data_file.dataset}/{data_file.name}, "
        f"or pass path= (a folder holding {data_file.name}) to load_data()."
    )


def _in_explicit_folder(data_file: DataFile, folder: Path) -> Path:
    if not folder.is_dir():
        raise DataError(f"`path` must be a folder holding {data_file.name}, got {str(folder)!r}")
    for candidate in (folder / data_file.name, folder / data_file.dataset / data_file.name):
        if candidate.is_file():
            return candidate
    raise DataError(
        f"`path` {str(folder)!r} holds no {data_file.name} "
        f"(looked for {folder / data_file.name} and "
        f"{folder / data_file.dataset / data_file.name})"
    )


def _download(data_file: DataFile, destination: Path) -> Path:
    """Download into the cache through a temporary file, so no half file is ever seen."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        prefix=f".{destination.name}.", suffix=".part", dir=destination.parent
    )
    try:
        digest = hashlib.sha256()
        with (
            os.fdopen(handle, "wb") as out,
            urllib.request.urlopen(data_file.url, timeout=DOWNLOAD_TIMEOUT_S) as response,
        ):
            while chunk := response.read(1 << 16):
                out.write(chunk)
                digest.update(chunk)
        actual = digest.hexdigest()
        if actual != data_file.sha256:
            raise DataError(
                f"sha256 mismatch for {data_file.name} downloaded from {data_file.url}: "
                f"expected {data_file.sha256}, got {actual}. Nothing was cached."
            )
        os.replace(temporary, destination)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return destination
