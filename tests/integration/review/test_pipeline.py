"""The review pipeline end to end below the CLI: real config validation, real plugin catalog, the
real ``scripted`` provider playing reviewer models, and a recording human prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quorum.domain.errors import ConfigurationError
from quorum.domain.review import Verdict
from quorum.infrastructure.config.loader import collect_layers, validate
from quorum.infrastructure.config.schema import Settings
from quorum.infrastructure.plugins.contracts import ReviewerContext
from quorum.infrastructure.plugins.manager import PluginCatalog
from quorum.infrastructure.providers.gateway import PluginLlmGateway
from quorum.infrastructure.review import HumanAnswer, build_reviewer
from quorum.infrastructure.review.settings import ReviewSettings
from tests.integration.review.conftest import RecordingPrompt, context_for, high_call, model
from tests.support.config import builtin_sections, settings_with

A, R, E = Verdict.APPROVE, Verdict.REJECT, Verdict.ERROR


def pipeline(gateway: PluginLlmGateway, prompt: Any = None, *, yes: bool = False, **review: Any) -> Any:
    return build_reviewer(
        ReviewerContext(
            settings=settings_with(ReviewSettings(**review)),
            gateway=gateway,
            interactive=prompt is not None,
            auto_approve=yes,
            prompt=prompt,
        )
    )


async def test_panel_majority_approves_with_every_vote_and_reason(gateway: PluginLlmGateway, script: str) -> None:
    panel = [model(script, "approve"), model(script, "reject"), model(script, "approve")]
    call = high_call()
    decision = await pipeline(gateway, reviewers=panel).review(call, context_for(call))
    assert decision.approved and decision.decided_by == "quorum" and decision.rule == "majority"
    assert decision.reason == "APPROVED 2/3 majority"
    assert [v.verdict for v in decision.votes] == [A, R, A]
    assert decision.votes[1].reason == "deletes the user's files"
    assert [v.reviewer for v in decision.votes] == [panel[0], panel[1], f"{panel[2]} [2]"]


async def test_text_is_never_read_as_a_vote(gateway: PluginLlmGateway, script: str) -> None:
    # "APPROVE — looks safe" in text would pass copilot-quorum's keyword parser; here it is an error vote
    panel = [model(script, "approve"), model(script, "chatty"), model(script, "malformed")]
    call = high_call()
    decision = await pipeline(gateway, reviewers=panel, rule="unanimous").review(call, context_for(call))
    assert [v.verdict for v in decision.votes] == [A, E, R]
    assert "no verdict after a reminder" in decision.votes[1].reason
    assert decision.votes[2].reason == "unsafe after all"  # the malformed verdict got one reminder
    assert not decision.approved and decision.reason == "REJECTED 1/2 unanimous"


async def test_a_nudged_reviewer_votes(gateway: PluginLlmGateway, script: str) -> None:
    panel = [model(script, "nudged"), model(script, "nudged")]
    call = high_call()
    decision = await pipeline(gateway, reviewers=panel).review(call, context_for(call))
    assert decision.approved and [v.reason for v in decision.votes] == ["fine once reminded"] * 2


async def test_one_answering_model_cannot_pass_a_three_model_panel(gateway: PluginLlmGateway, script: str) -> None:
    panel = [model(script, "approve"), model(script, "empty"), "nosuchprovider:model"]
    call = high_call()
    decision = await pipeline(gateway, reviewers=panel).review(call, context_for(call))
    assert not decision.approved
    assert decision.reason == "not enough reviewers answered (1 of 3 cast, 2 needed)"
    assert [v.verdict for v in decision.votes] == [A, E, E]
    assert "ran out of script" in decision.votes[1].reason
    assert "unknown provider 'nosuchprovider'" in decision.votes[2].reason
    # … unless the user lowers min_votes on purpose
    lenient = await pipeline(gateway, reviewers=panel, min_votes=1).review(call, context_for(call))
    assert lenient.approved


async def test_wrong_tool_calls_are_answered_and_count_as_errors(gateway: PluginLlmGateway, script: str) -> None:
    call = high_call()
    decision = await pipeline(gateway, reviewers=[model(script, "wrong_tool")], min_votes=1).review(
        call, context_for(call)
    )
    assert [v.verdict for v in decision.votes] == [E]
    assert "'run_command' is not a tool you can call" in decision.votes[0].reason


async def test_policy_rules_decide_before_the_panel(gateway: PluginLlmGateway, script: str) -> None:
    rules = [
        {"decision": "allow", "tool": "run_*", "reason": "commands are fine here"},
        {
            "decision": "deny",
            "tool": "run_command",
            "match": {"command": "git push*"},
            "reason": "no pushing",
        },
    ]
    review = pipeline(gateway, reviewers=[model(script, "reject")], rules=rules)
    push = high_call(command="git push origin feature/x")
    denied = await review.review(push, context_for(push))
    assert (denied.approved, denied.decided_by, denied.reason) == (False, "policy", "no pushing")
    assert denied.votes == () and denied.rule == 'deny run_command {command = "git push*"}'
    ls = high_call(command="ls")
    allowed = await review.review(ls, context_for(ls))
    assert (allowed.approved, allowed.decided_by) == (True, "policy")
    write = high_call("write_file", path="a.txt")
    voted = await review.review(write, context_for(write))
    assert (voted.approved, voted.decided_by) == (False, "quorum")


async def test_ask_rule_goes_to_the_human_and_skips_the_panel(gateway: PluginLlmGateway, script: str) -> None:
    prompt = RecordingPrompt([HumanAnswer("reject", "not today")])
    rules = [{"decision": "ask", "tool": "write_file", "match": {"path": "etc/**"}, "reason": "system files"}]
    review = pipeline(gateway, prompt, reviewers=[model(script, "approve")], rules=rules)
    call = high_call("write_file", path="etc/hosts")
    decision = await review.review(call, context_for(call))
    assert (decision.approved, decision.decided_by, decision.reason) == (False, "human", "not today")
    assert [v.reviewer for v in decision.votes] == ["human"]
    assert "says ask: system files" in prompt.asked[0].why


async def test_escalated_rejection_shows_votes_and_always_sticks_for_the_tool(
    gateway: PluginLlmGateway, script: str
) -> None:
    prompt = RecordingPrompt([HumanAnswer("always")])
    review = pipeline(gateway, prompt, reviewers=[model(script, "reject")], escalate_on_reject=True)
    call = high_call()
    first = await review.review(call, context_for(call))
    assert first.approved and first.decided_by == "human" and first.rule == "majority"
    assert [v.reviewer for v in first.votes] == [model(script, "reject"), "human"]
    asked = prompt.asked[0]
    assert asked.votes[0].reason == "deletes the user's files" and "panel rejected" in asked.why
    second = await review.review(call, context_for(call))  # the panel still votes; the human is not asked
    assert second.approved and "rest of this run" in second.reason and len(prompt.asked) == 1
    other = high_call("write_file", path="x")
    # A different tool asks again: the recording prompt has no answer left and raises, which the
    # gate turns into a rejection (fail closed) rather than letting it escape.
    third = await review.review(other, context_for(other))
    assert len(prompt.asked) == 2
    assert not third.approved and "IndexError" in third.reason


async def test_without_escalation_a_rejection_stands(gateway: PluginLlmGateway, script: str) -> None:
    prompt = RecordingPrompt([])
    call = high_call()
    decision = await pipeline(gateway, prompt, reviewers=[model(script, "reject")]).review(call, context_for(call))
    assert not decision.approved and decision.decided_by == "quorum" and prompt.asked == []


async def test_no_panel_and_no_terminal_rejects_at_once(gateway: PluginLlmGateway) -> None:
    call = high_call()
    decision = await pipeline(gateway).review(call, context_for(call))
    assert (decision.approved, decision.decided_by) == (False, "auto")
    assert "none can be asked" in decision.reason and "--yes" in decision.reason


@pytest.mark.parametrize(
    ("mode", "yes", "approved"),
    [
        ("auto_approve", False, True),
        ("auto_reject", False, False),
        ("interactive", True, True),
        ("auto_reject", True, True),
    ],
)
async def test_hil_modes_and_yes(gateway: PluginLlmGateway, mode: str, yes: bool, approved: bool) -> None:
    call = high_call()
    decision = await pipeline(gateway, yes=yes, hil_mode=mode).review(call, context_for(call))
    assert (decision.approved, decision.decided_by) == (approved, "auto")


async def test_yes_never_overrides_a_deny_rule(gateway: PluginLlmGateway) -> None:
    call = high_call()
    rules = [{"decision": "deny", "tool": "run_command", "reason": "never"}]
    decision = await pipeline(gateway, yes=True, rules=rules).review(call, context_for(call))
    assert (decision.approved, decision.decided_by) == (False, "policy")


def load(tmp_path: Path, toml: str) -> Any:
    (tmp_path / "quorum.toml").write_text(toml, encoding="utf-8")
    raw = collect_layers(cwd=tmp_path, env={}, user_config_dir=None, config_path=None, overrides=None)
    return validate(raw, provider_models={}, section_models=builtin_sections())


def test_rules_load_from_toml(tmp_path: Path) -> None:
    settings = load(
        tmp_path,
        """
