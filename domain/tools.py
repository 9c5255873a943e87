"""Tools as the model sees them, the calls it makes and the results it gets back."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from quorum.domain.errors import UsageError


class RiskLevel(StrEnum):
    """How dangerous a call is: low-risk calls run in parallel unreviewed, high-risk ones are reviewed."""

    LOW = "low"
    HIGH = "high"


class Clearance(StrEnum):
    """How a call reached execution, which decides how confined it runs.

    ``UNREVIEWED``: on the low-risk path, nobody looked at it (a ``run_command`` call runs in the
    sandbox). ``APPROVED``: a review approved it (it runs as configured for approved calls).
    """

    UNREVIEWED = "unreviewed"
    APPROVED = "approved"


class RiskAssessment(BaseModel):
    """The risk of one particular call, and why (shown to reviewers).

    ``confined``: the call's whole effect stays inside the workspace, on files a checkpoint covers
    (a built-in file tool's write or edit there; a command the write sandbox confines). Only the
    built-in tools may say so (the tool executor clears it for every other source); with
    ``[review] reversible = "auto"`` such a high-risk call is approved without asking.
    """

    model_config = ConfigDict(frozen=True)

    level: RiskLevel
    reason: str = ""
    confined: bool = False


ParamType = Literal["string", "path", "number", "integer", "boolean", "array", "object"]


class ToolParameter(BaseModel):
    """One named parameter of a tool. ``path`` is a string the tool resolves inside the workspace.

    Unknown fields are refused: ``type="integer"`` (for ``param_type``) would otherwise be dropped
    silently and the parameter offered as a string.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str = ""
    param_type: ParamType = "string"
    required: bool = True
    enum: tuple[Any, ...] | None = None
    default: Any = None


class ToolDefinition(BaseModel):
    """A tool offered to the model.

    Either ``parameters`` describe the input, or ``input_schema`` carries a JSON Schema the tool
    brings itself (MCP tools do); never both. ``risk`` is the default risk of a call to it; a tool
    source may still decide per call (``run_command`` does). ``per_call_risk`` says some calls of a
    high-risk tool are low risk (decided by the source for each call), so the read-only ``ask``
    mode offers the tool and runs only those calls. ``brief`` is the description the lean tool
    profile offers (empty: the description's first sentence; ``quorum.domain.tool_profile``).
    """

    model_config = ConfigDict(frozen=True)

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    description: str = ""
    brief: str = ""
    risk: RiskLevel = RiskLevel.HIGH
    per_call_risk: bool = False
    parameters: tuple[ToolParameter, ...] = ()
    input_schema: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _one_shape(self) -> ToolDefinition:
        if self.parameters and self.input_schema is not None:
            raise ValueError("a tool has either parameters or an input_schema, not both")
        return self


class ToolSpec:
    """An ordered, name-unique collection of tool definitions, and why some known tools are not in it.

    ``withheld`` maps the name of a tool a source knows but does not offer (an MCP tool changed
    since its pin, a tool disabled in the configuration) to why, in words for the model and the
    person: what stands in the way and what the user can do. A call to such a name is answered
    with that, not with "unknown tool".

    Raises:
        UsageError: when two definitions share a name.
    """

    __slots__ = ("_tools", "_withheld")

    def __init__(self, tools: Iterable[ToolDefinition] = (), *, withheld: Mapping[str, str] | None = None) -> None:
        self._withheld: dict[str, str] = dict(withheld or {})
        self._tools: dict[str, ToolDefinition] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise UsageError(f"duplicate tool name {tool.name!r}")
            self._tools[tool.name] = tool

    def all(self) -> list[ToolDefinition]:
        """Every tool, in registration order."""
        return list(self._tools.values())

    def low_risk_tools(self) -> list[ToolDefinition]:
        """Tools whose default risk is low, or with low-risk calls (what the read-only ``ask`` mode offers)."""
        return [t for t in self._tools.values() if t.risk is RiskLevel.LOW or t.per_call_risk]

    def high_risk_tools(self) -> list[ToolDefinition]:
        """Tools whose default risk is high."""
        return [t for t in self._tools.values() if t.risk is RiskLevel.HIGH]

    def get(self, name: str) -> ToolDefinition | None:
        """The tool called ``name``, or None."""
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Tool names in registration order."""
        return list(self._tools)

    @property
    def withheld(self) -> dict[str, str]:
        """Name → why, for the tools known but not offered (see the class docstring); a copy."""
        return dict(self._withheld)

    def why_withheld(self, name: str) -> str | None:
        """Why ``name`` is not offered, when it is a tool known but withheld; else None."""
        return None if name in self._tools else self._withheld.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[ToolDefinition]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __repr__(self) -> str:
        return f"ToolSpec({self.names()!r})"


class ToolCall(BaseModel):
    """A call the model asked for: the one shape of a call in responses, histories, ports and payloads.

    ``native_id`` is the id the provider gave the call; results are sent back under it.
    ``arguments_error`` is set (and ``arguments`` empty) when the provider's argument text was not
    a JSON object; ``raw_arguments`` then keeps that text. ``type`` tells it from text in a
    response's or a message's content. The names of the earlier content block (``id``,
    ``input``, ``input_error``, ``raw_input``) are still read, as workflow histories of runs in
    flight hold them.
    """

    model_config = ConfigDict(frozen=True)

    type: Literal["tool_use"] = "tool_use"
    native_id: str
    name: str
    arguments: Mapping[str, Any] = Field(default_factory=dict)
    arguments_error: str | None = None
    raw_arguments: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _earlier_names(cls, data: Any) -> Any:
        return _renamed(
            data,
            {"id": "native_id", "input": "arguments", "input_error": "arguments_error", "raw_input": "raw_arguments"},
        )


IMAGE_MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
"""The image types model APIs accept as image input (Anthropic and OpenAI agree on these four)."""


class ImagePart(BaseModel):
    """An image a tool returned, passed to the model as image input (never as text).

    ``data`` is the image's base64 text (what every provider's wire format wants); ``size`` is
    the decoded byte count. Only ``IMAGE_MEDIA_TYPES`` are ever attached to a result.
    """

    model_config = ConfigDict(frozen=True)

    type: Literal["image"] = "image"
    media_type: str
    data: str = Field(repr=False)
    size: int = Field(ge=0)

    def describe(self) -> str:
        """The text that stands for the image in outputs and events: ``[image: image/png, 4 KB]``."""
        return f"[image: {self.media_type}, {human_size(self.size)}]"


def human_size(size: int) -> str:
    """A byte count for people and models: ``70 bytes``, ``4 KB``, ``1.2 MB``."""
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{size / (1024 * 1024):.1f} MB"


class ToolResult(BaseModel):
    """The result of one call: the one shape of a result from a tool to the model, the history and payloads.

    ``call_id`` and ``name`` are the call's (``ToolCall.native_id``, ``ToolCall.name``); a tool
    producing its result may leave them empty, the loop binds the result to its call.
    ``is_error`` marks failures (the model sees them as errors); ``is_rejected`` additionally marks
    calls a review refused (always with ``is_error``), so the model can choose a safer path.
    ``duration`` is in seconds. ``redacted`` says known secret values were replaced in ``output``
    before anyone saw it. ``images`` are sent to the model as image input next to ``output``
    (which names each of them); the ``tool_result`` event only counts them. The names of the
    earlier shapes (``tool_use_id``, ``tool_name``, ``content``) are still read, as workflow
    histories of runs in flight hold them.
    """

    model_config = ConfigDict(frozen=True)

    type: Literal["tool_result"] = "tool_result"
    call_id: str = ""
    name: str = ""
    output: str
    is_error: bool = False
    is_rejected: bool = False
    duration: float = 0.0
    redacted: bool = False
    images: tuple[ImagePart, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _earlier_names(cls, data: Any) -> Any:
        return _renamed(data, {"tool_use_id": "call_id", "tool_name": "name", "content": "output"})

    def for_model(self) -> ToolResult:
        """The result as a conversation keeps it: what the model sees, without the run's bookkeeping.

        ``is_rejected`` folds into ``is_error``; ``duration`` and ``redacted`` are dropped, so a
        history rebuilt from the run's events equals the one the session kept.
        """
        return ToolResult(
            call_id=self.call_id,
            name=self.name,
            output=self.output,
            is_error=self.is_error or self.is_rejected,
            images=self.images,
        )


def _renamed(data: Any, earlier: dict[str, str]) -> Any:
    """``data`` with the keys of an earlier shape under today's names (other input unchanged)."""
    if isinstance(data, dict) and not earlier.keys().isdisjoint(data):
        return {earlier.get(key, key): value for key, value in data.items()}
    return data
