"""printable: control and invisible characters are shown as escapes, everything else is left alone."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quorum.infrastructure.terminal_text import printable


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain text\n\tindented", "plain text\n\tindented"),
        ("\x1b]52;c;cm0gLXJmIH4=\x07", "\\x1b]52;c;cm0gLXJmIH4=\\x07"),  # OSC 52: a clipboard write
        ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),  # CSI: clear the screen
        ("\x9b2J", "\\x9b2J"),  # C1 CSI
        ("ok\rrm -rf ~", "ok\\x0drm -rf ~"),  # a carriage return would overwrite the line
        ("\x7f\x00\x85", "\\x7f\\x00\\x85"),
        ("txt.\u202eexe", "txt.\\u202eexe"),  # right-to-left override
        ("\u2066a\u2069 \u200e\u200f\u200b\u2028", "\\u2066a\\u2069 \\u200e\\u200f\\u200b\\u2028"),
        ("naïve → 日本語 é", "naïve → 日本語 é"),  # printable non-ASCII stays
        ("C:\\x1b", "C:\\x1b"),  # backslashes are not doubled
    ],
)
def test_escapes(raw: str, shown: str) -> None:
    assert printable(raw) == shown


@given(st.text())
def test_nothing_a_terminal_obeys_survives_and_escaping_is_stable(text: str) -> None:
    shown = printable(text)
    assert all(ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp", "Cs") for ch in shown)
    assert printable(shown) == shown
