"""run_command in the bubblewrap sandbox, checked by effect: files, outside content, network, processes, env.

Every test here runs real commands in a real sandbox. bubblewrap must be installed (CI installs
it); without it these tests skip with that reason on a developer machine and fail under CI.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from quorum.domain.secrets import Secret
from quorum.domain.tools import Clearance, RiskLevel, ToolCall, ToolResult
from quorum.infrastructure.sandbox.settings import SandboxSettings
from quorum.infrastructure.secrets import KnownSecrets
from quorum.infrastructure.tools.builtin import BuiltinToolSource
from quorum.infrastructure.tools.settings import CommandEnvSettings, ToolsSettings
from tests.integration.tools.conftest import builtin_source
from tests.support.sandbox import listener, processes_running, require_bubblewrap

PLANTED_KEY = "sk-planted-sandbox-key-0123456789"


@pytest.fixture
def environ() -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": PLANTED_KEY, "GITHUB_TOKEN": "ghp-planted-token-abcdef"}


@pytest.fixture
def sandboxed(workspace: Path, environ: dict[str, str]) -> BuiltinToolSource:
    require_bubblewrap()
    secrets = KnownSecrets((Secret("OPENAI_API_KEY", PLANTED_KEY),), frozenset({"OPENAI_API_KEY", "GITHUB_TOKEN"}))
    return builtin_source(workspace, environ=environ, secrets=secrets)


async def run(source: BuiltinToolSource, command: str, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
    call = ToolCall(native_id="c", name="run_command", arguments={"command": command})
    return await source.execute(call, clearance=clearance)


async def test_the_workspace_is_read_only(sandboxed: BuiltinToolSource, workspace: Path) -> None:
    outcome = await run(sandboxed, "cat README.md; touch created.txt; echo x >> README.md; rm src/main.py")
    assert "# Demo" in outcome.output
    assert "Read-only file system" in outcome.output
    assert not (workspace / "created.txt").exists()
    assert (workspace / "README.md").read_text() == "# Demo\nline two\nline three\n"
    assert (workspace / "src" / "main.py").exists()


async def test_nothing_outside_the_workspace_is_visible(
    sandboxed: BuiltinToolSource, workspace: Path, outside: Path
) -> None:
    outcome = await run(
        sandboxed,
        f"cat {outside}/secret.txt; cat escape_link; ls {workspace.parent}; ls /; ls -a /tmp; "
        f"ls /root /home {Path.home()} /var /mnt 2>&1; cat /etc/shadow; echo end",
    )
    assert "top secret" not in outcome.output
    listed_parent = outcome.output.split("--- stdout ---\n", 1)[1].splitlines()
    assert "outside" not in listed_parent  # the workspace's parent shows only the path down to it
    assert "root:" not in outcome.output  # /etc/shadow is masked even when the sandbox maps to root
    for name in ("proc", "usr", "tmp"):
        assert name in listed_parent
    for hidden in ("root", "home", "var", "mnt"):
        assert f"ls: cannot access '/{hidden}'" in outcome.output


async def test_the_process_dies_with_the_call_and_sees_no_other_process(sandboxed: BuiltinToolSource) -> None:
    marker = "987654"
    outcome = await run(
        sandboxed, f"sleep {marker} & ls /proc | grep -c '^[0-9]'; cat /proc/*/environ | tr '\\0' '\\n'"
    )
    assert not outcome.is_error, outcome.output
    count = int(outcome.output.split("--- stdout ---\n", 1)[1].splitlines()[0])
    assert count < 10  # the sandbox's own few processes, not the host's
    assert PLANTED_KEY not in outcome.output
    async with asyncio.timeout(10):
        while processes_running(marker, zombies=True):
            await asyncio.sleep(0.02)


async def test_no_network(sandboxed: BuiltinToolSource) -> None:
    with listener() as (port, accepted):
        outcome = await run(
            sandboxed,
            f"curl -sS -m 5 http://127.0.0.1:{port}/ ; "
            f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 5)\"",
        )
    assert outcome.is_error
    assert accepted == []


async def test_the_environment_is_minimal(sandboxed: BuiltinToolSource) -> None:
    outcome = await run(sandboxed, "printenv")
    names = {line.split("=", 1)[0] for line in outcome.output.split("--- stdout ---\n", 1)[1].splitlines()}
    assert PLANTED_KEY not in outcome.output
    assert names <= {"PATH", "HOME", "TERM", "LANG", "LANGUAGE", "TZ", "PWD", "SHLVL", "_"} | {
        n for n in names if n.startswith("LC_")
    }
    assert "HOME=/tmp" in outcome.output


async def test_git_reads_work_inside(sandboxed: BuiltinToolSource, workspace: Path) -> None:
    require_git = await run(sandboxed, "git --version")
    assert not require_git.is_error
    outcome = await run(sandboxed, "git status")
    assert "not a git repository" in outcome.output or "On branch" in outcome.output
    assert not (workspace / ".git" / "index").exists()


async def test_approved_commands_run_on_the_host_without_secrets(sandboxed: BuiltinToolSource, workspace: Path) -> None:
    outcome = await run(sandboxed, "touch approved.txt; printenv", Clearance.APPROVED)
    assert (workspace / "approved.txt").exists()
    assert PLANTED_KEY not in outcome.output
    assert "GITHUB_TOKEN" not in outcome.output
    assert f"HOME={os.environ['HOME']}" in outcome.output


async def test_command_env_passes_and_sets_deliberately(workspace: Path, environ: dict[str, str]) -> None:
    require_bubblewrap()
    settings = ToolsSettings(
        command_env=CommandEnvSettings.model_validate({"pass": ["GITHUB_TOKEN"], "set": {"X": "1"}})
    )
    secrets = KnownSecrets((), frozenset({"GITHUB_TOKEN"}))
    source = builtin_source(workspace, settings, environ=environ, secrets=secrets)
    for clearance in Clearance:
        outcome = await run(source, "printenv GITHUB_TOKEN X", clearance)
        assert "ghp-planted-token-abcdef\n1\n" in outcome.output, clearance


async def test_workspace_write_confines_approved_commands(
    workspace: Path, outside: Path, environ: dict[str, str]
) -> None:
    require_bubblewrap()
    settings = ToolsSettings(sandbox=SandboxSettings(approved="workspace-write"))
    source = builtin_source(workspace, settings, environ=environ)
    outcome = await run(
        source,
        f"touch made.txt; test -r /etc/hostname && echo READ-OK; touch /etc/quorum-planted; touch {outside}/planted",
        Clearance.APPROVED,
    )
    assert (workspace / "made.txt").exists()
    assert "READ-OK" in outcome.output  # the rest of the file system is visible, read-only
    assert not Path("/etc/quorum-planted").exists()
    assert not (outside / "planted").exists()  # under the host /tmp, which is private in the sandbox


async def test_without_a_sandbox_every_command_is_reviewed_and_none_runs_unreviewed(workspace: Path) -> None:
    settings = ToolsSettings(sandbox=SandboxSettings(program="/nonexistent/bwrap"))
    source = builtin_source(workspace, settings)
    tool = next(t for t in await source.list_tools() if t.name == "run_command")
    assert not tool.per_call_risk
    risk = source.assess_risk(ToolCall(native_id="c", name="run_command", arguments={"command": "ls"}), tool)
    assert risk.level is RiskLevel.HIGH
    assert risk.reason.startswith("no sandbox available: install bubblewrap")
    refused = await run(source, "touch unreviewed.txt")
    assert refused.is_error and "cannot run unreviewed" in refused.output
    assert not (workspace / "unreviewed.txt").exists()
    approved = await run(source, "touch approved.txt", Clearance.APPROVED)
    assert not approved.is_error and (workspace / "approved.txt").exists()


async def test_sandbox_off_runs_low_commands_on_the_host_with_a_minimal_environment(
    workspace: Path, environ: dict[str, str]
) -> None:
    settings = ToolsSettings(sandbox=SandboxSettings(mode="off"))
    source = builtin_source(workspace, settings, environ=environ)
    tool = next(t for t in await source.list_tools() if t.name == "run_command")
    risk = source.assess_risk(ToolCall(native_id="c", name="run_command", arguments={"command": "ls"}), tool)
    assert risk.level is RiskLevel.LOW
    outcome = await run(source, "printenv; touch off.txt")
    assert PLANTED_KEY not in outcome.output
    assert (workspace / "off.txt").exists()  # nothing enforces read-only: the classifier alone guards
