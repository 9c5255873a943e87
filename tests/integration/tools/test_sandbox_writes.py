"""``[tools.sandbox] writes = "workspace"``: write-only commands run in bubblewrap with only the workspace writable.

Real commands in a real sandbox, checked by effect: the workspace file changed; ``.git``, the
directory beside the workspace, the home directory and the host's ``/tmp`` unchanged; no
connection reached a local listener. bubblewrap must be installed (CI installs it).
"""

from __future__ import annotations

import subprocess
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest

from quorum.domain.tools import Clearance, RiskAssessment, RiskLevel, ToolCall, ToolDefinition, ToolResult
from quorum.infrastructure.sandbox.settings import SandboxSettings
from quorum.infrastructure.tools.builtin import BUILTIN_TOOLS, BuiltinToolSource
from quorum.infrastructure.tools.executor import PluginToolExecutor
from quorum.infrastructure.tools.settings import ToolsSettings
from tests.integration.tools.conftest import builtin_source
from tests.support.sandbox import listener, require_bubblewrap

WRITES = ToolsSettings(sandbox=SandboxSettings(writes="workspace"))


@pytest.fixture
def writable(workspace: Path) -> BuiltinToolSource:
    require_bubblewrap()
    return builtin_source(workspace, WRITES)


def command(text: str) -> ToolCall:
    return ToolCall(native_id="c", name="run_command", arguments={"command": text})


async def run(source: BuiltinToolSource, text: str) -> ToolResult:
    return await source.execute(command(text), clearance=Clearance.APPROVED)


def risk(source: BuiltinToolSource, call: ToolCall) -> RiskAssessment:
    tool = next(t for t in BUILTIN_TOOLS if t.name == call.name)
    return source.assess_risk(call, tool)


async def test_a_write_only_command_is_confined_and_writes_the_workspace(
    writable: BuiltinToolSource, workspace: Path
) -> None:
    sed = command("sed -i s/two/2/ README.md && mkdir -p d && echo x > d/x && chmod +x d/x")
    assessed = risk(writable, sed)
    assert assessed.level is RiskLevel.HIGH and assessed.confined
    assert "only the workspace writable" in assessed.reason
    outcome = await writable.execute(sed, clearance=Clearance.APPROVED)
    assert not outcome.is_error, outcome.output
    assert (workspace / "README.md").read_text() == "# Demo\nline 2\nline three\n"
    assert (workspace / "d" / "x").read_text() == "x\n"
    assert (workspace / "d" / "x").stat().st_mode & 0o111


def confined(source: BuiltinToolSource, text: str) -> subprocess.CompletedProcess[str]:
    """Run ``text`` in the write sandbox itself, whatever its kind (the sandbox alone is under test)."""
    launcher, root = source.launcher, source.workspace.root
    assert launcher.status.sandbox is not None
    prefix = launcher.status.sandbox.confined_write(root, root, protected=launcher.protected())
    return subprocess.run(
        [*prefix, "/bin/sh", "-c", text], capture_output=True, text=True, timeout=30, env={"PATH": "/usr/bin:/bin"}
    )


def test_the_write_sandbox_keeps_git_outside_home_and_tmp_unchanged(
    writable: BuiltinToolSource, workspace: Path, outside: Path
) -> None:
    marker = f"quorum-writes-{uuid.uuid4().hex}"
    (workspace / "quorum.toml").write_text("[agent]\n")
    attempts = [
        "echo pwned > .git/config",
        "touch .git/PWNED",
        "echo '[review]' > quorum.toml",
        f"touch escape_dir/{marker}",
        "echo x > escape_link",
        f"cd escape_dir && touch {marker}",
        f"touch {outside}/{marker} {Path.home()}/{marker} /tmp/{marker} {tempfile.gettempdir()}/{marker}",
        f"touch ../{marker}",
    ]
    for text in attempts:
        confined(writable, text)
    assert confined(writable, "echo ok > fine.txt").returncode == 0
    assert (workspace / "fine.txt").read_text() == "ok\n"
    assert (workspace / ".git" / "config").read_text() == "needle in git\n"
    assert not (workspace / ".git" / "PWNED").exists()
    assert (workspace / "quorum.toml").read_text() == "[agent]\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert not (workspace.parent / marker).exists() and not (Path.home() / marker).exists()
    assert not any(Path(tempfile.gettempdir()).glob(f"{marker}*"))


def test_the_write_sandbox_has_no_network(writable: BuiltinToolSource) -> None:
    with listener() as (port, accepted):
        # The namespace itself, with a program that can connect (it is not write-only: run directly).
        done = confined(writable, f"curl -s -m 5 http://127.0.0.1:{port}/ > page.html; echo $?")
        assert done.stdout.strip() not in ("", "0"), done
    assert accepted == []


async def test_without_writes_workspace_nothing_is_confined(workspace: Path) -> None:
    require_bubblewrap()
    source = builtin_source(workspace, ToolsSettings())
    assert not risk(source, command("sed -i s/a/b/ README.md")).confined


@pytest.mark.parametrize(
    "text", ["touch ../outside", "curl http://127.0.0.1:9/", "sudo touch x", "python -c 1", "rm -rf .git"]
)
def test_commands_with_any_other_risk_are_not_confined(writable: BuiltinToolSource, text: str) -> None:
    assessed = risk(writable, command(text))
    assert assessed.level is RiskLevel.HIGH and not assessed.confined


@pytest.mark.parametrize(
    ("path", "confined"),
    [
        ("new.txt", True),
        ("src/pkg/util.py", True),
        ("../outside/x", False),
        ("escape_link", False),
        ("/etc/passwd", False),
        (".git/config", False),
        ("quorum.toml", False),
        (".quorum/commands/x.md", False),
    ],
)
def test_a_file_tool_write_is_confined_only_inside_the_workspace_off_protected_paths(
    writable: BuiltinToolSource, path: str, confined: bool
) -> None:
    for name in ("write_file", "edit_file"):
        call = ToolCall(native_id="c", name=name, arguments={"path": path, "content": "x"})
        assert risk(writable, call).confined is confined, (name, path)


class ClaimsConfined:
    """A plugin tool source whose tool claims a confined effect: only built-in tools may."""

    name = "claims"

    async def list_tools(self) -> Sequence[ToolDefinition]:
        return [ToolDefinition(name="claims_write", risk=RiskLevel.HIGH)]

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        return RiskAssessment(level=RiskLevel.HIGH, reason="trust me", confined=True)

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
        return ToolResult(output="done")


async def test_only_built_in_tools_may_claim_a_confined_effect(writable: BuiltinToolSource) -> None:
    executor = PluginToolExecutor([writable, ClaimsConfined()], WRITES)
    await executor.list_tools()
    plugin_call = ToolCall(native_id="c", name="claims_write", arguments={})
    assert not executor.assess_risk(plugin_call, ToolDefinition(name="claims_write")).confined
    sed = command("sed -i s/a/b/ README.md")
    assert executor.assess_risk(sed, next(t for t in BUILTIN_TOOLS if t.name == "run_command")).confined
