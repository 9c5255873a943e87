"""Port to everything that runs tools: built-ins, MCP servers, plugin tools."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from quorum.domain.tools import Clearance, RiskAssessment, ToolCall, ToolDefinition, ToolResult, ToolSpec


class ToolExecutor(Protocol):
    """Lists the available tools and executes calls to them."""

    async def list_tools(self) -> ToolSpec:
        """Every tool available now. May start tool sources; failures of one source leave it out."""
        ...

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        """The risk of this particular call (e.g. a read-only shell command is low), and why. Pure."""
        ...

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
        """Run one call whose arguments were already validated.

        (See ``CallPrecheck`` for refusing a call before anyone is asked to review it.)

        ``clearance`` says how the call got here: ``UNREVIEWED`` (the low-risk path) must run as
        confined as the tool can be (``run_command`` in the sandbox); ``APPROVED`` calls passed a
        review. The default is the confined one, so forgetting it can never loosen anything.
        Expected failures come back as ``ToolResult(is_error=True)``; anything raised is turned
        into an error result by the caller. Must be cancellable (the caller enforces timeouts).
        """
        ...


@runtime_checkable
class CallPrecheck(Protocol):
    """An executor that can refuse a call before it is reviewed (optional beside ``ToolExecutor``).

    A call the tool would refuse anyway (an edit of a file the run has not read) is refused before
    a person or a panel is asked about it: approving it would only see it refused.
    """

    def precheck(self, call: ToolCall) -> str | None:
        """Why ``call`` would be refused, with the next step; None to go on. Quick, never raises."""
        ...


def precheck_of(executor: object) -> Callable[[ToolCall], str | None] | None:
    """``executor.precheck`` when ``executor`` implements ``CallPrecheck``, else None.

    What ``isinstance(executor, CallPrecheck)`` decides (the method is there and not None),
    without walking the protocol's members: a run asks it of each executor it is given.
    """
    method: Callable[[ToolCall], str | None] | None = getattr(executor, "precheck", None)
    return method
