"""``quorum config show`` and ``quorum config validate``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from quorum.cli.errors import handled
from quorum.cli.flags import config_option
from quorum.cli.masking import mask_config
from quorum.cli.run_log import run_log_location
from quorum.composition.options import AppOptions

if TYPE_CHECKING:  # the configuration schema is imported only when a command runs
    from quorum.infrastructure.config.schema import Settings


@click.group()
def config() -> None:
    """The effective configuration (defaults → user → ./quorum.toml → --config → QUORUM_* → flags)."""


@config.command("show")
@click.option("--json", "as_json", is_flag=True, help="As one JSON object.")
@config_option
def show(as_json: bool, config_path: Path | None) -> None:
    """Show every effective value and where it came from; secrets are masked."""
    from quorum.cli.compose import compose

    with handled():
        container = compose(AppOptions(config_path=config_path))
        settings = container.settings()
        raw = container.raw_config()
        sandbox = container.sandbox()
        redactor = container.redactor()
        keys = key_sources(container.gateway())
        run_log = run_log_location(container)
    # Masked by what looks secret, then by value: a known secret is hidden wherever it appears.
    effective, _ = redactor.data(mask_config(effective_dict(settings)))
    flat = dict(_flatten(effective))
    sources = {path: raw.source_of(path) or "default" for path in flat}
    run_command = f"{sandbox.describe()}: {sandbox.explain()}"
    if as_json:
        shown = {
            "config": effective,
            "sources": sources,
            "files": list(raw.files),
            "run_command": run_command,
            "keys": keys,
            "run_log": run_log,
        }
        click.echo(json.dumps(shown, indent=2))
        return
    click.echo("# files read: " + (", ".join(raw.files) or "(none)"))
    click.echo(f"# run_command: {run_command}")
    click.echo(f"# run log: {run_log}")
    for name, source in keys.items():
        click.echo(f"# key of provider {name}: {source or 'none found'}")
    for path, value in flat.items():
        click.echo(f"{path} = {json.dumps(value)}    # {sources[path]}")


@config.command("validate")
@config_option
def validate_command(config_path: Path | None) -> None:
    """Check the configuration; exit 2 with every problem named, or 0 if it is valid."""
    from quorum.cli.compose import compose
    from quorum.cli.name_checks import check_configured_names

    with handled():
        container = compose(AppOptions(config_path=config_path))
        check_configured_names(container)
        files = container.raw_config().files
    click.echo(f"configuration is valid ({', '.join(files) or 'defaults only'})")


def key_sources(gateway: Any) -> dict[str, str | None]:
    """Provider name → where its key comes from (``config``, ``env VAR``, ``keyring``, ``key file``).

    Configured instances, plus the ``openai``/``anthropic`` kinds when a key for them is found.
    Never the key itself.
    """
    from quorum.domain.errors import QuorumError
    from quorum.infrastructure.providers.gateway_base import SdkGateway

    configured = set(gateway.configured_names())
    found: dict[str, str | None] = {}
    for name in sorted(configured | {"openai", "anthropic"}):
        try:
            provider = gateway.provider(name)
        except QuorumError:
            continue
        if not isinstance(provider, SdkGateway):
            continue  # offline and plugin providers: no key to speak of
        try:
            source = provider.key_source()
        except QuorumError as error:
            source = f"unreadable: {error}"
        if source is not None or name in configured:
            found[name] = source
    return found


def effective_dict(settings: Settings) -> dict[str, Any]:
    """Settings as plain JSON data, provider sections included."""
    data = settings.model_dump(mode="json", by_alias=True, exclude={"providers", "extensions"})
    data["providers"] = {
        name: {"type": inst.kind, **(inst.settings.model_dump(mode="json") if inst.settings else {})}
        for name, inst in settings.providers.items()
    }
    for key, section in settings.extensions.items():
        data[key] = section.model_dump(mode="json", by_alias=True)
    return data


def _flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            yield from _flatten(v, f"{prefix}{k}.")
    else:
        yield prefix.rstrip("."), value
