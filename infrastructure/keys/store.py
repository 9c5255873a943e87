"""``StoredKeys``: provider keys kept for the user, by provider instance name.

One index file, ``keys.json`` in Quorum's config dir (mode 0600), records every stored name and
where its value lives: ``{"openai": {"in": "keyring"}}`` (the value is in the platform keyring,
service ``quorum``) or ``{"openai": {"in": "file", "value": "sk-…"}}`` (no working keyring). So
``keys list`` and the redaction of stored keys never query the keyring for names, and a config dir
without the file costs one ``stat``.

``QUORUM_KEYS_BACKEND`` = ``auto`` (default: the keyring when a real backend is available, else
the file) | ``keyring`` | ``file`` chooses where ``set`` writes. Tests use ``file``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from quorum.domain.errors import ConfigurationError, UsageError
from quorum.infrastructure.config.json_file import read_json

KEYS_BACKEND_ENV = "QUORUM_KEYS_BACKEND"
KEYS_FILENAME = "keys.json"
SERVICE = "quorum"
"""The keyring service name keys are stored under (the user name is the provider instance)."""

Where = Literal["keyring", "file"]


@dataclass(frozen=True)
class StoredKey:
    """A stored key and where it came from (``keyring`` or ``key file``)."""

    value: str
    source: str


class KeyLookup(Protocol):
    """What a provider gateway needs: the stored key of one provider instance."""

    def get(self, name: str) -> StoredKey | None:
        """The key stored for ``name``, or None. Raises ConfigurationError if the store is unreadable."""
        ...


class StoredKeys:
    """The keys stored in ``config_dir`` (and the keyring).

    Args:
        config_dir: Quorum's config folder (the index file lives there).
        backend: ``auto``, ``keyring`` or ``file`` (where ``set`` writes).
    """

    def __init__(self, config_dir: Path, backend: str = "auto") -> None:
        if backend not in ("auto", "keyring", "file"):
            raise UsageError(f"{KEYS_BACKEND_ENV}={backend!r}: expected auto, keyring or file")
        self.path = config_dir / KEYS_FILENAME
        self.backend = backend

    def names(self) -> dict[str, Where]:
        """Stored names → where each value lives (reads the index only)."""
        return {name: entry.get("in", "file") for name, entry in self._index().items()}

    def get(self, name: str) -> StoredKey | None:
        entry = self._index().get(name)
        if entry is None:
            return None
        if entry.get("in") == "keyring":
            try:
                value = _keyring().get_password(SERVICE, name)
            except Exception as error:  # a locked or broken keyring: say so, as a configuration problem
                raise ConfigurationError(f"cannot read the key {name!r} from the keyring: {error}") from None
            return StoredKey(value, "keyring") if value else None
        value = entry.get("value")
        return StoredKey(value, "key file") if isinstance(value, str) and value else None

    def values(self) -> dict[str, str]:
        """Every stored key by name (for redaction); reads the keyring only for names stored there."""
        found = {}
        for name in self._index():
            try:
                key = self.get(name)
            except ConfigurationError:  # unreadable now means unusable now: nothing to redact
                continue
            if key is not None:
                found[name] = key.value
        return found

    def set(self, name: str, value: str) -> Where:
        """Store ``value`` for ``name``; returns where it went."""
        if not name or not value:
            raise UsageError("a key needs a name and a non-empty value")
        index = self._index()
        where: Where = "keyring" if self._use_keyring() else "file"
        if where == "keyring":
            _keyring().set_password(SERVICE, name, value)
            index[name] = {"in": "keyring"}
        else:
            index[name] = {"in": "file", "value": value}
        self._write(index)
        return where

    def remove(self, name: str) -> bool:
        """Forget ``name``; False if nothing was stored for it."""
        index = self._index()
        entry = index.pop(name, None)
        if entry is None:
            return False
        if entry.get("in") == "keyring":
            import contextlib

            with contextlib.suppress(Exception):  # already gone from the keyring: forgetting it is the point
                _keyring().delete_password(SERVICE, name)
        self._write(index)
        return True

    def keyring_name(self) -> str | None:
        """The keyring backend ``set`` would use, or None when keys go to the file."""
        return _backend_name() if self._use_keyring() else None

    def _use_keyring(self) -> bool:
        return use_keyring(self.backend)

    def _index(self) -> dict[str, dict[str, Any]]:
        data = read_json(self.path, "fix or remove it")
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise ConfigurationError(f"{self.path}: expected a JSON object")
        return {k: v for k, v in data.items() if isinstance(v, dict)}

    def _write(self, index: Mapping[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(self.path.name + ".tmp")
        # Created 0600 from the start: the value is never readable by others, not even briefly.
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(index, file, indent=2, sort_keys=True)
        os.chmod(temporary, 0o600)
        os.replace(temporary, self.path)


def open_key_store(env: Mapping[str, str], config_dir: Path) -> StoredKeys:
    """The key store of ``config_dir``, backend from ``QUORUM_KEYS_BACKEND`` (default ``auto``)."""
    return StoredKeys(config_dir, (env.get(KEYS_BACKEND_ENV) or "auto").strip().lower())


def _keyring() -> Any:
    import keyring  # only when a key is stored there or about to be

    return keyring


def use_keyring(backend: str) -> bool:
    """Whether secrets go to the platform keyring under ``QUORUM_KEYS_BACKEND=backend``.

    ``file``: never; ``keyring``: always (a configuration error when no keyring works); ``auto``:
    when a usable keyring backend is found.
    """
    if backend == "file":
        return False
    if backend == "keyring":
        if _backend_name() is None:
            raise ConfigurationError(f"{KEYS_BACKEND_ENV}=keyring but no keyring backend is available")
        return True
    return _backend_name() is not None


def _backend_name() -> str | None:
    """The usable keyring backend's name, or None (no backend, or only the "fail"/null ones)."""
    try:
        backend = _keyring().get_keyring()
    except Exception:  # a broken keyring configuration means: use the file
        return None
    priority = getattr(backend, "priority", 0)
    module = type(backend).__module__
    if module.startswith(("keyring.backends.fail", "keyring.backends.null")) or not priority or priority <= 0:
        return None
    return f"{module}.{type(backend).__name__}"
