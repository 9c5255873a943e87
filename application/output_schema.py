"""A checked final answer: the JSON Schema a run's answer must match, and the check of each answer.

A run with ``RunRequest.output_schema`` asks the model for a final answer that is one JSON document
matching the schema. Every request of the execution phase carries the schema as it is asked for
(``AnswerSchema.asked``, in ``TurnInput.answer_schema``), which each provider adapter turns into its
API's structured output or a ``final_answer`` tool (decision 260); the system prompt says it in words
as well (``model_wording.answer_schema_note``), for a provider that does neither. Each answer (a reply
without tool calls) is checked here; the execution phase answers an invalid one with what is wrong,
at most ``ANSWER_TRIES - 1`` times, and then stops the run ``invalid_output``.

A schema whose root is not an object is asked for as the ``answer`` property of an object (tool
parameters and OpenAI's structured outputs take objects only) and unwrapped after the check; the
bare value is accepted as well.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from quorum.application.argument_validation import MAX_ARGUMENT_DEPTH, nesting_depth

ANSWER_TRIES = 3
"""Answers checked before the run stops ``invalid_output``: the first, then at most 2 more tries."""

WRAPPED = "answer"
"""The property holding the answer when the schema's root is not an object."""

MAX_PROBLEMS = 5
"""Validation errors told to the model (and kept in ``detail``); the rest are counted."""


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` cannot be asked for (not a JSON object, not a valid JSON Schema), or None."""
    if not isinstance(schema, dict):
        return f"a JSON Schema is a JSON object, not {type(schema).__name__}"
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as error:
        where = "/".join(str(part) for part in error.path) or "(root)"
        return f"not a valid JSON Schema: {error.message} (at {where})"
    except RecursionError:
        return "nested too deeply to check"
    return None


@dataclass(frozen=True)
class CheckedAnswer:
    """One answer checked: its value and canonical JSON text when valid, else what is wrong."""

    value: Any = None
    document: str = ""
    problems: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class AnswerSchema:
    """The schema a run's final answer must match (``schema``, valid: see ``schema_problem``)."""

    schema: dict[str, Any]
    _validators: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def wrapped(self) -> bool:
        """The root is not an object: the answer is asked for as the ``answer`` property of one."""
        return self.schema.get("type") != "object"

    @property
    def asked(self) -> dict[str, Any]:
        """The schema the model is asked for: ``schema``, or an object holding it as ``answer``."""
        if not self.wrapped:
            return self.schema
        return {"type": "object", "properties": {WRAPPED: self.schema}, "required": [WRAPPED]}

    def check(self, text: str) -> CheckedAnswer:
        """``text`` (a JSON document, possibly in a Markdown code fence) checked against the schema."""
        try:
            value = json.loads(_unfenced(text))
        except ValueError as error:
            return CheckedAnswer(problems=(f"the answer is not a JSON document: {error}",))
        except RecursionError:
            return CheckedAnswer(problems=("the answer is nested too deeply to read",))
        if nesting_depth(value, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH:
            return CheckedAnswer(problems=(f"the answer is nested more than {MAX_ARGUMENT_DEPTH} levels deep",))
        if self.wrapped and isinstance(value, dict) and set(value) == {WRAPPED}:
            value = value[WRAPPED]
        problems = self._problems(value)
        if problems:
            return CheckedAnswer(problems=problems)
        return CheckedAnswer(value=value, document=json.dumps(value, ensure_ascii=False))

    def _problems(self, value: Any) -> tuple[str, ...]:
        validator = self._validators.get("schema")
        if validator is None:
            from jsonschema.validators import validator_for

            validator = validator_for(self.schema)(self.schema)
            self._validators["schema"] = validator
        errors = sorted(validator.iter_errors(value), key=lambda e: [str(p) for p in e.path])
        lines = [f"{'/'.join(str(p) for p in e.path) or '(root)'}: {e.message}" for e in errors[:MAX_PROBLEMS]]
        if len(errors) > MAX_PROBLEMS:
            lines.append(f"and {len(errors) - MAX_PROBLEMS} more problem(s)")
        return tuple(lines)


def _unfenced(text: str) -> str:
    """``text`` without one Markdown code fence around it (```json … ```), as models often answer."""
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```") and "\n" in stripped:
        body = stripped[3:-3]
        return body.split("\n", 1)[1] if "\n" in body else body
    return stripped
