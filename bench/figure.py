"""One of issue 38's figures: a measurement against its floor, the goal, and whether it is met.

``bench/floors.py`` makes one from each benchmark's measuring function, one after another in one
process, and prints the table ``docs/development.md`` quotes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    """``measured`` against ``floor``; ``shown`` is the figure as the goal states it (a ratio, ms above)."""

    name: str
    command: str
    measured: str
    floor: str
    shown: str
    goal: str
    met: bool

    def row(self) -> str:
        """The figure as a Markdown table row (name, command, goal, measured, met)."""
        verdict = "met" if self.met else "**not met**"
        return (
            f"| {self.name} | `{self.command}` | {self.goal} | {self.shown} "
            f"({self.measured} vs {self.floor}) | {verdict} |"
        )


def load() -> str:
    """The load average over 1 and 5 minutes, as printed beside every figure."""
    one, five, _ = os.getloadavg()
    return f"load {one:.1f} {five:.1f}"
