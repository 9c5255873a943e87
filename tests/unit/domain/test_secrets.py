"""The redaction rule: named values replaced everywhere, longest first, short values ignored."""

from __future__ import annotations

from quorum.domain.events import ReviewEvent, VoteRecord
from quorum.domain.review import Verdict
from quorum.domain.secrets import Redactor, Secret


def test_values_are_replaced_by_their_name_and_the_change_is_reported() -> None:
    redactor = Redactor([Secret("OPENAI_API_KEY", "sk-abcdefgh123")])
    assert redactor.redact("key=sk-abcdefgh123; again sk-abcdefgh123") == (
        "key=[REDACTED:OPENAI_API_KEY]; again [REDACTED:OPENAI_API_KEY]",
        True,
    )
    assert redactor.redact("nothing here") == ("nothing here", False)


def test_short_values_are_not_secrets_and_longer_values_win() -> None:
    redactor = Redactor([Secret("short", "1234567"), Secret("inner", "abcdefgh"), Secret("outer", "xxabcdefghyy")])
    assert redactor.text("1234567 xxabcdefghyy abcdefgh") == "1234567 [REDACTED:outer] [REDACTED:inner]"
    assert redactor.names == {"inner", "outer"}


def test_regex_characters_in_values_are_literal() -> None:
    redactor = Redactor([Secret("p", "a.b*c+d?(e)")])
    assert redactor.text("a.b*c+d?(e) axbbcdde") == "[REDACTED:p] axbbcdde"


def test_nested_data_and_models_are_walked() -> None:
    redactor = Redactor([Secret("k", "secret-value-1")])
    event = ReviewEvent(
        call_id="1",
        name="n",
        approved=False,
        decided_by="quorum",
        votes=[VoteRecord(reviewer="r", verdict=Verdict.ERROR, reason="401 for secret-value-1")],
        reason="r",
    )
    clean, changed = redactor.data(event)
    assert changed and clean.votes[0].reason == "401 for [REDACTED:k]"
    assert redactor.data({"a": ["secret-value-1", 1], "secret-value-1": 2}) == (
        {"a": ["[REDACTED:k]", 1], "[REDACTED:k]": 2},
        True,
    )
    untouched = {"a": [1]}
    assert redactor.data(untouched) == (untouched, False)


def test_an_empty_redactor_is_falsy_and_changes_nothing() -> None:
    assert not Redactor()
    assert Redactor().redact("sk-anything-at-all") == ("sk-anything-at-all", False)
    assert "sk-do-not-print" not in repr(Secret("n", "sk-do-not-print"))
