"""The lines an edit changed, numbered, with a little context: the edit as the model should see it."""

from __future__ import annotations

CONTEXT_LINES = 2
MAX_SHOWN = 30
"""Most changed lines shown; a longer replacement shows its first and last lines around a gap."""


def edited_lines(text: str, first: int, count: int) -> str:
    """Lines ``first``..``first + count - 1`` of ``text`` (1-based) with ``CONTEXT_LINES`` around, numbered.

    Changed lines are marked ``>``; a replacement longer than ``MAX_SHOWN`` lines shows its start
    and its end with a line saying how many were left out.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "" and text.endswith("\n"):
        lines.pop()
    last = min(first + max(count, 1) - 1, max(len(lines), 1))
    start, end = max(first - CONTEXT_LINES, 1), min(last + CONTEXT_LINES, len(lines))
    width = len(str(end))
    numbers = list(range(start, end + 1))
    if last - first + 1 > MAX_SHOWN:
        half = MAX_SHOWN // 2
        numbers = [n for n in numbers if n < first + half or n > last - half]
    shown: list[str] = []
    for index, number in enumerate(numbers):
        if index and number != numbers[index - 1] + 1:
            shown.append(f"{'':>{width}}   … {number - numbers[index - 1] - 1} lines …")
        mark = ">" if first <= number <= last else " "
        shown.append(f"{number:>{width}} {mark} {lines[number - 1] if number <= len(lines) else ''}")
    return "\n".join(shown)
