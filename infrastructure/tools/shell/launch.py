"""``CommandLauncher``: for each ``run_command`` call, its risk and how it runs (sandbox, environment).

The classifier (``risk``) decides what needs review; the sandbox enforces what runs
without one. Unreviewed commands run only in the sandbox (or, with ``[tools.sandbox] mode = "off"``,
on the host), always with a minimal environment; approved commands run on the host (or confined
with ``approved = "workspace-write"``) with the user's environment minus every known secret.

With ``[tools.sandbox] writes = "workspace"``, a command whose only risk is writing workspace files
(``kinds.command_kind`` says ``writes_workspace``) is assessed ``confined`` and, whoever approved
it, runs in the sandbox's ``confined_write`` (workspace writable but ``.git``, ``.quorum`` and
``quorum.toml``; no network; nothing else of the host), with the same environment as any approved
command. Without a working sandbox such a command is refused rather than run on the host.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from quorum.domain.errors import ToolRefusedError
from quorum.domain.tools import Clearance, RiskAssessment, RiskLevel
from quorum.infrastructure.sandbox.detect import SandboxStatus
from quorum.infrastructure.sandbox.environment import (
    SANDBOX_HOME,
    SANDBOX_PATH,
    host_environment,
    minimal_environment,
)
from quorum.infrastructure.secrets import KnownSecrets
from quorum.infrastructure.tools.settings import ToolsSettings
from quorum.infrastructure.tools.shell.kinds import PROTECTED, command_kind
from quorum.infrastructure.tools.shell.risk import classify_command

SHELL = "/bin/sh"


@dataclass(frozen=True)
class Launch:
    """How one command runs: the whole argument vector (ending in ``sh -c COMMAND``) and its environment."""

    argv: list[str]
    env: dict[str, str]


class CommandLauncher:
    """Decides the risk of a command and builds its launch.

    Args:
        workspace: the workspace root (real path).
        settings: ``[tools]`` (``sandbox``, ``command_env``).
        status: the sandbox of this process (``sandbox_status``).
        environ: Quorum's environment as the container saw it.
        secrets: what must never reach a child's environment.
        replaced: files of the workspace shown in the sandbox as other files (redacted copies).
    """

    def __init__(
        self,
        workspace: Path,
        settings: ToolsSettings,
        status: SandboxStatus,
        environ: Mapping[str, str],
        secrets: KnownSecrets | None = None,
        replaced: Mapping[Path, Path] | None = None,
    ) -> None:
        self._workspace = workspace
        self._settings = settings
        self.status = status
        self._environ = dict(environ)
        self._secrets = secrets or KnownSecrets()
        self.redactor = self._secrets.redactor()
        """Replaces the known secrets (in a command's live output line)."""
        self._replaced = dict(replaced or {})

    def assess(self, command: str) -> RiskAssessment:
        """The classifier's verdict; without a working sandbox (mode not ``off``) every command is high."""
        if self.status.reviews_every_command:
            return RiskAssessment(level=RiskLevel.HIGH, reason=self.status.no_sandbox_reason())
        risk = classify_command(command)
        if risk.level is RiskLevel.HIGH and self.status.enforced and self._confines_writes(command):
            return RiskAssessment(
                level=RiskLevel.HIGH,
                reason=f"it may write workspace files ({risk.reason}); runs in the {self.status.backend} "
                "sandbox with only the workspace writable and no network",
                confined=True,
            )
        if risk.level is RiskLevel.LOW and self.status.enforced:
            return RiskAssessment(
                level=RiskLevel.LOW, reason=f"{risk.reason}; runs in the {self.status.backend} sandbox"
            )
        return risk

    def launch(self, command: str, cwd: Path, clearance: Clearance) -> Launch:
        """The launch of ``command`` in ``cwd`` for a call of ``clearance``.

        Raises:
            ToolRefusedError: the call cannot run as its clearance requires (an unreviewed command
                with no sandbox; a confined approved command with no sandbox).
        """
        sandbox = self.status.sandbox
        shell = [SHELL, "-c", command]
        command_env = self._settings.command_env
        if clearance is Clearance.UNREVIEWED:
            if sandbox is not None:
                env = minimal_environment(self._environ, command_env, path=SANDBOX_PATH, home=SANDBOX_HOME)
                return Launch([*sandbox.read_only(self._workspace, cwd, replaced=self._replaced), *shell], env)
            if self.status.mode != "off":
                raise ToolRefusedError(f"run_command cannot run unreviewed: {self.status.no_sandbox_reason()}")
            home = self._environ.get("HOME")
            return Launch(shell, minimal_environment(self._environ, command_env, path=None, home=home))
        env = host_environment(self._environ, command_env, self._secrets)
        if self.status.mode != "off" and self._confines_writes(command):
            if sandbox is None:
                raise ToolRefusedError(
                    "commands that write must run confined ([tools.sandbox] writes = 'workspace'), "
                    f"but {self.status.no_sandbox_reason()}"
                )
            confined = sandbox.confined_write(self._workspace, cwd, replaced=self._replaced, protected=self.protected())
            return Launch([*confined, *shell], env)
        if self._settings.sandbox.approved == "workspace-write" and self.status.mode != "off":
            if sandbox is None:
                raise ToolRefusedError(
                    "approved commands must run confined ([tools.sandbox] approved = 'workspace-write'), "
                    f"but {self.status.no_sandbox_reason()}"
                )
            return Launch([*sandbox.workspace_write(self._workspace, cwd, replaced=self._replaced), *shell], env)
        return Launch(shell, env)

    def _confines_writes(self, command: str) -> bool:
        """Whether ``command`` runs in the write sandbox: ``writes = "workspace"`` and its only risk is writing."""
        return self._settings.sandbox.writes == "workspace" and command_kind(command).kind == "writes_workspace"

    def protected(self) -> list[Path]:
        """The workspace's ``.git``, ``.quorum`` and ``quorum.toml`` that exist (not links): kept read-only."""
        found = [self._workspace / name for name in sorted(PROTECTED)]
        return [path for path in found if path.exists() and not path.is_symlink()]
