"""``QuorumAgent``: the ACP agent, mapping protocol calls to sessions on the composition.

The SDK frames and validates every message and routes each method to the method of the same
name here; a method this class does not define is answered "method not found", a request whose
parameters fail validation "invalid params". Every failure Quorum expects becomes a JSON-RPC
error (``RequestError``) naming what went wrong; the agent goes on serving.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SetSessionModeResponse,
)

from quorum.acp.modes import MODE_IDS, commands_update, initial_mode, mode_named, mode_state
from quorum.acp.permission import EditorPrompt, SessionScopes
from quorum.acp.session import AcpSession
from quorum.domain.errors import ConfigurationError, QuorumError

log = logging.getLogger("quorum.acp")


@dataclass(frozen=True)
class AgentOptions:
    """The command line of ``quorum acp``: ``--config`` and ``--model``."""

    config_path: Path | None = None
    model: str | None = None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("quorum-agent")
    except PackageNotFoundError:
        return "0+unknown"


def _commands_update(session: AcpSession) -> Any:
    """The slash commands and the session's prompt commands, as announced after ``session/new`` or ``load``."""
    return commands_update([(c.name, c.description) for c in session.prompt_commands().commands.values()])


def _invalid(error: QuorumError) -> RequestError:
    label = "configuration error" if isinstance(error, ConfigurationError) else "error"
    return RequestError.invalid_params({"details": f"{label}: {error}"})


