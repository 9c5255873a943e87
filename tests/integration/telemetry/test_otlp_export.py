"""A run's trace and metrics, exported over OTLP/HTTP to a real receiver and decoded with opentelemetry-proto."""

from __future__ import annotations

import json

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
from opentelemetry.semconv.attributes import error_attributes

from quorum.application.execution import ExecutionParams, RunRequest, RunResult
from quorum.domain.errors import ProviderError
from quorum.domain.responses import LlmResponse, Usage
from quorum.domain.tools import RiskLevel, ToolParameter
from tests.fakes import FakeTools, ScriptedSession, calls, text
from tests.integration.telemetry.conftest import REVIEWER_USAGE, RoutingGateway, compose, run_once
from tests.support.otlp_receiver import OtlpReceiver

SECRET = "sk-telemetry-secret-0123456789"
REVIEW = '[review]\nreviewers = ["judge:a", "judge:b"]\n'


def _tools() -> FakeTools:
    tools = FakeTools()

    async def read(args: dict) -> str:
        return f"contents of {args.get('path')} with {SECRET}"

    async def write(args: dict) -> str:
        return "written"

    path, body = ToolParameter(name="path"), ToolParameter(name="text")
    tools.add("read", read, params=[path])
    tools.add("write", write, risk=RiskLevel.HIGH, params=[path, body])
    return tools


def _script() -> ScriptedSession:
    return ScriptedSession(
        [
            calls(
                ("read", {"path": "a.txt"}),
                ("write", {"path": "b.txt", "text": SECRET}),
                usage=Usage(input_tokens=100, output_tokens=20, cache_write_input_tokens=90),
            ),
            text(
                f"done, the key was {SECRET}",
                usage=Usage(input_tokens=150, output_tokens=7, cache_read_input_tokens=90, cache_write_input_tokens=40),
            ),
        ]
    )


async def _traced_run(
    receiver: OtlpReceiver, config: str = "", env: dict[str, str] | None = None, *, capture: bool = False
) -> RunResult:
    gateway = RoutingGateway(_script(), {"judge:a": "approve", "judge:b": "approve"})
    container = compose(
        receiver,
        REVIEW + f'[secrets]\nredact_env = ["MY_KEY"]\n{config}',
        capture=capture,
        env={"MY_KEY": SECRET, **(env or {})},
        gateway=gateway,
        tool_executor=_tools(),
    )
    params = ExecutionParams(tools="all")
    return await run_once(container, RunRequest(task=f"use {SECRET}", model_id="fake:m", params=params))


async def test_a_run_is_one_trace_agent_chats_tools_and_reviews_with_their_parents(receiver: OtlpReceiver) -> None:
    result = await _traced_run(receiver)
    assert result.stop_reason == "end_turn"

    [run] = receiver.named("invoke_agent")
    assert run.name == "invoke_agent quorum" and run.parent_id == ""
    assert run.attributes[gen_ai.GEN_AI_OPERATION_NAME] == "invoke_agent"
    assert run.attributes[gen_ai.GEN_AI_AGENT_NAME] == "quorum"
    assert run.attributes[gen_ai.GEN_AI_CONVERSATION_ID] == result.run_id == run.attributes["quorum.run.id"]
    assert run.resource["service.name"] == "quorum-test"
    assert {span.trace_id for span in receiver.spans} == {run.trace_id}

    chats = [span for span in receiver.children(run) if span.name.startswith("chat ")]
    assert [span.name for span in chats] == ["chat scripted", "chat scripted"]
    for span in chats:
        assert span.attributes[gen_ai.GEN_AI_OPERATION_NAME] == "chat"
        assert span.attributes[gen_ai.GEN_AI_PROVIDER_NAME] == "fake"
        assert span.attributes[gen_ai.GEN_AI_REQUEST_MODEL] == "scripted"
        assert span.attributes[gen_ai.GEN_AI_RESPONSE_MODEL] == "scripted"
    assert [span.attributes[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS] for span in chats] == [["tool_call"], ["stop"]]
    assert sum(span.attributes[gen_ai.GEN_AI_USAGE_INPUT_TOKENS] for span in chats) == result.usage.input_tokens == 250
    assert sum(span.attributes[gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS] for span in chats) == result.usage.output_tokens == 27
    assert run.attributes[gen_ai.GEN_AI_USAGE_INPUT_TOKENS] == 250
    read_tokens, written_tokens = (
        gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
        gen_ai.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
    )
    assert [(span.attributes[read_tokens], span.attributes[written_tokens]) for span in chats] == [(0, 90), (90, 40)]
    assert (run.attributes[read_tokens], run.attributes[written_tokens]) == (90, 130)

    tools = {span.name: span for span in receiver.children(run) if span.name.startswith("execute_tool")}
    assert set(tools) == {"execute_tool read", "execute_tool write"}
    read = tools["execute_tool read"].attributes
    assert read[gen_ai.GEN_AI_OPERATION_NAME] == "execute_tool"
    assert read[gen_ai.GEN_AI_TOOL_NAME] == "read" and read[gen_ai.GEN_AI_TOOL_CALL_ID] == "c1"
    assert read[gen_ai.GEN_AI_TOOL_TYPE] == "function" and read["quorum.tool.risk"] == "low"
    assert tools["execute_tool write"].attributes["quorum.tool.risk"] == "high"

    [review] = receiver.named("quorum.review")
    assert review.name == "quorum.review write" and review.parent_id == run.span_id
    assert review.attributes["quorum.review.decision"] == "approved"
    assert review.attributes["quorum.review.decided_by"] == "panel"
    assert review.attributes["quorum.review.votes.approve"] == 2
    assert sorted(review.attributes["quorum.review.votes"]) == ["judge:a=approve", "judge:b=approve"]
    reviewer_chats = receiver.children(review)
    assert [span.name for span in reviewer_chats] == ["chat judge", "chat judge"]
    assert {span.attributes[gen_ai.GEN_AI_PROVIDER_NAME] for span in reviewer_chats} == {"judge"}
    spent = sum(span.attributes[gen_ai.GEN_AI_USAGE_INPUT_TOKENS] for span in reviewer_chats)
    assert spent == 2 * REVIEWER_USAGE.input_tokens == result.usage.reviewer_input_tokens


