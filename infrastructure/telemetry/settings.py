"""``[telemetry]``: OpenTelemetry traces and metrics of runs, and the secrets their export carries."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from urllib.parse import unquote

from pydantic import Field

from quorum.infrastructure.config.sections import Section

TRUTHY = ("1", "true", "yes", "on")
HEADER_VARIABLES = (
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
)
"""The standard variables whose ``key=value`` pairs are sent with every export (credentials often)."""
CAPTURE_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


class TelemetrySettings(Section):
    """``[telemetry]`` section (needs ``pip install 'quorum-agent[otel]'``).

    Attributes:
        enabled: export traces and metrics over OTLP/HTTP. Off by default; off costs nothing
            (OpenTelemetry is not even imported).
        endpoint: the OTLP/HTTP base URL (``/v1/traces`` and ``/v1/metrics`` are appended). Empty:
            the standard ``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``
            variables, else ``http://localhost:4318``.
        headers: headers sent with every export (a ``${VAR}`` reference is expanded); known secrets.
            The standard ``OTEL_EXPORTER_OTLP_HEADERS`` variables are honoured too.
        service_name: ``service.name`` of the resource, unless ``OTEL_SERVICE_NAME`` says otherwise.
        capture_content: record prompts, responses, tool arguments and outputs (redacted) on the
            spans; also turned on by ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``.
        metrics: export the ``gen_ai.client.*`` histograms besides the traces.
    """

    enabled: bool = False
    endpoint: str = ""
    headers: dict[str, str] = Field(default_factory=dict)
    service_name: str = Field("quorum", min_length=1)
    capture_content: bool = False
    metrics: bool = True

    def active(self, env: Mapping[str, str]) -> bool:
        """Whether telemetry is on: ``enabled``, unless ``OTEL_SDK_DISABLED`` is true."""
        return self.enabled and env.get("OTEL_SDK_DISABLED", "").strip().lower() not in TRUTHY

    def captures_content(self, env: Mapping[str, str]) -> bool:
        """Whether content is recorded: ``capture_content`` or the standard opt-in variable."""
        return self.capture_content or env.get(CAPTURE_VARIABLE, "").strip().lower() in TRUTHY


def header_secrets(settings: TelemetrySettings, env: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """(name, value) of every export header value: ``[telemetry] headers`` and the standard variables.

    Read whether telemetry is on or not: a credential in the environment is redacted all the same.
    """
    for key, value in settings.headers.items():
        yield f"telemetry.headers.{key}", value
    for variable in HEADER_VARIABLES:
        for key, value in parse_headers(env.get(variable, "")):
            yield f"{variable}.{key}", value


def parse_headers(text: str) -> list[tuple[str, str]]:
    """The ``key=value,key2=value2`` pairs of an ``OTEL_EXPORTER_OTLP_HEADERS`` value (values URL-decoded)."""
    pairs = []
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if sep and key.strip() and value.strip():
            pairs.append((key.strip(), unquote(value.strip())))
    return pairs
