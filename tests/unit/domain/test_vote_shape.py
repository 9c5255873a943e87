"""A vote has one shape, in milliseconds, in decisions, events and the run log."""

from quorum.domain.events import ApprovalRequested, ReviewEvent, VoteCast, VoteRecord
from quorum.domain.responses import Usage
from quorum.domain.review import ReviewDecision, Verdict, Vote


def test_a_decisions_votes_are_the_events_votes_with_the_json_of_before() -> None:
    vote = Vote(reviewer="openai:gpt", verdict=Verdict.REJECT, reason="no", latency_ms=250.0, model="openai:gpt")
    decision = ReviewDecision(approved=False, decided_by="quorum", votes=(vote,), reason="REJECTED 0/1 majority")
    event = ReviewEvent.of("c1", "write_file", decision)
    assert event.votes == [vote]
    assert event.model_dump(mode="json")["votes"] == [
        {
            "reviewer": "openai:gpt",
            "verdict": "reject",
            "reason": "no",
            "latency_ms": 250.0,
            "model": "openai:gpt",
            "usage": Usage().model_dump(mode="json"),
        }
    ]
    assert VoteRecord is Vote


def test_latency_in_seconds_is_still_read_and_shown() -> None:
    vote = Vote(reviewer="human", verdict=Verdict.APPROVE, latency=1.2345678)  # to the microsecond
    assert vote.latency_ms == 1234.568 and abs(vote.latency - 1.234568) < 1e-9
    assert Vote.model_validate({"reviewer": "r", "verdict": "approve", "latency": 0.25}).latency_ms == 250.0
    assert "latency" not in vote.model_dump()


def test_a_vote_cast_is_the_vote_and_its_call() -> None:
    vote = Vote(reviewer="r", verdict=Verdict.APPROVE, reason="fine", latency_ms=3.5)
    cast = VoteCast.of("c1", vote)
    assert cast.model_dump(mode="json") == {**vote.model_dump(mode="json"), "type": "vote", "call_id": "c1"}
    request = ApprovalRequested(call_id="c1", name="x", arguments={}, risk="high", reason="ask", votes=[cast])
    assert request.votes[0].latency_ms == 3.5
