"""Asking the editor whether to trust a session's workspace: ``session/request_permission`` at the first prompt.

A repository opened in an editor brings its ``quorum.toml`` (and its parents', and ``.quorum/``).
Untrusted, the keys that run a program, loosen review or send data elsewhere are left out (decision
200). The session opens that way; at its first prompt, before anything runs, the editor is asked
with exactly what the files would enable (each key and its value), and the options:

- **allow once** (``allow_once``): this session reads the files trusted (it is opened again so);
- **always** (``allow_always``): the workspace is trusted as ``quorum trust --yes`` would record
  it (keyed by the directory and its files' fingerprint), then as allow once;
- **ignore them** (``reject_once``): the session goes on without them, as when the client cannot
  answer (an error, a cancelled request).

Nothing the files configure runs before the answer: the session's composition was built without
them.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from acp import helpers

from quorum.infrastructure.config.trust import Finding

TRUST_CALL_ID = "quorum-trust-workspace"
"""The tool call id the question is shown under (no model call has it)."""

ONCE, ALWAYS, IGNORE = "allow_once", "allow_always", "reject_once"

Answer = Literal["once", "always", "ignore"]


def question_text(workspace: Path, findings: Sequence[Finding], files: Sequence[Path]) -> str:
    """What the editor shows: the files, the keys they would enable with their values, and the options' meaning."""
    lines = [
        f"The workspace {workspace} brings configuration that runs programs, loosens review or sends "
        "data elsewhere. Quorum ignores it unless you trust it:",
        "",
    ]
    lines += [f"- {finding.path} = {_value(finding.value)}  ({finding.why})" for finding in findings]
    lines += ["", "From the files:", *(f"- {path}" for path in files)]
    lines += ["", "Always: trust them as they are now (a change to any of them asks again)."]
    return "\n".join(lines)


def _value(value: Any) -> str:
    try:
        shown = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):
        shown = repr(value)
    return shown if len(shown) <= 200 else shown[:199] + "…"


async def ask_trust(
    ask: Callable[[Any, list[Any]], Awaitable[Any]],
    workspace: Path,
    findings: Sequence[Finding],
    files: Sequence[Path],
) -> Answer:
    """Ask the editor; ``ignore`` when it declines, cancels, or cannot answer."""
    from acp.schema import PermissionOption

    update = helpers.update_tool_call(
        TRUST_CALL_ID,
        title=f"Trust the configuration of {workspace.name or workspace}?",
        kind="other",
        status="pending",
        content=[helpers.tool_content(helpers.text_block(question_text(workspace, findings, files)))],
    )
    options = [
        PermissionOption(option_id=ONCE, name="Use it for this session", kind="allow_once"),
        PermissionOption(option_id=ALWAYS, name="Trust this workspace", kind="allow_always"),
        PermissionOption(option_id=IGNORE, name="Ignore it", kind="reject_once"),
    ]
    try:
        response = await ask(update, options)
    except Exception:  # a client that cannot ask: the keys stay ignored
        return "ignore"
    outcome = getattr(response, "outcome", None)
    if getattr(outcome, "outcome", None) != "selected":
        return "ignore"
    return {ONCE: "once", ALWAYS: "always"}.get(getattr(outcome, "option_id", ""), "ignore")  # type: ignore[return-value]
