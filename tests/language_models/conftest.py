"""A scripted OpenAI-compatible server per test, for the tests that go through litellm."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from optimizer_core.testing.scripted_server import ScriptedServer


@pytest.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    async with ScriptedServer() as running:
        yield running
