"""``quorum review-check TOOL ARGS_JSON``: dry-run the review of one call, without executing it.

The call gets the risk a run would give it and is screened by the policy rules as in a run (a
``deny`` rejects any call, an ``ask`` sends even a low-risk one to review; other low-risk calls are
not reviewed), then goes through the configured pipeline — policy rules, the reviewer-model
panel, the human step — exactly as in ``quorum run``. ``--rules-only`` stops after the policy
rules (no model is called, nobody asked).

Exit codes: 0 approved (or low risk, or undecided under ``--rules-only``), 3 rejected, 2 usage or
configuration error. With ``--json`` the decision is one object (``approved`` is null when the
rules leave the call undecided).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import click

from quorum.cli.errors import EXIT_OK, EXIT_STOPPED_EARLY, handled
from quorum.cli.flags import config_option
from quorum.composition.options import AppOptions

EXIT_REJECTED = EXIT_STOPPED_EARLY


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as error:
        raise click.BadParameter(f"not JSON: {error}", param_hint="ARGS_JSON") from None
    if not isinstance(value, dict):
        raise click.BadParameter('must be a JSON object, e.g. \'{"path": "a.txt"}\'', param_hint="ARGS_JSON")
    return value


@click.command("review-check")
@click.argument("tool")
@click.argument("args_json", default="{}", required=False)
@config_option
@click.option("--task", default="(review-check)", show_default=True, help="The task reviewers are told about.")
@click.option("--rules-only", is_flag=True, help="Only evaluate the [[review.rules]] policy rules.")
@click.option("--yes", "-y", is_flag=True, help="As in `run --yes`: the human step approves.")
@click.option("--json", "as_json", is_flag=True, help="Print the decision as one JSON object.")
def review_check(
    tool: str, args_json: str, config_path: Path | None, task: str, rules_only: bool, yes: bool, as_json: bool
) -> None:
    """Dry-run the review of TOOL called with ARGS_JSON (a JSON object); nothing is executed."""
    arguments = _arguments(args_json)
    options = AppOptions(
        config_path=config_path,
        yes=yes,
        json=as_json,
        no_log=True,
        interactive=sys.stdin.isatty() and not as_json,
    )
    with handled():
        outcome = asyncio.run(_check(options, tool, arguments, task, rules_only))
    if as_json:
        click.echo(json.dumps(outcome))
    else:
        _print(outcome)
    raise SystemExit(EXIT_REJECTED if outcome["approved"] is False else EXIT_OK)


async def _check(
    options: AppOptions, tool_name: str, arguments: dict[str, Any], task: str, rules_only: bool
) -> dict[str, Any]:
    from quorum.application.ports.reviewer import ReviewContext
    from quorum.application.review_gate import screen_call
    from quorum.cli.compose import compose
    from quorum.cli.name_checks import check_configured_names
    from quorum.domain.events import ReviewEvent
    from quorum.domain.tools import RiskAssessment, RiskLevel, ToolCall, ToolDefinition
    from quorum.infrastructure.review.pipeline import describe_pipeline
    from quorum.infrastructure.review.settings import ReviewSettings

    container = compose(options)
    settings = container.settings()
    check_configured_names(container, panel=not rules_only)
    call = ToolCall(native_id="review-check", name=tool_name, arguments=arguments)
    executor = container.tool_executor()
    try:
        offered = (await executor.list_tools()).get(tool_name)
        if offered is None:
            known = False
            offered = ToolDefinition(name=tool_name, risk=RiskLevel.HIGH)
            risk = RiskAssessment(level=RiskLevel.HIGH, reason="unknown tool (checked as high-risk)")
        else:
            known = True
            risk = executor.assess_risk(call, offered)
    finally:
        await executor.aclose()
    base: dict[str, Any] = {
        "tool": tool_name,
        "arguments": arguments,
        "known_tool": known,
        "risk": risk.level.value,
        "risk_reason": risk.reason,
    }
    reviewer = container.reviewer()
    screening = screen_call(reviewer, call, offered, risk)  # as the run screens it
    rule, risk = screening.rule, screening.risk
    if screening.denial is not None:
        event = ReviewEvent.of(call.native_id, tool_name, screening.denial).model_dump(mode="json")
        return {**base, **{k: event[k] for k in ("approved", "decided_by", "votes", "reason", "rule")}}
    base.update(risk=risk.level.value, risk_reason=risk.reason)
    if not screening.reviewed:
        return {
            **base,
            "approved": True,
            "decided_by": "not reviewed",
            "reason": "low-risk calls run unreviewed",
        }
    if rules_only:
        if rule is None or rule.decision == "ask":
            panel = settings.section(ReviewSettings).reviewers
            goes = "the human step" if rule is not None or not panel else "the review panel"
            said = "no policy rule matches" if rule is None else f"rule '{rule.describe()}' says ask"
            return {
                **base,
                "approved": None,
                "decided_by": "undecided",
                "reason": f"{said}; it goes to {goes}",
            }
        return {
            **base,
            "approved": rule.decision == "allow",
            "decided_by": "policy",
            "rule": rule.describe(),
            "reason": rule.reason,
        }
    context = ReviewContext(run_id="review-check", task=task, tool=offered, risk=risk.level, risk_reason=risk.reason)
    decision = await reviewer.review(call, context)
    event = ReviewEvent.of(call.native_id, tool_name, decision).model_dump(mode="json")
    return {
        **base,
        **{k: event[k] for k in ("approved", "decided_by", "votes", "reason", "rule")},
        "pipeline": describe_pipeline(reviewer),
    }


def _print(outcome: dict[str, Any]) -> None:
    where = "" if outcome["known_tool"] else "  (not a tool available here)"
    click.echo(f"{outcome['tool']} {json.dumps(outcome['arguments'], ensure_ascii=False)}{where}")
    click.echo(f"risk: {outcome['risk']}" + (f" — {outcome['risk_reason']}" if outcome["risk_reason"] else ""))
    if outcome.get("pipeline"):
        click.echo(f"review: {outcome['pipeline']}")
    if outcome["decided_by"] == "not reviewed":
        click.echo(f"✓ not reviewed: {outcome['reason']}")
    elif outcome["decided_by"] == "undecided":
        click.echo(f"? undecided by the policy rules: {outcome['reason']}")
    else:  # the decision in the words a run uses for it
        from quorum.cli.render.words import decision_line
        from quorum.domain.events import ReviewEvent

        event = ReviewEvent.model_validate(
            {
                "call_id": "review-check",
                "name": outcome["tool"],
                "votes": outcome.get("votes", []),
                **{key: outcome.get(key) for key in ("approved", "decided_by", "reason", "rule")},
            }
        )
        click.echo(f"{'✓' if event.approved else '✗'} {decision_line(event)}")
    for vote in outcome.get("votes", []):
        click.echo(f"  {vote['verdict']:<7} {vote['reviewer']} ({vote['latency_ms'] / 1000:.1f} s): {vote['reason']}")