class QuorumAgent:
    """The agent side of one ACP connection: its sessions, each on its own composition."""

    def __init__(self, options: AgentOptions) -> None:
        self._options = options
        self._sessions: dict[str, AcpSession] = {}
        self._trust_open: dict[str, tuple[str, list[Any], tuple[Any, ...]]] = {}
        """Sessions whose workspace's untrusted keys the editor is to be asked about (at their first prompt)."""
        self._conn: Any = None
        self._later: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Any) -> None:
        self._conn = conn

    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, audio=False, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=False),
            ),
            agent_info=Implementation(name="quorum", title="Quorum", version=_version()),
        )

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **_: Any) -> NewSessionResponse:
        session = await self._open(uuid.uuid4().hex[:16], cwd, mcp_servers or [])
        self._after_response(session.session_id, _commands_update(session))
        return NewSessionResponse(session_id=session.session_id, modes=mode_state(session.mode))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **_: Any
    ) -> LoadSessionResponse:
        from quorum.acp.recorded import session_runs
        from quorum.acp.updates import EventTranslator
        from quorum.application.history import recorded_conversation

        session = await self._open(session_id, cwd, mcp_servers or [], replace=True)
        store = session.runtime.store
        if store is None:
            await self._close(session_id)
            raise RequestError.invalid_params({"details": "sessions cannot be loaded: the run log is disabled"})
        chain = session_runs(store, session_id)
        if chain is None:
            await self._close(session_id)
            raise RequestError.invalid_params({"details": f"there is no session {session_id!r} in the run log"})
        translator = EventTranslator(session.workspace, session.runtime.container.redactor(), replay=True)
        for run_id in chain:
            for recorded in store.load_events(run_id):
                for update in translator.updates(recorded.event):
                    await self._send(session_id, update)
        session.continue_from(chain[-1], recorded_conversation(store, chain[-1]) or [])
        self._after_response(session_id, _commands_update(session))
        return LoadSessionResponse(modes=mode_state(session.mode))

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> SetSessionModeResponse:
        session = self._session(session_id)
        mode = mode_named(mode_id)
        if mode is None:
            raise RequestError.invalid_params({"details": f"unknown mode {mode_id!r} (modes: {', '.join(MODE_IDS)})"})
        session.mode = mode
        return SetSessionModeResponse()

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        from quorum.acp.client_inputs import prompt_task

        session = await self._settle_trust(session_id)
        try:
            task, images = prompt_task(prompt, session.workspace)
        except QuorumError as error:
            raise _invalid(error) from None
        return PromptResponse(stop_reason=await session.prompt(task, images))

    async def cancel(self, session_id: str, **_: Any) -> None:
        session = self._sessions.get(session_id)
        if session is None:
            log.warning("session/cancel for an unknown session %r", session_id)
            return
        session.cancel()

    # -- sessions ----------------------------------------------------------------------------------
    def _session(self, session_id: str) -> AcpSession:
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"details": f"unknown session {session_id!r}"})
        return session

    async def _send(self, session_id: str, update: Any) -> None:
        await self._conn.session_update(session_id=session_id, update=update)

    def _after_response(self, session_id: str, update: Any) -> None:
        """Send ``update`` once the response under way is out (the client knows the session's id by then).

        The SDK queues a handler's response as soon as the handler returns, before a task made
        here first runs, so the update follows the response.
        """
        task = asyncio.get_running_loop().create_task(self._send(session_id, update))
        self._later.add(task)
        task.add_done_callback(self._later.discard)

    async def _open(
        self, session_id: str, cwd: str, mcp_servers: list[Any], *, replace: bool = False, trusted: bool = False
    ) -> AcpSession:
        """Build and open a session's composition (see ``quorum.acp.session``).

        ``trusted``: the editor said to use the workspace's files (``trust_question``). Otherwise
        the keys an untrusted workspace may not set are left out, and the editor is asked about
        them at the session's first prompt.

        Raises:
            RequestError: a bad ``cwd`` or MCP server, an invalid configuration, a required
                sandbox missing (nothing is left open then).
        """
        from quorum.acp.client_inputs import session_cwd
        from quorum.acp.compose import session_container, untrusted_keys
        from quorum.composition.runtime import Runtime
        from quorum.infrastructure.review.settings import ReviewSettings
        from quorum.infrastructure.tools.workspace import Workspace

        if replace:
            await self._close(session_id)
        options = self._options
        runtime: Runtime | None = None
        try:
            workspace = session_cwd(cwd)
            container = session_container(workspace, mcp_servers, options.config_path, trusted=trusted)
            scopes = SessionScopes()
            runtime = Runtime(container)
            runtime.open()
            await runtime.require_sandbox(False)
            mode = initial_mode(container.settings().section(ReviewSettings).hil_mode)
            session = AcpSession(
                session_id,
                runtime,
                Workspace(workspace),
                lambda update: self._send(session_id, update),
                model=options.model,
                mode=mode,
                scopes=scopes,
            )
            session.permission = EditorPrompt(
                lambda tool_call, choices: self._conn.request_permission(
                    session_id=session_id, tool_call=tool_call, options=choices
                ),
                scopes,
                container.redactor(),
                before_asking=session.flush,
                tool_content=session.tool_content,
            )
        except Exception as error:
            if runtime is not None:
                await runtime.aclose()  # nothing of a session that failed to open stays open
            if isinstance(error, QuorumError):
                raise _invalid(error) from None
            raise
        self._sessions[session_id] = session
        self._trust_open.pop(session_id, None)
        if not trusted and (findings := untrusted_keys(workspace, options.config_path)):
            self._trust_open[session_id] = (cwd, list(mcp_servers), findings)
        return session

    async def _settle_trust(self, session_id: str) -> AcpSession:
        """Ask the editor about the workspace's untrusted keys (once per session); reopen trusted if it says so."""
        from quorum.acp.trust_question import ask_trust
        from quorum.composition.trust import files_to_trust, trust_store

        session = self._session(session_id)
        opened = self._trust_open.pop(session_id, None)
        if opened is None:
            return session
        cwd, servers, findings = opened
        workspace = session.workspace.root
        files = files_to_trust(workspace, os.environ).files

        def ask(call: Any, options: list[Any]) -> Any:
            return self._conn.request_permission(session_id=session_id, tool_call=call, options=options)

        answer = await ask_trust(ask, workspace, findings, files)
        if answer == "ignore":
            return session
        if answer == "always":
            trust_store().trust(workspace, files)
        conversation = session.conversation  # the mode is the trusted files' (their hil_mode)
        reopened = await self._open(session_id, cwd, servers, replace=True, trusted=True)
        reopened.conversation = conversation
        return reopened

    async def _close(self, session_id: str) -> None:
        session = self._sessions.pop(session_id, None)
        if session is not None:
            session.cancel()
            await session.runtime.aclose()

    async def aclose(self) -> None:
        """Cancel every running prompt and close every session's composition (MCP servers, clients, log)."""
        for session_id in list(self._sessions):
            await self._close(session_id)
