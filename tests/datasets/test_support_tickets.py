"""The synthetic support-ticket data set: the shipped file is what the generator makes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from optimizer_core.datamodels import data_model_from_schema
from optimizer_core.datasets import support_tickets
from optimizer_core.exceptions import DataError


def test_the_shipped_file_is_the_generators_output() -> None:
    """Regenerate with: ``to_csv(generate())`` into ``support_tickets.FILE``."""
    expected = support_tickets.to_csv(support_tickets.generate())
    assert support_tickets.FILE.read_text(encoding="utf-8") == expected


def test_splits_are_balanced_and_disjoint() -> None:
    (x_train, y_train), (x_test, y_test) = support_tickets.load_data()
    assert len(x_train) == len(y_train) == 200 and len(x_test) == len(y_test) == 200
    assert Counter(y.topic for y in y_test) == {topic: 50 for topic in support_tickets.TOPICS}
    assert not {x.message for x in x_train} & {x.message for x in x_test}
    (x_small, y_small), _ = support_tickets.load_data(limit=8)
    assert len(x_small) == 8 and set(y.topic for y in y_small) == set(support_tickets.TOPICS)


def test_the_topic_is_not_always_a_word_of_the_message() -> None:
    rows = support_tickets.read_rows()
    named = sum(topic in message.lower() for message, topic in rows) / len(rows)
    assert 0.2 < named < 0.5


def test_the_topic_cap_survives_the_schema_round_trip() -> None:
    """The studio rebuilds DataModels from schemas; the 16-character cap must survive."""
    rebuilt = data_model_from_schema(support_tickets.SupportTopic.get_schema())
    assert rebuilt.get_schema()["properties"]["topic"]["maxLength"] == 16
    with pytest.raises(ValueError):
        rebuilt(topic="x" * 17)


def test_a_malformed_file_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("message,topic\nhello,weather\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad\.csv:2"):
        support_tickets.read_rows(bad)