[review]
reviewers = ["openai:gpt-4.1-mini"]
vote_timeout_seconds = 5
escalate_on_reject = true

[[review.rules]]
decision = "deny"
tool = "run_command"
match = { command = "git push*" }
reason = "pushing is for humans"
""",
    )
    assert settings.section(ReviewSettings).rules[0].match == {"command": "git push*"}
    assert (
        settings.section(ReviewSettings).vote_timeout_seconds == 5
        and settings.section(ReviewSettings).escalate_on_reject
    )


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[[review.rules]]\ndecision = "deny"\ntool = "x"\nwhen = "always"\n', "review.rules.0.when"),
        ('[[review.rules]]\ndecision = "deny"\ntool = "run_[x"\n', "never closed"),
        (
            '[[review.rules]]\ndecision = "deny"\ntool = "x"\nmatch = { path = "docs/***" }\n',
            "is ambiguous",
        ),
        ('[[review.rules]]\ndecision = "perhaps"\ntool = "x"\n', "review.rules.0.decision"),
        ('[review]\nreviewers = ["a:b", "c:d"]\nmin_votes = 3\n', "can never be met"),
        ('[review]\nreviewers = ["a:b"]\nrule = "at_least:2"\n', "can never be met"),
        ("[review]\nvote_timeout_seconds = 0\n", "vote_timeout_seconds"),
    ],
)
def test_bad_review_config_is_refused_at_load(tmp_path: Path, toml: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message.replace("[", r"\[").replace(".", r"\.")):
        load(tmp_path, toml)


def test_plugins_register_the_builtin_reviewers(catalog: PluginCatalog, gateway: PluginLlmGateway, script: str) -> None:
    assert {"quorum", "human", "auto"} <= set(catalog.reviewers.names())
    entry = catalog.reviewers.get("quorum")
    assert entry is not None and entry.plugin == "quorum.review"
    with pytest.raises(ConfigurationError, match="needs \\[review\\] reviewers"):
        entry.value(ReviewerContext(settings=Settings(), gateway=gateway))
    quorum = entry.value(
        ReviewerContext(settings=settings_with(ReviewSettings(reviewers=[model(script, "approve")])), gateway=gateway)
    )
    assert quorum.panel == [model(script, "approve")]


async def test_a_plugin_reviewer_can_sit_on_the_panel(gateway: PluginLlmGateway, script: str) -> None:
    from quorum.domain.review import ReviewDecision
    from quorum.infrastructure.plugins import hookimpl
    from quorum.infrastructure.plugins.manager import load_plugins

    class PolicyEngine:
        async def review(self, call: Any, context: Any) -> ReviewDecision:
            return ReviewDecision(approved=False, decided_by="policy", reason="opa says no")

    class Plugin:
        @hookimpl
        def quorum_register_reviewers(self, registry: Any) -> None:
            registry.add("opa", lambda context: PolicyEngine())

    catalog = load_plugins(autoload=False, extra=[("opa-plugin", Plugin())])
    settings = ReviewSettings(reviewers=[model(script, "approve"), "opa"], rule="unanimous")
    review = build_reviewer(ReviewerContext(settings=settings_with(settings), gateway=gateway), catalog.reviewers)
    call = high_call()
    decision = await review.review(call, context_for(call))
    assert [(v.reviewer, v.verdict, v.reason) for v in decision.votes][1] == ("opa", R, "opa says no")
    assert not decision.approved
    with pytest.raises(ConfigurationError, match="cannot sit on the review panel"):
        build_reviewer(
            ReviewerContext(settings=settings_with(ReviewSettings(reviewers=["human"])), gateway=gateway),
            catalog.reviewers,
        )
