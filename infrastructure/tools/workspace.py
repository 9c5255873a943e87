"""Workspace confinement: every path a built-in tool touches is resolved inside one directory."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from quorum.domain.errors import ToolRefusedError
from quorum.domain.text import valid_unicode


def printable(name: str) -> str:
    r"""A file name as text that can be printed and stored: bytes that are not UTF-8 shown as ``\xNN``.

    Python decodes such bytes in names to lone surrogates, which no UTF-8 output can carry.
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return name


def resolved_dir(path: str | Path) -> Path:
    """``path`` with ``~`` expanded, made absolute and its symlinks followed, as ``Path.resolve`` does.

    Kept per process for each (path, current directory): a run builds several views of its
    workspace (the prompt, the review's human step and rule viewer, the hooks), and each
    ``resolve`` looks at every part of the path. The paths tools touch are resolved each time.
    """
    return _resolved(str(path), os.getcwd())


@functools.lru_cache(maxsize=64)
def _resolved(path: str, cwd: str) -> Path:
    return Path(path).expanduser().resolve()


class Workspace:
    """The directory built-in tools act in.

    ``resolve`` accepts paths relative to the root, or absolute paths inside it. It refuses, with a
    ``ToolRefusedError`` the model can act on, paths that climb out with ``..``, absolute paths
    elsewhere, and paths that lead out through a symlink (checked on the fully resolved path, so
    a link anywhere along the way counts).
    """

    def __init__(self, root: Path) -> None:
        self.root = resolved_dir(root)

    def resolve(self, path: str | None, *, default: str = ".") -> Path:
        """The real path of ``path`` inside the workspace (it need not exist)."""
        raw = default if path is None or path == "" else str(path)
        if "\x00" in raw:
            raise ToolRefusedError(f"path {raw!r} contains a NUL byte; give the path without it")
        if valid_unicode(raw)[1]:
            raise ToolRefusedError(
                f"path {raw!r} is not valid Unicode (it holds a lone surrogate); list_dir shows the names"
            )
        candidate = Path(os.path.expanduser(raw)) if raw.startswith("~") else Path(raw)
        joined = candidate if candidate.is_absolute() else self.root / candidate
        lexical = Path(os.path.normpath(joined))
        if not self._inside(lexical):
            where = "is outside" if candidate.is_absolute() else "climbs out of"
            raise ToolRefusedError(f"path {raw!r} {where} the workspace {self.root}; use a path inside it")
        try:
            real = joined.resolve()
        except RuntimeError as error:  # Python 3.11 raises this for a symbolic link loop
            raise ToolRefusedError(f"path {raw!r} is a symbolic link loop; refused (choose another path)") from error
        if not self._inside(real):
            raise ToolRefusedError(
                f"path {raw!r} leads outside the workspace through a symbolic link (to {real}); refused "
                "(use a path inside the workspace)"
            )
        return real

    def relative(self, path: Path) -> str:
        """``path`` as shown to the model: relative to the root, ``.`` for the root itself."""
        try:
            rel = path.relative_to(self.root)
        except ValueError:
            return printable(str(path))
        return printable(str(rel)) if str(rel) != "." else "."

    def contains(self, path: Path) -> bool:
        """Whether the real path of ``path`` is inside the workspace (``False`` for a link loop)."""
        try:
            return self._inside(path.resolve())
        except (RuntimeError, OSError):
            return False

    def _inside(self, path: Path) -> bool:
        return path == self.root or self.root in path.parents
