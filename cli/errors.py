"""The one place errors become messages and exit codes."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from quorum.domain.errors import ConfigurationError, QuorumError, RunFailure, UsageError

EXIT_OK = 0
EXIT_RUN_FAILURE = 1
EXIT_USAGE = 2
EXIT_STOPPED_EARLY = 3
EXIT_INTERRUPTED = 130

T = TypeVar("T")


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
    print(f"quorum: {label}: {error}", file=sys.stderr, flush=True)


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
