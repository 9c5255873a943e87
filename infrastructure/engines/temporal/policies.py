"""Timeouts and retry policies of the workflow's activities, and how an activity's failure reads."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import cast, get_args

from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, is_cancelled_exception

from quorum.domain.errors import Unavailable

QUICK = timedelta(seconds=60)
"""Run-log writes and claims."""
MODEL = timedelta(minutes=10)
"""A model request, a panel's votes, the worker's preparation."""
ONCE = RetryPolicy(maximum_attempts=1)
"""A high-risk tool call: never repeated."""
LOW_RISK = RetryPolicy(maximum_attempts=3, initial_interval=timedelta(seconds=1))
"""A low-risk tool call may be tried again."""
RETRY = RetryPolicy(maximum_attempts=5, initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30))
"""Idempotent activities (model requests read the run log, writes skip what is recorded)."""


def cause_of(error: BaseException) -> str:
    """The message of the failure underneath an ``ActivityError`` (its innermost cause)."""
    cause = error.cause if isinstance(error, ActivityError) else None
    while isinstance(cause, ActivityError) and cause.cause is not None:
        cause = cause.cause
    if isinstance(cause, ApplicationError):
        return cause.message
    return str(cause or error)


def unavailable_of(error: BaseException) -> Unavailable | None:
    """Why the model could not answer, when the activity's failure is a ``ProviderError`` that says so.

    The model activity puts ``ProviderError.unavailable`` in its ``ApplicationError``'s details.
    """
    cause = error.cause if isinstance(error, ActivityError) else None
    while isinstance(cause, ActivityError) and cause.cause is not None:
        cause = cause.cause
    if isinstance(cause, ApplicationError) and cause.details:
        why = cause.details[0]
        if why in get_args(Unavailable):
            return cast(Unavailable, why)
    return None


def raise_if_cancelled(error: ActivityError) -> None:
    """Raise ``asyncio.CancelledError`` when ``error`` is the activity's end by the workflow's cancel.

    A cancelled workflow sees its activity fail with a cancellation cause; taken for a failed
    call, the run would go on (the model asked again) instead of ending ``cancelled``.
    """
    if is_cancelled_exception(error):
        raise asyncio.CancelledError
