"""The run log's read models folded in Python: search ranking and excerpts, tool and reviewer figures.

Both backends hand these functions the same rows (``queries.py`` selects them in each dialect), so
both stores answer alike.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from quorum.application.ports.run_store import ReviewerStats, SearchHit, ToolStats

_ORDER = {where: i for i, where in enumerate(("task", "text", "tool_call", "tool_result", "review", "output"))}

EXCERPT = 60
"""Characters of context shown on each side of a match."""


def like(text: str) -> str:
    """A LIKE pattern (escape character: backslash) matching ``text`` anywhere, its wildcards escaped."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _excerpt(haystack: str, needle: str) -> str:
    at = haystack.lower().find(needle.lower())
    start, end = max(0, at - EXCERPT), min(len(haystack), max(at, 0) + len(needle) + EXCERPT)
    text = " ".join(haystack[start:end].split())
    return ("…" if start > 0 else "") + text + ("…" if end < len(haystack) else "")


def model_text_hits(rows: Iterable[Sequence[Any]], needle: str) -> list[tuple[str, str, int, str]]:
    """(``text``, run, turn, body) of the turns whose joined text deltas contain ``needle``.

    ``rows`` are (run_id, turn, delta) ordered by run, then sequence.
    """
    wanted = needle.lower()
    hits: list[tuple[str, str, int, str]] = []
    current: tuple[str, int] | None = None
    parts: list[str] = []

    def close() -> None:
        if current is not None and wanted in (body := "".join(parts)).lower():
            hits.append(("text", current[0], current[1], body))

    for run_id, turn, piece in rows:
        if (run_id, turn) != current:
            close()
            current, parts = (run_id, turn), []
        parts.append(piece)
    close()
    return hits


def rank_hits(
    found: list[tuple[Any, ...]], runs: dict[str, tuple[float, int]], text: str, limit: int
) -> list[SearchHit]:
    """``found`` (where, run_id, turn, body) as hits: newest run first, then in the run's order.

    ``runs`` maps each run id to (started_at, insertion order).
    """
    found.sort(key=lambda r: (-runs[r[1]][0], -runs[r[1]][1], r[2] or 0, _ORDER[r[0]]))
    return [
        SearchHit(
            run_id=run_id,
            started_at=datetime.fromtimestamp(runs[run_id][0], UTC),
            where=where,
            turn=turn,
            excerpt=_excerpt(body, text),
        )
        for where, run_id, turn, body in found[:limit]
    ]


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def tool_stats_of(rows: Iterable[Sequence[Any]]) -> tuple[ToolStats, ...]:
    """Per-tool figures from (name, is_error, is_rejected, duration_ms) of every ``tool_result``."""
    calls: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # calls, errors, rejected
    durations: dict[str, list[float]] = defaultdict(list)
    for name, is_error, is_rejected, duration in rows:
        counts = calls[name]
        counts[0] += 1
        counts[1] += int(is_error)
        counts[2] += int(is_rejected)
        if not is_rejected and duration:  # rejected and unexecuted calls took no time of their own
            durations[name].append(duration)
    ranked = sorted(calls.items(), key=lambda item: (-item[1][0], item[0]))
    return tuple(
        ToolStats(
            name=name,
            calls=n,
            errors=errors,
            rejected=rejected,
            error_rate=round(errors / n, 4),
            median_duration_ms=_median(durations[name]),
        )
        for name, (n, errors, rejected) in ranked
    )


def reviewer_stats_of(rows: Iterable[Sequence[Any]]) -> tuple[ReviewerStats, ...]:
    """Per-reviewer figures from (reviewer, verdict, latency_ms) of every vote."""
    verdicts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    latencies: dict[str, list[float]] = defaultdict(list)
    for reviewer, verdict, latency in rows:
        verdicts[reviewer][verdict] += 1
        if latency is not None:
            latencies[reviewer].append(latency)
    result = []
    for reviewer in sorted(verdicts):
        counts = verdicts[reviewer]
        votes = sum(counts.values())
        result.append(
            ReviewerStats(
                reviewer=reviewer,
                votes=votes,
                approvals=counts["approve"],
                rejections=counts["reject"],
                errors=votes - counts["approve"] - counts["reject"],
                approval_rate=round(counts["approve"] / votes, 4),
                median_latency_ms=_median(latencies[reviewer]),
            )
        )
    return tuple(result)
