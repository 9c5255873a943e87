"""``McpTokenStore``: OAuth tokens and client registrations, one record per MCP server.

Each server has one file, ``<data dir>/mcp-auth/<server>.json`` (mode 0600, folder 0700). The file
records the server URL the tokens were issued for and where the secret part lives:
``{"url": …, "in": "file", "tokens": {…}, "expires_at": …, "client_info": {…}, "scope": …}`` or
``{"url": …, "in": "keyring"}`` with the same JSON in the platform keyring (service
``quorum-mcp``, user name = the server name). ``QUORUM_KEYS_BACKEND`` (``auto`` | ``keyring`` |
``file``) chooses where new records go, as for provider keys.

Tokens are only handed out for the URL they were issued for: a server whose ``url`` changed in the
configuration gets none (the old ones would go to another server).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from quorum.domain.errors import ConfigurationError, UsageError
from quorum.infrastructure.keys.store import KEYS_BACKEND_ENV, _keyring, use_keyring

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

AUTH_SUBDIR = "mcp-auth"
SERVICE = "quorum-mcp"
"""The keyring service tokens are stored under (the user name is the MCP server's name)."""

Where = Literal["keyring", "file"]
_SAFE = re.compile(r"[A-Za-z0-9_.-]{1,64}")


@dataclass(frozen=True)
class AuthRecord:
    """What is stored for one server. ``tokens`` and ``client_info`` are the SDK models' JSON.

    ``scope`` is what the server asked for beyond the stored token (a 403 ``insufficient_scope``
    during a run, which cannot log in): the next ``quorum mcp login`` requests it too.
    """

    url: str
    tokens: dict[str, Any] | None = None
    expires_at: float | None = None
    client_info: dict[str, Any] | None = None
    scope: str | None = None

    def secret_values(self) -> dict[str, str]:
        """The secret strings of this record by field (access/refresh token, client secret)."""
        found = {}
        for part, key in (
            (self.tokens, "access_token"),
            (self.tokens, "refresh_token"),
            (self.client_info, "client_secret"),
        ):
            value = (part or {}).get(key)
            if isinstance(value, str) and value:
                found[key] = value
        return found


class McpTokenStore:
    """The OAuth records of every MCP server, in ``directory`` (and the keyring).

    Args:
        directory: ``<data dir>/mcp-auth``.
        backend: ``auto``, ``keyring`` or ``file`` (where ``save`` writes).
    """

    def __init__(self, directory: Path, backend: str = "auto") -> None:
        if backend not in ("auto", "keyring", "file"):
            raise UsageError(f"{KEYS_BACKEND_ENV}={backend!r}: expected auto, keyring or file")
        self.directory = directory
        self.backend = backend

    def path(self, server: str) -> Path:
        """The record file of ``server`` (names that are not plain file names are hashed)."""
        if _SAFE.fullmatch(server) and server not in (".", ".."):
            return self.directory / f"{server}.json"
        return self.directory / f"server-{hashlib.sha256(server.encode()).hexdigest()[:16]}.json"

    def servers(self) -> list[str]:
        """Servers with a record (file names; for listing only)."""
        if not self.directory.is_dir():
            return []
        return sorted(p.stem for p in self.directory.glob("*.json"))

    def location(self, server: str) -> str | None:
        """Where the record of ``server`` keeps its secrets (``the keyring`` or the file), or None."""
        index = self._read_index(server)
        if index is None:
            return None
        return "the keyring" if index.get("in") == "keyring" else str(self.path(server))

    def load(self, server: str) -> AuthRecord | None:
        """The record of ``server``, or None. Raises ConfigurationError when it cannot be read."""
        index = self._read_index(server)
        if index is None:
            return None
        url = str(index.get("url", ""))
        data: Mapping[str, Any] = index
        if index.get("in") == "keyring":
            try:
                text = _keyring().get_password(SERVICE, server)
            except Exception as error:  # a locked or broken keyring is a configuration problem
                message = f"cannot read the MCP tokens of {server!r} from the keyring: {error}"
                raise ConfigurationError(message) from None
            if not text:
                return AuthRecord(url)
            try:
                data = json.loads(text)
            except ValueError:
                return AuthRecord(url)
        expires = data.get("expires_at")
        return AuthRecord(
            url=url,
            tokens=_mapping(data.get("tokens")),
            expires_at=float(expires) if isinstance(expires, int | float) else None,
            client_info=_mapping(data.get("client_info")),
            scope=str(data["scope"]) if isinstance(data.get("scope"), str) else None,
        )

    def save(self, server: str, record: AuthRecord) -> Where:
        """Write ``record`` for ``server``; returns where the secret part went."""
        body = {
            "tokens": record.tokens,
            "expires_at": record.expires_at,
            "client_info": record.client_info,
            "scope": record.scope,
        }
        where: Where = "keyring" if self._use_keyring() else "file"
        if where == "keyring":
            _keyring().set_password(SERVICE, server, json.dumps(body))
            self._write(server, {"url": record.url, "in": "keyring"})
        else:
            self._write(server, {"url": record.url, "in": "file", **body})
        return where

    def remove(self, server: str) -> bool:
        """Forget everything stored for ``server``; False if nothing was."""
        index = self._read_index(server)
        if index is None:
            return False
        if index.get("in") == "keyring":
            with contextlib.suppress(Exception):  # already gone from the keyring: forgetting it is the point
                _keyring().delete_password(SERVICE, server)
        self.path(server).unlink(missing_ok=True)
        return True

    def secrets(self, servers: list[str]) -> dict[str, str]:
        """Stored secret values of ``servers`` as ``mcp.NAME.FIELD`` → value (for redaction).

        An unreadable record contributes nothing (it is unusable now, so nothing to redact).
        """
        found: dict[str, str] = {}
        for server in servers:
            try:
                record = self.load(server)
            except ConfigurationError:
                continue
            if record is not None:
                found.update({f"mcp.{server}.{key}": value for key, value in record.secret_values().items()})
        return found

    def storage(self, server: str, url: str) -> ServerTokenStorage:
        """The SDK ``TokenStorage`` of ``server``, bound to ``url``."""
        return ServerTokenStorage(self, server, url)

    def _use_keyring(self) -> bool:
        return use_keyring(self.backend)

    def _read_index(self, server: str) -> dict[str, Any] | None:
        path = self.path(server)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as error:
            raise ConfigurationError(f"cannot read {path}: {error.strerror}") from None
        try:
            data = json.loads(text)
        except ValueError:
            raise ConfigurationError(f"{path} is not valid JSON; remove it (quorum mcp logout {server})") from None
        return data if isinstance(data, dict) else None

    def _write(self, server: str, data: Mapping[str, Any]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = self.path(server)
        temporary = path.with_name(path.name + ".tmp")
        # Created 0600 from the start: tokens are never readable by others, not even briefly.
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(data, file, indent=2, sort_keys=True)
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)


class ServerTokenStorage:
    """The SDK's ``TokenStorage`` protocol over one server's record (async methods, file I/O inline).

    Records issued for another URL read as empty; ``set_*`` rebinds the record to this URL.
    """

    def __init__(self, store: McpTokenStore, server: str, url: str) -> None:
        self.store = store
        self.server = server
        self.url = url

    def record(self) -> AuthRecord:
        """The stored record for this URL (an empty one when none, or one for another URL)."""
        record = self.store.load(self.server)
        if record is None or record.url != self.url:
            return AuthRecord(self.url)
        return record

    def expires_at(self) -> float | None:
        """When the stored access token expires (epoch seconds), if known."""
        return self.record().expires_at

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken

        tokens = self.record().tokens
        return OAuthToken.model_validate(tokens) if tokens else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        record = self.record()
        expires = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        tokens_json = tokens.model_dump(mode="json", exclude_none=True)
        self.store.save(self.server, replace(record, tokens=tokens_json, expires_at=expires))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull

        info = self.record().client_info
        return OAuthClientInformationFull.model_validate(info) if info else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        record = self.record()
        info = client_info.model_dump(mode="json", exclude_none=True)
        self.store.save(self.server, replace(record, client_info=info))

    def clear_tokens(self) -> None:
        """Drop the tokens, keep the client registration and the wanted scope (a fresh login reuses them)."""
        self.store.save(self.server, replace(self.record(), tokens=None, expires_at=None))

    def want_scope(self, scope: str) -> None:
        """Remember ``scope`` (space-separated) as needed: the next login asks for it too."""
        record = self.record()
        wanted = list(dict.fromkeys([*(record.scope or "").split(), *scope.split()]))
        self.store.save(self.server, replace(record, scope=" ".join(wanted) or None))


def open_token_store(env: Mapping[str, str], data_dir: Path) -> McpTokenStore:
    """The token store under ``data_dir``, backend from ``QUORUM_KEYS_BACKEND`` (default ``auto``)."""
    return McpTokenStore(data_dir / AUTH_SUBDIR, (env.get(KEYS_BACKEND_ENV) or "auto").strip().lower())


def _mapping(value: Any) -> dict[str, Any] | None:
    return dict(value) if isinstance(value, dict) else None


def stored_token_secrets(env: Mapping[str, str], data_dir: Path, servers: list[str]) -> dict[str, str]:
    """The stored OAuth secrets of ``servers`` (for the redactor); a missing folder costs one ``stat``."""
    store = open_token_store(env, data_dir)
    return store.secrets(servers) if store.directory.is_dir() else {}
