"""`SandboxLimits`: what one call of user code may spend, checked when it is built."""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["SandboxLimits"]

# The most a config may ask for: user code is untrusted, and a document is user data.
MAX_CPU_TIME_S = 60.0
MAX_WALL_TIME_S = 300.0
MAX_MEMORY_MB = 2048
MAX_OUTPUT_BYTES = 4 * 1024 * 1024


def _check(name: str, value: Any, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"`{name}` must be a number, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"`{name}` must be between {low} and {high}, got {value}")


@dataclasses.dataclass(frozen=True)
class SandboxLimits:
    """The limits of each call of a sandboxed function (one row, or loading the code).

    A row over a time limit ends with ``timed out after N s``; an allocation over
    the memory limit raises MemoryError inside the sandbox; an answer over the
    output limit ends that row with an error. Printed text beyond `output_chars`
    and feedback beyond `feedback_chars` are cut, not errors.

    Args:
        cpu_time_s: CPU seconds a row (or loading the code) may use (default 2).
        wall_time_s: seconds it may take on the clock, waiting included (default 10):
            what stops ``time.sleep``, and a loop on a busy machine.
        memory_mb: the interpreter's whole memory, in MiB (default 256; the
            interpreter itself uses about 10).
        output_bytes: the largest answer of one row, in bytes (default 64 KiB).
        output_chars: characters of a row's printed output kept (default 4,000).
        feedback_chars: characters of a row's feedback kept (default 2,000).
    """

    cpu_time_s: float = 2.0
    wall_time_s: float = 10.0
    memory_mb: int = 256
    output_bytes: int = 64 * 1024
    output_chars: int = 4000
    feedback_chars: int = 2000

    def __post_init__(self) -> None:
        _check("cpu_time_s", self.cpu_time_s, 0.05, MAX_CPU_TIME_S)
        _check("wall_time_s", self.wall_time_s, 0.05, MAX_WALL_TIME_S)
        _check("memory_mb", self.memory_mb, 32, MAX_MEMORY_MB)
        _check("output_bytes", self.output_bytes, 1024, MAX_OUTPUT_BYTES)
        _check("output_chars", self.output_chars, 0, self.output_bytes)
        _check("feedback_chars", self.feedback_chars, 0, self.output_bytes)
        for name in ("memory_mb", "output_bytes", "output_chars", "feedback_chars"):
            if not isinstance(getattr(self, name), int):
                raise TypeError(f"`{name}` must be an integer, got {getattr(self, name)!r}")
        if self.wall_time_s < self.cpu_time_s:
            raise ValueError(
                f"`wall_time_s` ({self.wall_time_s}) must be at least `cpu_time_s` "
                f"({self.cpu_time_s})"
            )

    def get_config(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> SandboxLimits:
        unknown = sorted(set(config) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            raise TypeError(f"unknown sandbox limit(s) {unknown}")
        return cls(**config)
