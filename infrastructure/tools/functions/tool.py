"""``@tool``: a typed Python function offered to the model, and ``Tool``, what it makes.

::

    @tool(risk="low", timeout=5)
    async def weather(city: str, unit: Literal["c", "f"] = "c") -> str:
        '''Current weather for a city.'''

The schema comes from the signature (``signature_schema``), the descriptions from the docstring
(``docstring_args``). A plugin registers the result with ``registry.add_tool(weather)``; the
function stays callable as before. ``Tool`` is also the one shape of the older
``add_tool(definition, function)`` form, whose function takes the arguments dict
(``Tool.from_definition``), so the function tool source deals with one kind of thing.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, ParamSpec, TypeVar, overload

import pydantic_core
from pydantic import ValidationError

from quorum.application import model_wording as say
from quorum.domain.errors import InvalidArgumentsError
from quorum.domain.tools import RiskLevel, ToolDefinition, ToolResult
from quorum.infrastructure.tools.blocking import run_blocking
from quorum.infrastructure.tools.functions.docstring_args import parse_docstring
from quorum.infrastructure.tools.functions.signature_schema import ToolSignature, read_signature
from quorum.infrastructure.tools.functions.tool_context import ToolContext

__all__ = ["Tool", "ToolContext", "call_arguments_function", "encode_result", "tool"]

P = ParamSpec("P")
R = TypeVar("R")

ArgumentsFunction = Callable[[dict[str, Any]], "Awaitable[str | ToolResult] | str | ToolResult"]
"""The older form of a function tool: it receives the arguments dict and returns text."""


@dataclass(frozen=True, eq=False)
class Tool(Generic[P, R]):
    """A function offered to the model as a tool. Calling the object calls the function.

    Attributes:
        definition: the tool as the model sees it (name, description, risk, ``input_schema``).
        function: the decorated function, unchanged.
        timeout: seconds one call may take, or None (the run's tool timeout still applies).
        signature: how arguments become the function's keyword arguments; None for a function
            registered with ``add_tool(definition, function)``, which takes the arguments dict.
    """

    definition: ToolDefinition
    function: Callable[P, R]
    timeout: float | None = None
    signature: ToolSignature | None = None

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self.function(*args, **kwargs)

    @property
    def name(self) -> str:
        """The tool's name, as the model calls it."""
        return self.definition.name

    @classmethod
    def from_definition(cls, definition: ToolDefinition, function: ArgumentsFunction) -> Tool[..., Any]:
        """A tool whose function takes the arguments dict: the ``add_tool(definition, function)`` form.

        It is called as it always was: on the event loop, its result turned into text by ``str``.
        """
        return cls(definition, function)  # type: ignore[arg-type]

    async def invoke(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolResult:
        """Run one call: validate the arguments, call the function, encode what it returns.

        Invalid arguments and a ``timeout`` that ran out come back as error outcomes naming the
        problem. A sync function runs in a daemon thread: a call that times out or is cancelled
        returns at once, but Python cannot stop the thread, which runs on unobserved (it never
        keeps the process from exiting).

        Raises:
            Whatever the function raises; the tool executor turns it into an error result
            (``tool 'name' failed: TypeName: message``), as for every tool.
        """
        if self.signature is None:
            return await call_arguments_function(self.function, dict(arguments))  # type: ignore[arg-type]
        try:
            keywords = self.signature.bind(arguments, context)
        except InvalidArgumentsError as error:  # worded like the loop's own JSON Schema check
            return ToolResult(output=str(error), is_error=True)
        deadline = asyncio.timeout(self.timeout)
        try:
            async with deadline:
                result = await self._call(keywords)
        except TimeoutError:
            if not deadline.expired():
                raise  # the function's own TimeoutError: an error like any other
            assert self.timeout is not None  # only a deadline with a timeout expires
            abandoned = "" if inspect.iscoroutinefunction(self.function) else say.THREAD_ABANDONED
            return ToolResult(output=say.tool_timed_out(self.name, self.timeout, abandoned), is_error=True)
        return encode_result(result)

    async def _call(self, keywords: dict[str, Any]) -> Any:
        function: Callable[..., Any] = self.function
        if inspect.iscoroutinefunction(function):
            return await function(**keywords)
        # A copy of the caller's context variables, as asyncio.to_thread gives; but a daemon thread
        # of our own, which a stuck function cannot use to hold the process at exit.
        context = contextvars.copy_context()
        result = await run_blocking(lambda _stop: context.run(function, **keywords))
        return await result if inspect.isawaitable(result) else result


def encode_result(value: Any) -> ToolResult:
    """What a ``@tool`` function returned, as the model reads it.

    ``str`` as is; a ``ToolResult`` as given; anything else as JSON (pydantic models as
    ``model_dump(mode="json")`` would give, datetimes in ISO 8601, ``None`` as ``null``).

    Raises:
        TypeError: when the value has no JSON form.
    """
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult(output=value)
    try:
        return ToolResult(output=pydantic_core.to_json(value).decode())
    except pydantic_core.PydanticSerializationError as error:
        raise TypeError(f"the tool returned a {type(value).__name__}, which has no JSON form ({error})") from None


async def call_arguments_function(function: ArgumentsFunction, arguments: dict[str, Any]) -> ToolResult:
    """Call an ``add_tool(definition, function)`` function, sync or async, and normalise its result."""
    result = function(arguments)
    if inspect.isawaitable(result):
        result = await result
    if isinstance(result, ToolResult):
        return result
    return ToolResult(output=result if isinstance(result, str) else str(result))


Risk = RiskLevel | Literal["low", "high"]


@overload
def tool(function: Callable[P, R], /) -> Tool[P, R]: ...


@overload
def tool(
    *, risk: Risk = ..., name: str | None = ..., description: str | None = ..., timeout: float | None = ...
) -> Callable[[Callable[P, R]], Tool[P, R]]: ...


def tool(
    function: Callable[P, R] | None = None,
    /,
    *,
    risk: Risk = RiskLevel.HIGH,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
) -> Tool[P, R] | Callable[[Callable[P, R]], Tool[P, R]]:
    """Make a function a tool: bare (``@tool``) or with options (``@tool(risk="low")``).

    Args:
        function: the function, when used bare.
        risk: the risk of a call; ``"high"`` (reviewed before it runs) unless said otherwise.
        name: the name the model calls it by; the function's name by default.
        description: what the model is told the tool does; the docstring's first paragraph by default.
        timeout: seconds one call may take (see ``Tool.invoke`` for sync functions).

    Returns:
        A ``Tool``, or a decorator making one.

    Raises:
        TypeError: when the signature cannot be offered to a model (``*args``, ``**kwargs``,
            positional-only or unannotated parameters, types without a JSON Schema).
        ValueError: for an invalid name, risk or timeout.
    """
    level = _risk_level(risk)
    if timeout is not None and not (isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0):
        raise ValueError(f"@tool: timeout must be a positive number of seconds, got {timeout!r}")

    def decorate(function: Callable[P, R]) -> Tool[P, R]:
        if not (inspect.isfunction(function) or inspect.ismethod(function)):
            raise TypeError(f"@tool decorates functions, got {function!r}")
        docs = parse_docstring(inspect.getdoc(function))
        signature = read_signature(function, docs.arguments)
        tool_name = name if name is not None else getattr(function, "__name__", "")
        try:
            definition = ToolDefinition(
                name=tool_name,
                description=docs.summary if description is None else description,
                risk=level,
                input_schema=signature.input_schema,
            )
        except ValidationError:
            raise ValueError(
                f"@tool: {tool_name!r} is not a valid tool name (1-64 letters, digits, '_' or '-'); pass name=…"
            ) from None
        return Tool(definition, function, float(timeout) if timeout is not None else None, signature)

    return decorate if function is None else decorate(function)


def _risk_level(risk: Risk) -> RiskLevel:
    try:
        return RiskLevel(risk)
    except ValueError:
        raise ValueError(f"@tool: risk must be 'low' or 'high', got {risk!r}") from None
