"""A real OTLP/HTTP receiver per test, and a run composed with telemetry exporting to it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from quorum.composition.container import Container, build_container
from quorum.composition.options import AppOptions
from quorum.domain.messages import Message
from quorum.domain.responses import Usage
from tests.fakes import ScriptedSession
from tests.support.otlp_receiver import OtlpReceiver
from tests.support.reviewer_sessions import verdict_response


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    started = OtlpReceiver().start()
    yield started
    started.stop()


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_SDK_DISABLED"):
        monkeypatch.delenv(name, raising=False)


REVIEWER_USAGE = Usage(input_tokens=40, output_tokens=4)


@dataclass
class VerdictSession:
    """A reviewer model approving (or rejecting) every call, spending ``REVIEWER_USAGE``."""

    verdict: str
    model: str = "judge"
    messages: list[Message] = field(default_factory=list)

    async def request(self, turn: Any) -> Any:
        self.messages.append(turn.message())
        return verdict_response(self.verdict, f"I {self.verdict} this").model_copy(update={"usage": REVIEWER_USAGE})

    def history(self) -> list[Message]:
        return list(self.messages)

    def record(self, results: Sequence[Any]) -> None:
        pass


@dataclass
class RoutingGateway:
    """The agent's scripted session for ``fake:*``; a ``VerdictSession`` for each reviewer model."""

    agent: ScriptedSession
    verdicts: dict[str, str] = field(default_factory=dict)

    def session(self, model_id: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()) -> Any:
        if model_id.startswith("fake:"):
            self.agent.messages[:0] = list(history)
            return self.agent
        return VerdictSession(self.verdicts[model_id])

    async def aclose(self) -> None:
        pass


def compose(
    receiver: OtlpReceiver,
    config: str = "",
    env: dict[str, str] | None = None,
    *,
    capture: bool = False,
    **overrides: Any,
) -> Container:
    """A container with ``[telemetry]`` exporting to ``receiver`` (plus ``config``, which follows it)."""
    Path("quorum.toml").write_text(
        f'[telemetry]\nenabled = true\nendpoint = "{receiver.url}"\nservice_name = "quorum-test"\n'
        f"capture_content = {str(capture).lower()}\n{config}"
    )
    env = {"QUORUM_TRUST_WORKSPACE": "1", **(env or {})}  # the test's own quorum.toml
    return build_container(AppOptions(no_log=True), env=env, config_dir=None, **overrides)


async def run_once(container: Container, request: Any) -> Any:
    """Run ``request``, then flush the telemetry: the receiver has everything once this returns."""
    result = await container.run_agent().execute(request)
    container.telemetry().shutdown()  # flushes; nothing is left to export once the receiver stops
    return result
