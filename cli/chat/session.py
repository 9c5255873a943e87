"""``ChatSession``: messages become runs of one conversation; slash commands steer the session.

Each message is one run recorded in the run log, its parent the run before it (as ``--continue``
records it), with the conversation so far as its history. The session keeps one ``Runtime`` for
its whole life (MCP servers, provider clients and the run log stay open); each message is a
``RunOrder`` to the run service, with a fresh renderer, and gets its own recorder and reviewer.
What the slash commands change (``/model``, ``/review``, the session's cost cap) are fields of the
next order, never an override of the composition.

Ctrl+C while a run is under way cancels that run only: the run ends ``cancelled`` (its unanswered
calls answered "cancelled", so the conversation stays valid) and the prompt comes back. SIGTERM
and SIGHUP end the session the way they end ``quorum run``.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from quorum.cli.chat import slash
from quorum.cli.chat.conversation import Conversation, SessionSpending
from quorum.cli.chat.line_input import INTERRUPT
from quorum.cli.run_setup import Display, human_renderer, say_instructions, terminal_prompts
from quorum.domain import amounts
from quorum.domain.errors import QuorumError
from quorum.domain.events import RunEvent, RunFinished, RunStarted, own_events
from quorum.infrastructure.terminal_text import printable

if TYPE_CHECKING:
    from quorum.composition.runtime import Runtime


class LineSource(Protocol):
    async def read(self) -> str | None:
        """The next line typed; ``INTERRUPT`` for Ctrl+C on an empty line; None at end of input."""
        ...


class _Tee:
    """Passes each event to the renderer and keeps it (the conversation is rebuilt from them)."""

    def __init__(self, renderer: Any, keep: Callable[[RunEvent], None]) -> None:
        self._renderer = renderer
        self._keep = keep

    def on_event(self, event: RunEvent) -> None:
        self._keep(event)
        self._renderer.on_event(event)


class CurrentRenderer:
    """The renderer of the message under way, for the session's MCP line prompt (none between messages).

    The line prompt lives as long as the session's composition, the renderer one message: an MCP
    server's question hides the live status of whichever message asked it.
    """

    def __init__(self) -> None:
        self.renderer: Any = None

    def flush(self) -> None:
        if self.renderer is not None:
            self.renderer.flush()

    @contextlib.contextmanager
    def suspended(self) -> Iterator[None]:
        if self.renderer is None:
            yield
            return
        with self.renderer.suspended():
            yield


class ChatSession:
    """An interactive session over ``runtime``, the open composition (see the module docstring).

    ``interactive`` says a person can answer review questions on this terminal. ``max_cost`` caps
    the whole session's spending (USD): each run gets what is left as its ``max_cost_usd``, and
    no run starts once it is spent.
    """

    def __init__(
        self,
        runtime: Runtime,
        *,
        model_id: str,
        display: Display,
        conversation: Conversation | None = None,
        interactive: bool,
        out: TextIO | None = None,
        max_cost: float | None = None,
        current_renderer: CurrentRenderer | None = None,
    ) -> None:
        from quorum.composition.service import RunService

        self._runtime = runtime
        self._service = RunService(runtime)
        self._hil_mode: Any = None  # /review's choice; None: [review] hil_mode
        self.current_renderer = current_renderer or CurrentRenderer()
        self._container = runtime.container
        self._display = display
        self._interactive = interactive
        self._out = out if out is not None else sys.stdout
        self.conversation = conversation or Conversation()
        self.conversation.model = model_id  # the conversation goes on with it (``/model`` switches)
        self.spending = SessionSpending()
        self.max_cost = max_cost
        self._problems_said = 0
        self._plan_next = False
        self._commands: dict[str, Callable[[str], Awaitable[bool]]] = {
            "/help": self._help,
            "/exit": self._exit,
            "/model": self._model,
            "/tools": self._tools,
            "/review": self._review,
            "/plan": self._plan,
            "/clear": self._clear,
            "/resume": self._resume,
            "/usage": self._usage,
            "/cost": self._cost,
            "/context": self._context,
            "/compact": self._compact,
            "/log": self._log,
            "/undo": self._undo,
        }
        self._lines: LineSource | None = None  # the chat's own prompt: /undo asks through it

    @property
    def model_id(self) -> str:
        """The model the next message runs on."""
        return self.conversation.model or ""

    # -- the loop -----------------------------------------------------------------------------
    async def run(self, lines: LineSource) -> None:
        """Read and act on lines until ``/exit``, end of input, or Ctrl+C twice on an empty line."""
        interrupts = 0
        self._lines = lines
        while True:
            line = await lines.read()
            if line is None:
                break
            if line == INTERRUPT:
                interrupts += 1
                if interrupts >= 2:
                    break
                self._note("(press Ctrl+C again, or Ctrl+D, to leave)")
                continue
            interrupts = 0
            if not line.strip():
                continue
            command = slash.parse(line)
            if command is None:
                await self.send(line)
            elif not await self._command(command):
                break

    @contextlib.contextmanager
    def _ctrl_c_cancels(self, turn: asyncio.Task[Any]) -> Iterator[None]:
        """While inside, SIGINT (Ctrl+C on the terminal) cancels ``turn`` instead of the program.

        Installed per turn: the input line handles Ctrl+C as a key between turns, and prompt_toolkit
        resets the SIGINT handler when its prompt ends.
        """
        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGINT, turn.cancel)
        except (NotImplementedError, RuntimeError, ValueError):  # no signal support (Windows)
            yield
            return
        try:
            yield
        finally:
            loop.remove_signal_handler(signal.SIGINT)

    async def send(self, text: str, *, model: str | None = None, plan: bool = False) -> None:
        """Run ``text`` as the next message of the conversation; return when the run has ended.

        After ``/plan`` (or with ``plan``) it runs in plan mode (once); otherwise ``[agent] plan``
        decides. ``model``: this message's model (a prompt command's), the session's staying as it is.
        """
        from quorum.composition.orders import RunOrder

        if not self._cap_run():
            return
        settings = self._container.settings()
        renderer = human_renderer(self._display)
        say_instructions(renderer, self._container)
        events: list[RunEvent] = []
        human = terminal_prompts(renderer, None, settings)[0] if self._interactive else None
        self.current_renderer.renderer = renderer
        conversation = self.conversation
        planned, self._plan_next = (True if self._plan_next or plan else None), False
        order = RunOrder(
            text,
            model=model or conversation.model,
            history=conversation.history,
            parent_run_id=conversation.parent_run_id,
            observers=(_Tee(renderer, events.append),),
            plan=planned,
            human=human,
            hil_mode=self._hil_mode,
            max_cost_usd=self._run_cap(),
        )

        async def run() -> Any:
            return await self._service.run(order)

        turn = asyncio.ensure_future(run())
        try:
            with self._ctrl_c_cancels(turn):
                await turn
        except asyncio.CancelledError:
            if not turn.cancelled() or _cancelling():
                raise  # the session itself is being cancelled (SIGTERM), not just this turn
        except QuorumError as error:  # before the run started: a missing key, an unknown model
            self._error(error)
        finally:
            self.current_renderer.renderer = None
            renderer.close()
        self._keep(events)
        self._say_new_problems()

    def _keep(self, events: list[RunEvent]) -> None:
        started = next((e for e in events if isinstance(e, RunStarted)), None)
        if started is None:
            return
        self.conversation.add_run(started.run_id, events)
        finished = next((e for e in own_events(events) if isinstance(e, RunFinished)), None)
        if finished is not None:
            self.spending.add(finished)
            if finished.stop_reason == "awaiting_approval":  # hil_mode = "defer" in the configuration
                from quorum.cli.render.words import approve_hint

                self._note(printable(approve_hint(started.run_id)))

    # -- slash commands -------------------------------------------------------------------------
    async def _command(self, line: slash.SlashLine) -> bool:
        """Run a slash command; False when the session should end."""
        command = slash.find(line.name)
        prompt_command = self._prompt_commands().get(line.name)
        if prompt_command is not None and (command is None or command.name != line.name):
            await self.send(prompt_command.prompt(line.argument), model=prompt_command.model, plan=prompt_command.plan)
            return True
        if command is None:
            self._note(slash.unknown_message(line.name))
            return True
        try:
            return await self._commands[command.name](line.argument)
        except QuorumError as error:
            self._error(error)
            return True

    def _prompt_commands(self) -> Any:
        """The workspace's and the user's prompt commands, read anew (a file added mid-session counts)."""
        from quorum.composition.conventions import prompt_commands

        return prompt_commands(self._container.settings(), self._container.config_dir())

    async def _help(self, _: str) -> bool:
        found = self._prompt_commands()
        self._print(slash.help_text([(c.name, c.description) for c in found.commands.values()]))
        for problem in found.problems:
            self._note(printable(f"not a prompt command: {problem}"))
        return True

    async def _exit(self, _: str) -> bool:
        return False

    async def _model(self, argument: str) -> bool:
        if not argument:
            self._print(f"model: {self.model_id}")
            return True
        model_id = self.conversation.switch_model(self._container, argument)
        self._print(f"model: {model_id} (the conversation goes on with it)")
        return True

    async def _tools(self, _: str) -> bool:
        tools = list(await self._container.tool_executor().list_tools())
        if not tools:
            self._print("no tools are offered")
            return True
        width = max(len(tool.name) for tool in tools)
        for tool in sorted(tools, key=lambda t: t.name):
            risk = tool.risk.value + (" (some calls low)" if tool.per_call_risk else "")
            first = (tool.description or "").strip().splitlines()[0:1]
            self._print(f"  {printable(tool.name):<{width}}  {risk:<22} {printable(first[0]) if first else ''}")
        return True

    async def _review(self, argument: str) -> bool:
        from quorum.infrastructure.review.settings import ReviewSettings

        if not argument:
            hil_mode = self._hil_mode or self._container.settings().section(ReviewSettings).hil_mode
            self._print(f"review: {hil_mode} (a person's step for high-risk calls)")
            return True
        if argument not in slash.REVIEW_MODES:
            self._note(f"/review takes one of {', '.join(slash.REVIEW_MODES)}, not {printable(argument)!r}")
            return True
        self._hil_mode = argument
        self._print(f"review: {argument} from the next message on")
        return True

    async def _plan(self, argument: str) -> bool:
        self._plan_next = True
        if argument:
            await self.send(argument)
        else:
            self._print("plan mode for the next message: a plan is proposed and reviewed before any change")
        return True

    async def _clear(self, _: str) -> bool:
        self.conversation = Conversation(model=self.conversation.model)
        self._print("new conversation")
        return True

    async def _resume(self, argument: str) -> bool:
        if not argument:
            self._note("/resume needs a run id (quorum logs list shows them)")
            return True
        model = self.conversation.model
        self.conversation, _ = resumed(self._container, argument)
        self.conversation.model = model
        self._print(
            f"resumed run {self.conversation.resumed_from} ({len(self.conversation.history)} messages); "
            f"model stays {self.model_id} (/model to change it)"
        )
        return True

    def _cap_run(self) -> bool:
        """Whether the next run may start: False (and say so) when the session's cap is spent."""
        if self.max_cost is None or self.max_cost - self.spending.cost > 0:
            return True
        self._note(f"the session's cost cap of ${self.max_cost:g} is spent (/cost shows the spending)")
        return False

    def _run_cap(self) -> float | None:
        """The next run's ``max_cost_usd``: what is left of the session's cap (None: no session cap)."""
        return None if self.max_cost is None else self.max_cost - self.spending.cost

    async def _cost(self, _: str) -> bool:
        spent = amounts.usd(self.spending.cost)
        if self.spending.unpriced:
            spent += f" + {self.spending.unpriced} run(s) of unknown price"
        cap = f" of the session's cap ${self.max_cost:g}" if self.max_cost is not None else " (no cap: --max-cost USD)"
        self._print(f"cost: {spent}{cap}")
        return True

    def _window(self) -> tuple[int, float]:
        """The model's context window (tokens) and the fraction that triggers compaction."""
        from quorum.application.compaction import DEFAULT_CONTEXT_WINDOW

        agent = self._container.settings().agent
        window = agent.context_window or self._container.prices().context_window(self.model_id)
        return window or DEFAULT_CONTEXT_WINDOW, agent.compact_at

    async def _context(self, _: str) -> bool:
        from quorum.application.compaction import message_tokens

        used = message_tokens(self.conversation.history)
        window, at = self._window()
        mode = self._container.settings().agent.compact
        self._print(
            f"context: ~{used:,} tokens of {window:,} ({used / window:.0%}); "
            f"compaction {mode}, at {at:.0%} (/compact compacts now)"
        )
        return True

    async def _compact(self, _: str) -> bool:
        from quorum.application.compaction import compact_now, message_tokens

        history = self.conversation.history
        if not history:
            self._print("nothing to compact yet")
            return True
        model = self._container.settings().agent.compact_model or self.model_id
        compacted, spent = await compact_now(history, gateway=self._container.gateway(), model_id=model)
        self.spending.add_compaction(spent, self._container.prices().cost(model, spent))  # /usage, /cost, the cap
        before, after = message_tokens(history), message_tokens(compacted.history)
        self.conversation.history = tuple(compacted.history)
        self._print(
            f"context compacted: ~{before:,} → ~{after:,} tokens ({compacted.messages_compacted} messages; "
            "the run log keeps them whole)"
        )
        return True

    async def _usage(self, _: str) -> bool:
        self._print(f"this session: {self.spending.describe()}")
        return True

    async def _undo(self, _: str) -> bool:
        """Undo the last message's run: show the plan, ask through the chat's prompt, then apply."""
        from quorum.application.use_cases.undo_run import UndoRequest
        from quorum.cli.chat import undo as words
        from quorum.composition.checkpoints import build_undo

        if not self.conversation.run_ids:
            self._print("no run in this conversation yet: nothing to undo")
            return True
        use_case = build_undo(self._container)
        plan = await use_case.plan(UndoRequest(run_id=self.conversation.run_ids[-1]))
        for line in words.plan_lines(plan):
            self._print(printable(line))
        if plan.conflicts:
            self._print(printable(words.refusal(plan)))
        elif not plan.steps:
            self._print("nothing to undo: the files are as they were before the run")
        elif self._lines is None or not words.agreed(await self._ask(words.QUESTION)):
            self._print("nothing was changed")
        else:
            self._print(printable(words.done_line(await use_case.apply(plan))))
        return True

    async def _ask(self, question: str) -> str | None:
        assert self._lines is not None
        self._print(question)
        answer = await self._lines.read()
        return None if answer == INTERRUPT else answer

    async def _log(self, _: str) -> bool:
        conversation = self.conversation
        if conversation.resumed_from is None and not conversation.run_ids:
            self._print("no runs in this conversation yet")
            return True
        if conversation.resumed_from is not None:
            self._print(f"  {conversation.resumed_from}  (resumed)")
        for run_id in conversation.run_ids:
            self._print(f"  {run_id}")
        self._print("quorum logs show ID shows a run in full")
        return True

    # -- writing ----------------------------------------------------------------------------------
    def _print(self, text: str) -> None:
        self._out.write(text + "\n")
        self._out.flush()

    def _note(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    def _error(self, error: QuorumError) -> None:
        from quorum.cli.errors import report

        report(error)

    def _say_new_problems(self) -> None:
        problems = self._runtime.problems()
        for problem in problems[self._problems_said :]:
            self._note(f"quorum: warning: {printable(problem)}")
        self._problems_said = len(problems)


def resumed(container: Any, run_id: str | None) -> tuple[Conversation, str]:
    """The conversation of the recorded run ``run_id`` (any unique prefix; None: the last run), and its model.

    Raises:
        UsageError: no such run, an ambiguous prefix, or the run log is disabled.
    """
    from quorum.cli.run_log import resolve_run_id
    from quorum.cli.run_setup import continuation_of

    store = container.run_store()
    if run_id is not None and store is not None:
        run_id = resolve_run_id(store, run_id)
    continued = continuation_of(container, run_id)
    return Conversation.resumed(continued.parent_run_id, continued.history), continued.model


def _cancelling() -> bool:
    """Whether the task running this code is itself being cancelled."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
