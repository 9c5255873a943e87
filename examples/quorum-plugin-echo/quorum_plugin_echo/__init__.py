"""Example Quorum plugin: one tool and one provider, registered through Quorum's hooks.

Registration stays cheap: the provider is a factory; nothing heavy is imported at import time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from quorum import tool
from quorum.domain import LlmResponse, StopReason, TextBlock, ToolCall
from quorum.infrastructure.plugins import ToolRegistry, hookimpl
from quorum.infrastructure.providers.offline.session import OfflineSession


@tool(risk="low")
async def echo(text: str) -> str:
    """Return the given text unchanged.

    Args:
        text: Text to echo back.
    """
    return text


class EchoSession(OfflineSession):
    """Calls the echo tool with the task once, then answers with the tool's output."""

    def respond(self, tools: Sequence[dict[str, Any]] | None) -> LlmResponse:
        results = self.last_results()
        if results:
            return LlmResponse.from_text(f"echo said: {results[0].output}", model="echo")
        offered = {t["name"] for t in tools or ()}
        task = next(b.text for b in self._messages[0].content if isinstance(b, TextBlock))
        if "echo" in offered:
            call = ToolCall(native_id="echo_1", name="echo", arguments={"text": task})
            return LlmResponse(content=(call,), stop_reason=StopReason.tool_use(), model="echo")
        return LlmResponse.from_text(task, model="echo")


class EchoProvider:
    """Provider `echo`: an offline model that echoes."""

    def __init__(self, context: Any) -> None:
        self.context = context

    def session(self, model: str, system_prompt: str | None = None, *, history: Sequence[Any] = ()) -> EchoSession:
        return EchoSession(model or "echo", system_prompt, history)


@hookimpl
def quorum_register_tools(registry: ToolRegistry) -> None:
    registry.add_tool(echo)


@hookimpl
def quorum_register_providers(registry: Any) -> None:
    registry.add("echo", EchoProvider, description="Offline model that echoes the task through the echo tool.")
