"""``build_telemetry``: OpenTelemetry's SDK set up from ``[telemetry]`` and the standard ``OTEL_*`` variables.

The exporters speak OTLP/HTTP (protobuf). What the SDK reads from the environment it still reads:
the sampler (``OTEL_TRACES_SAMPLER``), the resource (``OTEL_RESOURCE_ATTRIBUTES``,
``OTEL_SERVICE_NAME``, which wins over ``[telemetry] service_name``), the batch processor's and the
metric reader's limits (``OTEL_BSP_*``, ``OTEL_METRIC_EXPORT_INTERVAL``), timeouts and compression.
Endpoints and headers are resolved here from the same variables so that ``[telemetry]`` can add to them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from quorum.domain.errors import ConfigurationError
from quorum.domain.secrets import Redactor
from quorum.infrastructure.telemetry.core import Telemetry
from quorum.infrastructure.telemetry.settings import TelemetrySettings, parse_headers

DEFAULT_ENDPOINT = "http://localhost:4318"
DEFAULT_TIMEOUT = 3.0
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def build_telemetry(settings: TelemetrySettings, env: Mapping[str, str], redactor: Redactor | None = None) -> Telemetry:
    """A ``Telemetry`` exporting to the configured OTLP/HTTP endpoint (batched, in the background).

    Raises:
        ConfigurationError: OpenTelemetry is not installed, or the protocol asked for is not ``http/protobuf``.
    """
    try:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as error:
        raise ConfigurationError(
            f"telemetry needs OpenTelemetry ({error.name} is missing): pip install 'quorum-agent[otel]'",
            key="telemetry.enabled",
        ) from None
    for signal in ("TRACES", "METRICS"):
        protocol = env.get(f"OTEL_EXPORTER_OTLP_{signal}_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        if protocol and protocol.strip() != "http/protobuf":
            raise ConfigurationError(
                f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol.strip()!r} is not supported: Quorum exports OTLP over "
                "HTTP (http/protobuf); point it at the collector's HTTP port (4318)",
                key="telemetry.endpoint",
            )
    resource = Resource.create()
    if "OTEL_SERVICE_NAME" not in env and "service.name=" not in env.get("OTEL_RESOURCE_ATTRIBUTES", ""):
        resource = resource.merge(Resource({"service.name": settings.service_name}))
    tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False)  # Telemetry shuts it down
    span_exporter = OTLPSpanExporter(
        timeout=timeout(env, "TRACES"),
        endpoint=endpoint(settings, env, "traces"),
        headers=headers(settings, env, "TRACES"),
    )
    tracer_provider.add_span_processor(BatchSpanProcessor(span_exporter))
    meter_provider = None
    if settings.metrics:
        metric_exporter = OTLPMetricExporter(
            timeout=timeout(env, "METRICS"),
            endpoint=endpoint(settings, env, "metrics"),
            headers=headers(settings, env, "METRICS"),
        )
        meter_provider = MeterProvider(
            resource=resource, metric_readers=[PeriodicExportingMetricReader(metric_exporter)]
        )
    return Telemetry(tracer_provider, meter_provider, capture_content=settings.captures_content(env), redactor=redactor)


def timeout(env: Mapping[str, str], signal: str) -> float | None:
    """Seconds an export may take: ``DEFAULT_TIMEOUT``, unless an ``OTEL_EXPORTER_OTLP_*TIMEOUT`` variable says.

    Shorter than the SDK's 10 s: a command whose collector is down ends seconds late, not half a minute.
    """
    if env.get(f"OTEL_EXPORTER_OTLP_{signal}_TIMEOUT") or env.get("OTEL_EXPORTER_OTLP_TIMEOUT"):
        return None
    return DEFAULT_TIMEOUT


def endpoint(settings: TelemetrySettings, env: Mapping[str, str], signal: str) -> str:
    """The URL ``signal`` (``traces``/``metrics``) is posted to.

    ``[telemetry] endpoint`` (a base URL), else ``OTEL_EXPORTER_OTLP_{SIGNAL}_ENDPOINT`` (used as it
    is), else ``OTEL_EXPORTER_OTLP_ENDPOINT`` (a base URL), else ``http://localhost:4318``.
    """
    if settings.endpoint:
        return f"{settings.endpoint.rstrip('/')}/v1/{signal}"
    if specific := env.get(f"OTEL_EXPORTER_OTLP_{signal.upper()}_ENDPOINT", "").strip():
        return specific
    base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip() or DEFAULT_ENDPOINT
    return f"{base.rstrip('/')}/v1/{signal}"


def headers(settings: TelemetrySettings, env: Mapping[str, str], signal: str) -> dict[str, str]:
    """The standard headers variable of ``signal`` (or the general one), then ``[telemetry] headers`` (expanded)."""
    text = env.get(f"OTEL_EXPORTER_OTLP_{signal}_HEADERS") or env.get("OTEL_EXPORTER_OTLP_HEADERS", "")
    found = dict(parse_headers(text))
    for key, value in settings.headers.items():
        found[key] = _VAR.sub(lambda m: env.get(m.group(1), ""), value)
    return found
