"""MCP client capabilities end to end: roots, sampling, elicitation, logging and progress.

Each test composes Quorum as the CLI does (the real container, a ``scripted:`` model) and runs a
task against the real npm ``@modelcontextprotocol/server-everything`` (or ``server-filesystem``)
over stdio; it asserts what the model received (the tool result) and which run events were
recorded. A person at the terminal is the real ``TerminalPrompt`` reading answers written ahead
into a pipe.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from quorum.application.execution import RunRequest
from quorum.composition.container import build_container
from quorum.composition.options import AppOptions
from quorum.domain.tools import ToolCall
from quorum.infrastructure.review.terminal import TerminalPrompt
from tests.fakes import RecordingObserver

NPM_BIN = Path(__file__).resolve().parents[2] / ".npm" / "node_modules" / ".bin"
EVERYTHING = NPM_BIN / "mcp-server-everything"
FILESYSTEM = NPM_BIN / "mcp-server-filesystem"

pytestmark = pytest.mark.skipif(
    not EVERYTHING.exists() or not FILESYSTEM.exists(),
    reason=f"the npm MCP servers are not installed under {NPM_BIN} (.ci/run installs them)",
)


def _toml(value: Any) -> str:
    return json.dumps(value)  # JSON strings, numbers, arrays and booleans are TOML too


def _config(
    tmp_path: Path, server: dict[str, Any], script: list[dict[str, Any]], sampler: list[dict[str, Any]]
) -> Path:
    scripts = tmp_path / "script.json"
    scripts.write_text(json.dumps({"turns": script, "scripts": {"sampler": {"turns": sampler}}}))
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    lines = [
        f"model = {_toml(f'scripted:{scripts}')}",
        "[tools]",
        'enabled = ["mcp__*"]',
        f"workspace = {_toml(str(workspace))}",
        "[storage]",
        "enabled = false",
        "[mcp.servers.ev]",
        *(f"{key} = {_toml(value)}" for key, value in server.items()),
    ]
    config = tmp_path / "quorum.toml"
    config.write_text("\n".join(lines) + "\n")
    return config


async def _run(
    tmp_path: Path,
    calls: list[tuple[str, dict[str, Any]]],
    *,
    server: dict[str, Any] | None = None,
    sampler: list[dict[str, Any]] | None = None,
    prompt: TerminalPrompt | None = None,
    ready: Callable[[Any], Awaitable[None]] | None = None,
) -> RecordingObserver:
    """Run a scripted task calling ``calls`` (one per turn) on server ``ev``; the events recorded.

    ``ready`` is awaited with the tool executor before the run (a readiness condition).
    """
    settings = server or {"command": str(EVERYTHING), "args": ["stdio"], "risk": "low"}
    turns = [{"tool_calls": [{"name": f"mcp__ev__{name}", "arguments": args}]} for name, args in calls]
    config = _config(tmp_path, settings, [*turns, {"text": "done"}], sampler or [{"text": "unused"}])
    collected = RecordingObserver()
    container = build_container(
        AppOptions(config_path=config),
        env={},
        config_dir=None,
        observer=collected,
        line_prompt=prompt,
    )
    app = container.settings()
    model = f"scripted:{tmp_path / 'script.json'}"
    request = RunRequest(task="go", model_id=model, params=app.agent.execution_params(tools="all"))
    executor = container.tool_executor()
    try:
        if ready is not None:
            await ready(executor)
        result = await container.run_agent().execute(request)
    finally:
        await executor.aclose()
    assert result.stop_reason == "end_turn", result.detail
    return collected


def _output(collected: RecordingObserver, tool: str) -> tuple[str, bool]:
    (result,) = [e for e in collected.of("tool_result") if e.name == f"mcp__ev__{tool}"]
    return result.output, result.is_error


def _everything(**settings: Any) -> dict[str, Any]:
    return {"command": str(EVERYTHING), "args": ["stdio"], "risk": "low", **settings}


async def test_roots_are_the_workspace(tmp_path: Path) -> None:
    collected = await _run(tmp_path, [("get-roots-list", {})])
    output, is_error = _output(collected, "get-roots-list")
    assert not is_error
    assert f"URI: {(tmp_path / 'workspace').resolve().as_uri()}" in output
    assert "(1 total)" in output


async def test_filesystem_server_without_a_directory_works_from_the_roots(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("hello")
    server = {"command": str(FILESYSTEM), "args": [], "risk": "low"}
    path = str(workspace.resolve())

    async def roots_applied(executor: Any) -> None:
        """The server takes the roots after the handshake, asynchronously: wait until it has them."""
        call = ToolCall(native_id="r", name="mcp__ev__list_allowed_directories", arguments={})
        for _ in range(600):  # a readiness condition, polled like a listening socket (at most ~30 s)
            outcome = await executor.execute(call)
            if path in str(outcome.output):
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"the server never took the workspace root: {outcome.output}")

    collected = await _run(tmp_path, [("list_directory", {"path": path})], server=server, ready=roots_applied)
    output, is_error = _output(collected, "list_directory")
    assert not is_error, output
    assert "[FILE] notes.txt" in output


async def test_sampling_allowed_is_served_by_the_sampling_model_and_counted(tmp_path: Path) -> None:
    sampler = [{"text": "a sampled answer", "usage": {"input_tokens": 7, "output_tokens": 3}}]
    server = _everything(sampling="allow", sampling_model=f"scripted:{tmp_path / 'script.json'}#sampler")
    collected = await _run(tmp_path, [("trigger-sampling-request", {"prompt": "hi"})], server=server, sampler=sampler)
    output, is_error = _output(collected, "trigger-sampling-request")
    assert not is_error, output
    assert "a sampled answer" in output  # what the model received
    (event,) = collected.of("mcp_sampling")
    assert (event.server, event.approved, event.decided_by) == ("ev", True, "config")
    assert (event.usage.input_tokens, event.usage.output_tokens) == (7, 3)
    assert event.model.endswith("#sampler") and event.max_tokens == 100  # the tool asks for 100
    (finished,) = collected.of("run_finished")  # the scripted agent model spends nothing itself
    assert (finished.usage.input_tokens, finished.usage.output_tokens) == (7, 3)


async def test_sampling_answers_are_cut_at_the_max_tokens_cap(tmp_path: Path) -> None:
    sampler = [{"text": "x" * 400, "usage": {"input_tokens": 7, "output_tokens": 100}}]
    model = f"scripted:{tmp_path / 'script.json'}#sampler"
    server = _everything(sampling="allow", sampling_model=model, sampling_max_tokens=10)
    collected = await _run(tmp_path, [("trigger-sampling-request", {"prompt": "hi"})], server=server, sampler=sampler)
    output, _ = _output(collected, "trigger-sampling-request")
    assert '"stopReason": "maxTokens"' in output
    assert "x" * 41 not in output and "x" * 40 in output  # 10 of 100 tokens: a tenth of the text
    (event,) = collected.of("mcp_sampling")
    assert event.max_tokens == 10 and event.stop_reason == "maxTokens"


async def test_sampling_denied_by_configuration_reaches_the_model_as_an_error(tmp_path: Path) -> None:
    collected = await _run(
        tmp_path, [("trigger-sampling-request", {"prompt": "hi"})], server=_everything(sampling="deny")
    )
    output, is_error = _output(collected, "trigger-sampling-request")
    assert is_error and "sampling refused" in output and "'deny'" in output
    (event,) = collected.of("mcp_sampling")
    assert (event.approved, event.decided_by, event.usage.total_tokens) == (False, "config", 0)


async def test_sampling_ask_without_a_terminal_is_denied(tmp_path: Path) -> None:
    collected = await _run(tmp_path, [("trigger-sampling-request", {"prompt": "hi"})], server=_everything())
    output, is_error = _output(collected, "trigger-sampling-request")
    assert is_error and "nobody can be asked" in output
    (event,) = collected.of("mcp_sampling")
    assert (event.approved, event.decided_by) == (False, "auto")


@pytest.mark.parametrize(("typed", "approved"), [("maybe\ny\n", True), ("n\n", False)])
async def test_sampling_ask_asks_the_person(tmp_path: Path, typed: str, approved: bool) -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, typed.encode())
    os.close(write_fd)
    shown = io.StringIO()
    sampler = [{"text": "the answer", "usage": {"input_tokens": 2, "output_tokens": 2}}]
    server = _everything(sampling_model=f"scripted:{tmp_path / 'script.json'}#sampler")
    try:
        collected = await _run(
            tmp_path,
            [("trigger-sampling-request", {"prompt": "hello there"})],
            server=server,
            sampler=sampler,
            prompt=TerminalPrompt(read_fd, shown),
        )
    finally:
        os.close(read_fd)
    asked = shown.getvalue()
    assert "MCP server 'ev' asks to use a model" in asked and "hello there" in asked
    assert "Please answer y or n." in asked if typed.startswith("maybe") else True
    output, is_error = _output(collected, "trigger-sampling-request")
    assert ("the answer" in output) is approved and is_error is not approved
    (event,) = collected.of("mcp_sampling")
    assert (event.approved, event.decided_by) == (approved, "human")


async def test_elicitation_form_on_the_terminal_is_validated_and_accepted(tmp_path: Path) -> None:
    typed = [
        "y",  # answer the form
        "Ada Lovelace",  # name
        "yes",  # check
        "",  # firstLine: its default
        "not-an-email",  # email: refused, asked again
        "ada@example.org",
        "",  # homepage: optional, skipped
        "1815-12-10",  # birthdate
        "500",  # integer: out of 1..100, asked again
        "7",
        "",  # number: its default
        "rachel",  # untitled single select (case-insensitive)
        "Piano, Drums",  # untitled multiple select
        "Wonder Woman",  # titled single select, by title
        "",  # titled multiple select: its default
        "Dogs",  # legacy titled enum, by its enumName
    ]
    read_fd, write_fd = os.pipe()
    os.write(write_fd, ("\n".join(typed) + "\n").encode())
    os.close(write_fd)
    shown = io.StringIO()
    try:
        collected = await _run(tmp_path, [("trigger-elicitation-request", {})], prompt=TerminalPrompt(read_fd, shown))
    finally:
        os.close(read_fd)
    output, is_error = _output(collected, "trigger-elicitation-request")
    assert not is_error
    assert "User provided the requested information" in output
    for line in (
        "- Name: Ada Lovelace",
        "- Agreed to terms: true",
        "- Email: ada@example.org",
        "- Favorite Integer: 7",
    ):
        assert line in output
    raw = json.loads(output.split("Raw result:", 1)[1])
    assert raw["content"]["untitledSingleSelectEnum"] == "Rachel"
    assert raw["content"]["untitledMultipleSelectEnum"] == ["Piano", "Drums"]
    assert raw["content"]["titledSingleSelectEnum"] == "hero-3"
    assert raw["content"]["legacyTitledEnum"] == "pet-2"
    assert raw["content"]["firstLine"] == "It was a dark and stormy night." and "homepage" not in raw["content"]
    asked = shown.getvalue()
    assert "enter an email address" in asked and "enter a value from 1 to 100" in asked
    (event,) = collected.of("mcp_elicitation")
    assert (event.action, event.decided_by) == ("accept", "human")
    assert "name" in event.fields and "Ada" not in str(event)  # values are not recorded


@pytest.mark.parametrize(("typed", "said"), [("n\n", "declined"), ("c\n", "cancelled"), ("y\n", "cancelled")])
async def test_elicitation_declined_or_cancelled_on_the_terminal(tmp_path: Path, typed: str, said: str) -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, typed.encode())  # "y" then end of input: the form is cancelled
    os.close(write_fd)
    try:
        collected = await _run(
            tmp_path, [("trigger-elicitation-request", {})], prompt=TerminalPrompt(read_fd, io.StringIO())
        )
    finally:
        os.close(read_fd)
    output, _ = _output(collected, "trigger-elicitation-request")
    assert f"User {said}" in output
    (event,) = collected.of("mcp_elicitation")
    assert event.action == ("decline" if said == "declined" else "cancel")


async def test_elicitation_without_a_terminal_is_declined(tmp_path: Path) -> None:
    collected = await _run(tmp_path, [("trigger-elicitation-request", {})])
    output, _ = _output(collected, "trigger-elicitation-request")
    assert "User declined" in output
    (event,) = collected.of("mcp_elicitation")
    assert (event.action, event.decided_by) == ("decline", "auto")


async def test_server_log_messages_are_recorded(tmp_path: Path) -> None:
    collected = await _run(tmp_path, [("get-roots-list", {})], server=_everything(log_level="info"))
    logs = collected.of("mcp_log")
    assert any(
        log.server == "ev"
        and log.level == "info"
        and log.logger == "everything-server"
        and "Roots updated" in log.message
        for log in logs
    ), logs
    assert not any("setLevel failed" in log.message for log in logs)  # the level was accepted


async def test_progress_is_recorded_for_the_call(tmp_path: Path) -> None:
    collected = await _run(tmp_path, [("trigger-long-running-operation", {"duration": 0.3, "steps": 3})])
    (call,) = collected.of("tool_call")
    progress = [e for e in collected.of("progress") if e.call_id == call.id and e.total is not None]
    assert progress, collected.events
    assert (progress[-1].progress, progress[-1].total) == (3, 3)  # the last report always goes through
    assert all(e.total == 3 for e in progress)
