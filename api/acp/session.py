"""``AcpSession``: one editor session, a conversation whose prompts are runs of the run log.

Each session has its own composition (its workspace is the client's ``cwd``, its MCP servers the
configured ones plus the client's), open for the session's life. Each prompt is one ``RunOrder``
to the run service, with the conversation so far as its history and the run before it as its
parent, as ``quorum chat`` links its messages; the session's id is the id of its first run, so
``session/load`` finds the session in the run log. Each run gets a reviewer of its own, built by
the service from the order: the editor's permission request as its human port, the session's
mode as its ``hil_mode``, and the session's "always" answers. A prompt runs in plan mode in the
``plan`` session mode, or once after ``/plan`` (``/plan TASK`` runs TASK so at once); otherwise
``[agent] plan`` decides, as for ``quorum run``.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from acp import RequestError, helpers
from acp.schema import StopReason

from quorum.acp.commands import IN_THE_EDITOR, answer
from quorum.acp.modes import Mode, hil_mode_of, parse_command
from quorum.acp.permission import SessionScopes
from quorum.acp.updates import EventTranslator, UpdatePump
from quorum.composition.conventions import expand, prompt_commands
from quorum.composition.conversation import Conversation
from quorum.composition.model_choice import NoModelChosen, advice
from quorum.domain.errors import QuorumError
from quorum.domain.events import RunEvent, RunFinished, RunStarted, RunStopReason, own_events
from quorum.domain.tools import ImagePart
from quorum.infrastructure.tools.workspace import Workspace

if TYPE_CHECKING:
    from quorum.application.ports.observer import RunObserver
    from quorum.composition.orders import RunOrder
    from quorum.composition.runtime import Runtime
    from quorum.domain.messages import Message
    from quorum.infrastructure.conventions.commands import PromptCommands
    from quorum.infrastructure.review.human import HumanPrompt

STOP_REASONS: dict[RunStopReason, StopReason] = {
    RunStopReason.END_TURN: "end_turn",
    RunStopReason.MAX_TOKENS: "max_tokens",
    RunStopReason.MAX_COST: "max_tokens",  # a spending budget, as the token budget is
    RunStopReason.MAX_TURNS: "max_turn_requests",
    RunStopReason.TIMEOUT: "max_turn_requests",  # the turn's own limit, in time
    RunStopReason.REJECTED: "refusal",  # too many rejections in a row: Quorum refuses to go on
    RunStopReason.LOOP_DETECTED: "max_turn_requests",  # turns spent going round in a circle
    RunStopReason.INVALID_OUTPUT: "max_turn_requests",  # the answer's tries spent (an editor asks no schema)
    RunStopReason.CANCELLED: "cancelled",
    RunStopReason.AWAITING_APPROVAL: "end_turn",  # never here: no session mode defers
}
"""A run's stop reason → the ACP stop reason (``error`` is a JSON-RPC error instead; decision 160)."""

Send = Callable[[Any], Awaitable[None]]

PLAN_NEXT = "Plan mode for the next prompt: a plan is proposed and asked here before any change."


