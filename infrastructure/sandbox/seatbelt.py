"""macOS ``sandbox-exec`` (Seatbelt) command lines equivalent to the bubblewrap confinements.

Untested here (Quorum's CI runs on Linux): kept deliberately small. ``read_only`` denies by
default, then allows process execution, reading the system's directories and the workspace,
writing only a private temporary directory and ``/dev/null``, and no network. ``sandbox-exec`` is
deprecated by Apple but still shipped and used by other agent CLIs for the same purpose.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

_READ_ONLY = """(version 1)
(deny default)
(allow process-exec process-fork signal sysctl-read mach-lookup)
(allow file-read-metadata)
(allow file-read* (subpath "/usr") (subpath "/bin") (subpath "/sbin") (subpath "/System")
    (subpath "/Library") (subpath "/private/etc") (subpath "/etc") (subpath "/dev")
    (subpath "/private/var/db/dyld") (subpath "/opt/homebrew") (subpath (param "WORKSPACE"))
    (subpath (param "TMP")))
(allow file-write* (subpath (param "TMP")) (literal "/dev/null"))
"""

_WORKSPACE_WRITE = """(version 1)
(allow default)
(deny file-write*)
(allow file-write* (subpath (param "WORKSPACE")) (subpath (param "TMP")) (literal "/dev/null")
    (literal "/dev/tty"))
"""


@dataclass(frozen=True)
class Seatbelt:
    """Builds ``sandbox-exec`` argument vectors (macOS).

    Attributes:
        program: the ``sandbox-exec`` executable.
        tmp: a private temporary directory the command may write.
    """

    program: str
    tmp: str

    def read_only(self, workspace: Path, cwd: Path, *, replaced: Mapping[Path, Path] = {}) -> list[str]:
        """Seatbelt cannot show another file in a file's place: ``replaced`` files are denied instead."""
        return self._argv(_READ_ONLY + _denials(replaced), workspace)

    def workspace_write(self, workspace: Path, cwd: Path, *, replaced: Mapping[Path, Path] = {}) -> list[str]:
        return self._argv(_WORKSPACE_WRITE + _denials(replaced), workspace)

    def confined_write(
        self, workspace: Path, cwd: Path, *, replaced: Mapping[Path, Path] = {}, protected: Sequence[Path] = ()
    ) -> list[str]:
        """The read-only profile, with the workspace writable except ``protected`` (and ``replaced``) paths."""
        profile = _READ_ONLY + '(allow file-write* (subpath (param "WORKSPACE")))\n'
        profile += "".join(f'(deny file-write* (subpath "{path}"))\n' for path in protected)
        return self._argv(profile + _denials(replaced), workspace)

    def _argv(self, profile: str, workspace: Path) -> list[str]:
        return [self.program, "-p", profile, "-D", f"WORKSPACE={workspace}", "-D", f"TMP={self.tmp}", "--"]


def _denials(replaced: Mapping[Path, Path]) -> str:
    return "".join(f'(deny file-read* (literal "{path}"))\n' for path in replaced)
