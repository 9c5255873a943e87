"""``Telemetry``: the tracer and the two GenAI histograms of a process, and the spans Quorum opens.

Imports OpenTelemetry's API (``quorum-agent[otel]``); built by ``setup.build_telemetry`` only when
``[telemetry]`` is on. Spans are made with the tracer of Quorum's own ``TracerProvider`` (an
embedding application's global provider is left alone); the context they join is the usual
``opentelemetry.context``, so a span the caller made current (a served request's ``traceparent``)
is their parent.
"""

from __future__ import annotations

import atexit
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.metrics import Histogram, MeterProvider
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse
from quorum.domain.secrets import Redactor
from quorum.infrastructure.telemetry import names
from quorum.infrastructure.telemetry.content import messages_json

_PROPAGATOR = TraceContextTextMapPropagator()
FLUSH_MS = 5000
_FINISH = {"end_turn": "stop", "tool_use": "tool_call", "max_tokens": "length"}


class Telemetry:
    """What the traced ports (``traced``) record through.

    Args:
        tracer_provider: Quorum's provider (``shutdown``/``force_flush`` are called on it).
        meter_provider: its metrics twin, or None when ``[telemetry] metrics = false``.
        capture_content: record messages, arguments and outputs (redacted with ``redactor``).
    """

    def __init__(
        self,
        tracer_provider: Any,
        meter_provider: MeterProvider | None,
        *,
        capture_content: bool = False,
        redactor: Redactor | None = None,
    ) -> None:
        self.provider = tracer_provider
        self.meter_provider = meter_provider
        self.tracer: Tracer = tracer_provider.get_tracer("quorum", schema_url=names.SCHEMA_URL)
        self.capture_content = capture_content
        self.redactor = redactor or Redactor()
        self._closed = False
        atexit.register(self.shutdown)
        self.token_usage: Histogram | None = None
        self.duration: Histogram | None = None
        if meter_provider is not None:
            meter = meter_provider.get_meter("quorum", schema_url=names.SCHEMA_URL)
            self.token_usage = meter.create_histogram(
                names.TOKEN_USAGE,
                unit="{token}",
                description="Number of input and output tokens used.",
                explicit_bucket_boundaries_advisory=list(names.TOKEN_BUCKETS),
            )
            self.duration = meter.create_histogram(
                names.OPERATION_DURATION,
                unit="s",
                description="GenAI operation duration.",
                explicit_bucket_boundaries_advisory=list(names.DURATION_BUCKETS),
            )

    def text(self, value: str) -> str:
        """``value`` redacted (content is only recorded when ``capture_content``)."""
        return self.redactor.text(value)

    @contextmanager
    def current_span(
        self, name: str, attributes: Mapping[str, Any], kind: SpanKind = SpanKind.INTERNAL
    ) -> Iterator[Span]:
        """A span made current for the block; an exception leaving it sets ``error.type`` and the status."""
        span = self.tracer.start_span(name, kind=kind, attributes=attributes)
        token = otel_context.attach(trace.set_span_in_context(span))
        try:
            yield span
        except BaseException as error:
            fail(span, error)
            raise
        finally:
            otel_context.detach(token)
            span.end()

    def chat(self, provider: str, model: str, *, stream: bool) -> ChatCall:
        """A ``chat {model}`` span begun now, under the current span."""
        return ChatCall(self, provider, model, stream)

    @contextmanager
    def mcp_request(self, method: str, target: str | None, *, server: str, transport: str) -> Iterator[dict[str, Any]]:
        """The client span of one MCP request (see ``hooks.mcp_request``); yields the ``_meta`` entries."""
        attributes: dict[str, Any] = {
            names.MCP_METHOD: method,
            names.NETWORK_TRANSPORT: "pipe" if transport == "stdio" else "tcp",
            names.MCP_SERVER: server,
        }
        if method == "tools/call" and target:
            attributes[names.TOOL_NAME] = target
            attributes[names.OPERATION] = names.EXECUTE_TOOL
        name = f"{method} {target}" if target else method
        with self.current_span(name, attributes, SpanKind.CLIENT):
            yield self.inject()

    def inject(self) -> dict[str, str]:
        """The current context as W3C ``traceparent``/``tracestate`` entries."""
        carrier: dict[str, str] = {}
        _PROPAGATOR.inject(carrier)
        return carrier

    def force_flush(self) -> None:
        """Export what is buffered now (the end of a command, a test); each signal waits at most ``FLUSH_MS``."""
        self.provider.force_flush(FLUSH_MS)
        if self.meter_provider is not None:
            self.meter_provider.force_flush(FLUSH_MS)  # type: ignore[attr-defined]

    def shutdown(self) -> None:
        """Flush and stop the exporters (registered to run at process exit). Idempotent."""
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self.shutdown)
        self.provider.shutdown()
        if self.meter_provider is not None:
            self.meter_provider.shutdown(FLUSH_MS)  # type: ignore[attr-defined]


