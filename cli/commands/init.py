"""``quorum init``: write a commented quorum.toml for the current directory.

Asks which provider (and model) on a terminal; ``--provider``/``--model`` answer without asking.
An existing quorum.toml is kept unless ``--force``. The workspace is trusted with the file
written (``quorum trust``): its keys are the person's own choice.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from quorum.cli.errors import handled

CHOICES: dict[str, tuple[str, str]] = {
    "openai": ("openai:gpt-4.1-mini", "OPENAI_API_KEY"),
    "anthropic": ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
    "ollama": ("ollama:llama3.2", ""),
    "scripted": ("scripted:demo", ""),
}
"""provider → (default model, key variable). ``scripted`` is offline: no key, no network."""

PROVIDER_SECTIONS = {
    "openai": """
[providers.openai]
api_key_env = "OPENAI_API_KEY"   # or store the key: quorum keys set openai
# base_url = "https://api.openai.com/v1"
""",
    "anthropic": """
[providers.anthropic]
api_key_env = "ANTHROPIC_API_KEY"   # or store the key: quorum keys set anthropic
# max_tokens = 8192
""",
    "ollama": """
[providers.ollama]                  # any OpenAI-compatible server
type = "openai"
base_url = "http://localhost:11434/v1"
""",
    "scripted": "",
}

TEMPLATE = """\
# quorum.toml — written by `quorum init`. Every section is optional; `quorum config show` prints
# the effective value of every key, `quorum config validate` checks this file. The repository's
# quorum.toml sample documents every key.

# The model runs use, as "provider:model" (or an alias below). `quorum models` lists them.
model = "{model}"
{provider_section}
[aliases]                           # short names for --model
# fast = "openai:gpt-4.1-mini"

[agent]
max_tool_turns = 10                 # turns whose tool calls run
timeout_seconds = 300               # wall-clock limit of a run

[review]
# Reviewer models vote on every high-risk call (writes, commands); empty: you are asked.
reviewers = []                      # e.g. ["openai:gpt-4.1-mini", "anthropic:claude-haiku-4-5"]
rule = "majority"

# Policy rules, checked before any vote (deny → ask → allow):
# [[review.rules]]
# decision = "deny"
# tool = "read_file"
# match = {{ path = ".env" }}

[tools]
# workspace = "."                   # where the built-in tools may read and write
disabled = []                       # tool name globs never offered, e.g. ["run_command"]

# [mcp.servers.time]
# command = "mcp-server-time"
# lazy = true
"""


@click.command()
@click.option("--provider", type=click.Choice(sorted(CHOICES)), help="Provider to configure (no question asked).")
@click.option("--model", "model", help="Model id (default: a model of the provider).")
@click.option("--force", is_flag=True, help="Overwrite an existing quorum.toml.")
def init(provider: str | None, model: str | None, force: bool) -> None:
    """Write a commented quorum.toml in the current directory."""
    from quorum.domain.errors import UsageError

    target = Path.cwd() / "quorum.toml"
    with handled():
        if target.exists() and not force:
            raise UsageError(f"{target} exists; use --force to overwrite it")
        if provider is None:
            if model is not None and ":" in model:
                provider = model.partition(":")[0]
            elif sys.stdin.isatty():
                provider = click.prompt("provider", type=click.Choice(sorted(CHOICES)), default="openai", err=True)
            else:
                raise UsageError("no terminal to ask on: name the provider with --provider (or --model provider:model)")
        default_model, key_env = CHOICES.get(provider, (f"{provider}:MODEL", ""))
        chosen = model or default_model
        if ":" not in chosen and provider != chosen:
            chosen = f"{provider}:{chosen}"
        section = PROVIDER_SECTIONS.get(provider, "")
        text = TEMPLATE.format(model=chosen, provider_section=section)
        target.write_text(text, encoding="utf-8")
        _trust_written(target)
    click.echo(f"wrote {target} (model {chosen})", err=True)
    if key_env:
        click.echo(f'next: export {key_env}=… or `quorum keys set {provider}`, then `quorum run "…"`', err=True)
    else:
        click.echo('next: quorum run "…"', err=True)


def _trust_written(target: Path) -> None:
    """Trust the workspace with the file just written: the person who wrote it is the one trusting it.

    Only when it is the workspace's one file: a parent's ``quorum.toml`` or a ``.quorum/`` file came
    with the repository, and trusting them is ``quorum trust``'s question, asked with their keys shown.
    """
    import os

    from quorum.composition.trust import files_to_trust, trust_store

    files = files_to_trust(target.parent, os.environ).files
    resolved = [path.resolve() for path in files]
    if target.resolve() not in resolved:  # QUORUM_CONFIG names it: read as the person's own already
        return
    if resolved == [target.resolve()]:
        trust_store().trust(target.parent, files)
        return
    click.echo(
        f"not trusted: {target.parent} also brings other configuration files (a parent's quorum.toml, "
        f".quorum/); review them with `quorum trust {target.parent}`",
        err=True,
    )
