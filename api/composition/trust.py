"""Which workspaces this invocation trusts: the user's trust store, or ``QUORUM_TRUST_WORKSPACE=1``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from quorum.composition.paths import user_config_dir, user_data_dir
from quorum.infrastructure.config.loader import TrustCheck, workspace_layout
from quorum.infrastructure.config.trust_store import TRUST_ENV, TRUST_FILE, TrustStore
from quorum.infrastructure.config.workspace import WorkspaceFiles

TRUTHY = ("1", "true", "yes", "on")


def trust_store() -> TrustStore:
    """The user's trusted workspaces (a JSON file in the user's data dir)."""
    return TrustStore(user_data_dir() / TRUST_FILE)


def trust_check(env: Mapping[str, str]) -> TrustCheck:
    """Whether a workspace is trusted with its files: ``QUORUM_TRUST_WORKSPACE=1`` trusts any, else the store."""
    if env.get(TRUST_ENV, "").strip().lower() in TRUTHY:
        return lambda _directory, _files: True

    def trusted(directory: Path, files: Sequence[Path]) -> bool:
        return trust_store().is_trusted(directory, files)

    return trusted


def files_to_trust(directory: Path, env: Mapping[str, str]) -> WorkspaceFiles:
    """The files ``directory`` brings as this invocation reads them (``QUORUM_CONFIG`` and the user config are not)."""
    chosen = Path(env["QUORUM_CONFIG"]) if env.get("QUORUM_CONFIG") else None
    return workspace_layout(directory, chosen, user_config_dir())
