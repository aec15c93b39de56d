"""The diff between two versions of a program: which parts of the document changed."""

from __future__ import annotations

from typing import Any

from studio.programs.models import ProgramVersion

JsonDict = dict[str, Any]


def _keyed_by_name(items: list[Any]) -> dict[str, Any] | None:
    if not items or not all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in items):
        return None
    keyed = {i["name"]: i for i in items}
    return keyed if len(keyed) == len(items) else None


def diff_json(old: Any, new: Any, path: str = "") -> list[JsonDict]:
    """A recursive diff: ``[{path, op, old, new}]`` with op ``changed``, ``added`` or ``removed``.

    Objects are compared key by key, lists of named objects (modules) by name,
    other lists by position.
    """
    if isinstance(old, dict) and isinstance(new, dict):
        changes: list[JsonDict] = []
        for key in old.keys() | new.keys():
            sub = f"{path}.{key}" if path else str(key)
            if key not in new:
                changes.append({"path": sub, "op": "removed", "old": old[key], "new": None})
            elif key not in old:
                changes.append({"path": sub, "op": "added", "old": None, "new": new[key]})
            else:
                changes.extend(diff_json(old[key], new[key], sub))
        return sorted(changes, key=lambda c: c["path"])
    if isinstance(old, list) and isinstance(new, list):
        old_named, new_named = _keyed_by_name(old), _keyed_by_name(new)
        if old_named is not None and new_named is not None:
            changes = []
            for key in [*old_named, *(k for k in new_named if k not in old_named)]:
                sub = f"{path}[name={key}]"
                if key not in new_named:
                    changes.append(
                        {"path": sub, "op": "removed", "old": old_named[key], "new": None}
                    )
                elif key not in old_named:
                    changes.append({"path": sub, "op": "added", "old": None, "new": new_named[key]})
                else:
                    changes.extend(diff_json(old_named[key], new_named[key], sub))
            return changes
        changes = []
        for index in range(max(len(old), len(new))):
            sub = f"{path}[{index}]"
            if index >= len(new):
                changes.append({"path": sub, "op": "removed", "old": old[index], "new": None})
            elif index >= len(old):
                changes.append({"path": sub, "op": "added", "old": None, "new": new[index]})
            else:
                changes.extend(diff_json(old[index], new[index], sub))
        return changes
    if old == new and type(old) is type(new):
        return []
    return [{"path": path, "op": "changed", "old": old, "new": new}]


def diff_versions(old: ProgramVersion, new: ProgramVersion) -> JsonDict:
    """The changes from one version's document to another's, with a summary.

    The summary lists modules added / removed / changed, and the variables whose
    ``instructions`` or ``examples`` changed.
    """
    changes = diff_json(old.document, new.document)
    old_modules = _keyed_by_name(old.document.get("program", {}).get("modules", [])) or {}
    new_modules = _keyed_by_name(new.document.get("program", {}).get("modules", [])) or {}
    old_vars = old.document.get("variables") or {}
    new_vars = new.document.get("variables") or {}

    def changed_field(field: str) -> list[str]:
        return sorted(
            name
            for name in old_vars.keys() | new_vars.keys()
            if (old_vars.get(name) or {}).get(field) != (new_vars.get(name) or {}).get(field)
        )

    summary = {
        "modules_added": sorted(new_modules.keys() - old_modules.keys()),
        "modules_removed": sorted(old_modules.keys() - new_modules.keys()),
        "modules_changed": sorted(
            n for n in old_modules.keys() & new_modules.keys() if old_modules[n] != new_modules[n]
        ),
        "instructions_changed": changed_field("instructions"),
        "examples_changed": changed_field("examples"),
    }
    return {"from": old.number, "to": new.number, "summary": summary, "changes": changes}
