"""The server's bearer token: ``[serve] token``, else one generated once and kept 0600 in the data dir."""

from __future__ import annotations

import hmac
import os
import re
import secrets
from collections.abc import Mapping
from pathlib import Path

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
TOKEN_FILE = "serve-token"


def server_token(configured: str, env: Mapping[str, str], data_dir: Path) -> str:
    """The token clients must send.

    ``configured`` (``[serve] token``) wins, ``${VAR}`` references expanded from ``env``; otherwise
    the token stored in ``data_dir``, created (32 random bytes, URL-safe, mode 0600) when missing.
    """
    if configured.strip():
        return _VAR.sub(lambda m: env.get(m.group(1), ""), configured).strip()
    path = data_dir / TOKEN_FILE
    try:
        stored = path.read_text(encoding="utf-8").strip()
        if stored:
            return stored
    except FileNotFoundError:
        pass
    data_dir.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # never readable by others, not even briefly
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(token + "\n")
    return token


def token_matches(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``Bearer <token>``, compared in constant time."""
    if not header or not token:
        return False
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), token.encode())
