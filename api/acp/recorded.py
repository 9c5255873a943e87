"""A session in the run log: the chain of runs it is made of, for ``session/load``.

A session's id is its first run's id; each later prompt's run continues the one before
(``parent_run_id``), as ``quorum chat`` links its messages. Loading follows the links both ways:
up to the run the first one continued (a session may start from ``quorum run``'s run) and down to
the newest run continuing the chain (where several continue one run, the newest wins).
"""

from __future__ import annotations

from typing import Any

MAX_LATER_RUNS = 10_000
"""Runs started since the session's first one that are searched for its continuations."""


def session_runs(store: Any, session_id: str) -> list[str] | None:
    """The ids of the session's runs, oldest first; None when no run has that id."""
    first = store.get_run(session_id)
    if first is None:
        return None
    chain = [session_id]
    parent = first.parent_run_id
    while parent is not None and parent not in chain:
        run = store.get_run(parent)
        if run is None:
            break
        chain.insert(0, parent)
        parent = run.parent_run_id
    children: dict[str, str] = {}
    for run in reversed(store.list_runs(MAX_LATER_RUNS, since=first.started_at)):  # oldest first
        if run.parent_run_id is not None and run.subagent is None:  # a delegation is not a message
            children[run.parent_run_id] = run.run_id  # the newest child wins
    current = session_id
    while current in children and children[current] not in chain:
        current = children[current]
        chain.append(current)
    return chain
