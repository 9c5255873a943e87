"""Whether a sandbox works here: probed once per process by running ``true`` in it.

The binary's presence proves nothing (containers and some distributions forbid the user
namespaces bubblewrap needs), so each candidate confinement is tried for real.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from quorum.infrastructure.sandbox.bubblewrap import Bubblewrap
from quorum.infrastructure.sandbox.seatbelt import Seatbelt
from quorum.infrastructure.sandbox.settings import SandboxMode

PROBE_TIMEOUT = 10.0
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap)"


class Sandbox(Protocol):
    """A way to confine one command: each method returns the argv prefix to put before ``sh -c …``.

    ``replaced`` maps files inside the workspace to files shown in their place (redacted copies of
    configuration files holding secrets); a sandbox that cannot substitute must hide them.
    """

    def read_only(self, workspace: Path, cwd: Path, *, replaced: Mapping[Path, Path] = ...) -> list[str]:
        """Workspace and system read-only, nothing else visible, no network."""
        ...

    def workspace_write(self, workspace: Path, cwd: Path, *, replaced: Mapping[Path, Path] = ...) -> list[str]:
        """Workspace writable, the rest read-only, network on."""
        ...

    def confined_write(
        self, workspace: Path, cwd: Path, *, replaced: Mapping[Path, Path] = ..., protected: Sequence[Path] = ...
    ) -> list[str]:
        """Like ``read_only`` (no network, nothing else visible) but the workspace writable, except ``protected``."""
        ...


@dataclass(frozen=True)
class SandboxStatus:
    """How ``run_command`` runs in this process.

    Attributes:
        mode: ``[tools.sandbox] mode``.
        sandbox: the working sandbox, or None (mode ``off``, or none works).
        backend: its name (``bubblewrap``, ``bubblewrap (no user namespace)``, ``sandbox-exec``).
        problem: why no sandbox works (None when one does, or the mode is ``off``).
    """

    mode: SandboxMode
    sandbox: Sandbox | None = None
    backend: str | None = None
    problem: str | None = None

    @property
    def enforced(self) -> bool:
        """Unreviewed commands run confined."""
        return self.sandbox is not None

    @property
    def reviews_every_command(self) -> bool:
        """No sandbox in ``auto``/``required`` mode: every ``run_command`` call goes to review."""
        return self.sandbox is None and self.mode != "off"

    def describe(self) -> str:
        """How ``run_command`` will run, in a few words (``quorum tools list``, ``doctor``)."""
        if self.sandbox is not None:
            return f"sandboxed ({self.backend})"
        if self.mode == "off":
            return "sandbox off"
        return "no sandbox: every call reviewed"

    def explain(self) -> str:
        """What that means for the user, in one sentence."""
        if self.sandbox is not None:
            return "read-only commands run unreviewed in the sandbox; others are reviewed"
        if self.mode == "off":
            return "the classifier alone decides: read-only commands run unreviewed and unconfined"
        return self.no_sandbox_reason()

    def no_sandbox_reason(self) -> str:
        """The reason shown to reviewers and in errors when no sandbox works."""
        return f"no sandbox available: {INSTALL_HINT}" + (f" ({self.problem})" if self.problem else "")


_probed: dict[tuple[str, str], tuple[Sandbox | None, str | None, str | None]] = {}


def sandbox_status(mode: SandboxMode, program: str = "bwrap") -> SandboxStatus:
    """The sandbox of this process for ``mode``; the probe runs at most once per program."""
    if mode == "off":
        return SandboxStatus(mode=mode)
    key = (sys.platform, program)
    if key not in _probed:
        _probed[key] = _probe(program)
    sandbox, backend, problem = _probed[key]
    return SandboxStatus(mode=mode, sandbox=sandbox, backend=backend, problem=problem)


def _probe(program: str) -> tuple[Sandbox | None, str | None, str | None]:
    if sys.platform == "darwin":
        found = shutil.which("sandbox-exec")
        if found is None:
            return None, None, "sandbox-exec not found"
        seatbelt = Seatbelt(found, tempfile.gettempdir())
        problem = _try(seatbelt)
        return (seatbelt, "sandbox-exec", None) if problem is None else (None, None, problem)
    if not sys.platform.startswith("linux"):
        return None, None, f"no sandbox for platform {sys.platform}"
    found = shutil.which(program)
    if found is None:
        return None, None, f"{program!r} not found"
    problems = []
    for candidate, backend in (
        (Bubblewrap(found, user_namespace=True), "bubblewrap"),
        (Bubblewrap(found, user_namespace=False), "bubblewrap (no user namespace)"),
    ):
        problem = _try(candidate)
        if problem is None:
            return candidate, backend, None
        problems.append(problem)
    return None, None, problems[0]


def _try(sandbox: Sandbox) -> str | None:
    """None when ``true`` runs in ``sandbox``'s read-only confinement, else what went wrong."""
    with tempfile.TemporaryDirectory(prefix="quorum-probe-") as tmp:
        root = Path(tmp).resolve()
        argv = [*sandbox.read_only(root, root), "/bin/sh", "-c", "true"]
        try:
            done = subprocess.run(
                argv, capture_output=True, timeout=PROBE_TIMEOUT, env={"PATH": "/usr/bin:/bin"}, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"{Path(argv[0]).name} failed to start: {error}"
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        return f"{Path(argv[0]).name} exited {done.returncode}" + (f": {message[-1]}" if message else "")
    return None
