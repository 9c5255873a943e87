"""Fixtures every test tree shares: local wire servers speaking the providers' protocols."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.anthropic_server import anthropic_server
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server


@pytest.fixture(autouse=True)
def trusted_workspaces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests write their own workspace's quorum.toml: trust it (tests/e2e/test_workspace_trust.py does not)."""
    monkeypatch.setenv("QUORUM_TRUST_WORKSPACE", "1")


@pytest.fixture
def openai_wire() -> Iterator[ScriptedHttpServer]:
    """A started local OpenAI Chat Completions server (``base_url`` is ``url + "/v1"``)."""
    server = openai_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def anthropic_wire() -> Iterator[ScriptedHttpServer]:
    """A started local Anthropic Messages server (``base_url`` is ``url``)."""
    server = anthropic_server()
    try:
        yield server
    finally:
        server.stop()
