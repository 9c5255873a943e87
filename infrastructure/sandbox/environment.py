"""The environment of each command Quorum starts: explicit, never ``os.environ`` wholesale."""

from __future__ import annotations

from collections.abc import Mapping

from quorum.infrastructure.secrets import KnownSecrets
from quorum.infrastructure.tools.settings import CommandEnvSettings

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"
SANDBOX_HOME = "/tmp"
"""Inside the sandbox ``/tmp`` is a private, empty, writable directory: the only home there is."""

_LOCALE = ("LANG", "LANGUAGE", "TZ")


def minimal_environment(
    environ: Mapping[str, str], command_env: CommandEnvSettings, *, path: str | None, home: str | None
) -> dict[str, str]:
    """The fixed minimal environment of unreviewed commands.

    ``PATH``, locale (``LANG``, ``LC_*``), ``TERM`` and ``HOME``, plus ``command_env``.

    Args:
        environ: Quorum's environment (locale and ``TERM`` are taken from it).
        command_env: ``[tools] command_env``: ``pass`` copies variables from ``environ``, then ``set``.
        path: the ``PATH`` to use; None keeps ``environ``'s (commands on the host).
        home: the ``HOME`` to use; None leaves it unset.
    """
    env = {k: v for k, v in environ.items() if k in _LOCALE or k.startswith("LC_")}
    env["PATH"] = path if path is not None else environ.get("PATH", SANDBOX_PATH)
    env["TERM"] = environ.get("TERM", "dumb")
    if home is not None:
        env["HOME"] = home
    return _with_exceptions(env, environ, command_env)


def host_environment(
    environ: Mapping[str, str], command_env: CommandEnvSettings, secrets: KnownSecrets
) -> dict[str, str]:
    """The user's environment minus every secret Quorum knows, plus ``command_env``.

    For approved commands, which a review let run as the user would.
    """
    return _with_exceptions(secrets.scrub(environ), environ, command_env)


def _with_exceptions(
    env: dict[str, str], environ: Mapping[str, str], command_env: CommandEnvSettings
) -> dict[str, str]:
    for name in command_env.pass_:
        if name in environ:
            env[name] = environ[name]
    env.update(command_env.set)
    return env
