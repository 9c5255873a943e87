"""Hooks in the loop: what ``pre_tool_use`` answers do to a call, and the ``stop`` hook's extra turns.

A fake ``HookRunner`` answers by tool name (the real runner, with real scripts, is tested end to
end in ``tests/e2e/test_hooks_cli.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from quorum.application.execution import RunResult
from quorum.application.hooks import verdict_of
from quorum.application.ports.hooks import HookEvent, HookOutcome
from quorum.domain.policy import PolicyRule
from quorum.domain.tools import RiskLevel
from tests.fakes import calls, text
from tests.unit.application.conftest import Harness


@dataclass
class FakeHooks:
    """Answers each event's hooks from ``answers`` (event → tool name or None → outcomes); records payloads."""

    answers: dict[tuple[HookEvent, str | None], list[HookOutcome]] = field(default_factory=dict)
    payloads: list[tuple[HookEvent, dict[str, Any]]] = field(default_factory=list)

    def configured(self, event: HookEvent, tool_name: str | None = None) -> bool:
        return (event, tool_name) in self.answers

    async def run(
        self, event: HookEvent, payload: Mapping[str, Any], tool_name: str | None = None
    ) -> list[HookOutcome]:
        self.payloads.append((event, dict(payload)))
        return list(self.answers.get((event, tool_name), []))


async def ok(_: dict[str, Any]) -> str:
    return "done"


async def _run(h: Harness, hooks: FakeHooks, **params: Any) -> RunResult:
    h.hooks = hooks
    return await h.run(**params)


def test_a_deny_wins_then_ask_then_allow_and_a_failure_is_a_deny() -> None:
    allow, ask = HookOutcome("a", permission="allow"), HookOutcome("b", permission="ask")
    deny, failed = HookOutcome("c", permission="deny", reason="no"), HookOutcome("d", failure="exit status 1")
    assert verdict_of([]) is None and verdict_of([HookOutcome("e")]) is None
    asked = verdict_of([allow, ask])
    assert asked is not None and asked.permission == "ask"
    denied = verdict_of([allow, ask, deny])
    assert denied is not None and (denied.permission, denied.decision.hook, denied.decision.reason) == (
        "deny",
        "c",
        "no",
    )
    crashed = verdict_of([allow, failed])
    assert crashed is not None and crashed.permission == "deny" and "exit status 1" in crashed.decision.reason
    assert crashed.decision.decided_by == "hook" and not crashed.decision.approved


async def test_a_low_risk_call_a_hook_denies_never_runs(h: Harness) -> None:
    h.tools.add("read", ok)
    hooks = FakeHooks({("pre_tool_use", "read"): [HookOutcome("guard", permission="deny", reason="not that file")]})
    h.session.script = [calls(("read", {})), text("fine")]
    await _run(h, hooks)
    assert h.tools.executed == [] and h.reviewer.reviewed == []
    [review] = h.observer.of("review")
    assert (review.decided_by, review.hook, review.approved) == ("hook", "guard", False)
    assert "not that file" in h.results_sent(0)[0].output


async def test_ask_sends_a_low_risk_call_to_the_usual_review(h: Harness) -> None:
    h.tools.add("read", ok)
    hooks = FakeHooks({("pre_tool_use", "read"): [HookOutcome("careful", permission="ask")]})
    h.session.script = [calls(("read", {})), text("fine")]
    await _run(h, hooks)
    assert len(h.reviewer.reviewed) == 1 and len(h.tools.executed) == 1
    assert "careful" in h.reviewer.contexts[0].risk_reason


async def test_no_opinion_leaves_the_usual_path(h: Harness) -> None:
    h.tools.add("read", ok)
    h.tools.add("write", ok, risk=RiskLevel.HIGH)
    hooks = FakeHooks({("pre_tool_use", "read"): [HookOutcome("quiet")], ("pre_tool_use", "write"): []})
    h.session.script = [calls(("read", {}), ("write", {})), text("fine")]
    await _run(h, hooks)
    assert len(h.tools.executed) == 2 and len(h.reviewer.reviewed) == 1  # only the high-risk write
    assert [p["tool_name"] for e, p in hooks.payloads if e == "pre_tool_use"] == ["read", "write"]


async def test_allow_approves_a_high_risk_call_but_a_policy_ask_rule_still_asks(h: Harness) -> None:
    h.tools.add("write", ok, risk=RiskLevel.HIGH)
    h.tools.add("delete", ok, risk=RiskLevel.HIGH)
    allow = [HookOutcome("yes", permission="allow", reason="trusted path")]
    hooks = FakeHooks({("pre_tool_use", "write"): allow, ("pre_tool_use", "delete"): allow})
    h.reviewer.rules = [PolicyRule(decision="ask", tool="delete")]
    h.reviewer.default = False
    h.session.script = [calls(("write", {}), ("delete", {})), text("fine")]
    await _run(h, hooks)
    assert len(h.tools.executed) == 1  # the write; the delete went to review, which rejected it
    assert len(h.reviewer.reviewed) == 1
    decided = [(r.decided_by, r.approved) for r in h.observer.of("review")]
    assert decided == [("hook", True), ("quorum", False)]


async def test_a_stop_hook_that_always_blocks_ends_at_the_turn_limit(h: Harness) -> None:
    hooks = FakeHooks({("stop", None): [HookOutcome("nag", block=True, reason="keep going")]})
    h.session.script = [text("done")] * 3
    result = await _run(h, hooks, max_tool_turns=3)
    assert result.turns == 3 and result.stop_reason == "end_turn"
    stops = [p["stop_hook_active"] for e, p in hooks.payloads if e == "stop"]
    assert stops == [False, True]
    assert [turn.text for turn in h.session.turns[1:]] == ["keep going", "keep going"]


async def test_a_blocked_prompt_never_reaches_the_model(h: Harness) -> None:
    hooks = FakeHooks({("user_prompt_submit", None): [HookOutcome("dlp", block=True, reason="a key in the prompt")]})
    result = await _run(h, hooks)
    assert result.stop_reason == "rejected" and "a key in the prompt" in (result.detail or "")
    assert h.session.turns == []


async def test_pre_compact_hooks_run_before_a_compaction() -> None:
    from tests.unit.application.test_compaction import reads, run

    hooks = FakeHooks({("pre_compact", None): [HookOutcome("note-it")]})
    _, observer, _ = await run(
        [reads("a", tokens=100), reads("b", tokens=650), text("done")], hooks, context_window=1000
    )
    assert len(observer.of("context_compacted")) == 1
    [payload] = [p for e, p in hooks.payloads if e == "pre_compact"]
    assert (payload["hook_event_name"], payload["trigger"]) == ("PreCompact", "auto")
