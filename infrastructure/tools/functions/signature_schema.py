"""A function's signature as a tool's input: its JSON Schema, and the validation of a call's arguments.

The parameters become the keys of a ``TypedDict`` (any parameter name works, unlike the fields of a
``BaseModel``, where ``json`` or ``schema`` would shadow its methods) that one pydantic
``TypeAdapter`` both describes (the JSON Schema offered to the model) and validates with (strings
become enums, models and datetimes; ints become floats). Everything that can be wrong with the
signature is found here, at decoration time, as a ``TypeError`` naming the parameter.
"""

from __future__ import annotations

import copy
import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, NotRequired

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaWarningKind
from pydantic_core import CoreSchema
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from quorum.application import model_wording as say
from quorum.domain.errors import InvalidArgumentsError
from quorum.infrastructure.tools.functions.tool_context import ToolContext

_MAX_SHOWN_ERRORS = 5


class _ToolJsonSchema(GenerateJsonSchema):
    """Pydantic's JSON Schema without per-field titles (noise to a model) or default warnings."""

    def field_title_should_be_set(self, schema: CoreSchema) -> bool:
        return False

    def emit_warning(self, kind: JsonSchemaWarningKind, detail: str) -> None:
        # A default that JSON cannot show is left out of the schema; the function still applies it.
        if kind != "non-serializable-default":
            super().emit_warning(kind, detail)


@dataclass(frozen=True, eq=False)
class ToolSignature:
    """The input side of a ``@tool`` function.

    Attributes:
        input_schema: the JSON Schema of the arguments: an object with ``properties`` and
            ``additionalProperties: false``; references to models are inlined, except recursive
            ones, which stay under ``$defs`` at the root.
        context_parameter: the name of the parameter annotated ``ToolContext``, if any.
    """

    input_schema: dict[str, Any]
    context_parameter: str | None
    adapter: TypeAdapter[dict[str, Any]]

    def bind(self, arguments: Mapping[str, Any], context: ToolContext) -> dict[str, Any]:
        """The keyword arguments for the function: the call's arguments validated and converted.

        Only arguments the call gave are passed, so the function's own defaults apply to the rest.

        Raises:
            InvalidArgumentsError: naming each argument that is missing, unknown or invalid.
        """
        try:
            validated = self.adapter.validate_python(dict(arguments))
        except ValidationError as error:
            raise InvalidArgumentsError(_describe(error)) from None
        keywords = {name: value for name, value in validated.items() if name in arguments}
        if self.context_parameter is not None:
            keywords[self.context_parameter] = context
        return keywords


def read_signature(function: Callable[..., Any], descriptions: Mapping[str, str]) -> ToolSignature:
    """The ``ToolSignature`` of ``function``; ``descriptions`` come from its docstring's ``Args:``.

    Raises:
        TypeError: for ``*args``/``**kwargs``, positional-only or unannotated parameters, an
            annotation that cannot be resolved or has no JSON Schema, or two ``ToolContext``s.
    """
    name = getattr(function, "__qualname__", repr(function))
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception as error:  # NameError for an undefined name, anything from a bad string annotation
        raise TypeError(f"@tool {name}: cannot resolve its annotations ({type(error).__name__}: {error})") from None
    fields: dict[str, Any] = {}
    context_parameter: str | None = None
    for parameter in inspect.signature(function).parameters.values():
        where = f"@tool {name}: parameter {parameter.name!r}"
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError(f"{where}: *args and **kwargs cannot be described to a model; name each parameter")
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise TypeError(f"{where} is positional-only; tools receive their arguments by keyword")
        if parameter.name not in hints:
            raise TypeError(f"{where} has no type annotation; the tool's schema is built from annotations")
        hint = hints[parameter.name]
        if hint is ToolContext:
            if context_parameter is not None:
                raise TypeError(f"{where}: only one parameter may be a ToolContext ({context_parameter!r} is)")
            context_parameter = parameter.name
            continue
        fields[parameter.name] = _field(hint, parameter.default, descriptions.get(parameter.name, ""))
    # Through Any: mypy only analyses a TypedDict spelled out with a literal name, not one built from a signature.
    make_typed_dict: Any = TypedDict
    arguments: Any = make_typed_dict(f"{function.__name__}_arguments", fields)
    arguments.__pydantic_config__ = ConfigDict(extra="forbid")
    try:
        adapter: TypeAdapter[dict[str, Any]] = TypeAdapter(arguments)
        schema = adapter.json_schema(schema_generator=_ToolJsonSchema)
    except Exception as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise TypeError(f"@tool {name}: {_culprit(fields)}{type(error).__name__}: {first_line}") from None
    schema.pop("title", None)
    schema.setdefault("properties", {})
    return ToolSignature(inline_refs(schema), context_parameter, adapter)


def _field(hint: Any, default: Any, description: str) -> Any:
    """The ``TypedDict`` value type of one parameter: default and docstring description attached."""
    extra: dict[str, Any] = {}
    # An explicit Field(description=…) in the annotation wins over the docstring.
    if description and not _has_description(hint):
        extra["description"] = description
    if default is not inspect.Parameter.empty:
        extra["default"] = default
    annotated = Annotated[hint, Field(**extra)] if extra else hint
    return NotRequired[annotated] if default is not inspect.Parameter.empty else annotated


def _has_description(hint: Any) -> bool:
    if typing.get_origin(hint) is not Annotated:
        return False
    return any(isinstance(m, FieldInfo) and m.description for m in typing.get_args(hint)[1:])


def _culprit(fields: Mapping[str, Any]) -> str:
    """``"parameter 'x': "`` for the first parameter pydantic cannot describe alone, else ``""``."""
    for name, value in fields.items():
        try:
            TypeAdapter(value).json_schema(schema_generator=_ToolJsonSchema)
        except Exception:
            return f"parameter {name!r}: "
    return ""


def _describe(error: ValidationError) -> str:
    problems = error.errors(include_url=False, include_input=False)
    lines = [f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}" for e in problems]
    return say.invalid_arguments(lines[:_MAX_SHOWN_ERRORS], max(0, len(lines) - _MAX_SHOWN_ERRORS))


_NOT_SCHEMAS = frozenset({"default", "enum", "const", "examples"})  # values, never walked for $ref


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with each ``#/$defs/…`` reference replaced by its definition.

    Models see the whole shape in place, and simple consumers (the offline ``test`` provider)
    need not follow references. A recursive definition cannot be inlined: references to it stay,
    and it is kept under ``$defs`` at the root. Keys beside a ``$ref`` (a description, a default)
    override the definition's.
    """
    definitions: dict[str, Any] = schema.get("$defs", {})
    recursive: set[str] = set()

    def resolve(node: Any, expanding: frozenset[str]) -> Any:
        if isinstance(node, list):
            return [resolve(item, expanding) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        rest = {k: v if k in _NOT_SCHEMAS else resolve(v, expanding) for k, v in node.items() if k != "$ref"}
        if not (isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in definitions):
            return rest if ref is None else {"$ref": ref, **rest}
        target = ref[8:]
        if target in expanding:
            recursive.add(target)
            return {"$ref": ref, **rest}
        return {**resolve(definitions[target], expanding | {target}), **rest}

    body = resolve({k: v for k, v in schema.items() if k != "$defs"}, frozenset())
    kept: dict[str, Any] = {}
    while recursive - kept.keys():
        target = min(recursive - kept.keys())
        kept[target] = resolve(copy.deepcopy(definitions[target]), frozenset({target}))
    if kept:
        body["$defs"] = kept
    return body
