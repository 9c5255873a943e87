"""Secrets Quorum knows, and the rule that keeps their values out of everything it writes.

A ``Redactor`` holds named secret values (provider keys, header values, MCP server env values…) and
replaces every occurrence of a value in a text with ``[REDACTED:NAME]``. Values shorter than
``MIN_SECRET_LENGTH`` are ignored: replacing ``"1"`` or ``"true"`` everywhere would wreck outputs
while protecting nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from quorum.domain.text import map_strings

MIN_SECRET_LENGTH = 8


@dataclass(frozen=True)
class Secret:
    """One secret: where it comes from (``providers.openai.api_key``, ``OPENAI_API_KEY``) and its value."""

    name: str
    value: str

    def __repr__(self) -> str:  # never show the value, even in a traceback
        return f"Secret(name={self.name!r}, value=***)"


class Redactor:
    """Replaces known secret values by ``[REDACTED:NAME]``.

    Longer values are matched first, so a secret containing another secret is replaced whole.
    When two names share one value, the first given wins. A redactor with no secrets returns
    every text unchanged at the cost of one attribute check.
    """

    __slots__ = ("_names", "_pattern", "secrets")

    def __init__(self, secrets: Iterable[Secret] = ()) -> None:
        names: dict[str, str] = {}
        for secret in secrets:
            if len(secret.value) >= MIN_SECRET_LENGTH and secret.value not in names:
                names[secret.value] = secret.name
        self._names = names
        self.secrets = tuple(Secret(name, value) for value, name in names.items())
        ordered = sorted(names, key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(v) for v in ordered)) if ordered else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    @property
    def names(self) -> frozenset[str]:
        """The names of the secrets this redactor replaces."""
        return frozenset(self._names.values())

    def redact(self, text: str) -> tuple[str, bool]:
        """``text`` with every secret value replaced, and whether anything was."""
        if self._pattern is None or not text:
            return text, False
        replaced = self._pattern.sub(lambda m: f"[REDACTED:{self._names[m.group(0)]}]", text)
        return replaced, replaced != text

    def text(self, text: str) -> str:
        """``text`` with every secret value replaced."""
        return self.redact(text)[0]

    def data(self, value: Any) -> tuple[Any, bool]:
        """``value`` with secrets replaced in every string it holds, and whether anything was.

        Walks what ``quorum.domain.text.map_strings`` walks (str, mappings, lists, tuples, models).
        """
        if self._pattern is None:
            return value, False
        return map_strings(value, self.redact)
