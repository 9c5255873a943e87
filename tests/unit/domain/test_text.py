"""Walking strings of event-like data; lone surrogates made writable."""

from __future__ import annotations

from quorum.domain.events import TextDelta
from quorum.domain.text import map_strings, valid_unicode


def test_lone_surrogates_become_the_replacement_character() -> None:
    assert valid_unicode("a\ud800b\udfff") == ("a\ufffdb\ufffd", True)
    assert valid_unicode("plain é 😀") == ("plain é 😀", False)
    assert valid_unicode("a\ud800").__getitem__(0).encode("utf-8")


def test_map_strings_keeps_unchanged_objects_and_copies_changed_models() -> None:
    data = {"k": ["x", ("y", 1)], "n": None}
    assert map_strings(data, valid_unicode) == (data, False)
    assert map_strings(data, valid_unicode)[0] is data
    event = TextDelta(text="bad \ud800")
    clean, changed = map_strings(event, valid_unicode)
    assert changed and clean.text == "bad \ufffd" and event.text == "bad \ud800"
