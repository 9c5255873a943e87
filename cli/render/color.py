"""Whether to color: ``--color auto|always|never``, then ``NO_COLOR`` and ``FORCE_COLOR``, then the stream."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TextIO

ColorChoice = Literal["auto", "always", "never"]


def use_color(choice: ColorChoice, stream: TextIO, env: Mapping[str, str]) -> bool:
    """Color for ``stream``?

    An explicit ``--color always|never`` wins; under ``auto``, a non-empty ``NO_COLOR`` turns
    color off (no-color.org), a non-empty ``FORCE_COLOR`` other than ``0`` turns it on
    (force-color.org), and otherwise a terminal gets color unless ``TERM=dumb``.
    """
    if choice != "auto":
        return choice == "always"
    if env.get("NO_COLOR"):
        return False
    force = env.get("FORCE_COLOR")
    if force and force != "0":
        return True
    return is_terminal(stream) and env.get("TERM") != "dumb"


def is_terminal(stream: TextIO) -> bool:
    """``stream.isatty()``, false for streams without it or closed ones."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
