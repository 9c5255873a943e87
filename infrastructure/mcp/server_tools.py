"""What a server says about its tools, and ``${VAR}`` expansion of server settings."""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from quorum.domain.errors import ToolSourceError

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")

DEFINITION_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
"""The parts of a tool's definition that are pinned (wire names): what the model and the risk see."""


def canonical_json(value: Any) -> str:
    """``value`` as canonical JSON: sorted keys, no insignificant whitespace, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def tool_fingerprint(definition: dict[str, Any]) -> str:
    """The SHA-256 (hex) of the canonical JSON of a tool's definition."""
    return hashlib.sha256(canonical_json(definition).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ServerTool:
    """One tool as the server described it (live or from the cache)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool | None = None
    destructive: bool | None = None
    task_support: str | None = None
    """``execution.taskSupport``: ``forbidden``, ``optional`` or ``required`` (None: not said)."""
    definition: dict[str, Any] = field(default_factory=dict, compare=False)
    """The tool's definition as the server sent it (``DEFINITION_KEYS``, wire names): what is pinned."""

    @functools.cached_property
    def fingerprint(self) -> str:
        """``tool_fingerprint(definition)``, computed once: a listed tool is checked against its pin every turn."""
        return tool_fingerprint(self.definition)

    @classmethod
    def from_mcp(cls, tool: Any) -> ServerTool:
        notes = getattr(tool, "annotations", None)
        wire = tool.model_dump(by_alias=True, mode="json", exclude_none=True) if hasattr(tool, "model_dump") else {}
        return cls(
            definition={key: wire[key] for key in DEFINITION_KEYS if key in wire},
            name=tool.name,
            description=tool.description or getattr(tool, "title", None) or "",
            input_schema=dict(tool.input_schema or {"type": "object"}),
            read_only=getattr(notes, "read_only_hint", None),
            destructive=getattr(notes, "destructive_hint", None),
            task_support=getattr(getattr(tool, "execution", None), "task_support", None),
        )

    @property
    def is_read_only(self) -> bool:
        """Marked read-only and not destructive: safe to send again after a lost session."""
        return self.read_only is True and self.destructive is not True

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
            "annotations": {"readOnlyHint": self.read_only, "destructiveHint": self.destructive},
            "task_support": self.task_support,
            "definition": self.definition,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ServerTool:
        notes = data.get("annotations") or {}
        return cls(
            name=str(data["name"]),
            description=str(data.get("description") or ""),
            input_schema=dict(data.get("input_schema") or {"type": "object"}),
            read_only=notes.get("readOnlyHint"),
            destructive=notes.get("destructiveHint"),
            task_support=data.get("task_support"),
            definition=dict(data.get("definition") or {}),
        )


def expand_variables(values: Mapping[str, str], env: Mapping[str, str], *, where: str) -> dict[str, str]:
    """``${VAR}`` in each value replaced from ``env``.

    Raises:
        ToolSourceError: a variable is not set (naming the config key), so a server is never
            started with a silently empty token.
    """
    out: dict[str, str] = {}
    for key, value in values.items():

        def sub(match: re.Match[str], key: str = key) -> str:
            name = match.group(1)
            if name not in env:
                raise ToolSourceError(f"{where}.{key} uses ${{{name}}}, which is not set", source=where)
            return env[name]

        out[key] = _VAR.sub(sub, value)
    return out
