"""Names ported from the reference library: present at the top level, or a helpful error."""

from __future__ import annotations

from pathlib import Path

import pytest

import optimizer_core
from optimizer_core.reference_names import ABSENT

DOC = Path(__file__).resolve().parents[1] / "docs" / "reference-compatibility.md"


@pytest.mark.parametrize(
    ("name", "home"),
    [
        ("ExactMatch", "rewards"),
        ("CosineSimilarity", "rewards"),
        ("LMAsJudge", "rewards"),
        ("ProgramAsJudge", "rewards"),
        ("Reward", "rewards"),
        ("Metric", "metrics"),
        ("OMEGA", "optimizers"),
    ],
)
def test_the_references_top_level_names_we_have_resolve_there_too(name: str, home: str) -> None:
    # The reference exports these at its top level as well as in their module.
    assert getattr(optimizer_core, name) is getattr(getattr(optimizer_core, home), name)


def test_a_name_we_leave_out_says_what_it_was_and_what_to_use() -> None:
    with pytest.raises(AttributeError) as caught:
        optimizer_core.KnowledgeBase  # noqa: B018
    message = str(caught.value)
    assert "'KnowledgeBase'" in message
    assert "knowledge bases and retrieval" in message
    assert "pass the passages as an input field" in message
    assert not hasattr(optimizer_core, "SQLAgent")  # no stub makes it look present


def test_an_unknown_name_is_a_plain_attribute_error() -> None:
    with pytest.raises(AttributeError, match=r"^module 'optimizer_core' has no attribute 'Nope'$"):
        optimizer_core.Nope  # noqa: B018


def test_the_table_names_only_what_is_absent_and_the_docs_list_each_part() -> None:
    names = [name for absent in ABSENT for name in absent.names]
    assert len(names) == len(set(names)), "a name is in two parts"
    assert not [name for name in names if name in vars(optimizer_core)]
    text = DOC.read_text(encoding="utf-8")
    assert "## Not here" in text
    for absent in ABSENT:
        assert absent.part in text, absent.part
