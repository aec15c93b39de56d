"""Program operations as verb functions: create, version, rename, delete, import, export, try.

Documents are validated and rebuilt in `studio.programs.documents` (the one
place a document becomes objects); the diff between versions is in
`studio.programs.diff`. The views call these functions and nothing else.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from django.db import transaction
from django.db.models import ProtectedError

from optimizer_core.exceptions import DataError
from studio.common.exceptions import FieldError
from studio.common.jsondepth import loads as load_json
from studio.common.versions import lock_for_new_version
from studio.programs.documents import checked_document, load_program
from studio.programs.exceptions import (
    DocumentInvalid,
    ProgramInUse,
    ProgramNameTaken,
    TryError,
    VersionNotFound,
)
from studio.programs.models import Program, ProgramVersion

JsonDict = dict[str, Any]


def _check_layout(layout: Any) -> JsonDict:
    if layout is None:
        return {}
    if not isinstance(layout, dict):
        raise DocumentInvalid([FieldError("layout", "expected an object (node positions)")])
    return layout


# --------------------------------------------------------------------------- programs and versions


def document_description(document: Any) -> str | None:
    """The description a program document carries (``program.description``), or None.

    None for a missing, null or blank one: a document without a description leaves
    the program's as it is.
    """
    program = document.get("program") if isinstance(document, dict) else None
    value = program.get("description") if isinstance(program, dict) else None
    if isinstance(value, str) and value.strip():
        return value
    return None


def create_program(
    *,
    owner: Any,
    name: str,
    document: JsonDict,
    layout: JsonDict | None = None,
    description: str = "",
    message: str = "",
) -> Program:
    """Create a program and its version 1 from a valid document.

    Raises:
        DocumentInvalid: the document (or layout) does not validate; nothing is stored.
        ProgramNameTaken: the owner already has a program with this name.
    """
    clean = checked_document(document)
    clean_layout = _check_layout(layout)
    description = description or document_description(clean) or ""
    with transaction.atomic():
        if Program.objects.filter(owner=owner, name=name).exists():
            raise ProgramNameTaken(name)
        program = Program.objects.create(owner=owner, name=name, description=description)
        ProgramVersion.objects.create(
            program=program, number=1, document=clean, layout=clean_layout, message=message
        )
    return program


def create_version(
    program: Program, *, document: JsonDict, layout: JsonDict | None = None, message: str = ""
) -> ProgramVersion:
    """Add version n+1 to a program (versions are never changed once written).

    A document that carries a description (``program.description``, what the editor's
    description box writes) makes it the program's description.

    Raises:
        DocumentInvalid: the document (or layout) does not validate; nothing is stored.
    """
    clean = checked_document(document)
    clean_layout = _check_layout(layout)
    description = document_description(clean)
    with transaction.atomic():
        locked, number = lock_for_new_version(Program, program.pk)
        version = ProgramVersion.objects.create(
            program=locked,
            number=number,
            document=clean,
            layout=clean_layout,
            message=message,
        )
        changed = ["updated_at"]
        if description is not None and description != locked.description:
            locked.description = description
            changed.append("description")
        locked.save(update_fields=changed)
    program.description = locked.description
    return version


def update_program(
    program: Program, *, name: str | None = None, description: str | None = None
) -> Program:
    """Rename / redescribe a program (its versions stay as they are).

    Raises:
        ProgramNameTaken: the new name is taken.
    """
    with transaction.atomic():
        if name is not None and name != program.name:
            if (
                Program.objects.filter(owner=program.owner, name=name)
                .exclude(pk=program.pk)
                .exists()
            ):
                raise ProgramNameTaken(name)
            program.name = name
        if description is not None:
            program.description = description
        program.save()
    return program


def delete_program(program: Program) -> None:
    """Delete a program and its versions.

    Raises:
        ProgramInUse: a run still points at one of its versions.
    """
    try:
        with transaction.atomic():
            program.delete()
    except ProtectedError:
        raise ProgramInUse() from None


def _unique_name(owner: Any, wanted: str) -> str:
    base = (wanted or "Imported program").strip()[:190] or "Imported program"
    name, counter = base, 2
    while Program.objects.filter(owner=owner, name=name).exists():
        name = f"{base} ({counter})"
        counter += 1
    return name


def import_program(*, owner: Any, payload: Any, name: str = "", description: str = "") -> Program:
    """Create a program from an exported document.

    Args:
        payload: a `Program.to_json()` document, or ``{"document": ..., "layout": ...,
            "name": ..., "description": ...}``.
        name: the new program's name; defaults to the payload's, then the
            document's; a number is appended when the name is taken.

    Raises:
        DocumentInvalid: the payload holds no valid document.
    """
    if not isinstance(payload, dict):
        raise DocumentInvalid([FieldError("", "expected a JSON object")])
    layout: Any = {}
    document: Any = payload
    if "document" in payload and "kind" not in payload:
        document = payload["document"]
        layout = payload.get("layout") or {}
        name = name or str(payload.get("name") or "")
        description = description or str(payload.get("description") or "")
    if isinstance(document, dict) and isinstance(document.get("program"), dict):
        name = name or str(document["program"].get("name") or "")
        description = description or document_description(document) or ""
    with transaction.atomic():
        return create_program(
            owner=owner,
            name=_unique_name(owner, name),
            document=document,
            layout=layout,
            description=description,
            message="imported",
        )


def export_filename(version: ProgramVersion) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", version.program.name).strip("-") or "program"
    return f"{slug}-v{version.number}.json"


def import_program_data(*, owner: Any, data: Any, file: Any = None) -> Program:
    """Create a program from what an import sends.

    Args:
        data: the request's fields: ``name`` and ``description`` (optional) and,
            without a file, ``document`` (with ``layout``) or the document itself.
        file: an uploaded exported ``.json`` file (wins over ``document``).

    Raises:
        DocumentInvalid: nothing importable was sent (path ``""`` or ``file``), or
            its document does not validate.
    """
    if not hasattr(data, "get"):
        raise DocumentInvalid([FieldError("", "expected a JSON object")])
    name = str(data.get("name") or "")
    description = str(data.get("description") or "")
    if file is not None:
        try:
            payload = load_json(file.read().decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise DocumentInvalid([FieldError("file", f"not a JSON file: {error}")]) from None
    elif "document" in data:
        payload = {"document": data["document"], "layout": data.get("layout") or {}}
    else:
        payload = data if isinstance(data, dict) else None
        if not payload or "kind" not in payload:
            raise DocumentInvalid(
                [FieldError("file", "send a file, a document, or the document itself")]
            )
    return import_program(owner=owner, payload=payload, name=name, description=description)


# --------------------------------------------------------------------------- try


def try_program(
    *,
    program: Program,
    owner: Any,
    inputs: Any,
    document: JsonDict | None = None,
    version: int | None = None,
    provider: int | None = None,
) -> JsonDict:
    """Run a program once on one input and report what every module saw and produced.

    Args:
        program: the program tried.
        owner: who tries it (their providers are the ones that can be used).
        inputs: the input JSON (one object, or a list for programs with several inputs).
        document: an unsaved document to run instead of a stored version.
        version: the version number to run (default: the latest).
        provider: the id of one of the owner's language providers (default: their default).

    Returns:
        ``{"output", "trace": [{module, inputs, outputs, error}], "latency_s", "usage"}``.

    Raises:
        VersionNotFound: the program has no version `version`.
        DocumentInvalid: the document does not validate.
        TryError: the request cannot run; ``path`` is ``version``, ``provider`` or ``input``.
    """
    from studio.providers import services as provider_services
    from studio.providers.models import Provider

    if document is None:
        if version:
            stored = program.versions.filter(number=version).first()
            if stored is None:
                raise VersionNotFound(version)
        else:
            stored = program.latest_version
            if stored is None:
                raise TryError("the program has no version yet", path="version")
        document = stored.document
    if provider is not None:
        chosen = Provider.objects.filter(
            owner=owner, pk=provider, kind=Provider.Kind.LANGUAGE
        ).first()
        if chosen is None:
            raise TryError("not found", path="provider")
    else:
        chosen = provider_services.default_provider(owner)
        if chosen is None:
            raise TryError("add a language provider first", path="provider")
    try:
        provider_services.preflight(chosen)
        language_model = provider_services.build_language_model(chosen)
    except provider_services.ProviderError as error:
        raise TryError(str(error), path="provider") from None
    result = run_once(document=document, language_model=language_model, inputs=inputs)
    refused = provider_services.refusal_of(language_model.last_error)
    if refused is not None:  # the policy refused a connection the call opened
        raise TryError(str(refused), path="provider")
    return result


def run_once(*, document: JsonDict, language_model: Any, inputs: Any) -> JsonDict:
    """Run a document once on one input with `language_model` (what `try_program` reports).

    Raises:
        DocumentInvalid: the document does not validate.
        TryError: the input does not fit the program (``path`` is ``input``).
    """
    program = load_program(document)
    program.set_language_model(language_model)
    try:
        program.coerce_inputs(inputs, where="input")
    except DataError as error:
        raise TryError(str(error), path="input") from None

    started = time.perf_counter()
    trace = asyncio.run(program.trace(inputs))
    output = trace.output
    return {
        "output": [o.get_json() if o is not None else None for o in output]
        if isinstance(output, list)
        else (output.get_json() if output is not None else None),
        "trace": [step.as_json() for step in trace.steps],
        "latency_s": time.perf_counter() - started,
        "usage": language_model.usage.snapshot(),
    }
