"""Sizes as refusals say them: ``256 kB (262,144 bytes)``, ``10 MB (10,485,760 bytes)``."""

from __future__ import annotations

KB = 1024
MB = 1024 * KB


def describe_size(size: int) -> str:
    """``size`` bytes in kB or MB (powers of 1024, at most one decimal) and exactly."""
    if size >= MB:
        scaled = f"{size / MB:.1f}".removesuffix(".0") + " MB"
    elif size >= KB:
        scaled = f"{size / KB:.1f}".removesuffix(".0") + " kB"
    else:
        return f"{size:,} bytes"
    return f"{scaled} ({size:,} bytes)"
