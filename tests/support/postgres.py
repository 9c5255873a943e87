"""A real PostgreSQL server for the tests: ``initdb`` into a temporary folder, ``pg_ctl start``, stop.

The binaries are looked up on PATH, then in ``/usr/lib/postgresql/*/bin`` (Debian's ``postgresql``
package, which ``.ci/run`` installs). PostgreSQL refuses to run as root, so under root the server is
initialised and run as the ``postgres`` user (``runuser``), in a folder that user owns.

The server listens on 127.0.0.1 on a free port and on a unix socket in its folder; the superuser
``quorum`` logs in with a password over TCP (so URLs with passwords are exercised) and without one
over the socket. Each test gets its own database (``PostgresServer.new_database``).

Under CI (``CI=true``) missing binaries fail the tests that need the server; elsewhere they skip
with the reason printed.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.net import free_port

USER = "quorum"


def find_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None."""
    on_path = shutil.which("pg_ctl")
    if on_path and shutil.which("initdb"):
        return Path(on_path).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name.split(".")[0] or 0))
    for folder in reversed(versions):
        if (Path(folder) / "pg_ctl").exists() and (Path(folder) / "initdb").exists():
            return Path(folder)
    return None


@dataclass
class PostgresServer:
    """A running server; ``url(database)`` to reach it, ``stop()`` when done."""

    bin_dir: Path
    root: Path
    port: int
    password: str
    as_user: str | None
    _databases: int = field(default=0)

    @property
    def data(self) -> Path:
        return self.root / "data"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}:{self.password}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """Create a fresh database; returns its URL."""
        import psycopg

        self._databases += 1
        name = f"t{os.getpid()}_{self._databases}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"'.encode())
        return self.url(name)

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        if self.as_user is not None:
            command = ["runuser", "-u", self.as_user, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    def start(self) -> None:
        pwfile = self.root / "pw"
        pwfile.write_text(self.password + "\n")
        if self.as_user is not None:
            shutil.chown(self.root, self.as_user)
            shutil.chown(pwfile, self.as_user)
        init = self._run(
            "initdb", "-D", str(self.data), "-U", USER, "--pwfile", str(pwfile), "-E", "UTF8", "--no-locale",
            "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync",
        )  # fmt: skip
        if init.returncode != 0:
            raise RuntimeError(f"initdb failed ({init.returncode}): {init.stderr or init.stdout}")
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        started = self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w", "start")
        if started.returncode != 0:
            log = (self.root / "log").read_text() if (self.root / "log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed ({started.returncode}): {started.stderr}\n{log[-2000:]}")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


def start_server() -> PostgresServer:
    """Start a throw-away server (see the module docstring).

    Raises:
        FileNotFoundError: no PostgreSQL binaries here (the message says what to install).
        RuntimeError: the server did not start (with its log).
    """
    bin_dir = find_binaries()
    if bin_dir is None:
        raise FileNotFoundError(
            "PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or in /usr/lib/postgresql/*/bin"
            " (Debian: apt-get install postgresql; .ci/run does it)"
        )
    as_user = "postgres" if os.geteuid() == 0 else None
    if as_user is not None and shutil.which("runuser") is None:
        raise RuntimeError("running as root needs runuser to start PostgreSQL as the postgres user")
    root = Path(tempfile.mkdtemp(prefix="quorum-pg-"))  # under /tmp: reachable by the postgres user
    last: Exception | None = None
    for _ in range(3):  # a free port may be taken between the probe and the server's bind
        server = PostgresServer(bin_dir, root, free_port(), secrets.token_urlsafe(12), as_user)
        try:
            server.start()
            return server
        except RuntimeError as error:
            last = error
            shutil.rmtree(server.data, ignore_errors=True)
    shutil.rmtree(root, ignore_errors=True)
    raise RuntimeError(f"could not start PostgreSQL: {last}")
