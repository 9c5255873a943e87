"""Why a shell command is high-risk, as one kind: only ``writes_workspace`` may run in the write sandbox.

``command_kind`` answers with the *first* reason, in this order of precedence (a command that
both writes and reaches the network is ``network``):

- ``read_only``: the classifier calls it low (``risk.classify_command``).
- ``privilege``: ``sudo``, ``doas``, ``su``, ``pkexec``, ``chown``, ``chgrp``, ``mount``…, or a
  ``chmod`` setting set-user-ID, set-group-ID or sticky bits.
- ``network``: a program that talks to other machines (``curl``, ``wget``, ``ssh``, ``pip``…,
  ``git clone/fetch/pull/push``…).
- ``outside_workspace``: a word or redirection that may name a path outside the workspace
  (absolute, ``~``, ``..``; see ``risk.reaches_outside``), or a glob that can match ``..``.
- ``protected_path``: a word naming ``.git``, ``.quorum`` or ``quorum.toml`` (or a glob that can
  match ``quorum.toml``): checkpoints do not cover ``.git``, and the others configure Quorum.
- ``shell_features``: a parse error, a substitution, a subshell or group, a compound command, a
  ``$`` expansion, brace expansion, a here-document, a leading ``VAR=value``: what runs cannot be
  known before it runs.
- ``unknown_program``: a program on neither the read-only list (``rules.ALLOWED``) nor the
  writers list (``writers.WRITERS``), named by path or run through a wrapper (``env``,
  ``xargs``…), or used with an option its rule refuses (``sort -o``, ``find -delete``, ``sed``
  without ``-i``).
- ``writes_workspace``: every simple command is read-only or a listed writer, and output
  redirections go to workspace paths: it may create, change or remove workspace files, nothing
  else. This is the only kind ``[tools.sandbox] writes = "workspace"`` confines instead of asking.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal

from quorum.infrastructure.tools.shell.git_rule import split_git
from quorum.infrastructure.tools.shell.risk import classify_command, reaches_outside
from quorum.infrastructure.tools.shell.rules import ALLOWED
from quorum.infrastructure.tools.shell.syntax import ParsedCommand, SimpleCommand, parse_command
from quorum.infrastructure.tools.shell.writers import WRITERS

RiskKind = Literal[
    "read_only",
    "privilege",
    "network",
    "outside_workspace",
    "protected_path",
    "shell_features",
    "unknown_program",
    "writes_workspace",
]
_PRECEDENCE: tuple[RiskKind, ...] = (
    "privilege",
    "network",
    "outside_workspace",
    "protected_path",
    "shell_features",
    "unknown_program",
    "writes_workspace",
)
PRIVILEGE = frozenset({"sudo", "doas", "su", "pkexec", "chown", "chgrp", "mount", "umount", "setcap", "chroot"})
NETWORK = frozenset(
    {"curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "telnet", "ftp", "socat", "ping"}
    | {"dig", "nslookup", "host", "pip", "pip3", "npm", "npx", "yarn", "pnpm", "apt", "apt-get", "brew", "docker"}
    | {"podman", "gh", "http", "https", "aria2c", "lftp"}
)
GIT_NETWORK = frozenset({"clone", "fetch", "pull", "push", "ls-remote", "submodule", "remote", "send-email"})
PROTECTED = frozenset({".git", ".quorum", "quorum.toml"})
"""Path components an auto-approved write may not name (see the module docstring)."""
_OUTPUT = frozenset({">", ">>", "&>", "&>>", ">|", "<>"})


@dataclass(frozen=True)
class CommandKind:
    """Why a command is high-risk (or ``read_only``), and the words said to reviewers."""

    kind: RiskKind
    reason: str


def command_kind(command: str) -> CommandKind:
    """The kind of ``command`` (run with ``sh -c``); pure, never raises."""
    risk = classify_command(command)
    if risk.level.value == "low":
        return CommandKind("read_only", risk.reason)
    parsed = parse_command(command)
    found = [_whole_kind(parsed), *(_simple_kind(simple) for simple in parsed.commands)]
    for kind in _PRECEDENCE:
        if hit := next((k for k in found if k is not None and k.kind == kind), None):
            return hit
    return CommandKind("unknown_program", risk.reason)


def _whole_kind(parsed: ParsedCommand) -> CommandKind | None:
    if parsed.error or parsed.substitutions or parsed.grouping or parsed.compound or parsed.expansions:
        return CommandKind("shell_features", "what the command runs cannot be known before it runs")
    if parsed.braces:
        return CommandKind("shell_features", "brace expansion can build any path")
    for pattern in parsed.glob_patterns:
        if any(part.startswith((".", "[")) and any(c in part for c in "*?[") for part in pattern.split("/")):
            return CommandKind("outside_workspace", f"glob {pattern!r} can match '..' or hidden directories")
        if fnmatchcase("quorum.toml", pattern) or any(fnmatchcase(p, pattern.split("/")[-1]) for p in PROTECTED):
            return CommandKind("protected_path", f"glob {pattern!r} can match {', '.join(sorted(PROTECTED))}")
    return None


def _simple_kind(simple: SimpleCommand) -> CommandKind:
    first = simple.words[0] if simple.words else ""
    program = simple.program
    if simple.assignments:
        return CommandKind("shell_features", "an environment assignment can change what runs")
    if first in PRIVILEGE or program in PRIVILEGE:
        return CommandKind("privilege", f"{first if first in PRIVILEGE else program} changes privileges or ownership")
    if program in NETWORK or (program == "git" and split_git(simple.argv[1:])[1] in GIT_NETWORK):
        return CommandKind("network", f"{program} may reach the network")
    targets = [r.target for r in simple.redirections if r.target and r.target != "/dev/null"]
    if outside := next((w for w in (*simple.words[1:], *targets) if reaches_outside(w)), None):
        return CommandKind("outside_workspace", f"{outside!r} may name a path outside the workspace")
    if named := next((w for w in (*simple.words, *targets) if PROTECTED & set(w.split("/"))), None):
        return CommandKind("protected_path", f"{named!r} names .git, .quorum or quorum.toml")
    if any(r.operator in ("<<", "<<-", "<<<") for r in simple.redirections):
        return CommandKind("shell_features", "here-documents and here-strings are reviewed")
    if "/" in first or (simple.words and first != program):
        return CommandKind("unknown_program", f"{first!r} names a program by path or through a wrapper")
    return _program_kind(simple)


def _program_kind(simple: SimpleCommand) -> CommandKind:
    writes = any(r.operator in _OUTPUT and r.target != "/dev/null" for r in simple.redirections)
    program, args = (simple.words[0], list(simple.words[1:])) if simple.words else ("", [])
    if not program:
        return CommandKind("writes_workspace" if writes else "read_only", "a redirection only")
    if program in WRITERS:
        rule = WRITERS[program]
        if reason := rule(args) if rule is not None else None:
            return CommandKind("privilege" if "set-user-ID" in reason else "unknown_program", reason)
        return CommandKind("writes_workspace", f"{program} writes workspace files")
    if program in ALLOWED:
        rule = ALLOWED[program]
        if reason := rule(args) if rule is not None else None:
            return CommandKind("unknown_program", reason)
        kind: RiskKind = "writes_workspace" if writes else "read_only"
        return CommandKind(kind, f"{program} writes a workspace file through a redirection")
    return CommandKind("unknown_program", f"{program!r} is on neither the read-only nor the writers list")
