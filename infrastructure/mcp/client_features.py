"""What Quorum offers an MCP server as a client: roots, sampling, elicitation, logging and progress.

``ClientFeatures`` builds the ``mcp`` SDK's client callbacks for one server from its settings and
the run it serves; the SDK declares the capabilities (``roots`` with ``listChanged``, ``sampling``,
``elicitation``) because the callbacks are given, and speaks the protocol. What each does:

- roots: the workspace, as one ``file://`` root.
- sampling: ``[mcp.servers.X] sampling`` — ``deny``, ``ask`` the person (denied when nobody can
  be asked), or ``allow``. Served by ``sampling_model`` or the run's model through the gateway,
  the request's ``maxTokens`` lowered to ``sampling_max_tokens``; an ``mcp_sampling`` event says
  what happened and what it spent.
- elicitation (form mode): answered by the Python API's callback, else on the terminal (see
  ``elicitation_form``), else declined; URL mode is always declined. Fields an accepted answer
  leaves out take the schema's defaults (SEP-1034). An ``mcp_elicitation`` event
  records the action and the field names, never the values.
- logging: ``logging/setLevel`` to ``log_level`` when set; each message becomes an ``mcp_log``.
- progress: each call carries a progress token; notifications are reported as the call's
  ``progress`` events, at most a few per second.

Server requests arrive on the SDK's reader task, not on the task of the call that caused them, so
the run they belong to (its event sink and model) is bound when the server starts and rebound at
each call: a server shared by runs reports to the one that used it last.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from quorum.application.ports.llm import LlmGateway, TurnInput
from quorum.application.run_context import CallActivity, current_call, current_run_events, current_run_model
from quorum.domain.elicitation import ElicitationAnswer, ElicitationRequest
from quorum.domain.events import McpElicitation, McpLog, McpSampling, RunEvent
from quorum.domain.messages import Message
from quorum.domain.responses import TextBlock, Usage
from quorum.infrastructure.mcp.elicitation_form import ask_form
from quorum.infrastructure.mcp.settings import McpServerSettings
from quorum.infrastructure.plugins.contracts import ElicitationCallback, LinePrompt
from quorum.infrastructure.terminal_text import printable

PROGRESS_INTERVAL = 0.25
"""Seconds between two progress reports of one call (the last one always goes through)."""
USER_REJECTED = -1
"""The error code MCP uses for a sampling request the user rejected."""
_SHOWN_CHARS = 2000
_HELD = 50


@dataclass(frozen=True)
class ClientSide:
    """What the client features of every server share: the gateway, the person, the API callback."""

    gateway: LlmGateway | None = None
    prompt: LinePrompt | None = None
    on_elicitation: ElicitationCallback | None = None

    def for_server(self, server: str, settings: McpServerSettings, workspace: Path) -> ClientFeatures:
        """The features of one server."""
        return ClientFeatures(
            server,
            settings,
            workspace=workspace,
            gateway=self.gateway,
            prompt=self.prompt,
            on_elicitation=self.on_elicitation,
        )


class ClientFeatures:
    """The client side of one server's connection (see the module docstring).

    Args:
        server: the server's name (``[mcp.servers.NAME]``).
        settings: its settings (``sampling``, ``sampling_model``, ``sampling_max_tokens``, ``log_level``).
        workspace: offered as the only root.
        gateway: serves sampling; None refuses every sampling request.
        prompt: asks the person (sampling under ``ask``, elicitation); None: nobody can be asked.
        on_elicitation: answers elicitation instead of the person (the Python API).
    """

    def __init__(
        self,
        server: str,
        settings: McpServerSettings,
        *,
        workspace: Path,
        gateway: LlmGateway | None = None,
        prompt: LinePrompt | None = None,
        on_elicitation: ElicitationCallback | None = None,
    ) -> None:
        self.server = server
        self.settings = settings
        self.workspace = workspace.resolve()
        self._gateway = gateway
        self._prompt = prompt
        self._on_elicitation = on_elicitation
        self._emit: Callable[[RunEvent], None] | None = None
        self._run_model = ""
        self._held: list[RunEvent] = []

    # -- wiring ----------------------------------------------------------------------------

    def client_options(self) -> dict[str, Any]:
        """Keyword arguments for ``mcp.Client``: the callbacks (so the capabilities) and the log level.

        Called where the connection is opened, in the run that starts the server: binds it.
        """
        self.bind_run()
        return {
            "sampling_callback": self._sample,
            "elicitation_callback": self._elicit,
            "list_roots_callback": self._list_roots,
            "logging_callback": self._log,
            "log_level": self.settings.log_level,  # the opt-in of 2026-07-28 connections
        }

    async def connected(self, client: Any) -> None:
        """After the handshake: ask for ``log_level`` on servers that log (a failure is not fatal)."""
        level = self.settings.log_level
        capabilities = client.server_capabilities
        if level is None or capabilities is None or capabilities.logging is None:
            return
        if str(client.protocol_version) >= "2026":
            return  # modern connections opt in per request (``log_level`` above)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecated in 2026-07-28, the only way before it
            try:
                await client.set_logging_level(level)
            except Exception as error:
                self._event(McpLog(server=self.server, level="warning", message=f"logging/setLevel failed: {error}"))

    def bind_run(self) -> None:
        """Report to the run of the calling task from now on (if it is in one)."""
        emit = current_run_events.get()
        if emit is not None:
            self._emit = emit
            self._run_model = current_run_model.get()
            held, self._held = self._held, []
            for event in held:
                emit(event)

    def progress_callback(self) -> Callable[[float, float | None, str | None], Any]:
        """For one ``call_tool``, in the calling task: binds its run and reports to its call."""
        self.bind_run()
        return _ProgressReporter(current_call.get())

    # -- callbacks -------------------------------------------------------------------------

    async def _list_roots(self, context: Any) -> Any:
        from mcp_types import ListRootsResult, Root

        root = Root.model_validate({"uri": self.workspace.as_uri(), "name": self.workspace.name or "workspace"})
        return ListRootsResult(roots=[root])

    async def _log(self, params: Any) -> None:
        data = params.data
        message = data if isinstance(data, str) else json.dumps(data, default=str)
        self._event(McpLog(server=self.server, level=str(params.level), logger=params.logger, message=message))

    async def _sample(self, context: Any, params: Any) -> Any:
        from mcp_types import CreateMessageResult, ErrorData, TextContent

        cap = min(int(params.max_tokens), self.settings.sampling_max_tokens)
        model = self.settings.sampling_model or self._run_model
        mode = self.settings.sampling

        def refuse(decided_by: Any, why: str) -> Any:
            self._event(
                McpSampling(server=self.server, approved=False, decided_by=decided_by, max_tokens=cap, error=why)
            )
            return ErrorData(code=USER_REJECTED, message=f"sampling refused: {why}")

        if mode == "deny":
            return refuse("config", f"[mcp.servers.{self.server}] sampling = 'deny'")
        if self._gateway is None or not model:
            return refuse("auto", "no model to sample with")
        decided_by: Literal["config", "human"] = "config"
        if mode == "ask":
            if self._prompt is None:
                return refuse("auto", "sampling = 'ask' and nobody can be asked (no terminal)")
            decided_by = "human"
            if not await self._approve(params, model, cap):
                return refuse("human", "the person declined")
        system, history, last = _conversation(params)
        try:
            session = self._gateway.session(model, system, history=history)
            response = await session.request(TurnInput.user(last))
        except Exception as error:  # provider down, unknown model: the server learns why
            why = f"{type(error).__name__}: {error}"
            self._event(
                McpSampling(
                    server=self.server, approved=True, decided_by=decided_by, model=model, max_tokens=cap, error=why
                )
            )
            return ErrorData(code=-32603, message=f"sampling failed: {why}")
        stop_reason = response.stop_reason
        text, stop = _capped(response.text_content(), response.usage, cap, stop_reason.raw or stop_reason.kind)
        self._event(
            McpSampling(
                server=self.server,
                approved=True,
                decided_by=decided_by,
                model=model,
                usage=response.usage,
                max_tokens=cap,
                stop_reason=stop,
            )
        )
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=text), model=model, stop_reason=stop
        )

    async def _approve(self, params: Any, model: str, cap: int) -> bool:
        assert self._prompt is not None
        lines = [
            "",
            f"── MCP server {self.server!r} asks to use a model ({model}, at most {cap} tokens) ──",
        ]
        if params.system_prompt:
            lines.append(f"system: {_shorten(params.system_prompt)}")
        for message in params.messages:
            lines.append(f"{message.role}: {_shorten(_text_of(message))}")
        shown = printable("\n".join(lines) + "\n")
        while True:
            answer = await self._prompt.ask_line(shown, "Allow this sampling request? [y]es / [n]o: ")
            if answer is None:
                return False
            choice = answer.strip().lower()
            if choice in ("y", "yes", "n", "no"):
                return choice.startswith("y")
            shown = "Please answer y or n.\n"

    async def _elicit(self, context: Any, params: Any) -> Any:
        from mcp_types import ElicitResult

        message = str(params.message)
        schema = getattr(params, "requested_schema", None)
        if getattr(params, "mode", "form") == "url" or schema is None:
            self._elicited(message, ElicitationAnswer(action="decline"), "auto")
            return ElicitResult(action="decline")
        schema = schema if isinstance(schema, dict) else schema.model_dump(by_alias=True, exclude_none=True)
        request = ElicitationRequest(server=self.server, message=message, requested_schema=schema)
        if self._on_elicitation is not None:
            answer, decided_by = await self._on_elicitation(request), "callback"
        elif self._prompt is not None:
            answer, decided_by = await ask_form(self._prompt, request), "human"
        else:
            answer, decided_by = ElicitationAnswer(action="decline"), "auto"
        if answer.action == "accept":
            answer = answer.model_copy(update={"content": with_defaults(schema, answer.content)})
        self._elicited(message, answer, decided_by)
        if answer.action == "accept":
            return ElicitResult(action="accept", content=dict(answer.content))
        return ElicitResult(action=answer.action)

    def _elicited(self, message: str, answer: ElicitationAnswer, decided_by: Any) -> None:
        fields = sorted(answer.content) if answer.action == "accept" else []
        self._event(
            McpElicitation(
                server=self.server, message=message, action=answer.action, decided_by=decided_by, fields=fields
            )
        )

    def _event(self, event: RunEvent) -> None:
        """Emit in the bound run; before any, hold the last few (a server logs as it starts)."""
        if self._emit is not None:
            self._emit(event)
        else:
            self._held = [*self._held[-(_HELD - 1) :], event]


def with_defaults(schema: Mapping[str, Any], content: Mapping[str, Any]) -> dict[str, Any]:
    """``content`` with each field it leaves out that has a ``default`` in ``schema`` set to it.

    MCP form mode (SEP-1034): a schema's defaults are the answer for fields the person or the
    callback did not give, so an accepted answer always carries them.
    """
    filled = dict(content)
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for name, field in properties.items():
            if name not in filled and isinstance(field, Mapping) and "default" in field:
                filled[name] = field["default"]
    return filled


class _ProgressReporter:
    """A call's ``ProgressFnT``: reports to the call's activity, throttled."""

    def __init__(self, activity: CallActivity | None, clock: Callable[[], float] = time.monotonic) -> None:
        self._activity = activity
        self._clock = clock
        self._last: float | None = None

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        if self._activity is None:
            return
        now = self._clock()
        finished = total is not None and progress >= total
        if self._last is not None and now - self._last < PROGRESS_INTERVAL and not finished:
            return
        self._last = now
        self._activity.progress(message or "", progress, total)


def _text_of(message: Any) -> str:
    """A sampling message's text; other content (images, audio, tool results) is named, not sent."""
    content = message.content if isinstance(message.content, list) else [message.content]
    parts = []
    for block in content:
        kind = getattr(block, "type", "")
        parts.append(block.text if kind == "text" else f"[{kind or 'content'} omitted]")
    return "\n".join(parts)


