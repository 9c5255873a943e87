"""What an "always approve" answer covers: a command prefix, a tool in one directory, or a tool.

Approving a whole tool for a run is too wide for tools whose arguments are the danger: "always" on
``run_command`` once meant every later command ran unasked. So the scope is taken from the call
the person is looking at, and stated in the question:

- ``run_command``: the program and its subcommand (``git commit``, ``make test``, ``ls``), offered
  only for one plain simple command (``plain_command_words``); a later command is covered only when
  it is plain too and starts with the same words.
- ``write_file`` / ``edit_file``: the tool on files directly in the call's directory (resolved in
  the workspace, so ``docs/../x`` is not in ``docs/``); subdirectories are not covered.
- any other tool: the tool.

When no honest scope can be drawn (a compound command, a shell or wrapper that runs arbitrary
code, a path outside the workspace), ``scope_for`` returns None and "always" is not offered.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from quorum.application.plan_mode import PROPOSE_PLAN
from quorum.domain.errors import ToolRefusedError
from quorum.domain.tools import ToolCall
from quorum.infrastructure.tools.workspace import Workspace

FILE_TOOLS = frozenset({"write_file", "edit_file"})

# Outside quotes these make a command more than one plain simple command: separators, pipes,
# redirections, expansions, substitutions, grouping, globbing, comments, escapes.
_META = frozenset(";&|<>$`(){}\\*?[]#!\n")
# Inside double quotes the shell still expands these.
_META_IN_DOUBLE = frozenset("$`\\")
# Programs whose arguments are themselves a command or code: "always" for ``sh -c …`` would cover
# any command. Wrappers are never scoped; shells and interpreters only with a script named.
_WRAPPERS = frozenset(
    {
        "builtin", "chroot", "command", "doas", "env", "eval", "exec", "ionice", "nice", "nohup",
        "nsenter", "setsid", "stdbuf", "strace", "su", "sudo", "time", "timeout", "unshare", "watch",
        "xargs", "busybox", ".", "source",
    }
)  # fmt: skip
_INTERPRETERS = frozenset(
    {
        "sh", "bash", "dash", "zsh", "ksh", "fish", "python", "python3", "node", "perl", "ruby",
        "php", "deno", "bun", "lua", "Rscript", "osascript", "pwsh",
    }
)  # fmt: skip


def plain_command_words(command: str) -> list[str] | None:
    r"""The words of ``command`` when it is one plain simple command, else None.

    Plain means: no shell metacharacters outside single quotes (``; & | < > $ ` ( ) { } \``,
    newlines, glob characters, ``#``, ``!``), no expansion inside double quotes, no control
    characters, quotes closed, and a program named without a path and not a ``VAR=value``
    assignment. Quotes are removed from the words, as the shell would.
    """
    words: list[str] = []
    word: list[str] = []
    in_word = False
    quote: str | None = None
    for char in command:
        if char != "\t" and (ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F):
            return None
        if quote == "'":
            if char == "'":
                quote = None
            else:
                word.append(char)
        elif quote == '"':
            if char in _META_IN_DOUBLE:
                return None
            if char == '"':
                quote = None
            else:
                word.append(char)
        elif char in _META:
            return None
        elif char in "'\"":
            quote, in_word = char, True
        elif char in " \t":
            if in_word:
                words.append("".join(word))
                word, in_word = [], False
        else:
            word.append(char)
            in_word = True
    if quote is not None:
        return None
    if in_word:
        words.append("".join(word))
    if not words or not words[0] or "/" in words[0] or "=" in words[0]:
        return None
    return words


@dataclass(frozen=True)
class ApprovalScope:
    """The calls one "always approve" answer covers for the rest of the run.

    Attributes:
        tool: the tool name.
        kind: ``command`` (a command prefix), ``directory`` (files directly in a directory) or
            ``tool`` (every call of the tool).
        prefix: for ``command``, the leading words a covered command starts with.
        directory: for ``directory``, the real path of the directory.
        label: how the scope is stated to the person (``"git commit …"``, ``write_file in docs/``).
    """

    tool: str
    kind: Literal["command", "directory", "tool"]
    label: str
    prefix: tuple[str, ...] = ()
    directory: Path | None = None

    def covers(self, call: ToolCall, workspace: Workspace | None) -> bool:
        """Whether ``call`` is inside this scope (anything not provably inside is not)."""
        if call.name != self.tool:
            return False
        if self.kind == "tool":
            return True
        if self.kind == "command":
            command = call.arguments.get("command")
            words = plain_command_words(command) if isinstance(command, str) else None
            return words is not None and tuple(words[: len(self.prefix)]) == self.prefix
        path = _resolved_path(call, workspace)
        return path is not None and path.parent == self.directory


def scope_for(call: ToolCall, workspace: Workspace | None) -> ApprovalScope | None:
    """The scope "always" would have for ``call``, or None when it must not be offered.

    Never for a plan (plan mode's ``propose_plan``): each plan, revisions included, is confirmed.
    """
    if call.name == PROPOSE_PLAN:
        return None
    if call.name == "run_command":
        return _command_scope(call)
    if call.name in FILE_TOOLS:
        path = _resolved_path(call, workspace)
        if path is None or workspace is None:
            return None
        shown = workspace.relative(path.parent)
        shown = "./" if shown == "." else shown.rstrip("/") + "/"
        return ApprovalScope(call.name, "directory", f"{call.name} in {shown}", directory=path.parent)
    return ApprovalScope(call.name, "tool", call.name)


def _command_scope(call: ToolCall) -> ApprovalScope | None:
    command = call.arguments.get("command")
    words = plain_command_words(command) if isinstance(command, str) else None
    if words is None or words[0] in _WRAPPERS:
        return None
    prefix = words[:2] if len(words) > 1 and not words[1].startswith("-") else words[:1]
    if words[0] in _INTERPRETERS and len(prefix) < 2:
        return None  # ``python -c …`` or a bare shell: the code is the argument
    return ApprovalScope(call.name, "command", f'"{" ".join(prefix)} …"', prefix=tuple(prefix))


def _resolved_path(call: ToolCall, workspace: Workspace | None) -> Path | None:
    raw = call.arguments.get("path")
    if workspace is None or not isinstance(raw, str) or not raw:
        return None
    try:
        path = workspace.resolve(raw)
    except ToolRefusedError:
        return None
    return None if path == workspace.root else path
