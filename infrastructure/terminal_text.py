r"""Text that is safe to print on a terminal: control and invisible characters shown, not obeyed.

Tool arguments, file contents and reviewer reasons come from models and files, so they may carry
escape sequences (an OSC 52 write to the clipboard, ``ESC [2J`` clearing the screen, a C1 ``CSI``)
or characters that reorder or hide text (bidi overrides, zero-width marks). Printed raw, they act
on the terminal and can make a reviewed call look like something else. ``printable`` replaces each
with its escape (``\x1b``, ``\u202e``), so a person sees exactly what is there.

``quoted`` shows text a person gave (a decision's reason, its ``by``) as a quotation: between
double quotes, its own quotes, backslashes and line breaks escaped, so it can neither close the
quotation nor start a line of its own, and never passes for Quorum's words around it.
"""

from __future__ import annotations

import re
import unicodedata

_KEPT = frozenset("\n\t")
# Categories never printed raw: controls (C0, DEL, C1), format characters (bidi embeddings,
# overrides and isolates, LRM/RLM, zero-width marks, soft hyphen, BOM), line/paragraph
# separators, and lone surrogates (which the stream could not even encode).
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
# Fast path: most text is plain ASCII without controls.
_PLAIN = re.compile(r"[\t\n\x20-\x7e]*")


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str) -> str:
    r"""``text`` with every control and invisible formatting character escaped.

    Newlines and tabs are kept. Escaped: C0 controls (including ``\r`` and ``ESC``), DEL, C1
    controls ``\x80``-``\x9f``, and Unicode format characters and separators (bidi controls
    U+202A-U+202E and U+2066-U+2069, U+200E/U+200F, zero-width characters, U+2028/U+2029).
    Backslashes are left alone, so the result of ``printable`` is unchanged by a second call.
    """
    if _PLAIN.fullmatch(text):
        return text
    return "".join(
        _escape(char) if char not in _KEPT and unicodedata.category(char) in _ESCAPED_CATEGORIES else char
        for char in text
    )


_QUOTE_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"})


def quoted(text: str) -> str:
    r"""``text`` as a quotation on one line: ``"…"``, its ``\``, ``"``, newlines and tabs escaped, then ``printable``.

    A backslash the person typed is doubled, so the text ``\x1b`` (shown ``\\x1b``) cannot pass
    for an escaped ESC (shown ``\x1b``).
    """
    return '"' + printable(text.translate(_QUOTE_ESCAPES)) + '"'
