"""A run traced as one ``invoke_agent quorum`` span, current for the whole run."""

from __future__ import annotations

from typing import Any, Protocol

from quorum.application.execution import RunRequest, RunResult
from quorum.domain.events import RunStopReason
from quorum.infrastructure.telemetry import names
from quorum.infrastructure.telemetry.core import Telemetry
from quorum.infrastructure.telemetry.hooks import bound


class Agent(Protocol):
    async def execute(self, request: RunRequest) -> RunResult: ...


class TracedAgent:
    """``RunAgent`` around ``inner``: the run's span carries its id, model, stop reason and usage.

    Every span of the run (model requests, tool calls, reviews, MCP requests) is under it; the
    span itself joins the context current when the run starts (a served request's ``traceparent``).
    """

    def __init__(self, inner: Agent, telemetry: Telemetry, provider_of: Any) -> None:
        self._inner = inner
        self._telemetry = telemetry
        self._provider_of = provider_of

    async def execute(self, request: RunRequest) -> RunResult:
        t = self._telemetry
        model = request.model_id.partition(":")[2] or request.model_id
        attributes: dict[str, Any] = {
            names.OPERATION: names.INVOKE_AGENT,
            names.AGENT: names.AGENT_NAME,
            names.PROVIDER: self._provider_of(request.model_id),
            names.REQUEST_MODEL: model,
        }
        if request.run_id:
            attributes[names.RUN_ID] = attributes[names.CONVERSATION] = request.run_id
        with t.current_span(f"{names.INVOKE_AGENT} {names.AGENT_NAME}", attributes) as span, bound(t):
            result = await self._inner.execute(request)
            span.set_attributes(
                {
                    names.RUN_ID: result.run_id,
                    names.CONVERSATION: result.run_id,
                    names.STOP_REASON: result.stop_reason.value,
                    names.INPUT_TOKENS: result.usage.input_tokens,
                    names.OUTPUT_TOKENS: result.usage.output_tokens,
                    names.CACHE_READ_TOKENS: result.usage.cache_read_input_tokens,
                    names.CACHE_WRITE_TOKENS: result.usage.cache_write_input_tokens,
                }
            )
            if result.stop_reason is RunStopReason.ERROR:
                span.set_attribute(names.ERROR_TYPE, "run_error")
                span.set_status(_error_status())
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _error_status() -> Any:
    from opentelemetry.trace import Status, StatusCode

    return Status(StatusCode.ERROR)
