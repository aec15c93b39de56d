"""The errors of dataset services (`studio.common.exceptions` draws the hierarchy)."""

from __future__ import annotations

from studio.common.exceptions import Conflict, DomainError, TooLarge


class DatasetError(DomainError):
    """A request about a dataset that cannot be honoured (400); ``path`` names the culprit:
    a schema (with the path inside it), the mapping, a split argument, the format."""


class DatasetUnreadable(DatasetError):
    """The stored file of a dataset cannot be read (400, path ``file``)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, path="file")


class UploadTooLarge(TooLarge):
    """The uploaded file is larger than ``settings.STUDIO_UPLOAD_MAX_BYTES`` (413)."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"the file is larger than the upload limit of {limit} bytes ({limit / 1e6:.1f} MB)",
            path="file",
        )
        self.limit = limit


class DatasetInUse(Conflict):
    """Runs still use the dataset, so it cannot be deleted (409)."""

    def __init__(self) -> None:
        super().__init__("runs use this dataset; delete them before the dataset")


class VersionTooLarge(TooLarge):
    """A new version changes more rows than one version may (413)."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"a version may add, remove or edit at most {limit} rows; upload a file instead",
            path="rows",
        )
