"""Pinned MCP tool definitions: what a person trusted, and what has changed since.

A tool's fingerprint is the SHA-256 of the canonical JSON (sorted keys, no insignificant
whitespace) of its definition: name, title, description, input schema, output schema and
annotations, as the server sent them (``ServerTool.definition``). Reordered keys or reformatted
JSON give the same fingerprint; any other change gives another.

Pins live in ``<data dir>/mcp-pins/<server>.<key>.json``, where ``key`` is derived from how the
server is started or reached (command, args, cwd, URL: ``cache.fingerprint``), so a server whose
command changed is a new server with no pins. A file holds each pinned tool's fingerprint, its
definition (for the diff ``quorum mcp trust`` shows) and when it was pinned. Writes are atomic.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quorum.domain.events import McpToolChange
from quorum.infrastructure.mcp.cache import fingerprint
from quorum.infrastructure.mcp.server_tools import ServerTool, canonical_json
from quorum.infrastructure.mcp.settings import McpServerSettings

PINS_SUBDIR = "mcp-pins"
"""The folder of the pin files inside Quorum's data directory."""
PINS_VERSION = 1

CHANGE_FIELDS: tuple[tuple[McpToolChange, str], ...] = (
    ("title", "title"),
    ("description", "description"),
    ("input_schema", "inputSchema"),
    ("output_schema", "outputSchema"),
    ("annotations", "annotations"),
)
"""Each reported change and the definition key it compares, in the order changes are named."""


def changes_between(pinned: dict[str, Any] | None, offered: dict[str, Any]) -> list[McpToolChange]:
    """What differs between a pinned definition and the offered one; ``["new"]`` without a pin."""
    if pinned is None:
        return ["new"]
    return [
        change for change, key in CHANGE_FIELDS if canonical_json(pinned.get(key)) != canonical_json(offered.get(key))
    ]


@dataclass(frozen=True)
class Pin:
    """One trusted tool: its fingerprint, its definition, and when it was pinned (Unix time)."""

    sha256: str
    definition: dict[str, Any]
    pinned_at: float

    @classmethod
    def of(cls, tool: ServerTool, now: float | None = None) -> Pin:
        return cls(tool.fingerprint, tool.definition, time.time() if now is None else now)


@dataclass(frozen=True)
class Withheld:
    """A tool the server offers that does not match its pin: not offered until trusted."""

    tool: ServerTool
    change: list[McpToolChange]
    pinned: dict[str, Any] | None
    """The pinned definition (None: the tool is new)."""


@dataclass(frozen=True)
class PinCheck:
    """A tool list checked against a server's pins.

    Attributes:
        trusted: the tools that match their pin (all of them when nothing is pinned yet).
        withheld: the tools that differ from their pin, or are new.
        pinned: whether the server has pins at all (False: first use, nothing to compare).
    """

    trusted: list[ServerTool]
    withheld: list[Withheld]
    pinned: bool


class PinStore:
    """The pin files of every server, under ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        # Each file's pins as last read, with the (inode, mtime, size) they were read at: the tools
        # are checked every turn, and a file changes only when someone pins or trusts (an atomic
        # replace, so a new inode), possibly in another process.
        self._read: dict[Path, tuple[tuple[int, int, int], dict[str, Pin]]] = {}

    def path(self, server: str, settings: McpServerSettings) -> Path:
        """The pin file of ``server`` as ``settings`` start or reach it."""
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in server)
        return self.directory / f"{safe}.{fingerprint(settings)}.json"

    def load(self, server: str, settings: McpServerSettings) -> dict[str, Pin] | None:
        """The server's pins by tool name; None when it was never pinned.

        A file that cannot be read or parsed pins nothing (every tool is then withheld as new):
        a damaged file must not turn into trust on first use again.
        """
        path = self.path(server, settings)
        try:
            stat = path.stat()
        except FileNotFoundError:
            return None
        except OSError:
            return {}
        version = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        read = self._read.get(path)
        if read is None or read[0] != version:
            read = self._read[path] = (version, _parsed(path))
        return dict(read[1])  # the caller's copy: ``trust`` adds to it

    def save(self, server: str, settings: McpServerSettings, pins: dict[str, Pin]) -> Path:
        """Write the server's pins (atomically).

        Raises:
            OSError: the file could not be written.
        """
        path = self.path(server, settings)
        payload = {
            "version": PINS_VERSION,
            "server": server,
            "target": settings.command if settings.command is not None else settings.url,
            "args": list(settings.args),
            "tools": {
                name: {"sha256": pin.sha256, "definition": pin.definition, "pinned_at": pin.pinned_at}
                for name, pin in sorted(pins.items())
            },
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)
        return path

    def check(self, server: str, settings: McpServerSettings, tools: Sequence[ServerTool]) -> PinCheck:
        """Compare ``tools`` with the server's pins (nothing is written)."""
        pins = self.load(server, settings)
        if pins is None:
            return PinCheck(trusted=list(tools), withheld=[], pinned=False)
        trusted: list[ServerTool] = []
        withheld: list[Withheld] = []
        copies: dict[str, list[ServerTool]] = {}
        for tool in tools:
            copies.setdefault(tool.name, []).append(tool)
        for name, listed in copies.items():
            pin = pins.get(name)
            if pin is not None and all(pin.sha256 == t.fingerprint for t in listed):
                trusted.append(listed[0])
                continue
            # A name listed twice is trusted only when every copy matches: a server must not slip a
            # changed definition in beside the pinned one.
            pinned = pin.definition if pin is not None else None
            for tool in listed:
                if pin is None or pin.sha256 != tool.fingerprint:
                    withheld.append(Withheld(tool, changes_between(pinned, tool.definition), pinned))
        return PinCheck(trusted=trusted, withheld=withheld, pinned=True)

    def pin_first_use(self, server: str, settings: McpServerSettings, tools: Sequence[ServerTool]) -> bool:
        """Pin every tool when the server has no pins yet; True when it did (trust on first use).

        A pin file that cannot be written is not an error that fails a run: the tools are used
        as seen, and pinned on a later run.
        """
        if self.load(server, settings) is not None:
            return False
        now = time.time()
        with contextlib.suppress(OSError):
            self.save(server, settings, {tool.name: Pin.of(tool, now) for tool in tools})
        return True

    def trust(self, server: str, settings: McpServerSettings, tools: Iterable[ServerTool]) -> Path:
        """Pin ``tools`` as they are now, keeping the server's other pins.

        Raises:
            OSError: the file could not be written.
        """
        pins = self.load(server, settings) or {}
        now = time.time()
        pins.update({tool.name: Pin.of(tool, now) for tool in tools})
        return self.save(server, settings, pins)


def _parsed(path: Path) -> dict[str, Pin]:
    """The pins of a pin file; none when it cannot be read or parsed (see ``PinStore.load``)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        tools = data["tools"] if data.get("version") == PINS_VERSION else {}
        return {
            str(name): Pin(str(pin["sha256"]), dict(pin["definition"]), float(pin["pinned_at"]))
            for name, pin in tools.items()
        }
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}
