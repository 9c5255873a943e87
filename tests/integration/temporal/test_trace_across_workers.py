"""A Temporal run's spans are one trace: the run's trace context travels in the activity inputs."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Cli
from tests.integration.temporal.conftest import Worker
from tests.support.otlp_receiver import OtlpReceiver

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

SCRIPT = {
    "conversation": "continue",
    "turns": [
        {"text": "reading", "tool_calls": [{"name": "read_file", "arguments": {"path": "seed.txt"}, "id": "r1"}]},
        {"text": "all done"},
    ],
}


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    started = OtlpReceiver().start()
    yield started
    started.stop()


def test_the_spans_a_worker_makes_for_a_run_share_the_runs_trace(tcli: Cli, receiver: OtlpReceiver) -> None:
    config = tcli.workspace / "quorum.toml"
    config.write_text(config.read_text() + f'\n[telemetry]\nenabled = true\nendpoint = "{receiver.url}"\n')
    tcli.write("s.json", json.dumps(SCRIPT))
    tcli.write("seed.txt", "seed\n")
    worker = Worker(tcli).start()
    try:
        result = tcli("run", "--yes", "--model", "scripted:s.json", "--json", "read the seed")
        assert result.code == 0, result.stderr
    finally:
        worker.stop()  # its telemetry is flushed as it exits
    chats = receiver.named("chat ")
    [tool] = receiver.named("execute_tool read_file")
    assert len(chats) == 2
    traces = {span.trace_id for span in [*chats, tool]}
    assert len(traces) == 1, traces  # one trace, though each activity is a task of its own
    assert {span.parent_id for span in [*chats, tool]} != {""}  # joined the run's context, not roots
    assert (
        sum(span.attributes["gen_ai.usage.output_tokens"] for span in chats)
        == result.events()[-1]["usage"]["output_tokens"]
    )
