"""``quorum mcp login NAME`` and ``quorum mcp logout NAME``: OAuth for streamable-HTTP MCP servers.

Login runs the whole authorization flow once (discovery, registration, the browser, PKCE, token
exchange) and stores the tokens; runs then use and refresh them. Tokens are never printed.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import click

from quorum.cli.errors import handled
from quorum.cli.flags import config_option
from quorum.composition.options import AppOptions
from quorum.domain.errors import UsageError
from quorum.infrastructure.terminal_text import printable


def _context(config_path: Path | None) -> tuple[Any, Any, dict[str, str]]:
    """The configured servers, the token store and the environment."""
    from quorum.cli.compose import compose
    from quorum.composition.paths import user_data_dir
    from quorum.infrastructure.mcp.auth.store import open_token_store
    from quorum.infrastructure.mcp.settings import McpSettings

    container = compose(AppOptions(config_path=config_path))
    env = dict(container.env())
    return container.settings().section(McpSettings).servers, open_token_store(env, user_data_dir()), env


@click.command("login")
@click.argument("name")
@config_option
def login(name: str, config_path: Path | None) -> None:
    """Log in to the HTTP MCP server NAME (OAuth) and store its tokens for later runs.

    Opens the authorization page in the browser (the URL is printed too; set QUORUM_NO_BROWSER=1
    to only print it) and waits for the redirect on 127.0.0.1. With grant = "client_credentials"
    no browser is needed: the token is fetched with the configured client.
    """
    from quorum.infrastructure.mcp.auth.oauth import browser_allowed
    from quorum.infrastructure.mcp.auth.oauth import login as oauth_login

    with handled():
        servers, store, env = _context(config_path)
        settings = servers.get(name)
        if settings is None:
            known = ", ".join(sorted(servers)) or "none configured"
            raise UsageError(f"no MCP server named {name!r} (configured: {known})")
        if settings.url is None:
            raise UsageError(f"MCP server {name!r} is a stdio server; only HTTP servers (url) log in")
        if not settings.auth.enabled:
            raise UsageError(f"MCP server {name!r} has [mcp.servers.{name}.auth] enabled = false")
        browser = browser_allowed(env, is_terminal=sys.stdout.isatty() and sys.stdin.isatty())

        async def show(url: str) -> None:
            click.echo(f"Open this URL to log in to {printable(name)}:\n  {url}", err=True)
            if browser:
                import webbrowser

                if webbrowser.open(url):
                    click.echo("(opened in your browser)", err=True)
            click.echo("Waiting for the browser to come back…", err=True)

        tools = asyncio.run(oauth_login(name, str(settings.url), settings.auth, store, env, show))
        where = store.location(name) or "nowhere (the server issued none)"
        click.echo(f"logged in to {printable(name)}: {tools} tools; tokens stored in {where}")


@click.command("logout")
@click.argument("name")
@config_option
def logout(name: str, config_path: Path | None) -> None:
    """Forget the tokens and client registration stored for the MCP server NAME."""
    with handled():
        _servers, store, _env = _context(config_path)
        if store.remove(name):
            click.echo(f"logged out of {printable(name)}: stored tokens removed")
        else:
            click.echo(f"no tokens stored for {printable(name)}")
