"""``BuiltinToolSource``: the file, search and shell tools every run has, confined to the workspace."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from quorum.application import model_wording as say
from quorum.application.run_context import report_progress
from quorum.domain.errors import ToolRefusedError
from quorum.domain.tools import (
    Clearance,
    RiskAssessment,
    RiskLevel,
    ToolCall,
    ToolDefinition,
    ToolParameter,
    ToolResult,
)
from quorum.infrastructure.tools.blocking import StopFlag, run_blocking
from quorum.infrastructure.tools.files import operations, search
from quorum.infrastructure.tools.files.read_first import require_read
from quorum.infrastructure.tools.output import cap_text
from quorum.infrastructure.tools.settings import ToolsSettings
from quorum.infrastructure.tools.shell.kinds import PROTECTED
from quorum.infrastructure.tools.shell.launch import CommandLauncher
from quorum.infrastructure.tools.shell.process import DEFAULT_TIMEOUT, MAX_TIMEOUT, run_command
from quorum.infrastructure.tools.shell.progress import CommandProgress
from quorum.infrastructure.tools.workspace import Workspace

LOW, HIGH = RiskLevel.LOW, RiskLevel.HIGH


def _p(name: str, description: str, param_type: Any = "string", *, required: bool = True) -> ToolParameter:
    return ToolParameter(name=name, description=description, param_type=param_type, required=required)


BUILTIN_TOOLS: tuple[ToolDefinition, ...] = (
    ToolDefinition(
        name="read_file",
        brief="Read a text file.",
        description="Read a text file of the workspace, optionally a range of lines.",
        risk=LOW,
        parameters=(
            _p("path", "File to read.", "path"),
            _p("offset", "First line to read, 1-based (default 1).", "integer", required=False),
            _p("limit", "Maximum number of lines to read.", "integer", required=False),
        ),
    ),
    ToolDefinition(
        name="glob_search",
        brief="List paths matching a glob pattern such as '**/*.py'.",
        description="List paths matching a glob pattern such as '**/*.py'.",
        risk=LOW,
        parameters=(
            _p("pattern", "Glob pattern relative to path; '**' matches any depth."),
            _p("path", "Directory to search (default: the workspace).", "path", required=False),
        ),
    ),
    ToolDefinition(
        name="grep_search",
        brief="Search file contents for a regex pattern.",
        description="Search file contents with a regular expression (RE2 syntax); prints path:line: text.",
        risk=LOW,
        parameters=(
            # The model needs the syntax, not the fallback: a pattern RE2 refuses still runs (Python's re,
            # with a time budget per file).
            _p("pattern", "Regular expression (RE2 syntax)."),
            _p("path", "File or directory to search (default: the workspace).", "path", required=False),
            _p("glob", "Only files whose name matches this glob, e.g. '*.py'.", required=False),
            _p("max_results", "Stop after this many matching lines (default 200).", "integer", required=False),
        ),
    ),
    ToolDefinition(
        name="list_dir",
        brief="List a directory.",
        description="List the entries of a directory.",
        risk=LOW,
        parameters=(_p("path", "Directory to list (default: the workspace).", "path", required=False),),
    ),
    ToolDefinition(
        name="write_file",
        brief="Write the whole content of a file.",
        description="Create or overwrite a file with the given content.",
        risk=HIGH,
        parameters=(_p("path", "File to write.", "path"), _p("content", "The complete new content.")),
    ),
    ToolDefinition(
        name="edit_file",
        brief="Replace old_text, which must occur once, with new_text in a file.",
        description="Replace one exact, unique occurrence of old_text with new_text in a file.",
        risk=HIGH,
        parameters=(
            _p("path", "File to edit.", "path"),
            _p("old_text", "Text to replace; must occur exactly once."),
            _p("new_text", "Replacement text."),
        ),
    ),
    ToolDefinition(
        name="run_command",
        brief="Run a shell command.",
        description=(
            "Run a shell command (sh -c) in the workspace; returns exit code, stdout and stderr. Read-only "
            "commands (ls, cat, grep, git status…) run at once in a sandbox without writes or network; others "
            "are reviewed first."
        ),
        risk=HIGH,
        parameters=(
            _p("command", "The command line."),
            _p("cwd", "Directory to run in (default: the workspace).", "path", required=False),
            _p(
                "timeout",
                f"Seconds before the command is killed (default {DEFAULT_TIMEOUT:g}).",
                "number",
                required=False,
            ),
        ),
    ),
)


class BuiltinToolSource:
    """Implements ``ToolSource`` for the built-in tools.

    Args:
        workspace: the directory every path is resolved in (see ``Workspace``).
        settings: the ``[tools]`` section; ``output_limit_bytes`` caps each output.
        launcher: decides each ``run_command`` call's risk and how it runs (sandbox, environment).
        on_close: called by ``aclose`` (removes what the factory made for the launcher).

    ``run_command`` is listed with ``per_call_risk`` when a sandbox enforces the low-risk path, so
    the read-only ``ask`` mode offers it and runs its low-risk calls. File work runs in daemon
    threads (``blocking``) so it never blocks the event loop or exit. Expected failures (path
    outside the workspace, missing file, ambiguous edit, bad regex, non-zero exit) are error
    results with a message the model can act on.
    """

    name = "builtin"

    def __init__(
        self,
        workspace: Path,
        settings: ToolsSettings,
        launcher: CommandLauncher,
        *,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self.workspace = Workspace(workspace)
        self._settings = settings
        self.launcher = launcher
        self._on_close = on_close
        limit = self._settings.output_limit_bytes
        ws = self.workspace
        self._blocking: dict[str, Callable[[dict[str, Any], StopFlag], str]] = {
            "read_file": lambda a, stop: operations.read_file(ws, a, limit, stop),
            "write_file": lambda a, stop: operations.write_file(ws, a),
            "edit_file": lambda a, stop: operations.edit_file(ws, a),
            "list_dir": lambda a, stop: operations.list_dir(ws, a),
            "glob_search": lambda a, stop: search.glob_search(ws, a, stop),
            "grep_search": lambda a, stop: search.grep_search(ws, a, stop),
        }

    async def list_tools(self) -> Sequence[ToolDefinition]:
        if not self.launcher.status.enforced:
            return BUILTIN_TOOLS
        return _sandboxed_tools()

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        if call.name == "run_command":
            command = call.arguments.get("command")
            if not isinstance(command, str):
                return RiskAssessment(level=HIGH, reason="run_command without a command string")
            return self.launcher.assess(command)
        return RiskAssessment(
            level=tool.risk,
            reason=f"{call.name} is {'read-only' if tool.risk is LOW else 'a write'}",
            confined=call.name in ("write_file", "edit_file") and self._writes_covered(call.arguments.get("path")),
        )

    def _writes_covered(self, path: object) -> bool:
        """Whether a write to ``path`` stays in the workspace, off ``.git``, ``.quorum`` and ``quorum.toml``."""
        if not isinstance(path, str):
            return False
        try:
            real = self.workspace.resolve(path)
        except ToolRefusedError:
            return False
        parts = real.relative_to(self.workspace.root).parts
        return real != self.workspace.root and not PROTECTED & set(parts)

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
        arguments = dict(call.arguments)
        try:
            if call.name == "run_command":
                outcome = await self._run_command(arguments, clearance)
            elif call.name in self._blocking:
                if (problem := self.precheck(call)) is not None:  # checked before review too
                    return ToolResult(output=problem, is_error=True)
                work = self._blocking[call.name]
                outcome = ToolResult(output=await run_blocking(lambda stop: work(arguments, stop)))
            else:
                return ToolResult(output=f"unknown built-in tool {call.name!r}", is_error=True)
        except ToolRefusedError as error:
            return ToolResult(output=str(error), is_error=True)
        except OSError as error:
            return ToolResult(output=say.os_error(call.name, error), is_error=True)
        return ToolResult(output=cap_text(outcome.output, self._settings.output_limit_bytes), is_error=outcome.is_error)

    def precheck(self, call: ToolCall) -> str | None:
        """Why a write or an edit of an existing file the run has not read is refused (``read_before_write``)."""
        if call.name not in ("write_file", "edit_file") or not self._settings.read_before_write:
            return None
        try:
            require_read(self.workspace, call.arguments.get("path"), call.name)
        except ToolRefusedError as error:
            return str(error)
        return None

    async def _run_command(self, arguments: dict[str, Any], clearance: Clearance) -> ToolResult:
        command = arguments.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ToolRefusedError("command must be a non-empty string: the shell command line to run")
        cwd = self.workspace.resolve(arguments.get("cwd"))
        if not cwd.is_dir():
            raise ToolRefusedError(
                f"cwd {arguments.get('cwd')!r} is not a directory; leave cwd out to run in the workspace"
            )
        timeout = arguments.get("timeout", DEFAULT_TIMEOUT)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise ToolRefusedError(
                f"timeout must be a positive number of seconds, got {timeout!r}; leave it out for {DEFAULT_TIMEOUT:g}"
            )
        launch = self.launcher.launch(command, cwd, clearance)
        return await run_command(
            launch.argv,
            cwd=cwd,
            timeout=min(float(timeout), MAX_TIMEOUT),
            # Half the budget each, less room for the headers, so stderr survives a noisy stdout.
            limit_bytes=max(self._settings.output_limit_bytes // 2 - 100, 200),
            env=launch.env,
            progress=CommandProgress(report_progress, redactor=self.launcher.redactor),
        )

    async def aclose(self) -> None:
        if self._on_close is not None:
            self._on_close()


@functools.cache
def _sandboxed_tools() -> tuple[ToolDefinition, ...]:
    """The built-in tools when commands run sandboxed: ``run_command``'s risk is then per call (made once)."""
    return tuple(t.model_copy(update={"per_call_risk": True}) if t.name == "run_command" else t for t in BUILTIN_TOOLS)
