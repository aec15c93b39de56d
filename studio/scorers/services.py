"""Code reward operations as verb functions: create, version, rename, delete, import, export.

A version's source is checked by loading it in the sandbox (`check_source`) before it
is stored, so a stored version always loaded once; trying a version on dataset rows is
`studio.scorers.trying`, and naming one in a run config `studio.scorers.references`.
The views call these functions and nothing else.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from django.db import transaction
from django.db.models import ProtectedError

from optimizer_core.sandbox import CodeFunction
from studio.common.exceptions import FieldError
from studio.common.jsondepth import loads as load_json
from studio.common.sizes import KB, describe_size
from studio.common.versions import lock_for_new_version
from studio.scorers.exceptions import (
    ScorerImportInvalid,
    ScorerInUse,
    ScorerNameTaken,
    SourceInvalid,
    SourceTooLarge,
)
from studio.scorers.models import Scorer, ScorerVersion

JsonDict = dict[str, Any]

#: The longest source a version may hold, in bytes of UTF-8.
MAX_SOURCE_BYTES = 64 * KB
#: The export format's tag (an import checks it).
EXPORT_FORMAT = "studio.code_reward/1"


def code_function(source: str, *, kind: str, name: str, limits: Any = None) -> CodeFunction:
    """The sandboxed function of a scorer's source: a reward is bounded to [0, 1], a metric
    is any finite number; the code defines ``reward`` or ``metric`` after its kind."""
    return CodeFunction(
        source, entry=kind, name=name, bounded=kind == Scorer.Kind.REWARD, limits=limits
    )


def check_text(source: Any) -> str:
    """The source, if it is code of an allowed size (not loaded: see `check_source`).

    Raises:
        SourceTooLarge: it is longer than `MAX_SOURCE_BYTES` (413 at ``source``).
        SourceInvalid: it is empty.
    """
    if not isinstance(source, str) or not source.strip():
        raise SourceInvalid("write the function's code")
    size = len(source.encode("utf-8"))
    if size > MAX_SOURCE_BYTES:
        raise SourceTooLarge(
            f"the code is {describe_size(size)}; at most {describe_size(MAX_SOURCE_BYTES)}",
            path="source",
        )
    return source


def check_source(source: Any, *, kind: str) -> str:
    """The source, if it loads in the sandbox.

    Raises:
        SourceTooLarge: it is longer than `MAX_SOURCE_BYTES` (413 at ``source``).
        SourceInvalid: it is empty, or does not load: the sandbox's reason, with the line
            (``SyntaxError: expected ':' (line 3)``, no ``reward`` defined).
    """
    check_text(source)
    try:
        function = code_function(source, kind=kind, name="check")
    except (TypeError, ValueError) as error:
        raise SourceInvalid(str(error)) from None

    async def load() -> str | None:
        try:
            return await function.check()
        finally:
            await function.close()

    reason = asyncio.run(load())
    if reason is not None:
        raise SourceInvalid(reason)
    return source


def create_scorer(
    *,
    owner: Any,
    name: str,
    source: str,
    kind: str = Scorer.Kind.REWARD,
    description: str = "",
    message: str = "",
) -> Scorer:
    """Create a code reward (or metric) and its version 1 from source that loads.

    Raises:
        SourceInvalid, SourceTooLarge: the source is refused; nothing is stored.
        ScorerNameTaken: the owner already has one with this name.
    """
    if Scorer.objects.filter(owner=owner, name=name).exists():
        raise ScorerNameTaken(name)
    clean = check_source(source, kind=kind)
    with transaction.atomic():
        if Scorer.objects.filter(owner=owner, name=name).exists():
            raise ScorerNameTaken(name)
        scorer = Scorer.objects.create(owner=owner, name=name, kind=kind, description=description)
        ScorerVersion.objects.create(
            scorer=scorer, number=1, source=clean, message=message, created_by=owner
        )
    return scorer


def create_version(
    scorer: Scorer, *, source: str, message: str = "", author: Any = None
) -> ScorerVersion:
    """Add version n+1 (versions are never changed once written).

    Raises:
        SourceInvalid, SourceTooLarge: the source is refused; nothing is stored.
    """
    clean = check_source(source, kind=scorer.kind)
    with transaction.atomic():
        locked, number = lock_for_new_version(Scorer, scorer.pk)
        version = ScorerVersion.objects.create(
            scorer=locked, number=number, source=clean, message=message, created_by=author
        )
        locked.save(update_fields=["updated_at"])
    return version


def update_scorer(
    scorer: Scorer, *, name: str | None = None, description: str | None = None
) -> Scorer:
    """Rename / redescribe (runs keep the name they logged it under).

    Raises:
        ScorerNameTaken: the new name is taken.
    """
    with transaction.atomic():
        if name is not None and name != scorer.name:
            taken = Scorer.objects.filter(owner=scorer.owner, name=name).exclude(pk=scorer.pk)
            if taken.exists():
                raise ScorerNameTaken(name)
            scorer.name = name
        if description is not None:
            scorer.description = description
        scorer.save()
    return scorer


def delete_scorer(scorer: Scorer) -> None:
    """Delete a scorer and its versions.

    Raises:
        ScorerInUse: a run used one of its versions (409): a run must always be able to
            say which code scored it, so the code goes only with its runs.
    """
    try:
        with transaction.atomic():
            scorer.delete()
    except ProtectedError as error:
        runs = {use.run_id for use in error.protected_objects}
        raise ScorerInUse(len(runs)) from None


# --------------------------------------------------------------------------- export / import


def export_scorer(scorer: Scorer) -> JsonDict:
    """The scorer as a JSON document: name, description, kind and every version, oldest first."""
    return {
        "format": EXPORT_FORMAT,
        "name": scorer.name,
        "description": scorer.description,
        "kind": scorer.kind,
        "versions": [
            {
                "number": version.number,
                "source": version.source,
                "message": version.message,
                "created_at": version.created_at.isoformat(),
            }
            for version in scorer.versions.order_by("number")
        ],
    }


def export_filename(scorer: Scorer) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", scorer.name).strip("-") or "code-reward"
    return f"{slug}.reward.json"


def _unique_name(owner: Any, wanted: str) -> str:
    base = (wanted or "Imported reward").strip()[:190] or "Imported reward"
    name, counter = base, 2
    while Scorer.objects.filter(owner=owner, name=name).exists():
        name = f"{base} ({counter})"
        counter += 1
    return name


def _import_versions(payload: JsonDict) -> list[tuple[str, str]]:
    versions = payload.get("versions")
    if not isinstance(versions, list) or not versions:
        raise ScorerImportInvalid("expected a non-empty list of versions", path="versions")
    found = []
    for index, version in enumerate(versions):
        if not isinstance(version, dict) or not isinstance(version.get("source"), str):
            raise ScorerImportInvalid(
                "expected {source, message}", path=f"versions[{index}].source"
            )
        found.append((version["source"], str(version.get("message") or "")[:500]))
    return found


def import_scorer(*, owner: Any, payload: Any, name: str = "") -> Scorer:
    """Create a scorer from an export (`export_scorer`): its versions in order, each checked.

    The name is the payload's (or ``name``), with a number appended when it is taken.

    Raises:
        ScorerImportInvalid: the payload is not an export (path of the wrong field).
        SourceInvalid, SourceTooLarge: a version's code does not load (nothing is stored);
            the path is ``versions[i].source``.
    """
    if not isinstance(payload, dict):
        raise ScorerImportInvalid("expected a JSON object (an exported code reward)")
    kind = payload.get("kind", Scorer.Kind.REWARD)
    if kind not in Scorer.Kind.values:
        raise ScorerImportInvalid(f"must be one of {Scorer.Kind.values}", path="kind")
    versions = _import_versions(payload)
    for index, (source, _) in enumerate(versions):
        try:
            check_source(source, kind=kind)
        except (SourceInvalid, SourceTooLarge) as error:
            error.errors = [FieldError(f"versions[{index}].source", error.errors[0].message)]
            raise
    with transaction.atomic():
        scorer = Scorer.objects.create(
            owner=owner,
            name=_unique_name(owner, name or str(payload.get("name") or "")),
            kind=kind,
            description=str(payload.get("description") or ""),
        )
        ScorerVersion.objects.bulk_create(
            ScorerVersion(
                scorer=scorer,
                number=number,
                source=source,
                message=message or "imported",
                created_by=owner,
            )
            for number, (source, message) in enumerate(versions, start=1)
        )
    return scorer


def import_scorer_data(*, owner: Any, data: Any, file: Any = None) -> Scorer:
    """`import_scorer` from a request: an uploaded ``.json`` file, or the export as the body.

    Raises:
        ScorerImportInvalid: the file is not JSON (path ``file``), or nothing was sent.
    """
    name = str(data.get("name") or "") if hasattr(data, "get") else ""
    if file is not None:
        try:
            payload = load_json(file.read().decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise ScorerImportInvalid(f"not a JSON file: {error}", path="file") from None
    elif hasattr(data, "get") and "versions" in data:
        payload = dict(data)
    else:
        raise ScorerImportInvalid("send an exported file, or the export itself", path="file")
    return import_scorer(owner=owner, payload=payload, name=name)