def _conversation(params: Any) -> tuple[str | None, list[Message], str]:
    """The system prompt, the earlier messages as history, and the last message's text to send."""
    messages = list(params.messages)
    history = [Message(role=m.role, content=(TextBlock(text=_text_of(m)),)) for m in messages[:-1]]
    last = _text_of(messages[-1]) if messages else ""
    if messages and messages[-1].role == "assistant":  # a prefill: keep it as text, ask to continue
        history.append(Message(role="assistant", content=(TextBlock(text=last),)))
        last = "Continue."
    return params.system_prompt, history, last


def _capped(text: str, usage: Usage, cap: int, stop: str) -> tuple[str, str]:
    """The answer within ``cap`` output tokens, and its MCP stop reason.

    The gateway's sessions take no per-request output cap (the provider's ``max_tokens`` bounds
    what is generated), so a longer answer is cut here, in proportion to its reported tokens.
    """
    reason = {"end_turn": "endTurn", "max_tokens": "maxTokens", "tool_use": "endTurn"}.get(stop, stop)
    if usage.output_tokens > cap and text:
        return text[: max(1, len(text) * cap // usage.output_tokens)], "maxTokens"
    return text, reason


def _shorten(text: str) -> str:
    return text if len(text) <= _SHOWN_CHARS else f"{text[:_SHOWN_CHARS]}… ({len(text) - _SHOWN_CHARS} more characters)"
