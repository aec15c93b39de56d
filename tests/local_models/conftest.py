"""Registers the `bundled_model` marker for the tests that run the real bundled model."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "bundled_model: runs the bundled SmolLM2 GGUF on llama.cpp's llama-server "
        "(skipped when it is not installed); about a minute on 2 cores",
    )
