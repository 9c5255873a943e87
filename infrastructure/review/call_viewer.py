"""``WorkspaceCallViewer``: what a built-in call will really touch or run, for policy rules to match.

Path arguments are resolved the way the file tools resolve them (workspace-relative, ``.``/``..``
collapsed, symlinks followed, absolute paths inside the workspace made relative); a path outside
the workspace is shown as its absolute real path and marked incomplete, so it can be denied but
never allowed. A ``run_command`` line is split into every simple command it runs (pipelines,
``;``/``&&``/``||``, subshells, ``$(…)``, ``sh -c`` scripts, ``find -exec``), each shown as its
normalized argv (quotes removed, program path dropped, wrappers such as ``env``/``sudo``/``xargs``
looked through); redirection other than to ``/dev/null`` or a file descriptor, ``$``-expansion,
substitution, compound commands and parse errors mark it incomplete.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from quorum.domain.errors import ToolRefusedError
from quorum.domain.policy import ArgumentView
from quorum.domain.tools import ToolCall, ToolDefinition
from quorum.infrastructure.tools.shell.syntax import ParsedCommand, parse_command
from quorum.infrastructure.tools.workspace import Workspace

COMMAND_TOOL = "run_command"
_SAFE_TARGETS = frozenset({"/dev/null"})


class WorkspaceCallViewer:
    """Implements ``CallViewer`` for the built-in tools of one workspace.

    Args:
        workspace: the workspace root; None views commands only (paths are then matched as text).
    """

    def __init__(self, workspace: Path | None) -> None:
        self._workspace = Workspace(workspace) if workspace is not None else None

    def view(self, call: ToolCall, tool: ToolDefinition | None) -> Mapping[str, ArgumentView]:
        views: dict[str, ArgumentView] = {}
        if tool is None:
            return views
        for parameter in tool.parameters:
            value = call.arguments.get(parameter.name)
            if parameter.param_type == "path" and isinstance(value, str) and self._workspace is not None:
                views[parameter.name] = self._path(value)
        command = call.arguments.get("command")
        if call.name == COMMAND_TOOL and isinstance(command, str):
            views["command"] = command_view(command)
        return views

    def _path(self, value: str) -> ArgumentView:
        assert self._workspace is not None
        try:
            return ArgumentView(forms=(self._workspace.relative(self._workspace.resolve(value)),))
        except ToolRefusedError:
            root = self._workspace.root
            expanded = os.path.expanduser(value) if value.startswith("~") else value
            joined = Path(expanded) if Path(expanded).is_absolute() else root / expanded
            try:
                real = joined.resolve()
            except (OSError, RuntimeError):
                real = Path(os.path.normpath(joined))
            return ArgumentView(forms=(str(real),), complete=False)


def command_view(command: str) -> ArgumentView:
    """The simple commands of ``command`` as normalized text, and whether they show all it does.

    Each simple command gives its argv from the real program on (``rm -f a`` for ``sudo rm -f a``)
    and, when wrappers precede it, its words as written (``sudo rm -f a``): a deny rule on either
    catches it, and an allow rule must cover both, so ``allow make test*`` does not approve
    ``sudo make test``.
    """
    parsed = parse_command(command)
    forms: list[str] = []
    for simple in parsed.commands:
        for words in (simple.argv, simple.words):
            text = " ".join(words)
            if text and text not in forms:
                forms.append(text)
    return ArgumentView(forms=tuple(forms), complete=_complete(parsed) and bool(forms))


def _complete(parsed: ParsedCommand) -> bool:
    if parsed.error or parsed.expansions or parsed.substitutions or parsed.compound or parsed.braces:
        return False
    for simple in parsed.commands:
        if simple.assignments:
            return False  # LD_PRELOAD=… make test runs more than "make test"
        for redirection in simple.redirections:
            duplicate = redirection.operator in (">&", "<&") and redirection.target.isdigit()
            if not duplicate and redirection.target not in _SAFE_TARGETS:
                return False
    return True
