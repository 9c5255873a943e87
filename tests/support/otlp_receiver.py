"""A real OTLP/HTTP receiver on 127.0.0.1: accepts ``POST /v1/traces`` and ``/v1/metrics`` and decodes them.

The protobuf bodies are decoded with ``opentelemetry-proto`` (gzip-compressed or not), as a
collector would; spans and metric points are kept in the order they arrived. Each request is
answered only once it is decoded, so a synchronous export (``force_flush``) that returned has
been received.
"""

from __future__ import annotations

import gzip
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


@dataclass(frozen=True)
class ReceivedSpan:
    name: str
    trace_id: str
    span_id: str
    parent_id: str
    kind: int
    attributes: dict[str, Any]
    status: int
    resource: dict[str, Any]


@dataclass
class OtlpReceiver:
    """Start with ``start()``, read ``spans``/``points``/``headers``, stop with ``stop()``."""

    spans: list[ReceivedSpan] = field(default_factory=list)
    points: list[tuple[str, dict[str, Any], Any]] = field(default_factory=list)
    """(metric name, point attributes, the histogram data point)."""
    headers: list[dict[str, str]] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> OtlpReceiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path == "/v1/traces":
                    reply = receiver._traces(body)
                elif self.path == "/v1/metrics":
                    reply = receiver._metrics(body)
                else:
                    self.send_error(404)
                    return
                with _lock:
                    receiver.headers.append(dict(self.headers.items()))
                    receiver.bodies.append(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def _traces(self, body: bytes) -> bytes:
        request = ExportTraceServiceRequest.FromString(body)
        found = []
        for resource_spans in request.resource_spans:
            resource = attributes(resource_spans.resource.attributes)
            for scope in resource_spans.scope_spans:
                for span in scope.spans:
                    found.append(
                        ReceivedSpan(
                            name=span.name,
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_id=span.parent_span_id.hex(),
                            kind=span.kind,
                            attributes=attributes(span.attributes),
                            status=span.status.code,
                            resource=resource,
                        )
                    )
        with _lock:
            self.spans.extend(found)
        return ExportTraceServiceResponse().SerializeToString()

    def _metrics(self, body: bytes) -> bytes:
        request = ExportMetricsServiceRequest.FromString(body)
        found = []
        for resource_metrics in request.resource_metrics:
            for scope in resource_metrics.scope_metrics:
                for metric in scope.metrics:
                    for point in metric.histogram.data_points:
                        found.append((metric.name, attributes(point.attributes), point))
        with _lock:
            self.points.extend(found)
        return ExportMetricsServiceResponse().SerializeToString()

    def named(self, prefix: str) -> list[ReceivedSpan]:
        """The spans whose name starts with ``prefix``."""
        return [span for span in self.spans if span.name.startswith(prefix)]

    def children(self, parent: ReceivedSpan) -> list[ReceivedSpan]:
        return [span for span in self.spans if span.parent_id == parent.span_id]


_lock = threading.Lock()


def attributes(items: Any) -> dict[str, Any]:
    return {item.key: value(item.value) for item in items}


def value(v: AnyValue) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [value(item) for item in v.array_value.values]
    if kind is None:
        return None
    return getattr(v, kind)
