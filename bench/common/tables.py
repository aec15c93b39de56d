"""The runners' text tables: a left-aligned first column, the others right-aligned."""

from __future__ import annotations

from collections.abc import Sequence


def column_widths(header: Sequence[str], body: Sequence[Sequence[str]]) -> list[int]:
    return [max(len(str(line[i])) for line in [header, *body]) for i in range(len(header))]


def table_line(cells: Sequence[str], widths: Sequence[int]) -> str:
    first = cells[0].ljust(widths[0])
    rest = [cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True)]
    return " | ".join([first, *rest])


def table_rule(widths: Sequence[int]) -> str:
    return "-+-".join("-" * width for width in widths)
