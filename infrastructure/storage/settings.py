"""``[storage]``: where the run log is kept (a SQLite file, or a PostgreSQL database)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote, urlsplit

from quorum.infrastructure.config.sections import Section

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")

PG_PASSWORD_ENV = "PGPASSWORD"
"""libpq's password variable: read by the PostgreSQL store when the URL has no password."""


class StorageSettings(Section):
    """``[storage]`` section.

    Attributes:
        backend: the run-store plugin to use: ``sqlite`` (default) or ``postgres``.
        path: SQLite file (default: ``quorum/runs.db`` in the platform data dir; ``QUORUM_DB`` wins).
        url: the PostgreSQL database of ``backend = "postgres"``, e.g.
            ``postgresql://quorum:${QUORUM_PG_PASSWORD}@db.internal/quorum``; ``${VAR}`` is read
            from the environment. Its password is a known secret (redacted everywhere).
        enabled: record runs at all (``--no-log`` turns it off for one run).
    """

    backend: str = "sqlite"
    path: Path | None = None
    url: str | None = None
    enabled: bool = True

    def resolved_url(self, env: Mapping[str, str]) -> str | None:
        """``url`` with each ``${VAR}`` replaced by the variable's value (empty when unset)."""
        if self.url is None:
            return None
        return _VAR.sub(lambda m: env.get(m.group(1), ""), self.url)

    def secret_values(self, env: Mapping[str, str]) -> tuple[list[tuple[str, str]], set[str]]:
        """The secrets of the database URL: (name, value) pairs, and the variables holding them.

        The URL's password (also percent-decoded, as it is sent), the values of the variables the
        URL names, and ``PGPASSWORD`` when the PostgreSQL backend is chosen.
        """
        found: list[tuple[str, str]] = []
        names: set[str] = set()
        if self.url is not None:
            names.update(_VAR.findall(self.url))
            url = self.resolved_url(env) or ""
            try:
                password = urlsplit(url).password
            except ValueError:
                password = None
            if password:
                found.append(("storage.url.password", password))
                if unquote(password) != password:
                    found.append(("storage.url.password", unquote(password)))
        if self.backend == "postgres":
            names.add(PG_PASSWORD_ENV)
        return found, names
