"""The human step through the editor: ``session/request_permission`` and the session's "always" answers.

``EditorPrompt`` is the ``HumanPrompt`` of an ACP session: a call that reaches the human step
(after the policy rules and the panel, as in ``quorum run``) is sent to the client with its
diff, why it is asked and the panel's votes, and the options allow once, allow always, reject
once, reject always. "Always" is offered exactly when the terminal offers it, with the same scope
(``scope_for``: program and subcommand; tool and directory; tool), and lasts for the rest of the
session: an "allow always" scope is handed to every later run's human step (which approves
covered calls without asking), a "reject always" scope goes into every later run order's ``refused``
(the composition's ``RefusingStep`` rejects covered calls before any question or ``hil_mode``
shortcut). A rejection reaches the model
with its reason, as at the terminal: the client's, when its answer carries one in ``_meta``
(``{"reason": TEXT}``, on the outcome or the response; ACP has no field for it), else the
option's.

A plan (plan mode's ``propose_plan``, ``context.subject == "plan"``) is asked the same way,
showing the numbered plan as text; no "always" is offered for a plan (``scope_for`` draws none:
each plan, revisions included, is confirmed).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from acp import helpers

from quorum.acp.plan_view import plan_content, plan_title, proposed_plan
from quorum.acp.tool_view import kind_of, title_of
from quorum.domain.secrets import Redactor
from quorum.infrastructure.review.human import HumanAnswer, HumanRequest
from quorum.infrastructure.review.scope import ApprovalScope

ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE, REJECT_ALWAYS = "allow_once", "allow_always", "reject_once", "reject_always"

Ask = Callable[[Any, list[Any]], Awaitable[Any]]
"""Sends ``session/request_permission`` (tool call update, options) and returns the client's response."""


class SessionScopes:
    """The "always" answers given in one session, in the order given."""

    def __init__(self) -> None:
        self.allowed: list[ApprovalScope] = []
        self.rejected: list[ApprovalScope] = []


class EditorPrompt:
    """A ``HumanPrompt`` asking the ACP client (see the module docstring).

    Args:
        ask: sends the permission request of the session.
        scopes: the session's "always" answers (this prompt adds to them).
        redactor: known secrets, replaced in the arguments shown.
        before_asking: awaited first (sends the updates queued so far: the client knows the call).
        tool_content: the content to show for a call id (its diff).
    """

    def __init__(
        self,
        ask: Ask,
        scopes: SessionScopes,
        redactor: Redactor,
        *,
        before_asking: Callable[[], Awaitable[None]],
        tool_content: Callable[[str], list[Any]],
    ) -> None:
        self._ask = ask
        self._scopes = scopes
        self._redactor = redactor
        self._before = before_asking
        self._content = tool_content

    async def ask(self, request: HumanRequest) -> HumanAnswer:
        await self._before()
        call = request.call
        arguments = self._redactor.data(dict(call.arguments))[0]
        lines = [f"Asked because {request.why}."]
        lines += [f"- {vote.reviewer}: {vote.verdict} ({vote.reason or 'no reason given'})" for vote in request.votes]
        plan = proposed_plan(call.name, arguments) if request.context.subject == "plan" else None
        shown = plan_content(plan) if plan is not None else self._content(call.native_id)
        content = [*shown, helpers.tool_content(helpers.text_block("\n".join(lines)))]
        update = helpers.update_tool_call(
            call.native_id,
            title=plan_title(plan) if plan is not None else title_of(call.name, arguments),
            kind=kind_of(call.name),
            status="pending",
            content=content,
            raw_input=arguments,
        )
        response = await self._ask(update, _options(request.always))
        outcome = response.outcome
        given = self._redactor.text(_reason(response))
        if getattr(outcome, "outcome", None) != "selected":
            return HumanAnswer("reject", given or "the question was cancelled in the editor")
        chosen = outcome.option_id
        if chosen == ALLOW_ONCE:
            return HumanAnswer("approve", given)
        if chosen == ALLOW_ALWAYS and request.always is not None:
            self._scopes.allowed.append(request.always)
            return HumanAnswer("always", given)
        if chosen == REJECT_ALWAYS and request.always is not None:
            self._scopes.rejected.append(request.always)
            always = f"always reject {request.always.label} in this session"
            return HumanAnswer("reject", f"{given}; {always}" if given else f"rejected by the user; {always}")
        default = (
            "the plan was rejected by the user in the editor"
            if plan is not None
            else "rejected by the user in the editor"
        )
        return HumanAnswer("reject", given or default)


MAX_REASON = 2000
"""Characters of a client's reason kept (it goes to the model and the run log)."""


def _reason(response: Any) -> str:
    """The reason a client put in its answer's ``_meta`` (``{"reason": TEXT}``), or ""."""
    for holder in (getattr(response, "outcome", None), response):
        meta = getattr(holder, "field_meta", None)
        reason = meta.get("reason") if isinstance(meta, dict) else None
        if isinstance(reason, str) and reason.strip():
            return " ".join(reason.split())[:MAX_REASON]
    return ""


def _options(scope: ApprovalScope | None) -> list[Any]:
    from acp.schema import PermissionOption

    options = [PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once")]
    if scope is not None:
        always = PermissionOption(option_id=ALLOW_ALWAYS, name=f"Always allow {scope.label}", kind="allow_always")
        options.append(always)
    options.append(PermissionOption(option_id=REJECT_ONCE, name="Reject", kind="reject_once"))
    if scope is not None:
        options.append(
            PermissionOption(option_id=REJECT_ALWAYS, name=f"Always reject {scope.label}", kind="reject_always")
        )
    return options
