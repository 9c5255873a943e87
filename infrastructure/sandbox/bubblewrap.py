"""Bubblewrap (``bwrap``) command lines for the two confinements Quorum uses on Linux.

``read_only`` (unreviewed commands): a new root holding only the operating system's directories
(read-only), the workspace (read-only), a private ``/proc`` of the sandbox's own processes, a
minimal ``/dev`` and a private empty ``/tmp``; every namespace unshared, so no network, no other
processes, no IPC; an unprivileged user in its own user namespace where the platform allows it;
a new session (no terminal to inject keys into) that dies with Quorum.

``workspace_write`` (approved commands, when ``[tools.sandbox] approved = "workspace-write"``): the
whole file system read-only, the workspace writable, a private ``/tmp``, network on.

``confined_write`` (commands that only write workspace files, when ``[tools.sandbox] writes =
"workspace"``): ``read_only``'s new root and isolation (no network, nothing of the host but the
operating system), with the workspace writable except its ``protected`` paths (``.git``,
``.quorum``, ``quorum.toml``), which stay read-only.

Files in ``/etc`` that are not world-readable (``/etc/shadow``…) are masked: when Quorum runs as
root, the sandbox user maps to root outside, so file permissions alone would not hide them. As
another user, only those that user can read are masked (its group's, its ACLs'): the sandbox user
is that user without any capability, so the kernel refuses the others inside as it does outside,
and each mask is a mount that costs every call about 0.25 ms (decision 273).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
"""The operating system's own directories, mounted read-only when they exist (symlinks kept)."""

NOBODY = 65534


@dataclass(frozen=True)
class Bubblewrap:
    """Builds ``bwrap`` argument vectors.

    Attributes:
        program: the ``bwrap`` executable (absolute path).
        user_namespace: run as ``nobody`` in a new user namespace (False where the platform forbids
            unprivileged user namespaces and bwrap is setuid).
    """

    program: str
    user_namespace: bool = True

    def read_only(self, workspace: Path, cwd: Path, *, replaced: Mapping[Path, Path] = {}) -> list[str]:
        """The prefix that runs a command confined for the unreviewed path.

        ``replaced`` maps files of the workspace to the files shown in their place (redacted copies).
        """
        args = [self.program, *self._isolation(network=False)]
        args += _system_mounts()
        args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        args += ["--ro-bind", str(workspace), str(workspace), *_replacements(replaced)]
        return [*args, "--chdir", str(cwd), "--"]

    def workspace_write(self, workspace: Path, cwd: Path, *, replaced: Mapping[Path, Path] = {}) -> list[str]:
        """The prefix that runs an approved command with only the workspace writable."""
        args = [self.program, *self._isolation(network=True)]
        args += ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        args += _masks()
        args += ["--bind", str(workspace), str(workspace), *_replacements(replaced)]
        return [*args, "--chdir", str(cwd), "--"]

    def confined_write(
        self,
        workspace: Path,
        cwd: Path,
        *,
        replaced: Mapping[Path, Path] = {},
        protected: Sequence[Path] = (),
    ) -> list[str]:
        """The prefix that runs a write-only command: ``read_only`` but the workspace writable.

        ``protected`` are existing paths inside the workspace mounted read-only over the writable one.
        """
        args = [self.program, *self._isolation(network=False)]
        args += _system_mounts()
        args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        args += ["--bind", str(workspace), str(workspace)]
        for path in protected:
            args += ["--ro-bind", str(path), str(path)]
        args += _replacements(replaced)
        return [*args, "--chdir", str(cwd), "--"]

    def _isolation(self, *, network: bool) -> list[str]:
        args = ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
        if not network:
            args.append("--unshare-net")
        if self.user_namespace:
            args += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
        else:
            args += ["--cap-drop", "ALL"]
        return [*args, "--die-with-parent", "--new-session"]


def _replacements(replaced: Mapping[Path, Path]) -> list[str]:
    args: list[str] = []
    for original, shown in replaced.items():
        args += ["--ro-bind", str(shown), str(original)]
    return args


@cache
def _system_mounts() -> tuple[str, ...]:
    args: list[str] = []
    for directory in SYSTEM_DIRS:
        path = Path(directory)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), directory]
        elif path.is_dir():
            args += ["--ro-bind", directory, directory]
    return (*args, *_masks())


@cache
def _masks() -> tuple[str, ...]:
    """Arguments hiding what in ``/etc`` is not world-readable but the sandbox's user could read (once per process)."""
    args: list[str] = []
    for path in _unreadable("/etc"):
        if not _readable_here(path):
            continue
        if path.is_dir():
            args += ["--tmpfs", str(path)]
        else:
            args += ["--ro-bind", "/dev/null", str(path)]
    return tuple(args)


def _readable_here(path: Path) -> bool:
    """Whether the sandbox's user could read ``path`` (or, a directory, list or enter it).

    True for root, and whenever the real and effective ids differ. Otherwise the sandbox's user is
    this process's real user and groups with no capability (a user namespace maps only that user
    and bwrap drops every capability; without one, ``--cap-drop ALL``), which is what ``access(2)``
    checks: the real ids, and no capability for a user other than root.
    """
    if os.getuid() == 0 or os.getuid() != os.geteuid() or os.getgid() != os.getegid():
        return True
    if path.is_dir():
        return os.access(path, os.R_OK) or os.access(path, os.X_OK)
    return os.access(path, os.R_OK)


def _unreadable(root: str) -> Sequence[Path]:
    found: list[Path] = []
    for directory, subdirs, files in os.walk(root, followlinks=False):
        for name in list(subdirs):
            mode = os.lstat(os.path.join(directory, name)).st_mode
            if stat.S_ISDIR(mode) and (mode & 0o005) != 0o005:
                found.append(Path(directory, name))
                subdirs.remove(name)
        for name in files:
            try:
                mode = os.lstat(os.path.join(directory, name)).st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode) and not mode & stat.S_IROTH:
                found.append(Path(directory, name))
    return found
