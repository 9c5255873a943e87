"""An MCP server's form (``elicitation/create``, form mode) asked field by field on the terminal.

The person first chooses to answer, decline or cancel; then each property of the requested schema
is asked in order, with its type, description and default. An empty line takes the default (or
skips an optional field); a value that does not fit the field's type, range, format or choices
is refused with the reason and asked again. End of input at any point cancels the form.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from quorum.domain.elicitation import ElicitationAnswer, ElicitationRequest
from quorum.infrastructure.plugins.contracts import LinePrompt
from quorum.infrastructure.terminal_text import printable

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_TRUE = {"y", "yes", "true", "1"}
_FALSE = {"n", "no", "false", "0"}


class _Invalid(ValueError):
    """The typed value does not fit the field; the message says what would."""


async def ask_form(prompt: LinePrompt, request: ElicitationRequest) -> ElicitationAnswer:
    """Ask ``request`` through ``prompt``: accept with the typed content, decline, or cancel."""
    schema = request.requested_schema
    properties: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    shown = printable(f"\n── MCP server {request.server!r} asks for input ──\n{request.message}\n")
    while True:
        line = await prompt.ask_line(shown, "Answer? [y]es / [n]o (decline) / [c]ancel: ")
        if line is None:
            return ElicitationAnswer(action="cancel")
        choice = line.strip().lower()
        if choice in ("n", "no"):
            return ElicitationAnswer(action="decline")
        if choice in ("c", "cancel"):
            return ElicitationAnswer(action="cancel")
        if choice in ("y", "yes"):
            break
        shown = "Please answer y, n or c.\n"
    content: dict[str, Any] = {}
    for name, field in properties.items():
        shown = printable(_describe(name, field, name in required))
        while True:
            line = await prompt.ask_line(shown, f"{printable(name)}: ")
            if line is None:
                return ElicitationAnswer(action="cancel")
            try:
                value = parse_field(line, field, required=name in required)
            except _Invalid as error:
                shown = printable(f"  {error}\n")
                continue
            if value is not None:
                content[name] = value
            break
    return ElicitationAnswer(action="accept", content=content)


def parse_field(line: str, field: dict[str, Any], *, required: bool) -> Any:
    """The value of ``line`` for ``field`` (None: left empty, no default).

    Raises:
        _Invalid: the text is not a valid value of the field.
    """
    text = line.strip()
    if not text:
        if "default" in field:
            return field["default"]
        if required:
            raise _Invalid("a value is required")
        return None
    kind = field.get("type", "string")
    if kind == "boolean":
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise _Invalid("answer y or n")
    if kind in ("integer", "number"):
        return _number(text, field, integer=kind == "integer")
    if kind == "array":
        items = [item.strip() for item in text.split(",") if item.strip()]
        choices = _choices(field.get("items") or {})
        values = [_choose(item, choices) if choices else item for item in items]
        low, high = field.get("minItems"), field.get("maxItems")
        if (low is not None and len(values) < low) or (high is not None and len(values) > high):
            raise _Invalid(f"give between {low or 0} and {high if high is not None else 'any number of'} values")
        return values
    choices = _choices(field)
    if choices:
        return _choose(text, choices)
    return _string(text, field)


def _number(text: str, field: dict[str, Any], *, integer: bool) -> int | float:
    try:
        value: int | float = int(text) if integer else float(text)
    except ValueError:
        raise _Invalid("enter a whole number" if integer else "enter a number") from None
    low, high = field.get("minimum"), field.get("maximum")
    if (low is not None and value < low) or (high is not None and value > high):
        raise _Invalid(f"enter a value from {low if low is not None else '-∞'} to {high if high is not None else '∞'}")
    return value


def _string(text: str, field: dict[str, Any]) -> str:
    low, high = field.get("minLength"), field.get("maxLength")
    if (low is not None and len(text) < low) or (high is not None and len(text) > high):
        raise _Invalid(f"enter {low or 0} to {high if high is not None else 'any number of'} characters")
    kind = field.get("format")
    if kind == "email" and not _EMAIL.match(text):
        raise _Invalid("enter an email address (name@example.org)")
    if kind == "uri" and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$", text):
        raise _Invalid("enter a URI (https://…)")
    try:
        if kind == "date":
            datetime.date.fromisoformat(text)
        elif kind == "date-time":
            datetime.datetime.fromisoformat(text)
    except ValueError:
        raise _Invalid("enter a date as YYYY-MM-DD" if kind == "date" else "enter an ISO 8601 date-time") from None
    return text


def _choices(field: dict[str, Any]) -> dict[str, str]:
    """Accepted answers (the value, or its title, case-insensitive) → the value; empty: free text."""
    options = field.get("oneOf") or field.get("anyOf")
    if options:
        pairs = [(str(o.get("const")), str(o.get("title", o.get("const")))) for o in options if "const" in o]
    else:
        values = [str(v) for v in field.get("enum") or ()]
        pairs = list(zip(values, [str(n) for n in field.get("enumNames") or values], strict=False))
    accepted: dict[str, str] = {}
    for value, title in pairs:
        accepted[title.lower()] = value
        accepted[value.lower()] = value
    return accepted


def _choose(text: str, choices: dict[str, str]) -> str:
    value = choices.get(text.lower())
    if value is None:
        raise _Invalid(f"choose one of: {', '.join(sorted(set(choices.values())))}")
    return value


def _describe(name: str, field: dict[str, Any], required: bool) -> str:
    kind = field.get("type", "string")
    what = {"boolean": "y/n", "integer": "whole number", "number": "number"}.get(kind, field.get("format", kind))
    options = _choices(field.get("items") or {}) if kind == "array" else _choices(field)
    if options:
        shown = sorted({v for v in options.values()})
        titles = {v: k for k, v in options.items() if k != v.lower()}
        listed = ", ".join(f"{v} ({titles[v]})" if v in titles else v for v in shown)
        what = f"{'comma-separated, of' if kind == 'array' else 'one of'}: {listed}"
    if "minimum" in field or "maximum" in field:
        what += f" {field.get('minimum', '')}..{field.get('maximum', '')}"
    parts = [f"{field.get('title') or name} ({what}{', required' if required else ''})"]
    if field.get("description"):
        parts.append(str(field["description"]))
    if "default" in field:
        default = field["default"]
        parts.append(f"[Enter: {', '.join(default) if isinstance(default, list) else default}]")
    return " — ".join(parts) + "\n"
