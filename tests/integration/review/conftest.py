"""Fixtures: reviewer-model scripts for the real ``scripted`` provider, and a recording human."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from quorum.application.ports.reviewer import ReviewContext
from quorum.domain.tools import RiskLevel, ToolCall, ToolDefinition
from quorum.infrastructure.plugins.manager import PluginCatalog, load_plugins
from quorum.infrastructure.providers.gateway import PluginLlmGateway
from quorum.infrastructure.review.human import HumanAnswer, HumanRequest

REVIEWER_SCRIPTS = """
[scripts.approve]
[[scripts.approve.turns]]
[[scripts.approve.turns.tool_calls]]
name = "submit_verdict"
arguments = { verdict = "approve", reason = "confined to the workspace" }

[scripts.reject]
[[scripts.reject.turns]]
[[scripts.reject.turns.tool_calls]]
name = "submit_verdict"
arguments = { verdict = "reject", reason = "deletes the user's files" }

[scripts.chatty]
[[scripts.chatty.turns]]
text = "APPROVE — looks safe to me."
[[scripts.chatty.turns]]
text = "As I said: I approve."

[scripts.nudged]
[[scripts.nudged.turns]]
text = "Hmm, seems fine."
[[scripts.nudged.turns]]
tool_calls = [{ name = "submit_verdict", arguments = { verdict = "approve", reason = "fine once reminded" } }]

[scripts.malformed]
[[scripts.malformed.turns]]
tool_calls = [{ name = "submit_verdict", arguments = { verdict = "DISAPPROVE", reason = "nope" } }]
[[scripts.malformed.turns]]
tool_calls = [{ name = "submit_verdict", arguments = { verdict = "reject", reason = "unsafe after all" } }]

[scripts.wrong_tool]
[[scripts.wrong_tool.turns]]
tool_calls = [{ name = "run_command", arguments = { command = "rm -rf /" } }]
[[scripts.wrong_tool.turns]]
tool_calls = [{ name = "run_command", arguments = { command = "still no" } }]

[scripts.empty]
"""


@pytest.fixture(scope="module")
def catalog() -> PluginCatalog:
    return load_plugins(autoload=False)


@pytest.fixture
def script(tmp_path: Path) -> str:
    path = tmp_path / "reviewers.toml"
    path.write_text(REVIEWER_SCRIPTS, encoding="utf-8")
    return str(path)


@pytest.fixture
def gateway(catalog: PluginCatalog) -> PluginLlmGateway:
    return PluginLlmGateway(registry=catalog.providers, instances={}, env={})


def model(script: str, name: str) -> str:
    return f"scripted:{script}#{name}"


def high_call(name: str = "run_command", **arguments: object) -> ToolCall:
    return ToolCall(native_id="call-1", name=name, arguments=arguments or {"command": "rm -rf build"})


def context_for(call: ToolCall) -> ReviewContext:
    return ReviewContext(
        run_id="run-1",
        task="clean the build directory",
        tool=ToolDefinition(name=call.name, description="runs a shell command", risk=RiskLevel.HIGH),
        risk=RiskLevel.HIGH,
        risk_reason="the command may modify files",
        assistant_text="I'll remove the build directory.",
    )


@dataclass
class RecordingPrompt:
    """A HumanPrompt answering from a list, recording what it was shown."""

    answers: list[HumanAnswer]
    asked: list[HumanRequest] = field(default_factory=list)

    async def ask(self, request: HumanRequest) -> HumanAnswer:
        self.asked.append(request)
        return self.answers.pop(0)
