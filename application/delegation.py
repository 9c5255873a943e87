"""The ``delegate`` tool: a ``ToolExecutor`` adding it beside the run's tools, and the child's tool set.

``DelegatingExecutor`` offers ``delegate`` (``{"agent": NAME, "task": TEXT}``) when subagents are
defined and hands its calls to a ``Delegation`` port (the composition runs the child through the
run service). A delegation's risk is the highest risk of the tools its subagent may use, so a
subagent with only low-risk tools is a low-risk call (run in parallel with the turn's other
low-risk calls) and one that may write is reviewed before it starts.

``AllowedTools`` is what a child run sees: only the tools its definition allows; any other name,
``delegate`` included, is not offered, so a call to it is an unknown tool (depth 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from quorum.application.ports.delegation import Delegation
from quorum.application.ports.tool_executor import CallPrecheck, ToolExecutor
from quorum.domain.subagents import DELEGATE, Subagent
from quorum.domain.tools import (
    Clearance,
    RiskAssessment,
    RiskLevel,
    ToolCall,
    ToolDefinition,
    ToolParameter,
    ToolResult,
    ToolSpec,
)


def risk_of(agent: Subagent, spec: ToolSpec) -> RiskLevel:
    """The highest default risk of the tools in ``spec`` that ``agent`` may use (low when none is high)."""
    tools = [spec.get(name) for name in agent.allowed(spec.names())]
    high = any(tool is not None and tool.risk is RiskLevel.HIGH for tool in tools)
    return RiskLevel.HIGH if high else RiskLevel.LOW


def delegate_tool(agents: Sequence[Subagent], risks: Mapping[str, RiskLevel]) -> ToolDefinition:
    """The ``delegate`` tool offering ``agents`` (their names and descriptions in its description)."""
    listed = "\n".join(f"- {agent.name}: {agent.description.strip()}" for agent in agents)
    names = tuple(agent.name for agent in agents)
    kinds = set(risks.values())
    return ToolDefinition(
        name=DELEGATE,
        description=(
            "Hand a self-contained task to a subagent, which works on it with its own tools and "
            "answers with its findings (it does not see this conversation: say everything it needs "
            "in the task). Several delegations in one response may run at once. Subagents:\n" + listed
        ),
        brief="Hand a task to a subagent: " + ", ".join(names) + ".",
        risk=RiskLevel.HIGH if RiskLevel.HIGH in kinds else RiskLevel.LOW,
        per_call_risk=kinds == {RiskLevel.LOW, RiskLevel.HIGH},
        parameters=(
            ToolParameter(name="agent", description="the subagent's name", enum=names),
            ToolParameter(name="task", description="the task, with everything the subagent needs to know"),
        ),
    )


@dataclass
class _Offer:
    """What ``list_tools`` found: the inner tools, each subagent's allowed tools and risk."""

    spec: ToolSpec
    tools: dict[str, list[str]]
    risks: dict[str, RiskLevel]


class DelegatingExecutor:
    """``inner``'s tools plus ``delegate`` for ``agents`` (nothing added when there are none)."""

    def __init__(self, inner: ToolExecutor, agents: Sequence[Subagent], delegation: Delegation) -> None:
        self._inner = inner
        self._agents = {agent.name: agent for agent in agents}
        self._delegation = delegation
        self._offer: _Offer | None = None

    async def list_tools(self) -> ToolSpec:
        """The inner tools and, with subagents defined, ``delegate`` (its risk from theirs)."""
        spec = await self._inner.list_tools()
        if not self._agents or DELEGATE in spec:
            return spec
        tools = {name: agent.allowed(spec.names()) for name, agent in self._agents.items()}
        risks = {name: risk_of(agent, spec) for name, agent in self._agents.items()}
        self._offer = _Offer(spec, tools, risks)
        delegate = delegate_tool(list(self._agents.values()), risks)
        return ToolSpec([*spec, delegate], withheld=spec.withheld)

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        """A delegation: its subagent's risk; any other call: the inner executor's assessment."""
        if call.name != DELEGATE or self._offer is None:
            return self._inner.assess_risk(call, tool)
        agent = str(call.arguments.get("agent", ""))
        level = self._offer.risks.get(agent, RiskLevel.HIGH)
        allowed = ", ".join(self._offer.tools.get(agent, [])) or "no tools"
        return RiskAssessment(level=level, reason=f"subagent {agent!r} may use: {allowed}")

    def precheck(self, call: ToolCall) -> str | None:
        """The inner executor's precheck (``CallPrecheck``); a delegation has none."""
        if call.name == DELEGATE or not isinstance(self._inner, CallPrecheck):
            return None
        return self._inner.precheck(call)

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
        """Run a delegation as a child run, any other call with the inner executor."""
        if call.name != DELEGATE or self._offer is None:
            return await self._inner.execute(call, clearance=clearance)
        agent = self._agents[str(call.arguments["agent"])]  # the schema's enum: validated before
        task = str(call.arguments["task"])
        return await self._delegation.delegate(agent, task, self._offer.tools[agent.name])


class AllowedTools:
    """``inner``'s tools restricted to ``names``: a child run's tool set (anything else is unknown)."""

    def __init__(self, inner: ToolExecutor, names: Sequence[str]) -> None:
        self._inner = inner
        self._names = frozenset(names) - {DELEGATE}

    async def list_tools(self) -> ToolSpec:
        """The allowed tools among ``inner``'s."""
        spec = await self._inner.list_tools()
        return ToolSpec([tool for tool in spec if tool.name in self._names])

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        """As the inner executor assesses it."""
        return self._inner.assess_risk(call, tool)

    def precheck(self, call: ToolCall) -> str | None:
        """The inner executor's precheck (``CallPrecheck``), if it has one."""
        return self._inner.precheck(call) if isinstance(self._inner, CallPrecheck) else None

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
        """Run an allowed call; refuse any other (the loop never offers it, so this is a second lock)."""
        if call.name not in self._names:
            return ToolResult(call_id=call.native_id, name=call.name, output=f"unknown tool {call.name}", is_error=True)
        return await self._inner.execute(call, clearance=clearance)
