"""Calls run with the clearance of the path they took; known secrets never leave the loop."""

from __future__ import annotations

from typing import Any

from quorum.domain.errors import ProviderError
from quorum.domain.secrets import Redactor, Secret
from quorum.domain.tools import Clearance, RiskLevel
from tests.fakes import calls, text
from tests.unit.application.conftest import Harness

KEY = "sk-secret-value-123456"


async def leak(_: dict[str, Any]) -> str:
    return f"the key is {KEY}"


async def test_low_risk_calls_run_unreviewed_and_approved_calls_run_approved(h: Harness) -> None:
    h.tools.add("read", leak)
    h.tools.add("write", leak, risk=RiskLevel.HIGH)
    h.session.script = [calls(("read", {}), ("write", {})), text("done")]
    await h.run()
    assert h.tools.clearances == {"c1": Clearance.UNREVIEWED, "c2": Clearance.APPROVED}


async def test_secret_values_are_redacted_before_the_model_and_every_event_see_them(h: Harness) -> None:
    h.redactor = Redactor([Secret("OPENAI_API_KEY", KEY)])
    h.tools.add("read", leak)
    h.session.script = [calls(("read", {})), text(f"I saw {KEY}")]
    result = await h.run(task=f"print {KEY}")
    sent = h.results_sent(0)
    assert sent[0].output == "the key is [REDACTED:OPENAI_API_KEY]" and sent[0].redacted
    (event,) = h.observer.of("tool_result")
    assert event.output == "the key is [REDACTED:OPENAI_API_KEY]" and event.redacted
    assert all(KEY not in e.model_dump_json() for e in h.observer.events)
    assert KEY not in result.output


async def test_a_provider_error_echoing_a_key_is_redacted_in_the_result_and_run_finished(h: Harness) -> None:
    h.redactor = Redactor([Secret("providers.openai.api_key", KEY)])

    async def failing() -> Any:
        raise ProviderError(f"401: bad key {KEY}", provider="openai")

    h.session.script = [failing]
    result = await h.run()
    assert result.stop_reason == "error"
    assert result.detail is not None and KEY not in result.detail and "[REDACTED:" in result.detail
    assert KEY not in h.observer.of("run_finished")[0].detail


async def test_without_secrets_outputs_pass_unchanged(h: Harness) -> None:
    h.tools.add("read", leak)
    h.session.script = [calls(("read", {})), text("done")]
    await h.run()
    (event,) = h.observer.of("tool_result")
    assert event.output == f"the key is {KEY}" and not event.redacted
