"""``ShellHookRunner``: runs hooks with ``sh -c`` in the workspace and reads their answers.

One process per hook (``/bin/sh -c COMMAND``, in a session of its own so a timeout kills every
process it started), the event's payload as JSON on stdin, stdout and stderr read whole (the first
``MAX_OUTPUT`` characters kept). The answer follows Claude Code's contract (exit status 2, the
JSON on stdout); everything a hook says is made safe to show before it goes anywhere
(``terminal_text.printable``): it never reaches a terminal raw. The environment is the user's
without the secrets Quorum knows, plus ``QUORUM_PROJECT_DIR``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from quorum.application.ports.hooks import HookEvent, HookOutcome
from quorum.infrastructure.hooks.layers import ConfiguredHook
from quorum.infrastructure.terminal_text import printable

SHELL = "/bin/sh"
MAX_OUTPUT = 64_000
"""Characters of a hook's stdout or stderr kept (reasons and context longer than this are cut)."""

_EXIT_2_BLOCKS: frozenset[HookEvent] = frozenset({"post_tool_use", "user_prompt_submit", "stop"})
_STDOUT_IS_CONTEXT: frozenset[HookEvent] = frozenset({"user_prompt_submit", "session_start"})


class ShellHookRunner:
    """Implements ``HookRunner`` over the configured ``hooks`` (read once: nothing is read per call)."""

    def __init__(self, hooks: Sequence[ConfiguredHook], *, workspace: Path, env: Mapping[str, str]) -> None:
        self._by_event: dict[str, tuple[ConfiguredHook, ...]] = {}
        for hook in hooks:
            self._by_event[hook.event] = (*self._by_event.get(hook.event, ()), hook)
        self._workspace = workspace
        self._cwd = str(workspace)
        self._env = {**env, "QUORUM_PROJECT_DIR": self._cwd}

    @property
    def hooks(self) -> tuple[ConfiguredHook, ...]:
        """Every hook, grouped by event."""
        return tuple(hook for group in self._by_event.values() for hook in group)

    def configured(self, event: HookEvent, tool_name: str | None = None) -> bool:
        return any(hook.names(tool_name) for hook in self._by_event.get(event, ()))

    async def run(
        self, event: HookEvent, payload: Mapping[str, Any], tool_name: str | None = None
    ) -> list[HookOutcome]:
        hooks = [hook for hook in self._by_event.get(event, ()) if hook.names(tool_name)]
        if not hooks:
            return []
        data = json.dumps({**payload, "cwd": self._cwd}, default=str).encode()  # ASCII: any text encodes
        if len(hooks) == 1:
            return [await self._run_one(hooks[0], event, data)]
        return list(await asyncio.gather(*(self._run_one(hook, event, data) for hook in hooks)))

    async def _run_one(self, hook: ConfiguredHook, event: HookEvent, data: bytes) -> HookOutcome:
        try:
            process = await asyncio.create_subprocess_exec(
                SHELL,
                "-c",
                hook.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self._cwd,
                env=self._env,
                start_new_session=True,
            )
        except OSError as error:
            return HookOutcome(hook.command, failure=f"could not start: {error.strerror or error}")
        try:
            async with asyncio.timeout(hook.timeout):
                out, err = await process.communicate(data)
        except TimeoutError:
            await _kill(process)
            return HookOutcome(hook.command, failure=f"timed out after {hook.timeout:g} s")
        except BaseException:
            await _kill(process)
            raise
        return read_answer(hook.command, event, process.returncode or 0, _text(out), _text(err))


async def _kill(process: asyncio.subprocess.Process) -> None:
    """Kill the hook's whole process group (everything it started) and reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    await process.wait()


def _text(raw: bytes) -> str:
    return raw[: MAX_OUTPUT * 4].decode("utf-8", errors="replace")[:MAX_OUTPUT].strip()


def _shown(value: Any) -> str:
    """A string of the hook's, safe to show: control and invisible characters escaped, at most ``MAX_OUTPUT``."""
    return printable(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))[:MAX_OUTPUT]


def read_answer(command: str, event: HookEvent, status: int, out: str, err: str) -> HookOutcome:
    """The outcome of a hook of ``event`` that exited with ``status``, having printed ``out`` and ``err``.

    Exit 2: a ``pre_tool_use`` hook denies, a ``post_tool_use``, ``user_prompt_submit`` or
    ``stop`` hook blocks, with stderr as the reason. Exit 0: no output is no opinion; else the
    JSON answer. Anything else is a failure (``failure`` says which).
    """
    if status == 2:
        if event == "pre_tool_use":
            return HookOutcome(command, permission="deny", reason=_shown(err))
        return HookOutcome(command, block=event in _EXIT_2_BLOCKS, reason=_shown(err))
    if status != 0:
        detail = f": {_shown(err.splitlines()[-1][:200])}" if err else ""
        return HookOutcome(command, failure=f"exit status {status}{detail}")
    if not out:
        return HookOutcome(command)
    try:
        answer = json.loads(out)
    except ValueError:
        if event in _STDOUT_IS_CONTEXT:
            return HookOutcome(command, context=_shown(out))
        return HookOutcome(command, failure="its output is not JSON")
    if not isinstance(answer, dict):
        return HookOutcome(command, failure="its output is not a JSON object")
    if event == "pre_tool_use":
        return _permission(command, answer)
    return _feedback(command, answer)


def _permission(command: str, answer: dict[str, Any]) -> HookOutcome:
    specific = answer.get("hookSpecificOutput")
    if not isinstance(specific, dict):
        return HookOutcome(command, failure="its output has no hookSpecificOutput")
    decision = specific.get("permissionDecision")
    if specific.get("hookEventName", "PreToolUse") != "PreToolUse" or decision not in ("allow", "deny", "ask"):
        return HookOutcome(command, failure="its output has no permissionDecision allow, deny or ask")
    return HookOutcome(command, permission=decision, reason=_shown(specific.get("permissionDecisionReason", "")))


def _feedback(command: str, answer: dict[str, Any]) -> HookOutcome:
    specific = answer.get("hookSpecificOutput")
    context = specific.get("additionalContext", "") if isinstance(specific, dict) else ""
    block = answer.get("decision") == "block"
    return HookOutcome(command, block=block, reason=_shown(answer.get("reason", "")), context=_shown(context))
