"""Walking the strings of event-like data, and keeping text writable (valid Unicode)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

_LEAVES = frozenset({int, float, bool, type(None)})
"""Types that hold no string (exactly these types: a subclass of int may be anything)."""

StringMap = Callable[[str], tuple[str, bool]]
"""Maps one string to (new string, whether it changed)."""


def map_strings(value: Any, fn: StringMap) -> tuple[Any, bool]:
    """``value`` with ``fn`` applied to every string it holds, and whether anything changed.

    Walks str, mappings (keys too), lists, tuples and pydantic models (a changed model is a
    ``model_copy`` with the changed fields); other values are returned as they are. Unchanged
    parts are returned as the same objects.
    """
    # The exact built-in types are told apart first: isinstance against BaseModel or Mapping goes
    # through ABCMeta, and every event of a run is walked (redaction, valid Unicode).
    kind = type(value)
    if kind in _LEAVES:
        return value, False
    if kind is str:
        return fn(value)
    if kind is dict:
        return _map_mapping(value, fn)
    if kind is list or kind is tuple:
        return _map_sequence(value, fn)
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, BaseModel):
        update = {}
        for name, item in value.__dict__.items():
            new_item, changed = map_strings(item, fn)
            if changed:
                update[name] = new_item
        return (value.model_copy(update=update), True) if update else (value, False)
    if isinstance(value, Mapping):
        return _map_mapping(value, fn)
    if isinstance(value, list | tuple):
        return _map_sequence(value, fn)
    return value, False


def _map_mapping(value: Mapping[Any, Any], fn: StringMap) -> tuple[Any, bool]:
    changed = False
    out: dict[Any, Any] = {}
    for key, item in value.items():
        new_key, key_changed = map_strings(key, fn)
        new_item, item_changed = map_strings(item, fn)
        out[new_key] = new_item
        changed = changed or key_changed or item_changed
    return (out, True) if changed else (value, False)


def _map_sequence(value: list[Any] | tuple[Any, ...], fn: StringMap) -> tuple[Any, bool]:
    items = [map_strings(item, fn) for item in value]
    if not any(changed for _, changed in items):
        return value, False
    return type(value)(item for item, _ in items), True


def valid_unicode(text: str) -> tuple[str, bool]:
    """``text`` with lone surrogates (which no UTF-8 output can carry) replaced by U+FFFD.

    A model's JSON may escape one (U+D800 alone): decoded, that is a string Python holds but
    cannot write to a terminal, a JSON line or the run log.
    """
    if not _LONE_SURROGATE.search(text):
        return text, False
    return _LONE_SURROGATE.sub("\ufffd", text), True
