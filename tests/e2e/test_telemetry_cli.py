"""Telemetry through the real CLI and server: a run's trace reaches an OTLP receiver, MCP joins it, secrets stay out."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Cli
from tests.support.otlp_receiver import OtlpReceiver

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

PROBE = Path(__file__).resolve().parents[1] / "support" / "mcp_servers" / "probe_server.py"
HEADER_SECRET = "hc-otlp-credential-0123456789"
ENV_HEADER_SECRET = "env-otlp-credential-9876543210"
CALLER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    started = OtlpReceiver().start()
    yield started
    started.stop()


def _configure(cli: Cli, receiver: OtlpReceiver, *turns: dict) -> str:
    cli.write(
        "quorum.toml",
        f"""
[telemetry]
enabled = true
endpoint = "{receiver.url}"
headers = {{ x-honeycomb-team = "${{OTLP_TEAM}}" }}

[mcp.servers.probe]
command = {json.dumps(sys.executable)}
args = [{json.dumps(str(PROBE))}]

[tools.risk]
"mcp__probe__*" = "low"
""",
    )
    cli.write("script.json", json.dumps({"turns": list(turns)}))
    return "scripted:script.json"


def test_a_cli_run_exports_one_trace_and_an_mcp_server_receives_its_context(cli: Cli, receiver: OtlpReceiver) -> None:
    model = _configure(
        cli,
        receiver,
        {"tool_calls": [{"name": "mcp__probe__trace_context", "arguments": {}}]},
        {"tool_calls": [{"name": "mcp__probe__getenv", "arguments": {"name": "OTEL_EXPORTER_OTLP_HEADERS"}}]},
        {"text": "done"},
    )
    env = {"OTLP_TEAM": HEADER_SECRET, "OTEL_EXPORTER_OTLP_HEADERS": f"x-extra={ENV_HEADER_SECRET}"}
    result = cli("run", "--json", "--model", model, "trace this", **env)
    assert result.code == 0, result.stderr

    [run] = receiver.named("invoke_agent quorum")
    [tool] = receiver.named("execute_tool mcp__probe__trace_context")
    [mcp] = receiver.named("tools/call trace_context")
    assert tool.parent_id == run.span_id and mcp.parent_id == tool.span_id and mcp.trace_id == run.trace_id
    assert mcp.kind == 3  # SPAN_KIND_CLIENT
    assert mcp.attributes["mcp.method.name"] == "tools/call" and mcp.attributes["gen_ai.tool.name"] == "trace_context"
    assert mcp.attributes["network.transport"] == "pipe"
    outputs = {e["call_id"]: e["output"] for e in result.events() if e["type"] == "tool_result"}
    seen = json.loads(next(iter(outputs.values())))
    assert seen["traceparent"].startswith(f"00-{run.trace_id}-{mcp.span_id}-")  # the server can join the trace
    listed = receiver.named("tools/list")  # every request to a server is a span, listing its tools too
    assert listed and all(s.kind == 3 and s.attributes["mcp.method.name"] == "tools/list" for s in listed)

    # The export carried both credentials; nothing else did, and no child process got them.
    sent = [h for h in receiver.headers if h.get("x-honeycomb-team")]
    assert sent and all(h["x-honeycomb-team"] == HEADER_SECRET and h["x-extra"] == ENV_HEADER_SECRET for h in sent)
    assert "<unset>" in list(outputs.values())[1]
    for secret in (HEADER_SECRET, ENV_HEADER_SECRET):
        assert secret not in result.stdout + result.stderr
        assert secret.encode() not in b"".join(receiver.bodies)


def test_config_show_masks_the_export_headers(cli: Cli, receiver: OtlpReceiver) -> None:
    _configure(cli, receiver)
    cli.write("quorum.toml", (cli.workspace / "quorum.toml").read_text().replace("${OTLP_TEAM}", HEADER_SECRET))
    shown = cli("config", "show", "--json")
    assert shown.code == 0, shown.stderr
    assert HEADER_SECRET not in shown.stdout
    assert json.loads(shown.stdout)["config"]["telemetry"]["headers"] == {"x-honeycomb-team": "********"}


def test_a_served_run_joins_the_callers_traceparent(cli: Cli, receiver: OtlpReceiver) -> None:
    pytest.importorskip("starlette")
    from tests.e2e.serve_client import Server, finished

    model = _configure(cli, receiver, {"text": "served"})
    server = Server(cli)
    try:
        answer = server.http.post("/v1/runs", json={"task": "t", "model": model}, headers={"traceparent": CALLER})
        assert answer.status_code == 201, answer.text
        run_id = answer.json()["run_id"]
        assert any(finished(m) for m in server.events(run_id))
    finally:
        assert server.stop() == 0
    [run] = receiver.named("invoke_agent quorum")
    assert run.trace_id == CALLER.split("-")[1] and run.parent_id == CALLER.split("-")[2]
    assert run.attributes["quorum.run.id"] == run_id
