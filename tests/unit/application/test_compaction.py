"""Context compaction (issue 23): scripted models that report their input tokens, checked on what they receive."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quorum.application import model_wording as say
from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.ports.hooks import HookRunner
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse, TextBlock, Usage
from quorum.domain.tools import ToolCall, ToolResult
from tests.fakes import FakeTools, JsonSchema, RecordingObserver, ScriptedReviewer, ScriptedSession, calls, text


@dataclass
class Sessions:
    """A gateway whose sessions share one script: each opened session is kept, with its history."""

    script: list[Any]
    opened: list[tuple[str, str | None, ScriptedSession]] = field(default_factory=list)

    def session(self, model_id: str, system_prompt: str | None = None, *, history: Any = ()) -> ScriptedSession:
        session = ScriptedSession(self.script, model=model_id, messages=list(history))
        self.opened.append((model_id, system_prompt, session))
        return session


def used(tokens: int) -> Usage:
    return Usage(input_tokens=tokens, output_tokens=10)


async def read(args: dict[str, Any]) -> str:
    return f"{args['path']}:" + "x" * 2000


async def run(
    script: list[LlmResponse], hooks: HookRunner | None = None, **params: Any
) -> tuple[Sessions, RecordingObserver, Any]:
    gateway = Sessions(list(script))
    tools = FakeTools()
    tools.add("read", read)
    observer = RecordingObserver()
    agent = RunAgent(
        gateway=gateway,
        executor=tools,
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(tools=tools),
        observer=observer,
        hooks=hooks,
    )
    request = RunRequest(task="the task", model_id="fake:m", system_prompt="sys", params=ExecutionParams(**params))
    return gateway, observer, await agent.execute(request)


def assert_paired(history: list[Message]) -> None:
    """Every call is answered in the next message, and every result answers a call of the message before."""
    for index, message in enumerate(history):
        ids = [b.native_id for b in message.content if isinstance(b, ToolCall)]
        results = [b.call_id for b in message.content if isinstance(b, ToolResult)]
        if ids:
            assert [b.call_id for b in history[index + 1].content if isinstance(b, ToolResult)] == ids
        if results:
            assert [b.native_id for b in history[index - 1].content if isinstance(b, ToolCall)] == results


def reads(*paths: str, tokens: int) -> LlmResponse:
    specs = [ToolCall(native_id=f"id-{p}", name="read", arguments={"path": p}) for p in paths]
    return calls(*specs, usage=used(tokens))


async def test_below_the_threshold_nothing_is_compacted() -> None:
    gateway, observer, result = await run([reads("a", tokens=100), reads("b", tokens=650), text("done")])
    assert result.stop_reason == "end_turn"
    assert observer.of("context_compacted") == [] and len(gateway.opened) == 1


async def test_past_the_threshold_old_outputs_become_markers_and_the_model_receives_them() -> None:
    script = [reads("a", tokens=100), reads("b", tokens=650), text("done")]
    gateway, observer, result = await run(script, context_window=1000)  # threshold 800
    assert result.stop_reason == "end_turn"
    [event] = observer.of("context_compacted")
    assert (event.turn, event.messages_compacted) == (3, 1) and event.tokens_after < 800 < event.tokens_before
    model, prompt, fresh = gateway.opened[-1]
    assert (model, prompt) == ("fake:m", "sys")
    received = fresh.history()[:-1]  # what the third request held (its answer last)
    assert received[0].content == (TextBlock(text="the task"),)
    outputs = [b.output for m in received for b in m.content if isinstance(b, ToolResult)]
    assert outputs[0] == say.output_compacted("read", len("a:") + 2000)
    assert outputs[1].startswith("b:xxx")  # the results being sent stay whole
    assert_paired(received)


async def test_when_markers_are_not_enough_older_turns_are_summarized() -> None:
    script = [
        reads("a", tokens=300),
        reads("b", tokens=500),
        reads("c", tokens=900),
        text("SUMMARY: a and b were read"),  # the summary request
        text("done"),
    ]
    gateway, observer, result = await run(script, context_window=1000, max_tool_turns=5)
    assert result.stop_reason == "end_turn" and result.output == "done"
    markers, summary = observer.of("context_compacted")  # turn 3: markers; turn 4: not enough, a summary
    assert (markers.turn, summary.turn) == (3, 4) and summary.tokens_after < 800 < summary.tokens_before
    prompt, summarizer = gateway.opened[2][1:]
    assert prompt == say.SUMMARY_INSTRUCTIONS and summarizer.sent[0][0] == "send"  # no tools
    received = gateway.opened[-1][2].history()[:-1]
    first = received[0].content[0]
    assert isinstance(first, TextBlock) and first.text.startswith("the task") and "SUMMARY: a and b" in first.text
    assert received[0].role == "user" and received[1].role == "assistant"
    assert_paired(received)
    assert summary.messages_compacted == 5
    assert result.usage.input_tokens == 300 + 500 + 900 + 0 + 0  # the scripted summary reported nothing


async def test_compact_off_never_compacts() -> None:
    script = [reads("a", tokens=100), reads("b", tokens=950), text("done")]
    gateway, observer, _ = await run(script, context_window=1000, compact="off")
    assert observer.of("context_compacted") == [] and len(gateway.opened) == 1


async def test_a_continued_run_keeps_the_decided_turn_whole_when_it_compacts() -> None:
    from quorum.application.deferral import PendingTurn
    from quorum.domain.review import ReviewDecision
    from quorum.domain.tools import RiskLevel

    old = ToolCall(native_id="o1", name="read", arguments={"path": "old"})
    open_calls = (
        ToolCall(native_id="c1", name="write", arguments={"path": "a"}),
        ToolCall(native_id="c2", name="read", arguments={"path": "b"}),
    )
    history = [
        Message(role="user", content=(TextBlock(text="the task"),)),
        Message(role="assistant", content=(old,)),
        Message(role="user", content=(ToolResult(call_id="o1", name="read", output="z" * 3000),)),
        Message(role="assistant", content=open_calls),
    ]
    pending = PendingTurn(
        turn=2,
        calls=open_calls,
        results=(ToolResult(call_id="c2", name="read", output="b contents"),),
        decisions={"c1": ReviewDecision(approved=True, decided_by="human", by="alice")},
    )
    gateway = Sessions([text("finished")])
    tools = FakeTools()
    tools.add("read", read)

    async def write(args: dict[str, Any]) -> str:
        return "written"

    tools.add("write", write, risk=RiskLevel.HIGH)
    observer = RecordingObserver()
    agent = RunAgent(
        gateway=gateway, executor=tools, schema=JsonSchema(), reviewer=ScriptedReviewer(tools=tools), observer=observer
    )
    request = RunRequest(
        task="the task",
        model_id="fake:m",
        history=tuple(history),
        run_id="run-1",
        resume=pending,
        params=ExecutionParams(context_window=1000),
    )
    result = await agent.execute(request)
    assert result.stop_reason == "end_turn" and tools.executed == ["c1"]
    assert len(observer.of("context_compacted")) == 1
    received = gateway.opened[-1][2].history()[:-1]
    assert received[0].content == (TextBlock(text="the task"),)
    assert received[-2].content == open_calls  # the decided turn's calls, then every result
    assert [(r.call_id, r.output) for r in received[-1].content if isinstance(r, ToolResult)] == [
        ("c1", "written"),
        ("c2", "b contents"),
    ]
    assert received[2].content[0].output == say.output_compacted("read", 3000)  # type: ignore[union-attr]
    assert_paired(received)
