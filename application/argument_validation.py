"""Validation of a call's arguments against its tool's JSON Schema, before review and execution."""

from __future__ import annotations

from typing import Any

from quorum.domain.tools import ToolCall


class ArgumentValidator:
    """Checks call arguments against JSON Schemas; compiled validators are cached per schema.

    ``jsonschema`` is imported on first use: it is pure computation, but not free to import.
    """

    def __init__(self) -> None:
        self._validators: dict[int, tuple[dict[str, Any], Any]] = {}

    def problems(self, call: ToolCall, schema: dict[str, Any]) -> str | None:
        """A description of what is wrong with ``call``'s arguments, or None when they are valid."""
        if call.arguments_error is not None:
            raw = (call.raw_arguments or "")[:200]
            return f"arguments are not a JSON object ({call.arguments_error}); received: {raw!r}"
        validator = self._validator(schema)
        errors = sorted(validator.iter_errors(dict(call.arguments)), key=lambda e: list(e.path))
        if not errors:
            return None
        lines = []
        for error in errors[:5]:
            where = "/".join(str(p) for p in error.path) or "(arguments)"
            lines.append(f"{where}: {error.message}")
        more = f" (+{len(errors) - 5} more)" if len(errors) > 5 else ""
        return "invalid arguments: " + "; ".join(lines) + more

    def _validator(self, schema: dict[str, Any]) -> Any:
        cached = self._validators.get(id(schema))
        if cached is not None and cached[0] is schema:
            return cached[1]
        from jsonschema.validators import validator_for

        cls = validator_for(schema)
        validator = cls(schema)
        self._validators[id(schema)] = (schema, validator)
        return validator
