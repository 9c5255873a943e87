"""``quorum doctor``: the environment checks a user needs before a run, in one report."""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import click

from quorum.cli.errors import EXIT_RUN_FAILURE, handled
from quorum.cli.flags import config_option
from quorum.composition.options import AppOptions

Status = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    """One line of the report: what was checked, how it went, and what to do about it."""

    check: str
    status: Status
    detail: str


@click.command()
@config_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per check.")
def doctor(config_path: Path | None, as_json: bool) -> None:
    """Check the sandbox, provider keys, the model, MCP servers, the workspace and the run log.

    Exits 1 when a check failed (warnings alone exit 0).
    """
    from quorum.cli.compose import compose

    with handled():
        container = compose(AppOptions(config_path=config_path))
        checks = [
            *_sandbox(container),
            *_reversible(container),
            *_workspace(container),
            *_conventions(container),
            *_providers(container),
            *_model(container),
            *asyncio.run(_mcp(container)),
            *_run_log(container),
        ]
    for check in checks:
        if as_json:
            click.echo(json.dumps(asdict(check)))
        else:
            click.echo(f"{check.status.upper():<5} {check.check:<22} {check.detail}")
    if any(c.status == "fail" for c in checks):
        raise SystemExit(EXIT_RUN_FAILURE)


def _sandbox(container: Any) -> list[Check]:
    status = container.sandbox()
    if status.enforced:
        state: Status = "ok"
    elif status.mode == "required":
        state = "fail"
    else:
        state = "warn"
    return [Check("sandbox", state, f"run_command: {status.describe()}: {status.explain()}")]


def _reversible(container: Any) -> list[Check]:
    """``[tools.sandbox] writes`` and ``[review] reversible``: what they do here, or why they cannot."""
    from quorum.composition.container import reversible_premises
    from quorum.infrastructure.tools.settings import ToolsSettings

    settings = container.settings()
    status = container.sandbox()
    checks: list[Check] = []
    if settings.section(ToolsSettings).sandbox.writes == "workspace":
        if status.enforced:
            checks.append(
                Check("sandbox writes", "ok", "commands that only write run with only the workspace writable")
            )
        else:
            why = "[tools.sandbox] mode = 'off'" if status.mode == "off" else status.explain()
            checks.append(Check("sandbox writes", "warn", f"commands that write are refused: {why}"))
    premises = reversible_premises(settings)
    if premises.active:
        said = "writes confined to the workspace are approved without asking; `quorum undo RUN` takes them back"
        checks.append(Check("reversible", "ok", said))
    elif (why_not := premises.why_not()) is not None:
        checks.append(Check("reversible", "warn", f"[review] reversible = 'auto' approves nothing: {why_not}"))
    return checks


def _workspace(container: Any) -> list[Check]:
    from quorum.composition.paths import workspace_of

    workspace = workspace_of(container.settings())
    if not workspace.is_dir():
        return [Check("workspace", "fail", f"{workspace} is not a directory")]
    return [Check("workspace", "ok", str(workspace))]


def _conventions(container: Any) -> list[Check]:
    """Which AGENTS.md files, prompt commands and skills runs here get (trusted or not)."""
    from quorum.cli.commands.conventions import doctor_checks
    from quorum.infrastructure.terminal_text import printable

    return [Check(check, status, printable(detail)) for check, status, detail in doctor_checks(container)]  # type: ignore[arg-type]


def _providers(container: Any) -> list[Check]:
    """Whether each provider instance (configured, or a built-in kind's defaults) has a key."""
    settings, env = container.settings(), container.env()
    instances: dict[str, Any] = {
        entry.name: entry.settings() for entry in container.catalog().providers.entries() if entry.settings is not None
    }
    for name, instance in settings.providers.items():
        instances[name] = instance.settings
    checks = []
    for name, section in sorted(instances.items()):
        key_env = getattr(section, "api_key_env", None)
        if key_env is None:
            continue
        if getattr(section, "api_key", None) is not None:
            checks.append(Check(f"provider {name}", "ok", f"key from [providers.{name}] api_key"))
        elif env.get(key_env):
            checks.append(Check(f"provider {name}", "ok", f"key from {key_env}"))
        elif getattr(section, "base_url", None):
            checks.append(Check(f"provider {name}", "ok", f"no key needed for {section.base_url}"))
        else:
            checks.append(Check(f"provider {name}", "warn", f"no key: set {key_env} to use {name}:MODEL"))
    return checks


def _model(container: Any) -> list[Check]:
    from quorum.composition.model_choice import choose_model
    from quorum.domain.errors import QuorumError

    try:
        model = choose_model(container.settings().model, container.env())
        container.gateway().session(model)
    except QuorumError as error:
        return [Check("model", "fail", str(error))]
    return [Check("model", "ok", model)]


async def _mcp(container: Any) -> list[Check]:
    """Each server, started as ``mcp check`` does.

    A required server that fails is a failure (a run would end with exit 1); an optional one a
    warning (runs go on without its tools).
    """
    from quorum.cli.mcp_servers import check_servers, mcp_source
    from quorum.infrastructure.mcp.settings import McpSettings

    servers = container.settings().section(McpSettings).servers
    if not servers:
        return [Check("mcp", "ok", "no servers configured")]
    results = await check_servers(mcp_source(container))
    return [_mcp_check(r) for r in results]


def _mcp_check(result: dict[str, Any]) -> Check:
    name = f"mcp {result['name']}"
    kind = "required" if result["required"] else ("lazy, optional" if result["lazy"] else "optional")
    if result["ok"]:
        detail = f"started in {result['start_seconds']:.2f} s, {len(result['tools'])} tools ({kind})"
        return Check(name, "ok", detail)
    first = (result["error"] or "failed").splitlines()[0]
    if result["required"]:
        return Check(name, "fail", f"required, fails to start: a run would end with exit 1: {first}")
    return Check(name, "warn", f"{kind}, fails to start: runs go on without its tools: {first}")


def _run_log(container: Any) -> list[Check]:
    from quorum.composition.stores import open_store
    from quorum.domain.errors import QuorumError
    from quorum.infrastructure.storage.settings import StorageSettings

    settings = container.settings()
    storage = settings.section(StorageSettings)
    if not storage.enabled:
        return [Check("run log", "warn", "disabled ([storage] enabled = false): runs are not recorded")]
    try:
        store = open_store(container.catalog(), settings, container.env())
    except QuorumError as error:
        return [Check("run log", "fail", str(error))]
    path = getattr(store, "path", None)
    if path is None:
        return [Check("run log", "ok", f"backend {storage.backend}")]
    directory = Path(path).parent
    while not directory.exists() and directory != directory.parent:
        directory = directory.parent
    if not os.access(directory, os.W_OK):
        return [Check("run log", "fail", f"{path}: {directory} is not writable")]
    return [Check("run log", "ok", str(path))]
