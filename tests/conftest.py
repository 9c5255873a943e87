"""Fixtures every test tree shares: local wire servers speaking the providers' protocols."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.anthropic_server import anthropic_server
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server


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
