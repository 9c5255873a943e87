"""Redacted stand-ins for the workspace's files that hold secrets, shown in their place in the sandbox.

Redacting outputs cannot stop a command that transforms what it reads (``tr``, ``cut -c``, ``base64``
of ``./quorum.toml``): the key would leave in pieces or encoded. So inside the sandbox a
configuration file that holds a secret is replaced by a copy with every secret value already
redacted; the real file never enters the sandbox.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from quorum.domain.secrets import Redactor


class RedactedCopies:
    """Copies, in a private temporary directory, of ``files`` that lie in ``workspace`` and hold a secret.

    ``replaced`` maps each real file to its copy. Files outside the workspace, unreadable or
    without a secret are left out. ``close`` removes the copies (idempotent).
    """

    def __init__(self, files: Iterable[Path], workspace: Path, redactor: Redactor) -> None:
        self.replaced: dict[Path, Path] = {}
        self._directory: Path | None = None
        if not redactor:
            return
        for file in files:
            real = Path(file).resolve()
            if workspace not in real.parents:
                continue
            try:
                text = real.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            clean, changed = redactor.redact(text)
            if changed:
                if self._directory is None:
                    self._directory = Path(tempfile.mkdtemp(prefix="quorum-redacted-"))
                copy = self._directory / f"{len(self.replaced)}-{real.name}"
                copy.write_text(clean, encoding="utf-8")
                copy.chmod(0o644)  # readable by the sandbox's unprivileged user
                self.replaced[real] = copy

    def close(self) -> None:
        if self._directory is not None:
            with contextlib.suppress(OSError):
                shutil.rmtree(self._directory)
            self._directory = None
