"""The ``scripted:PATH`` provider: replays a script of turns from a TOML or JSON file.

Script format (TOML shown; JSON has the same shape)::

    [[turns]]
    reasoning = "First the layout."                      # optional: a reasoning event, not the answer
    text = "Let me look around."                         # optional
    tool_calls = [{ name = "list_dir", arguments = {} }] # optional
    usage = { input_tokens = 10, output_tokens = 5 }     # optional
    stop_reason = "max_tokens"                           # optional: end_turn (default), max_tokens

    [scripts.reviewer]                                   # more scripts in the same file,
    [[scripts.reviewer.turns]]                           # used as scripted:PATH#reviewer
    tool_calls = [{ name = "submit_verdict", arguments = { verdict = "approve", reason = "safe" } }]

Top-level options (also per ``[scripts.NAME]``)::

    conversation = "continue"   # default "restart": each session replays the script from the start;
                                # "continue": a session continuing a conversation (quorum chat,
                                # --continue) starts after the responses its history already holds
    repeat_last = true          # when the script runs out, answer with its last turn again
                                # (default false: running out is an error naming the file)

A turn with ``tool_calls`` stops with ``tool_use``. ``scripted:demo`` is the demo script shipped
with Quorum (``demo.toml`` beside this module; ``examples/demo.toml`` in the repository).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from quorum.application.ports.llm import ToolSchemas
from quorum.domain.errors import ConfigurationError, ProviderError, UsageError
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse, ReasoningBlock, StopReason, TextBlock, Usage
from quorum.domain.tools import ToolCall
from quorum.infrastructure.plugins.contracts import ProviderContext
from quorum.infrastructure.providers.offline.session import OfflineSession


class ScriptedCall(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class ScriptedTurn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    reasoning: str = ""
    text: str = ""
    tool_calls: list[ScriptedCall] = Field(default_factory=list)
    usage: Usage = Usage()
    stop_reason: Literal["end_turn", "max_tokens"] = "end_turn"


class Script(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    turns: list[ScriptedTurn] = Field(default_factory=list)
    scripts: dict[str, Script] = Field(default_factory=dict)
    conversation: Literal["restart", "continue"] = "restart"
    repeat_last: bool = False


PACKAGED_SCRIPTS = ("demo",)
"""Script names that resolve to files shipped in this package (``scripted:demo``)."""


def script_path(path_text: str) -> Path:
    """The file ``path_text`` names: a packaged script's name, else a path."""
    if path_text in PACKAGED_SCRIPTS:
        return Path(__file__).with_name(f"{path_text}.toml")
    return Path(path_text)


def load_script(reference: str) -> tuple[str, Script]:
    """Load ``PATH`` or ``PATH#NAME`` (``demo``: the packaged demo script); returns (label, script).

    Raises:
        UsageError: no path given, file missing, not TOML/JSON, invalid shape, unknown script name.
    """
    path_text, _, name = reference.partition("#")
    if not path_text:
        raise UsageError(
            "the scripted provider needs a script file: --model scripted:PATH (TOML or JSON), or --model scripted:demo"
        )
    path = script_path(path_text)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"scripted model: cannot read script {path_text!r}: {error.strerror}") from None
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as error:
        raise UsageError(
            f"scripted model: {path_text} is not valid {path.suffix.lstrip('.') or 'TOML'}: {error}"
        ) from None
    except RecursionError:
        raise UsageError(f"scripted model: {path_text} is nested too deeply to read") from None
    try:
        script = Script.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigurationError(f"{where}: {first['msg']}", source=path_text) from None
    if name:
        if name not in script.scripts:
            known = ", ".join(sorted(script.scripts)) or "(none)"
            raise UsageError(f"scripted model: {path_text} has no script {name!r} (scripts: {known})")
        return reference, script.scripts[name]
    return reference, script


class ScriptedSession(OfflineSession):
    """Answers with the script's turns in order (from where the conversation is, for ``continue``)."""

    def __init__(self, label: str, script: Script, system_prompt: str | None, history: Sequence[Message]) -> None:
        super().__init__(label, system_prompt, history)
        self._label = label
        self._turns = list(script.turns)
        self._repeat_last = script.repeat_last
        self._served = 0
        if script.conversation == "continue":
            self._served = sum(message.role == "assistant" for message in history)

    def respond(self, tools: ToolSchemas | None) -> LlmResponse:
        if self._repeat_last and self._turns and self._served >= len(self._turns):
            self._served = len(self._turns) - 1
        if self._served >= len(self._turns):
            raise ProviderError(
                f"scripted model {self._label!r} ran out of script after {self._served} responses",
                provider="scripted",
                model=self._label,
            )
        turn = self._turns[self._served]
        self._served += 1
        blocks: list[Any] = [ReasoningBlock(api="scripted", wire={"text": turn.reasoning}, text=turn.reasoning)]
        blocks = blocks if turn.reasoning else []
        if turn.text:
            blocks.append(TextBlock(text=turn.text))
        for i, call in enumerate(turn.tool_calls, 1):
            blocks.append(
                ToolCall(native_id=call.id or f"call_{self._served}_{i}", name=call.name, arguments=call.arguments)
            )
        if turn.stop_reason == "max_tokens":
            stop = StopReason.max_tokens()
        elif turn.tool_calls:
            stop = StopReason.tool_use()
        else:
            stop = StopReason.end_turn()
        return LlmResponse(content=tuple(blocks), stop_reason=stop, model=self._label, usage=turn.usage)


class ScriptedGateway:
    """Provider kind ``scripted``: the model name is the script path (``PATH`` or ``PATH#NAME``)."""

    def __init__(self, context: ProviderContext) -> None:
        self.context = context

    def session(
        self, model: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()
    ) -> ScriptedSession:
        label, script = load_script(model)
        return ScriptedSession(label, script, system_prompt, history)
