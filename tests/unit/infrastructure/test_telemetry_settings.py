"""``[telemetry]``: when it is on, where it exports, its headers, its secrets, the shape of content."""

from __future__ import annotations

import json

import pytest

from quorum.domain.messages import Message
from quorum.domain.responses import TextBlock
from quorum.domain.secrets import Redactor, Secret
from quorum.domain.tools import ToolCall, ToolResult
from quorum.infrastructure.config.schema import Settings
from quorum.infrastructure.secrets import collect_secrets
from quorum.infrastructure.telemetry import names
from quorum.infrastructure.telemetry.content import arguments_json, messages_json
from quorum.infrastructure.telemetry.settings import TelemetrySettings, parse_headers
from quorum.infrastructure.telemetry.setup import endpoint, headers


def test_on_only_when_enabled_and_not_disabled_by_the_sdk_variable() -> None:
    assert not TelemetrySettings().active({})
    assert TelemetrySettings(enabled=True).active({})
    assert not TelemetrySettings(enabled=True).active({"OTEL_SDK_DISABLED": "True"})


def test_content_capture_by_setting_or_the_standard_variable() -> None:
    assert not TelemetrySettings().captures_content({})
    assert TelemetrySettings(capture_content=True).captures_content({})
    assert TelemetrySettings().captures_content({"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"})
    assert not TelemetrySettings().captures_content({"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "false"})


@pytest.mark.parametrize(
    ("configured", "env", "traces"),
    [
        ("", {}, "http://localhost:4318/v1/traces"),
        ("", {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://col:4318/"}, "http://col:4318/v1/traces"),
        ("", {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:1/custom"}, "http://t:1/custom"),
        ("http://cfg:4318", {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:1/custom"}, "http://cfg:4318/v1/traces"),
    ],
)
def test_the_endpoint_of_each_signal(configured: str, env: dict[str, str], traces: str) -> None:
    assert endpoint(TelemetrySettings(endpoint=configured), env, "traces") == traces


def test_headers_from_the_variables_then_the_section_expanded() -> None:
    settings = TelemetrySettings(headers={"x-team": "${TEAM}", "x-b": "2"})
    env = {"OTEL_EXPORTER_OTLP_HEADERS": "x-a=1,x-b=1", "OTEL_EXPORTER_OTLP_METRICS_HEADERS": "x-m=%20m", "TEAM": "t"}
    assert headers(settings, env, "TRACES") == {"x-a": "1", "x-b": "2", "x-team": "t"}
    assert headers(settings, env, "METRICS") == {"x-m": " m", "x-b": "2", "x-team": "t"}
    assert parse_headers("a=1, bad, =x, b = 2") == [("a", "1"), ("b", "2")]


def test_export_headers_are_known_secrets_and_their_variables_kept_from_children() -> None:
    section = TelemetrySettings(headers={"x-honeycomb-team": "${HC}", "authorization": "Bearer literal-token"})
    settings = Settings(extensions={"telemetry": section})
    env = {"HC": "hc-value-123", "OTEL_EXPORTER_OTLP_HEADERS": "api-key=env-value-456", "PATH": "/bin"}
    known = collect_secrets(settings, env)
    values = {secret.value for secret in known.secrets}
    assert {"hc-value-123", "Bearer literal-token", "env-value-456"} <= values
    assert {"HC", "OTEL_EXPORTER_OTLP_HEADERS"} <= known.env_names
    assert known.scrub(env) == {"PATH": "/bin"}


def test_content_has_the_conventions_shape_and_is_redacted_string_by_string() -> None:
    secret = 'se"cret-value-0123'
    redactor = Redactor((Secret("k", secret),))
    messages = [
        Message(role="user", content=(TextBlock(text=f"use {secret}"),)),
        Message(role="assistant", content=(ToolCall(native_id="c1", name="read", arguments={"p": secret}),)),
        Message(role="user", content=(ToolResult(call_id="c1", name="read", output=f"got {secret}"),)),
    ]
    text = messages_json(messages, redactor.text)
    assert secret not in text and json.dumps(secret)[1:-1] not in text
    shown = json.loads(text)
    assert [m["role"] for m in shown] == ["user", "assistant", "user"]
    assert shown[0]["parts"] == [{"type": "text", "content": "use [REDACTED:k]"}]
    assert shown[1]["parts"] == [{"type": "tool_call", "id": "c1", "name": "read", "arguments": {"p": "[REDACTED:k]"}}]
    assert shown[2]["parts"] == [{"type": "tool_call_response", "id": "c1", "response": "got [REDACTED:k]"}]
    bad = ToolCall(native_id="c2", name="read", arguments_error="not JSON", raw_arguments=f"{{{secret}")
    assert arguments_json(bad, redactor.text) == "{[REDACTED:k]"


def test_the_names_are_the_semantic_conventions_constants() -> None:
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
    from opentelemetry.semconv._incubating.attributes import mcp_attributes as mcp
    from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
    from opentelemetry.semconv.attributes import error_attributes, network_attributes
    from opentelemetry.semconv.schemas import Schemas

    expected = {
        names.OPERATION: gen_ai.GEN_AI_OPERATION_NAME,
        names.PROVIDER: gen_ai.GEN_AI_PROVIDER_NAME,
        names.AGENT: gen_ai.GEN_AI_AGENT_NAME,
        names.CONVERSATION: gen_ai.GEN_AI_CONVERSATION_ID,
        names.REQUEST_MODEL: gen_ai.GEN_AI_REQUEST_MODEL,
        names.REQUEST_STREAM: gen_ai.GEN_AI_REQUEST_STREAM,
        names.RESPONSE_MODEL: gen_ai.GEN_AI_RESPONSE_MODEL,
        names.FINISH_REASONS: gen_ai.GEN_AI_RESPONSE_FINISH_REASONS,
        names.INPUT_TOKENS: gen_ai.GEN_AI_USAGE_INPUT_TOKENS,
        names.OUTPUT_TOKENS: gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS,
        names.CACHE_READ_TOKENS: gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
        names.CACHE_WRITE_TOKENS: gen_ai.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
        names.TOKEN_TYPE: gen_ai.GEN_AI_TOKEN_TYPE,
        names.INPUT_MESSAGES: gen_ai.GEN_AI_INPUT_MESSAGES,
        names.OUTPUT_MESSAGES: gen_ai.GEN_AI_OUTPUT_MESSAGES,
        names.SYSTEM_INSTRUCTIONS: gen_ai.GEN_AI_SYSTEM_INSTRUCTIONS,
        names.TOOL_NAME: gen_ai.GEN_AI_TOOL_NAME,
        names.TOOL_CALL_ID: gen_ai.GEN_AI_TOOL_CALL_ID,
        names.TOOL_TYPE: gen_ai.GEN_AI_TOOL_TYPE,
        names.TOOL_ARGUMENTS: gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS,
        names.TOOL_RESULT: gen_ai.GEN_AI_TOOL_CALL_RESULT,
        names.ERROR_TYPE: error_attributes.ERROR_TYPE,
        names.MCP_METHOD: mcp.MCP_METHOD_NAME,
        names.MCP_SESSION: mcp.MCP_SESSION_ID,
        names.NETWORK_TRANSPORT: network_attributes.NETWORK_TRANSPORT,
        names.TOKEN_USAGE: gen_ai_metrics.GEN_AI_CLIENT_TOKEN_USAGE,
        names.OPERATION_DURATION: gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION,
    }
    assert {ours: theirs for ours, theirs in expected.items() if ours != theirs} == {}
    operations = gen_ai.GenAiOperationNameValues
    assert (
        operations.CHAT.value,
        operations.INVOKE_AGENT.value,
        operations.EXECUTE_TOOL.value,
    ) == (names.CHAT, names.INVOKE_AGENT, names.EXECUTE_TOOL)
    assert Schemas.V1_44_0.value == names.SCHEMA_URL