class ChatCall:
    """One model request's span and metrics; ``finish`` or ``fail`` ends it."""

    def __init__(self, telemetry: Telemetry, provider: str, model: str, stream: bool) -> None:
        self._t = telemetry
        self._attributes: dict[str, Any] = {
            names.OPERATION: names.CHAT,
            names.PROVIDER: provider,
            names.REQUEST_MODEL: model,
        }
        self._started = time.perf_counter()
        self.span = telemetry.tracer.start_span(
            f"{names.CHAT} {model}", kind=SpanKind.CLIENT, attributes={**self._attributes, names.REQUEST_STREAM: stream}
        )

    def finish(self, response: LlmResponse, sent: Sequence[Message] = (), system: str | None = None) -> None:
        """End the span with the response's model, finish reason and usage (and content when captured)."""
        span, usage = self.span, response.usage
        model = response.model or self._attributes[names.REQUEST_MODEL]
        stop = response.stop_reason
        span.set_attributes(
            {
                names.RESPONSE_MODEL: model,
                names.FINISH_REASONS: [_FINISH.get(stop.kind, stop.raw or stop.kind)],
                names.INPUT_TOKENS: usage.input_tokens,
                names.OUTPUT_TOKENS: usage.output_tokens,
                names.CACHE_READ_TOKENS: usage.cache_read_input_tokens,
                names.CACHE_WRITE_TOKENS: usage.cache_write_input_tokens,
            }
        )
        if self._t.capture_content:
            redact = self._t.text
            if system:
                span.set_attribute(names.SYSTEM_INSTRUCTIONS, messages_json(None, redact, system=system))
            span.set_attribute(names.INPUT_MESSAGES, messages_json(sent, redact))
            reply = Message(role="assistant", content=response.content)
            span.set_attribute(names.OUTPUT_MESSAGES, messages_json([reply], redact, finish=stop.kind))
        attributes = {**self._attributes, names.RESPONSE_MODEL: model}
        self._measure(attributes)
        if self._t.token_usage is not None:
            self._t.token_usage.record(usage.input_tokens, {**attributes, names.TOKEN_TYPE: "input"})
            self._t.token_usage.record(usage.output_tokens, {**attributes, names.TOKEN_TYPE: "output"})
        span.end()

    def fail(self, error: BaseException) -> None:
        """End the span as failed with ``error``'s type."""
        fail(self.span, error)
        self._measure({**self._attributes, names.ERROR_TYPE: error_type(error)})
        self.span.end()

    def _measure(self, attributes: Mapping[str, Any]) -> None:
        if self._t.duration is not None:
            self._t.duration.record(time.perf_counter() - self._started, attributes)


def error_type(error: BaseException) -> str:
    """``error.type``: the exception's class name (``ProviderError``, ``TimeoutError``, ``CancelledError``)."""
    return type(error).__qualname__


def fail(span: Span, error: BaseException, description: str | None = None) -> None:
    """Mark ``span`` failed: ``error.type`` and an ERROR status (the message is not recorded: it may quote content)."""
    span.set_attribute(names.ERROR_TYPE, error_type(error))
    span.set_status(Status(StatusCode.ERROR, description))


def current_span() -> Span:
    """The span current in this context (a no-op span when none)."""
    return trace.get_current_span()
