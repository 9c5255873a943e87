"""Running the real ``quorum`` CLI as a subprocess in an isolated workspace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


@dataclass
class Cli:
    """Runs ``quorum`` with a private HOME/config/data dir and no provider keys."""

    workspace: Path
    env: dict[str, str]

    def __call__(self, *args: str, input: str | None = None, timeout: float = 60, **env: str) -> Result:
        proc = subprocess.run(
            [sys.executable, "-m", "quorum.cli.main", *args],
            cwd=self.workspace,
            env={**self.env, **env},
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def write(self, name: str, text: str) -> Path:
        path = self.workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path


def isolated_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUORUM_", "OPENAI_", "ANTHROPIC_"))}
    env.update(
        HOME=str(root / "home"),
        XDG_CONFIG_HOME=str(root / "config"),
        XDG_DATA_HOME=str(root / "data"),
        XDG_CACHE_HOME=str(root / "cache"),
        QUORUM_DB=str(root / "runs.db"),
        PYTHONUNBUFFERED="1",
        QUORUM_TRUST_WORKSPACE="1",  # tests configure their own workspace; trust is tested without it
    )
    return env


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return Cli(workspace, isolated_env(tmp_path))
