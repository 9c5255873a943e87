"""grep_search's regular expressions: RE2 (linear time, cannot hang), Python ``re`` only as a fallback.

RE2 runs in time linear in the text whatever the pattern, so ``(a+)+$`` over a line of ``a``s is
as fast as ``abc``. It lacks backreferences and lookaround; a pattern only Python's engine accepts
is searched by ``regex_fallback`` in a child process with a time budget per file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from quorum.domain.errors import ToolRefusedError

# Per-line semantics survive a whole-buffer search in multi-line mode except for these: they anchor
# at the start or end of the whole text, or switch multi-line mode off again.
_WHOLE_TEXT_CONSTRUCTS = re.compile(r"\\[Az]|\(\?[a-zA-Z]*-")


@dataclass(frozen=True)
class Pattern:
    r"""A compiled ``grep_search`` pattern.

    Attributes:
        source: the pattern as the model wrote it.
        engine: ``re2``, or ``python`` when only Python's ``re`` accepts it (searched out of process).
        line: for RE2, the compiled pattern searched against one line (bytes, UTF-8).
        buffer: for RE2, the same pattern in multi-line mode, to find candidate lines in a whole
            file at C speed; ``None`` when the pattern anchors on the whole text (``\A``, ``\z``).
        why_fallback: RE2's complaint, for the result note, when ``engine`` is ``python``.
    """

    source: str
    engine: Literal["re2", "python"]
    line: Any = None
    buffer: Any = None
    why_fallback: str = ""


def _re2_compile(pattern: str) -> tuple[Any, Any]:
    import re2  # lazily: a C extension that ``quorum --help`` does not need

    options = re2.Options()
    options.log_errors = False  # else RE2 prints every rejected pattern on stderr
    line = re2.compile(pattern, options)
    buffer = None if _WHOLE_TEXT_CONSTRUCTS.search(pattern) else re2.compile(f"(?m){pattern}", options)
    return line, buffer


def compile_pattern(pattern: str) -> Pattern:
    """Compile ``pattern`` with RE2, or check it with Python's ``re`` when RE2 refuses it.

    Raises:
        ToolRefusedError: neither engine accepts the pattern.
    """
    import re2

    try:
        line, buffer = _re2_compile(pattern)
        return Pattern(source=pattern, engine="re2", line=line, buffer=buffer)
    except re2.error as error:
        message = error.args[0] if error.args else error
        why = message.decode("utf-8", "replace") if isinstance(message, bytes) else str(message)
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError) as error:
        raise ToolRefusedError(f"pattern {pattern!r} is not a valid regular expression: {why}; {error}") from error
    return Pattern(source=pattern, engine="python", why_fallback=why)
