from __future__ import annotations

from pathlib import Path

import pytest

from optimizer_core import datasets


def test_submodules_are_reachable_as_attributes() -> None:
    assert callable(datasets.gsm8k.load_data)
    assert callable(datasets.banking77.load_data)
    assert callable(datasets.support_tickets.load_data)


def test_catalogue_describes_each_data_set(shared_data: Path) -> None:
    entries = {entry["name"]: entry for entry in datasets.catalogue()}

    assert set(entries) == {"gsm8k", "banking77", "support_tickets"}
    for name, entry in entries.items():
        module = datasets.get(name)
        assert entry["description"] and entry["licence"] and entry["source"]
        # Downloaded data sets name their canonical source; ours ships with the package.
        assert entry["source"].startswith("https://") or name == "support_tickets"
        assert entry["input_data_model"] == module.get_input_data_model().__name__
        assert entry["output_data_model"] == module.get_output_data_model().__name__
        (x_train, _), (x_test, _) = module.load_data()
        assert entry["sizes"] == {"train": len(x_train), "test": len(x_test)}


def test_catalogue_returns_copies() -> None:
    datasets.catalogue()[0]["sizes"]["train"] = -1
    assert all(entry["sizes"]["train"] > 0 for entry in datasets.catalogue())


@pytest.mark.parametrize("name", ["gsm8k", "GSM8K", "gsm-8k"])
def test_get_finds_a_data_set_by_name(name: str) -> None:
    assert datasets.get(name) is datasets.gsm8k


def test_get_rejects_an_unknown_name() -> None:
    with pytest.raises(ValueError, match=r"`name`.*'mnist'"):
        datasets.get("mnist")
