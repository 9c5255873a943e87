"""The one place errors become messages and exit codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from quorum.domain.errors import ConfigurationError, QuorumError, RunFailure, UsageError
from quorum.domain.secrets import Redactor, Secret
from quorum.infrastructure.terminal_text import printable

EXIT_OK = 0
EXIT_RUN_FAILURE = 1
EXIT_USAGE = 2
EXIT_STOPPED_EARLY = 3
EXIT_AWAITING_APPROVAL = 4
"""The run stopped ``awaiting_approval``: ``quorum approve``/``reject`` continue it."""
EXIT_INTERRUPTED = 130
EXIT_HANGUP = 129
"""SIGHUP ended the run (128 + 1, as a shell reports it)."""
EXIT_TERMINATED = 143
"""SIGTERM ended the run (128 + 15)."""

T = TypeVar("T")

DEFAULT_KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
"""Redacted from error messages even before the configuration (and so every secret) is known."""

_redactor = Redactor()


def redact_errors_with(redactor: Redactor) -> None:
    """Redact error messages printed by ``report`` with ``redactor`` (the run's known secrets)."""
    global _redactor
    _redactor = redactor


def _redact(message: str) -> str:
    fallback = Redactor(Secret(name, os.environ[name]) for name in DEFAULT_KEY_VARIABLES if os.environ.get(name))
    return fallback.text(_redactor.text(message))


def exit_code_for(error: BaseException) -> int:
    """Exit code of an error that ended a command."""
    if isinstance(error, UsageError):
        return EXIT_USAGE
    if isinstance(error, RunFailure):
        return EXIT_RUN_FAILURE
    if isinstance(error, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    return EXIT_RUN_FAILURE


def report(error: QuorumError) -> None:
    """Print ``error`` as one clear message on stderr (never a traceback)."""
    label = "configuration error" if isinstance(error, ConfigurationError) else "error"
    # Messages may quote config values, paths and provider replies: escape what a terminal obeys.
    print(f"quorum: {label}: {printable(_redact(str(error)))}", file=sys.stderr, flush=True)


@contextmanager
def handled() -> Iterator[None]:
    """Run a command body: expected errors are reported and exit with their code."""
    try:
        yield
    except QuorumError as error:
        report(error)
        raise SystemExit(exit_code_for(error)) from None
    except KeyboardInterrupt:
        print("quorum: interrupted", file=sys.stderr, flush=True)
        raise SystemExit(EXIT_INTERRUPTED) from None


def run_handled(body: Callable[[], T]) -> T:
    """``body()`` inside ``handled()``."""
    with handled():
        return body()
