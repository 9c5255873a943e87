"""``Agent.run(output_schema=…)``: a JSON Schema as a dict, or a pydantic model class, and the answer parsed back.

A dict is the schema itself and the answer is its parsed JSON; a pydantic model class gives its
``model_json_schema()`` and the answer is an instance (``model_validate_json``). The loop checks the
answer against the schema (``quorum.application.output_schema``); a model class's own validation
runs after, and a value it refuses still ends the run ``invalid_output``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

OutputSchema = Mapping[str, Any] | type[BaseModel]
"""What ``output_schema=`` takes: a JSON Schema, or a pydantic model class."""


def asked_schema(output_schema: OutputSchema | None) -> tuple[dict[str, Any] | None, Callable[[str], Any]]:
    """The JSON Schema to ask for and the parser of the document that matched it.

    Raises:
        TypeError: ``output_schema`` is neither a mapping nor a pydantic model class.
    """
    if output_schema is None:
        return None, str
    if isinstance(output_schema, type) and issubclass(output_schema, BaseModel):
        return output_schema.model_json_schema(), output_schema.model_validate_json
    if isinstance(output_schema, Mapping):
        return dict(output_schema), json.loads
    raise TypeError(f"output_schema must be a JSON Schema (a dict) or a pydantic model class, not {output_schema!r}")


def with_answer(result: dict[str, Any], parse: Callable[[str], Any]) -> dict[str, Any]:
    """A run result's fields (``RunResult.model_dump()``) with ``output`` the parsed answer, or None without one.

    A document the model class refuses (its schema let it through) ends the run ``invalid_output``.
    """
    if result["stop_reason"] != "end_turn":
        return {**result, "output": None}
    try:
        return {**result, "output": parse(result["output"])}
    except ValidationError as error:
        problems = "; ".join(f"{'/'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in error.errors()[:5])
        why = f"the final answer matched the JSON Schema but not the model class: {problems}"
        return {
            **result,
            "output": None,
            "stop_reason": "invalid_output",
            "detail": f"{why}. Answer: {result['output']}",
        }
