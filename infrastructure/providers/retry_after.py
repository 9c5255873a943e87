"""How long a server asks us to wait before retrying, and the limit Quorum will wait.

The SDKs honour ``Retry-After`` up to two minutes per retry, so one rate-limited request could sit
silent for minutes. Quorum waits at most ``RETRY_AFTER_LIMIT``: a response asking for longer is
marked not to be retried (the SDKs obey ``x-should-retry: false``) and the error says why.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Mapping

RETRY_AFTER_LIMIT = 60.0
"""Longest server-requested wait, in seconds, before one retry."""


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The wait a response asks for (``retry-after-ms``, then ``retry-after`` seconds or date)."""
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            continue
        return seconds if math.isfinite(seconds) else math.inf
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        parsed = email.utils.parsedate_tz(value)
        return None if parsed is None else float(email.utils.mktime_tz(parsed) - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


async def refuse_long_retry_after(response: object) -> None:
    """An httpx2 response hook: a response asking for a wait over the limit is not retried."""
    headers = response.headers  # type: ignore[attr-defined]
    wait = retry_after_seconds(headers)
    if wait is not None and wait > RETRY_AFTER_LIMIT:
        headers["x-should-retry"] = "false"