class AcpSession:
    """One session (see the module docstring).

    Args:
        session_id: the session's id: its first run's id.
        runtime: the session's open composition.
        workspace: the session's workspace (the client's ``cwd``).
        send: sends one ``session/update`` of this session.
        model: the model chosen by ``--model`` or ``/model`` (None: the configured one).
        mode: the first session mode (a ``hil_mode``).
        scopes: the session's "always" answers (shared with its ``EditorPrompt``).

    ``permission`` (the session's ``EditorPrompt``) is set once the session exists: its runs ask through it.
    """

    def __init__(
        self,
        session_id: str,
        runtime: Runtime,
        workspace: Workspace,
        send: Send,
        *,
        model: str | None,
        mode: Mode,
        scopes: SessionScopes,
    ) -> None:
        from quorum.composition.service import RunService

        self.session_id = session_id
        self.runtime = runtime
        self.service = RunService(runtime)
        self.permission: HumanPrompt | None = None
        self.workspace = workspace
        self.conversation = Conversation(model=model)
        self.mode = mode
        self.scopes = scopes
        self.finished: list[RunFinished] = []
        self._send = send
        self._turn: asyncio.Future[Any] | None = None
        self._pump: UpdatePump | None = None
        self._plan_next = False

    @property
    def model(self) -> str | None:
        """The model of the next prompt (``--model``, ``/model``; None: the configured one)."""
        return self.conversation.model

    @property
    def history(self) -> tuple[Message, ...]:
        """The conversation so far."""
        return self.conversation.history

    @property
    def parent_run_id(self) -> str | None:
        """The run the next prompt continues."""
        return self.conversation.parent_run_id

    # -- what the permission prompt needs ---------------------------------------------------------
    async def flush(self) -> None:
        """Until the updates of the running prompt are written (the client knows every call)."""
        if self._pump is not None:
            await self._pump.flush()

    def tool_content(self, call_id: str) -> list[Any]:
        """The content shown for ``call_id`` (its diff) in the running prompt."""
        return self._pump.translator.tool_content(call_id) if self._pump is not None else []

    # -- prompts ----------------------------------------------------------------------------------
    async def prompt(self, task: str, images: Sequence[ImagePart] = ()) -> StopReason:
        """Run ``task`` with ``images`` (or answer a slash command) and return the ACP stop reason.

        Raises:
            RequestError: a prompt already runs in this session, the run could not start (no
                model, an unknown one), or it failed (``error``); the session goes on.
        """
        if self._turn is not None:
            raise RequestError.invalid_request({"details": "a prompt is already running in this session"})
        command = parse_command(task)
        plan = self.mode == "plan" or self._plan_next
        if command is not None and command[0] == "plan":
            if not command[1]:
                self._plan_next = True
                await self._send(helpers.update_agent_message_text(PLAN_NEXT))
                return "end_turn"
            task, plan = command[1], True
        elif command is not None:
            await self._send(helpers.update_agent_message_text(await answer(self, *command)))
            return "end_turn"
        expanded = expand(task, self.prompt_commands(), strict=False)  # a prompt command: its prompt
        self._plan_next = False
        plan = plan or bool(expanded.plan)
        return await self._run(expanded.task, tuple(images), plan=plan or None, model=expanded.model)

    def prompt_commands(self) -> PromptCommands:
        """The prompt commands of the session's workspace and of the user (read anew each time)."""
        container = self.runtime.container
        return prompt_commands(container.settings(), container.config_dir())

    async def _run(
        self, task: str, images: tuple[ImagePart, ...], *, plan: bool | None, model: str | None = None
    ) -> StopReason:
        """One run of ``task`` and its ``images`` (``plan``: in plan mode; None: ``[agent] plan`` decides).

        ``model``: this run's model (a prompt command's) in place of the session's.
        """
        container = self.runtime.container
        events: list[RunEvent] = []
        pump = UpdatePump(EventTranslator(self.workspace, container.redactor()), self._send, events.append)
        self._pump = pump
        try:
            order = self.order(task, images=images, plan=plan, observers=(pump,))
            if model is not None:
                order = dataclasses.replace(order, model=model)
            self._turn = asyncio.ensure_future(self.service.run(order))
            try:
                result = await self._turn
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    raise  # the agent is shutting down, not this turn
                return "cancelled"
        except NoModelChosen:  # the command line's advice names flags the editor has no way to pass
            raise RequestError.invalid_params({"details": advice(IN_THE_EDITOR)}) from None
        except QuorumError as error:  # before the run started: nothing was recorded
            raise RequestError.invalid_params({"details": container.redactor().text(str(error))}) from None
        finally:
            self._turn = None
            self._keep(events)
            await pump.close()
            self._pump = None
        if result.stop_reason == RunStopReason.ERROR:
            raise RequestError.internal_error({"details": result.detail or "the run failed"})
        if result.stop_reason != RunStopReason.END_TURN and result.detail:
            await self._send(helpers.update_agent_message_text(f"\n\n(quorum: {result.detail})"))
        return STOP_REASONS[RunStopReason(result.stop_reason)]

    def order(
        self,
        task: str,
        *,
        images: tuple[ImagePart, ...] = (),
        plan: bool | None = None,
        observers: tuple[RunObserver, ...] = (),
    ) -> RunOrder:
        """The run order of ``task`` in this session: its conversation, model, mode, "always" answers."""
        from quorum.composition.orders import RunOrder

        return RunOrder(
            task,
            task_images=images,
            model=self.model,
            history=self.history,
            run_id=self.session_id if self.parent_run_id is None else None,
            parent_run_id=self.parent_run_id,
            observers=observers,
            plan=plan,
            human=self.permission,
            hil_mode=hil_mode_of(self.mode),
            always=tuple(self.scopes.allowed),
            refused=self.scopes.rejected,  # read at each call: a "reject always" counts at once
        )

    def cancel(self) -> None:
        """Cancel the running prompt, if any: its tools are cancelled, its processes killed."""
        if self._turn is not None:
            self._turn.cancel()

    def reviewer(self) -> Any:
        """The review the next run gets (``/review`` describes it)."""
        return self.service.reviewer(self.order(""))

    def _keep(self, events: Sequence[RunEvent]) -> None:
        """Append what a run said and did to the conversation; it is the next run's parent."""
        started = next((e for e in events if isinstance(e, RunStarted)), None)
        if started is None:
            return
        self.conversation.add_run(started.run_id, events)
        self.finished.extend(e for e in own_events(events) if isinstance(e, RunFinished))

    def continue_from(self, run_id: str, history: Sequence[Message]) -> None:
        """Go on from the recorded run ``run_id`` (``session/load``)."""
        self.conversation = Conversation.resumed(run_id, history, model=self.model)