async def test_no_content_is_recorded_without_the_opt_in(receiver: OtlpReceiver) -> None:
    await _traced_run(receiver)
    recorded = b"".join(receiver.bodies)
    assert b"a.txt" not in recorded and b"contents of" not in recorded and b"done, the key" not in recorded
    assert SECRET.encode() not in recorded
    for span in receiver.spans:
        assert not {
            gen_ai.GEN_AI_INPUT_MESSAGES,
            gen_ai.GEN_AI_OUTPUT_MESSAGES,
            gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS,
        } & set(span.attributes)


async def test_content_is_recorded_with_the_opt_in_and_redacted(receiver: OtlpReceiver) -> None:
    await _traced_run(receiver, env={"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"})
    recorded = b"".join(receiver.bodies)
    assert SECRET.encode() not in recorded  # the known secret never leaves, in any attribute
    first, last = [span for span in receiver.spans if span.name == "chat scripted"]
    sent = json.loads(first.attributes[gen_ai.GEN_AI_INPUT_MESSAGES])
    assert sent[0]["role"] == "user" and sent[0]["parts"][0]["content"].startswith("use ")
    assert SECRET not in sent[0]["parts"][0]["content"] and "[REDACTED" in json.dumps(sent)
    output = json.loads(last.attributes[gen_ai.GEN_AI_OUTPUT_MESSAGES])
    assert output[0]["role"] == "assistant" and output[0]["parts"][0]["content"].startswith("done, the key was ")
    [read] = receiver.named("execute_tool read")
    assert json.loads(read.attributes[gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS]) == {"path": "a.txt"}
    assert read.attributes[gen_ai.GEN_AI_TOOL_CALL_RESULT].startswith("contents of a.txt with ")
    assert SECRET not in read.attributes[gen_ai.GEN_AI_TOOL_CALL_RESULT]


async def test_config_capture_content_turns_it_on_too(receiver: OtlpReceiver) -> None:
    await _traced_run(receiver, config="", capture=True)
    assert SECRET.encode() not in b"".join(receiver.bodies)
    assert all(gen_ai.GEN_AI_INPUT_MESSAGES in span.attributes for span in receiver.named("chat scripted"))


async def test_the_two_histograms_carry_the_conventions_attributes(receiver: OtlpReceiver) -> None:
    result = await _traced_run(receiver)
    usage = [
        (attrs, point) for name, attrs, point in receiver.points if name == gen_ai_metrics.GEN_AI_CLIENT_TOKEN_USAGE
    ]
    agent = [(a, p) for a, p in usage if a[gen_ai.GEN_AI_REQUEST_MODEL] == "scripted"]
    by_type = {a[gen_ai.GEN_AI_TOKEN_TYPE]: p for a, p in agent}
    assert by_type["input"].sum == result.usage.input_tokens and by_type["input"].count == 2
    assert by_type["output"].sum == result.usage.output_tokens
    assert all(a[gen_ai.GEN_AI_OPERATION_NAME] == "chat" and a[gen_ai.GEN_AI_PROVIDER_NAME] == "fake" for a, _ in agent)
    durations = [
        (attrs, point)
        for name, attrs, point in receiver.points
        if name == gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION
    ]
    assert sum(point.count for _, point in durations) == 4  # two agent requests, two reviewer votes
    assert all(error_attributes.ERROR_TYPE not in attrs for attrs, _ in durations)


async def test_a_failed_request_and_a_rejected_call_are_said_on_their_spans(receiver: OtlpReceiver) -> None:
    async def fails() -> LlmResponse:
        raise ProviderError("overloaded", provider="fake", status_code=529)

    session = ScriptedSession([calls(("write", {"path": "b.txt", "text": "x"})), fails])
    gateway = RoutingGateway(session, {"judge:a": "reject", "judge:b": "reject"})
    container = compose(receiver, REVIEW, gateway=gateway, tool_executor=_tools())
    params = ExecutionParams(tools="all")
    result = await run_once(container, RunRequest(task="t", model_id="fake:m", params=params))
    assert result.stop_reason == "error"

    [review] = receiver.named("quorum.review")
    assert review.attributes["quorum.review.decision"] == "rejected"
    assert review.attributes["quorum.review.votes.reject"] == 2
    assert not receiver.named("execute_tool")  # a rejected call never runs
    failed = [span for span in receiver.named("chat scripted") if span.status == 2]  # STATUS_CODE_ERROR
    assert [span.attributes[error_attributes.ERROR_TYPE] for span in failed] == ["ProviderError"]
    [run] = receiver.named("invoke_agent")
    assert run.attributes["quorum.run.stop_reason"] == "error" and run.status == 2
    durations = [a for name, a, _ in receiver.points if name == gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION]
    assert {"error.type": "ProviderError"}.items() <= next(a for a in durations if "error.type" in a).items()
