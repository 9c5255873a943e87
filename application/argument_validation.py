"""Validation of a call's arguments: their shape (depth, size), then their tool's JSON Schema.

Arguments come from a model, so they may be hostile: nested thousands of levels deep (which
breaks every recursive walker after them: JSON Schema validation, serialization, redaction) or
megabytes long. Their shape is checked first, iteratively, and a call that breaks a bound is an
error result before anything recursive touches it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from quorum.application import model_wording as say
from quorum.domain.tools import ToolCall

MAX_ARGUMENT_DEPTH = 64
"""Containers (objects, arrays) nested deeper than this are refused."""
MAX_ARGUMENT_BYTES = 1_000_000
"""Arguments whose JSON text (UTF-8) is larger than this are refused."""
NOT_SHOWN_KEY = "_not_shown"
"""The key of the placeholder that stands for refused arguments in a ``tool_call`` event."""


def nesting_depth(value: Any, limit: int) -> int:
    """How deeply containers nest in ``value`` (a scalar is 0), counting at most to ``limit + 1``.

    Iterative, so any depth is measured without recursion; it stops as soon as ``limit`` is
    exceeded, so the cost is bounded too.
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth) for child in children)
    return deepest


def shape_problem(arguments: Mapping[str, Any]) -> str | None:
    """Why ``arguments`` are too deep or too large to handle, or None when their shape is fine."""
    if nesting_depth(arguments, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH:
        return f"arguments nested too deeply (more than {MAX_ARGUMENT_DEPTH} levels)"
    # Bounded depth: serializing is safe now (no recursion limit within reach).
    try:
        size = len(json.dumps(arguments, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))
    except (TypeError, ValueError) as error:
        return f"arguments cannot be read as JSON ({error})"
    if size > MAX_ARGUMENT_BYTES:
        return f"arguments too large ({size} bytes of JSON; the limit is {MAX_ARGUMENT_BYTES})"
    return None


def shown_arguments(call: ToolCall) -> dict[str, Any]:
    """The arguments a ``tool_call`` event carries: the call's own, or a placeholder for refused ones.

    Events are serialized (``--json``, the run log) and walked (redaction): arguments past the
    bounds would break them, and were never executed, so a note stands in for them.
    """
    problem = shape_problem(call.arguments)
    if problem is None:
        return dict(call.arguments)
    return {NOT_SHOWN_KEY: f"{problem}; not shown"}


class ArgumentValidator:
    """Checks call arguments against JSON Schemas; compiled validators are cached per schema.

    ``jsonschema`` is imported on first use: it is pure computation, but not free to import.
    """

    def __init__(self) -> None:
        self._validators: dict[int, tuple[dict[str, Any], Any]] = {}

    def problems(self, call: ToolCall, schema: dict[str, Any]) -> str | None:
        """A description of what is wrong with ``call``'s arguments, or None when they are valid.

        Arguments too deep or too large are refused before the schema is consulted.
        """
        if call.arguments_error is not None:
            raw = (call.raw_arguments or "")[:200]
            return say.arguments_not_an_object(call.arguments_error, raw)
        shape = shape_problem(call.arguments)
        if shape is not None:
            return shape
        validator = self._validator(schema)
        errors = sorted(validator.iter_errors(dict(call.arguments)), key=lambda e: list(e.path))
        if not errors:
            return None
        lines = []
        for error in errors[:5]:
            where = "/".join(str(p) for p in error.path) or "(arguments)"
            lines.append(f"{where}: {error.message}")
        return say.invalid_arguments(lines, max(0, len(errors) - 5))

    def _validator(self, schema: dict[str, Any]) -> Any:
        cached = self._validators.get(id(schema))
        if cached is not None and cached[0] is schema:
            return cached[1]
        from jsonschema.validators import validator_for

        cls = validator_for(schema)
        validator = cls(schema)
        self._validators[id(schema)] = (schema, validator)
        return validator
