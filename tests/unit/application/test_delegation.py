"""The ``delegate`` tool's executor: its offer, its risk per subagent, and the child's narrowed tool set."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from quorum.application.delegation import AllowedTools, DelegatingExecutor
from quorum.domain.subagents import DELEGATE, Subagent
from quorum.domain.tools import RiskLevel, ToolCall, ToolResult
from tests.fakes import FakeTools


async def _ok(arguments: dict[str, Any]) -> str:
    return "ok"


def _tools() -> FakeTools:
    tools = FakeTools()
    tools.add("read_file", _ok)
    tools.add("grep_search", _ok)
    tools.add("write_file", _ok, risk=RiskLevel.HIGH)
    return tools


class _Children:
    def __init__(self) -> None:
        self.asked: list[tuple[str, str, list[str]]] = []

    async def delegate(self, agent: Subagent, task: str, tools: Sequence[str]) -> ToolResult:
        self.asked.append((agent.name, task, list(tools)))
        return ToolResult(output=f"{agent.name} did {task}")


READER = Subagent(name="reader", description="Reads", tools=("read_file", "*_search", "delegate"))
WRITER = Subagent(name="writer", description="Writes", tools=("write_file",))


async def test_delegate_is_offered_with_each_subagent_and_risked_by_its_tools() -> None:
    executor = DelegatingExecutor(_tools(), [READER, WRITER], _Children())

    spec = await executor.list_tools()

    tool = spec.get(DELEGATE)
    assert tool is not None and "reader: Reads" in tool.description and "writer: Writes" in tool.description
    assert tool.per_call_risk and tool.risk is RiskLevel.HIGH
    read = ToolCall(native_id="d1", name=DELEGATE, arguments={"agent": "reader", "task": "t"})
    write = ToolCall(native_id="d2", name=DELEGATE, arguments={"agent": "writer", "task": "t"})
    assert executor.assess_risk(read, tool).level is RiskLevel.LOW
    assert executor.assess_risk(write, tool).level is RiskLevel.HIGH


async def test_a_delegation_gets_its_allowed_tools_never_delegate() -> None:
    children = _Children()
    executor = DelegatingExecutor(_tools(), [READER], children)
    await executor.list_tools()

    result = await executor.execute(ToolCall(native_id="d1", name=DELEGATE, arguments={"agent": "reader", "task": "x"}))

    assert result.output == "reader did x"
    assert children.asked == [("reader", "x", ["read_file", "grep_search"])]


async def test_no_subagents_no_delegate() -> None:
    spec = await DelegatingExecutor(_tools(), [], _Children()).list_tools()
    assert DELEGATE not in spec


async def test_a_child_sees_only_its_tools_and_cannot_run_another() -> None:
    inner = _tools()
    child = AllowedTools(inner, ["read_file", DELEGATE])

    assert (await child.list_tools()).names() == ["read_file"]
    refused = await child.execute(ToolCall(native_id="w", name="write_file", arguments={}))
    assert refused.is_error and inner.executed == []
