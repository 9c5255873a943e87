"""``quorum models``: the models of the configured providers, and the ``[aliases]``.

For each provider (every ``[providers.NAME]``, every provider a configured model names, and the
``openai``/``anthropic`` kinds when a key for them is found) the models come from its models
endpoint when it has one, else from the configuration. A provider that fails is one line on
stderr; the others are still listed.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import click

from quorum.cli.errors import handled
from quorum.cli.flags import config_option
from quorum.composition.options import AppOptions

ENDPOINT_TIMEOUT = 15.0
"""Seconds one provider's model list may take."""

DEFAULT_KINDS = ("openai", "anthropic")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="One JSON object per model on stdout.")
@click.option("--offline", is_flag=True, help="Only the models the configuration names; no request.")
@config_option
def models(as_json: bool, offline: bool, config_path: Path | None) -> None:
    """List the models of the configured providers (from their models endpoint) and the aliases."""
    from quorum.cli.compose import compose

    with handled():
        container = compose(AppOptions(config_path=config_path))
        gateway = container.gateway()
        rows, problems = asyncio.run(_collect(gateway, offline))
    for name, message in problems:
        click.echo(f"quorum: {name}: {' '.join(message.split())}", err=True)
    aliases = gateway.aliases()
    if as_json:
        for row in rows:
            click.echo(json.dumps(row))
        for alias, target in aliases.items():
            click.echo(json.dumps({"alias": alias, "model": target}))
    else:
        for row in rows:
            click.echo(f"{row['model']:<48}  {row['source']}")
        for alias, target in sorted(aliases.items()):
            click.echo(f"{alias:<48}  alias of {target}")
    if problems and not rows:
        raise SystemExit(1)


async def _collect(gateway: Any, offline: bool) -> tuple[list[dict[str, str]], list[tuple[str, str]]]:
    known = gateway.known_models()
    names = sorted(set(gateway.configured_names()) | set(known) | _kinds_with_keys(gateway))
    try:
        listed = await asyncio.gather(*(_listed(gateway, name, offline) for name in names))
    finally:
        await gateway.aclose()
    rows: list[dict[str, str]] = []
    problems: list[tuple[str, str]] = []
    for name, (served, problem) in zip(names, listed, strict=True):
        if problem:
            problems.append((name, problem))
        for model in known.get(name, []):
            if model not in served:
                rows.append({"provider": name, "model": f"{name}:{model}", "source": "configured"})
        rows.extend({"provider": name, "model": f"{name}:{model}", "source": "endpoint"} for model in served)
    return rows, problems


def _kinds_with_keys(gateway: Any) -> set[str]:
    """The default provider kinds a key is found for (in the environment or stored)."""
    from quorum.domain.errors import QuorumError
    from quorum.infrastructure.providers.gateway_base import SdkGateway

    found = set()
    for kind in DEFAULT_KINDS:
        try:
            provider = gateway.provider(kind)
            if isinstance(provider, SdkGateway) and provider.key_source() is not None:
                found.add(kind)
        except QuorumError:
            continue
    return found


async def _listed(gateway: Any, name: str, offline: bool) -> tuple[list[str], str | None]:
    """(the models ``name``'s endpoint lists, the problem if listing failed)."""
    from quorum.domain.errors import QuorumError
    from quorum.infrastructure.plugins.contracts import ModelCatalog

    try:
        provider = gateway.provider(name)
    except QuorumError as error:
        return [], str(error)
    if offline or not isinstance(provider, ModelCatalog):
        return [], None
    try:
        return await asyncio.wait_for(provider.list_models(), ENDPOINT_TIMEOUT), None
    except TimeoutError:
        return [], f"the models endpoint did not answer within {ENDPOINT_TIMEOUT:g} s"
    except QuorumError as error:
        return [], str(error)
    except Exception as error:  # a provider plugin's own failure: one line, never a traceback
        return [], f"{type(error).__name__}: {error}"
