"""A session's composition: the configuration read in the client's ``cwd``, the client's MCP servers added.

``session_container`` builds it as ``quorum run`` would in that directory (the user's config,
``./quorum.toml`` there, ``--config``, ``QUORUM_*``), with the workspace set to ``cwd`` and the
client's MCP servers as the last layer, so they get the configured servers' rules. The human step
asks through the prompt the session installs (``interactive``: a person is present).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quorum.acp.client_inputs import server_tables

if TYPE_CHECKING:
    from quorum.composition.container import Container


def session_container(
    workspace: Path, mcp_servers: Sequence[Any], config_path: Path | None, *, trusted: bool = False
) -> Container:
    """The composition of a session in ``workspace`` (see the module docstring).

    ``trusted``: the editor said to use the workspace's files for this session (``trust_question``);
    otherwise they are read through the trust gate.

    Raises:
        ConfigurationError: the configuration is invalid (read when first used).
        UsageError: a client MCP server of a kind not supported.
    """
    from quorum.composition.container import build_container
    from quorum.composition.options import AppOptions
    from quorum.composition.paths import user_config_dir
    from quorum.composition.trust import trust_check
    from quorum.infrastructure.config.loader import RawConfig, collect_layers

    overrides: dict[str, Any] = {"tools": {"workspace": str(workspace)}}

    def layers() -> RawConfig:
        return collect_layers(
            cwd=workspace,
            env=os.environ,
            user_config_dir=user_config_dir(),
            config_path=config_path,
            overrides=overrides,
            trusted=(lambda _directory, _files: True) if trusted else trust_check(os.environ),
        )

    configured = layers().data.get("mcp", {}).get("servers", {})
    tables = server_tables(mcp_servers, configured)
    if tables:
        overrides["mcp"] = {"servers": tables}
    options = AppOptions(config_path=config_path, overrides=overrides, interactive=True)
    return build_container(options, raw_config=layers())


def untrusted_keys(workspace: Path, config_path: Path | None) -> tuple[Any, ...]:
    """The restricted keys of ``workspace``'s files left out because it is not trusted (``Finding``s)."""
    from quorum.composition.paths import user_config_dir
    from quorum.composition.trust import trust_check
    from quorum.infrastructure.config.loader import collect_layers

    raw = collect_layers(
        cwd=workspace,
        env=os.environ,
        user_config_dir=user_config_dir(),
        config_path=config_path,
        trusted=trust_check(os.environ),
    )
    return tuple(raw.untrusted)
