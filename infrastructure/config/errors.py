"""Turning pydantic validation errors into messages that name the file, the key and the fix."""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from quorum.domain.errors import ConfigurationError


def _fmt(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the known name closest to a misspelt ``word``, else ``""``."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def describe_error(error: dict[str, Any], known_keys: Sequence[str]) -> str:
    """One pydantic error as a short sentence."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    got = error.get("input")
    if kind == "extra_forbidden":
        hint = did_you_mean(str(error["loc"][-1]), known_keys)
        known = f" (known keys: {', '.join(sorted(known_keys))})" if known_keys and not hint else ""
        return f"unknown key{hint}{known}"
    bounds = {
        "greater_than_equal": ("≥", "ge"),
        "greater_than": (">", "gt"),
        "less_than_equal": ("≤", "le"),
        "less_than": ("<", "lt"),
    }
    if kind in bounds:
        sign, name = bounds[kind]
        return f"must be {sign} {ctx.get(name)}, got {_fmt(got)}"
    if kind == "missing":
        return "is required"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}, got {_fmt(got)}"
    if kind == "enum":
        return f"must be one of {ctx.get('expected')}, got {_fmt(got)}"
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return f"expected an integer, got {_fmt(got)}"
    if kind in ("float_parsing", "float_type"):
        return f"expected a number, got {_fmt(got)}"
    if kind in ("bool_parsing", "bool_type"):
        return f"expected true or false, got {_fmt(got)}"
    if kind in ("string_type",):
        return f"expected a string, got {_fmt(got)}"
    if kind in ("list_type",):
        return f"expected an array, got {_fmt(got)}"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"expected a table, got {_fmt(got)}"
    if kind == "value_error":
        return str(error["msg"]).removeprefix("Value error, ")
    message = str(error["msg"])
    return f"{message[:1].lower()}{message[1:]}, got {_fmt(got)}"


def _unwrap(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return options[0] if len(options) == 1 else annotation
    return annotation


def fields_at(model: type[BaseModel], loc: Sequence[Any]) -> list[str]:
    """The keys the model expects at ``loc`` (for "did you mean")."""
    current: Any = model
    parts = list(loc)
    while parts:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(parts.pop(0)))
            if field is None:
                return []
            current = field.annotation
            continue
        origin = typing.get_origin(current)
        if origin in (dict, list, tuple) or origin is typing.Union:
            args = typing.get_args(current)
            parts.pop(0)
            current = args[-1] if args else Any
            continue
        return []
    current = _unwrap(current)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def validation_lines(
    error: ValidationError,
    model: type[BaseModel],
    *,
    prefix: Sequence[str] = (),
    source_of: Callable[[str], str | None],
) -> list[str]:
    """Every problem of ``error`` as one ``file: key.path: message`` line."""
    lines: list[str] = []
    for item in error.errors():
        loc = [str(p) for p in item["loc"]]
        path = ".".join([*prefix, *loc]) or "(top level)"
        known = fields_at(model, item["loc"][:-1]) if item["type"] == "extra_forbidden" else []
        message = describe_error(dict(item), known)
        source = source_of(path)
        lines.append(f"{source + ': ' if source else ''}{path}: {message}")
    return lines


def raise_validation(
    error: ValidationError,
    model: type[BaseModel],
    *,
    prefix: Sequence[str] = (),
    source_of: Callable[[str], str | None],
) -> typing.NoReturn:
    """Raise one ConfigurationError listing every problem as ``file: key.path: message``."""
    raise ConfigurationError("\n".join(validation_lines(error, model, prefix=prefix, source_of=source_of))) from None
