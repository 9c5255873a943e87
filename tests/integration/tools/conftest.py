from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest

from quorum.infrastructure.sandbox.detect import sandbox_status
from quorum.infrastructure.secrets import KnownSecrets
from quorum.infrastructure.tools.builtin import BuiltinToolSource
from quorum.infrastructure.tools.settings import ToolsSettings
from quorum.infrastructure.tools.shell.launch import CommandLauncher


def builtin_source(
    workspace: Path,
    settings: ToolsSettings | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    secrets: KnownSecrets | None = None,
) -> BuiltinToolSource:
    """The built-in tools as the plugin builds them, over ``settings`` (its sandbox mode included)."""
    settings = settings or ToolsSettings()
    status = sandbox_status(settings.sandbox.mode, settings.sandbox.program)
    root = workspace.resolve()
    launcher = CommandLauncher(root, settings, status, os.environ if environ is None else environ, secrets)
    return BuiltinToolSource(root, settings, launcher)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory beside the workspace holding a secret the tools must never reach."""
    out = tmp_path / "outside"
    out.mkdir()
    (out / "secret.txt").write_text("top secret\n")
    return out


@pytest.fixture
def workspace(tmp_path: Path, outside: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src" / "pkg").mkdir(parents=True)
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("needle in git\n")
    (ws / "README.md").write_text("# Demo\nline two\nline three\n")
    (ws / "src" / "main.py").write_text("def main():\n    return 'needle'\n")
    (ws / "src" / "pkg" / "util.py").write_text("NEEDLE = 1\nneedle = 2\n")
    (ws / "src" / "notes.txt").write_text("a needle here\n")
    (ws / "image.bin").write_bytes(b"\x89PNG\x00\x01needle\x02" * 10)
    (ws / "escape_link").symlink_to(outside / "secret.txt")
    (ws / "escape_dir").symlink_to(outside, target_is_directory=True)
    (ws / "inner_link").symlink_to(ws / "README.md")
    return ws


@pytest.fixture
def source(workspace: Path) -> BuiltinToolSource:
    return builtin_source(workspace, ToolsSettings(output_limit_bytes=2000))
