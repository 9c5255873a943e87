"""The whole-buffer RE2 scan finds exactly the lines a per-line search finds (the prefilter misses nothing)."""

from __future__ import annotations

import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from quorum.infrastructure.tools.blocking import NEVER
from quorum.infrastructure.tools.files.grep_scan import as_searchable, matching_lines
from quorum.infrastructure.tools.files.patterns import compile_pattern

PATTERNS = ["a", "^a", "a$", "^$", "ab|ba", r"a\s+b", "é.", r"\bab\b", "[^a]b", r"\Ab", r"b\z", "(?i)A", ".", "a*"]


def per_line(pattern: str, data: bytes) -> list[tuple[int, str]]:
    """The reference: split into lines as read_file shows them, RE2 on each line alone."""
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    regex = re2.compile(pattern)
    return [(n, line.rstrip("\r")) for n, line in enumerate(lines, 1) if regex.search(line.rstrip("\r"))]


@settings(max_examples=300, deadline=None)
@given(data=st.lists(st.sampled_from([b"a", b"b", b" ", b"\n", b"\r\n", "é".encode(), b"\xff"]), max_size=40))
def test_the_buffer_scan_agrees_with_a_per_line_search(data: list[bytes]) -> None:
    raw = b"".join(data)
    for source in PATTERNS:
        pattern = compile_pattern(source)
        assert pattern.engine == "re2"
        found = [(n, line.decode("utf-8")) for n, line in matching_lines(pattern, as_searchable(raw), 10_000, NEVER)]
        assert found == per_line(source, raw), source


def test_whole_text_anchors_switch_the_prefilter_off() -> None:
    assert compile_pattern(r"\Afoo").buffer is None
    assert compile_pattern(r"(?i-m)foo").buffer is None
    assert compile_pattern("foo").buffer is not None


def test_patterns_re2_refuses_fall_back_to_python_and_invalid_ones_are_refused() -> None:
    assert compile_pattern(r"(a)\1").engine == "python"
    assert compile_pattern(r"(?<=a)b").engine == "python"
    assert "invalid" in compile_pattern(r"(?=x)").why_fallback
    assert compile_pattern("(a+)+$").engine == "re2"
