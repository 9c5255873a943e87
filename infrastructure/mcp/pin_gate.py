"""``PinGate``: what the tool source lets through of each server's tool list, given the pins.

The first time a server's tools are seen they are pinned (``mcp_tools_pinned``). After that, a
tool whose definition differs from its pin, or that has no pin, is withheld: it is left out of
what the model is offered, a call to it by name is refused, and an ``mcp_tool_changed`` event says
so (once per run for each definition). Servers with ``pin = false`` are let through as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from quorum.application.run_context import current_run_events
from quorum.domain.events import McpToolChanged, McpToolsPinned, RunEvent
from quorum.infrastructure.mcp.pins import PinStore, Withheld
from quorum.infrastructure.mcp.server_tools import ServerTool
from quorum.infrastructure.mcp.settings import McpServerSettings


def trust_command(server: str, tool: str | None = None) -> str:
    """The command that trusts ``tool`` of ``server`` (every changed tool when None)."""
    return f"quorum mcp trust {server}" + (f" {tool}" if tool else "")


def _what_changed(withheld: Withheld) -> str:
    return "is new" if withheld.change == ["new"] else "changed (" + ", ".join(withheld.change) + ")"


def refusal(server: str, withheld: Withheld) -> str:
    """What the model is told when it calls a withheld tool (the call was not sent)."""
    name = withheld.tool.name
    return (
        f"refused: tool {name!r} of MCP server {server!r} {_what_changed(withheld)} since a person last "
        f"trusted the server's tools, so it was not run. It stays unavailable until a person reviews it "
        f"(`{trust_command(server, name)}`)."
    )


def why_withheld(server: str, withheld: Withheld) -> str:
    """Why a withheld tool is not offered, for a model that calls it by name (``ToolSpec.withheld``).

    Names what changed (the fields, never their new content) and the command that trusts it.
    """
    name = withheld.tool.name
    return (
        f"tool {name!r} of MCP server {server!r} {_what_changed(withheld)} since a person last trusted the "
        f"server's tools; it stays unavailable until a person reviews it (`{trust_command(server, name)}`)"
    )


class PinGate:
    """Pins applied to the tool lists of one source's servers.

    Args:
        store: the pin files (None: pinning is off for every server, as without a data dir).
        tell: where events go (the source emits them in the run, or holds them for the next).
    """

    def __init__(self, store: PinStore | None, tell: Callable[[RunEvent], None]) -> None:
        self.store = store
        self._tell = tell
        self._withheld: dict[str, dict[str, Withheld]] = {}
        self._announced: set[tuple[str, str, str]] = set()
        self._announced_in: object = None

    def active(self, settings: McpServerSettings) -> bool:
        """Whether pins apply to a server with these settings."""
        return self.store is not None and settings.pin

    def apply(
        self,
        server: str,
        settings: McpServerSettings,
        tools: Sequence[ServerTool],
        *,
        shown: Callable[[ServerTool], bool] = lambda _tool: True,
    ) -> list[ServerTool]:
        """The tools of ``tools`` that may be offered; withheld ones are remembered and announced.

        ``shown``: whether a tool would be offered at all (``enabled_tools``/``disabled_tools``);
        a hidden tool's change is not announced. Every tool is pinned on first use, hidden ones too.
        """
        if self.store is None or not settings.pin:
            return list(tools)
        if self.store.pin_first_use(server, settings, tools):
            self._withheld[server] = {}
            self._tell(McpToolsPinned(server=server, tool_count=len(tools)))
            return list(tools)
        check = self.store.check(server, settings, tools)
        self._withheld[server] = {w.tool.name: w for w in check.withheld}
        for withheld in check.withheld:
            if shown(withheld.tool):
                self._announce(server, withheld)
        return check.trusted

    def recheck(self, server: str, settings: McpServerSettings, listed: Sequence[ServerTool]) -> Withheld | None:
        """The tool (every copy of one name the server lists now) if it does not match its pin, else None.

        A server never pinned yet lets it through: its list is pinned when it is next listed.
        """
        if self.store is None or not settings.pin or not listed:
            return None
        check = self.store.check(server, settings, listed)
        if not check.pinned or not check.withheld:
            return None
        withheld = check.withheld[0]
        self._withheld.setdefault(server, {})[withheld.tool.name] = withheld
        self._announce(server, withheld)
        return withheld

    def withheld(self, server: str, tool: str) -> Withheld | None:
        """The withheld tool ``tool`` (its original name) of ``server`` at the last check, or None."""
        return self._withheld.get(server, {}).get(tool)

    def _announce(self, server: str, withheld: Withheld) -> None:
        run = current_run_events.get()
        if run is None:
            return  # outside a run nobody is told; `quorum mcp check` shows changes itself
        if run is not self._announced_in:  # a new run (or none): say every change again once
            self._announced_in, self._announced = run, set()
        key = (server, withheld.tool.name, withheld.tool.fingerprint)
        if key in self._announced:
            return
        self._announced.add(key)
        self._tell(McpToolChanged(server=server, tool=withheld.tool.name, change=list(withheld.change)))
