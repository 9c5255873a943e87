"""Reviewer models' tokens: each vote carries its model and usage, the decision sums them."""

from __future__ import annotations

from pathlib import Path

from quorum.domain.events import ReviewEvent
from quorum.domain.responses import Usage
from quorum.domain.review import QuorumRule, Verdict
from quorum.infrastructure.providers.gateway import PluginLlmGateway
from quorum.infrastructure.review.quorum import QuorumReviewer
from quorum.infrastructure.review.voters import ModelVoter
from tests.integration.review.conftest import context_for, high_call, model

SCRIPTS = """
[scripts.approve]
[[scripts.approve.turns]]
usage = { input_tokens = 100, output_tokens = 7 }
tool_calls = [{ name = "submit_verdict", arguments = { verdict = "approve", reason = "fine" } }]

[scripts.nudged]
[[scripts.nudged.turns]]
text = "Hmm."
usage = { input_tokens = 90, output_tokens = 3 }
[[scripts.nudged.turns]]
usage = { input_tokens = 120, output_tokens = 9 }
tool_calls = [{ name = "submit_verdict", arguments = { verdict = "reject", reason = "no" } }]

[scripts.silent]
[[scripts.silent.turns]]
text = "I would rather not say."
usage = { input_tokens = 50, output_tokens = 5 }
[[scripts.silent.turns]]
text = "Still nothing."
usage = { input_tokens = 60, output_tokens = 6 }
"""


async def test_votes_carry_their_model_and_tokens_and_the_decision_sums_them(
    tmp_path: Path, gateway: PluginLlmGateway
) -> None:
    path = tmp_path / "reviewers.toml"
    path.write_text(SCRIPTS, encoding="utf-8")
    ids = [model(str(path), name) for name in ("approve", "nudged", "silent")]
    panel = QuorumReviewer([ModelVoter(gateway, i) for i in ids], rule=QuorumRule.parse("majority"), min_votes=1)
    call = high_call()
    decision = await panel.review(call, context_for(call))

    assert [v.verdict for v in decision.votes] == [Verdict.APPROVE, Verdict.REJECT, Verdict.ERROR]
    assert [v.model for v in decision.votes] == ids
    assert [v.usage for v in decision.votes] == [
        Usage(input_tokens=100, output_tokens=7),
        Usage(input_tokens=210, output_tokens=12),  # the nudge's response counts too
        Usage(input_tokens=110, output_tokens=11),  # an error vote still spent its tokens
    ]
    assert decision.usage == Usage(input_tokens=420, output_tokens=30)
    records = ReviewEvent.of(call.native_id, call.name, decision).model_dump(mode="json")["votes"]
    assert records[0]["model"] == ids[0]
    assert records[0]["usage"] == {
        "input_tokens": 100,
        "output_tokens": 7,
        "cache_read_input_tokens": 0,
        "cache_write_input_tokens": 0,
    }


async def test_a_failing_reviewer_model_votes_error_with_no_tokens(gateway: PluginLlmGateway) -> None:
    voter = ModelVoter(gateway, "scripted:/nonexistent/reviewers.toml")
    call = high_call()
    vote = await voter.vote(call, context_for(call))
    assert vote.verdict is Verdict.ERROR and vote.usage == Usage() and vote.model == voter.model_id
