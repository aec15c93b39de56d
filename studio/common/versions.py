"""Numbering immutable versions: what programs and code rewards share.

A row with versions (a program, a code reward) gets version n+1 when saved. Two saves
at the same moment must not take the same number, so the parent row is locked first
(``select_for_update``, inside the caller's transaction) and the next number read
under that lock; the unique constraint on (parent, number) is the backstop.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import Max, Model

M = TypeVar("M", bound=Model)


def lock_for_new_version(model: type[M], pk: Any) -> tuple[M, int]:
    """The parent row, locked, and the number its next version takes (1 for the first).

    Call inside ``transaction.atomic()``; the parent's versions are ``parent.versions``.
    """
    locked = model._default_manager.select_for_update().get(pk=pk)
    latest = locked.versions.aggregate(latest=Max("number"))["latest"] or 0  # type: ignore[attr-defined]
    return locked, latest + 1
