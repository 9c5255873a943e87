"""The ``test`` provider: calls every low-risk tool once, then summarises what it saw."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from quorum.application.ports.llm import ToolSchemas
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse, StopReason, TextBlock, Usage
from quorum.domain.tools import ToolCall
from quorum.infrastructure.plugins.contracts import ProviderContext
from quorum.infrastructure.providers.offline.session import OfflineSession

_PATHISH = ("path", "dir", "directory", "file", "cwd", "folder")


def example_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments satisfying ``schema``'s required properties, chosen to be harmless.

    Enums take their first value, defaults their default; paths are ``.``; patterns match anything.
    """
    properties: dict[str, Any] = schema.get("properties") or {}
    arguments: dict[str, Any] = {}
    for name in schema.get("required") or []:
        arguments[name] = _example(name, properties.get(name) or {})
    return arguments


def _example(name: str, prop: dict[str, Any]) -> Any:
    if prop.get("enum"):
        return prop["enum"][0]
    if "default" in prop:
        return prop["default"]
    kind = prop.get("type", "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "string":
        lowered = name.lower()
        if any(word in lowered for word in _PATHISH):
            return "."
        if "pattern" in lowered or "glob" in lowered:
            described = str(prop.get("description", "")).lower()
            return "." if "regex" in described or "regular expression" in described else "*"
        return "example"
    if kind == "integer":
        return max(1, int(prop.get("minimum", 1)))
    if kind == "number":
        return float(prop.get("minimum", 1))
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if kind == "object":
        return example_arguments(prop)
    return None


class TestModelSession(OfflineSession):
    """First answer: one call to each low-risk tool offered; second: a summary of the results.

    A tool schema's ``risk`` key (set by Quorum's schema converter) tells low from high; tools
    without it are treated as high-risk and not called.
    """

    __test__ = False  # not a pytest test class

    _ids = itertools.count(1)

    def respond(self, tools: ToolSchemas | None) -> LlmResponse:
        usage = Usage(input_tokens=sum(len(str(m)) for m in self._messages[-1:]) // 4, output_tokens=20)
        if tools and not self._called_tools_yet():
            low = [t for t in tools if t.get("risk") == "low"]
            if low:
                blocks: list[Any] = [TextBlock(text=f"Let me try the {len(low)} low-risk tools.")]
                for tool in low:
                    call_id = f"test_{next(self._ids)}"
                    blocks.append(
                        ToolCall(
                            native_id=call_id,
                            name=tool["name"],
                            arguments=example_arguments(tool.get("input_schema") or {}),
                        )
                    )
                return LlmResponse(content=tuple(blocks), stop_reason=StopReason.tool_use(), model="test", usage=usage)
        return LlmResponse.from_text(self._summary(tools), model="test", usage=usage)

    def _called_tools_yet(self) -> bool:
        return any(isinstance(b, ToolCall) for m in self._messages if m.role == "assistant" for b in m.content)

    def _summary(self, tools: ToolSchemas | None) -> str:
        results = self.last_results()
        if not results:
            offered = len(tools) if tools else 0
            return f"Test model: no tool results to report ({offered} tools offered)."
        lines = [f"Test model saw {len(results)} tool results:"]
        for result in results:
            first = (result.output.strip().splitlines() or [""])[0][:100]
            status = "error" if result.is_error else "ok"
            lines.append(f"- {result.name}: {status}: {first}")
        return "\n".join(lines)


class TestGateway:
    """Provider kind ``test`` (model name ignored): needs no key and no network."""

    __test__ = False

    def __init__(self, context: ProviderContext) -> None:
        self.context = context

    def session(
        self, model: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()
    ) -> TestModelSession:
        return TestModelSession(model or "test", system_prompt, history)
