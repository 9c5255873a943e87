"""Telemetry in the composition: built when ``[telemetry]`` is on, else None and nothing changes.

When on, a run's ports are wrapped by the tracing ones of ``quorum.infrastructure.telemetry``: the
agent (``invoke_agent``), the gateway (``chat``; the reviewers' and MCP sampling's requests too),
the tool executor (``execute_tool``) and the reviewer (``quorum.review``). When off, nothing of
OpenTelemetry is imported and the run's parts are the plain ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from quorum.application.use_cases.run_agent import RunAgent
from quorum.infrastructure.telemetry.names import PROVIDER_NAMES
from quorum.infrastructure.telemetry.settings import TelemetrySettings

if TYPE_CHECKING:
    from quorum.application.ports.llm import LlmGateway
    from quorum.infrastructure.config.schema import Settings
    from quorum.infrastructure.secrets import KnownSecrets
    from quorum.infrastructure.telemetry.core import Telemetry


def build_telemetry(
    settings: Settings, env: Mapping[str, str], secrets: Callable[[], KnownSecrets]
) -> Telemetry | None:
    """The process's telemetry when ``[telemetry] enabled`` (and ``OTEL_SDK_DISABLED`` is not true), else None.

    ``secrets`` is asked only when telemetry is on (captured content is redacted with them).

    Raises:
        ConfigurationError: enabled without OpenTelemetry installed, or an unsupported protocol.
    """
    section = settings.section(TelemetrySettings)
    if not section.active(env):
        return None
    from quorum.infrastructure.telemetry.setup import build_telemetry as build

    return build(section, env, secrets().redactor())


def provider_namer(settings: Settings) -> Callable[[str], str]:
    """``gen_ai.provider.name`` of a ``provider:model`` id: the well-known name of its provider kind."""

    def provider_of(model_id: str) -> str:
        model_id = settings.aliases.get(model_id, model_id)
        instance = model_id.partition(":")[0]
        configured = settings.providers.get(instance)
        kind = getattr(configured, "kind", None) or instance
        return PROVIDER_NAMES.get(kind, kind)

    return provider_of


def traced_gateway(gateway: LlmGateway, telemetry: Telemetry | None, settings: Settings) -> LlmGateway:
    """``gateway``, its requests traced when telemetry is on."""
    if telemetry is None:
        return gateway
    from quorum.infrastructure.telemetry.traced_models import TracedGateway

    return TracedGateway(gateway, telemetry, provider_namer(settings))


def traced_executor(executor: Any, telemetry: Telemetry | None) -> Any:
    """``executor``, each call an ``execute_tool`` span when telemetry is on (a Temporal worker's tools)."""
    if telemetry is None:
        return executor
    from quorum.infrastructure.telemetry.traced_tools import TracedExecutor

    return TracedExecutor(executor, telemetry)


def traced_reviewer(reviewer: Any, telemetry: Telemetry | None) -> Any:
    """``reviewer`` (None stays None), each review a ``quorum.review`` span when telemetry is on."""
    if telemetry is None or reviewer is None:
        return reviewer
    from quorum.infrastructure.telemetry.traced_review import TracedReviewer

    return TracedReviewer(reviewer, telemetry)


class CallerTrace:
    """ASGI middleware: an HTTP request carrying a W3C ``traceparent`` is handled in that trace's context.

    Runs a request starts are tasks created in it, so their ``invoke_agent`` span is a child of the
    caller's span. Without telemetry, or without the header, the request passes as it is.
    """

    def __init__(self, app: Any, telemetry: Callable[[], Telemetry | None]) -> None:
        self._app = app
        self._telemetry = telemetry

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        telemetry = self._telemetry() if scope["type"] == "http" else None
        carrier = {}
        if telemetry is not None:
            carrier = {
                key.decode("latin-1"): value.decode("latin-1")
                for key, value in scope["headers"]
                if key in (b"traceparent", b"tracestate")
            }
        if telemetry is None or "traceparent" not in carrier:
            await self._app(scope, receive, send)
            return
        from quorum.infrastructure.telemetry.hooks import joined

        with joined(carrier):
            await self._app(scope, receive, send)


def run_agent(telemetry: Telemetry | None, settings: Settings, **parts: Any) -> Any:
    """A ``RunAgent`` of ``parts``; with telemetry, its executor, reviewer and itself traced.

    The gateway in ``parts`` comes traced already (``traced_gateway``): the reviewers share it.
    """
    if telemetry is None:
        return RunAgent(**parts)
    from quorum.infrastructure.telemetry.traced_agent import TracedAgent

    parts["executor"] = traced_executor(parts["executor"], telemetry)
    parts["reviewer"] = traced_reviewer(parts["reviewer"], telemetry)
    return TracedAgent(RunAgent(**parts), telemetry, provider_namer(settings))
