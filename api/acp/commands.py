"""The slash commands a session answers without a run: ``/tools``, ``/review``, ``/usage``, ``/model``.

The session asks them (``AcpSession.prompt``); they read and set what ``CommandSession`` names, so
this module does not import the session that imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from quorum.composition.model_choice import ModelNaming, NoModelChosen, advice
from quorum.domain import amounts
from quorum.domain.errors import QuorumError

if TYPE_CHECKING:
    from quorum.acp.permission import SessionScopes
    from quorum.composition.conversation import Conversation
    from quorum.composition.runtime import Runtime
    from quorum.domain.events import RunFinished


class CommandSession(Protocol):
    """What the commands read of a session (an ``AcpSession``; typed here so neither imports the other)."""

    @property
    def runtime(self) -> Runtime:
        """The session's open composition."""
        ...

    @property
    def mode(self) -> str:
        """The session mode."""
        ...

    @property
    def scopes(self) -> SessionScopes:
        """The session's "always" answers."""
        ...

    @property
    def finished(self) -> list[RunFinished]:
        """The session's runs' ``run_finished`` events."""
        ...

    @property
    def conversation(self) -> Conversation:
        """The session's chain of runs."""
        ...

    @property
    def model(self) -> str | None:
        """The model of the next prompt."""
        ...

    def reviewer(self) -> Any:
        """The review the next run gets."""
        ...


async def answer(session: CommandSession, name: str, argument: str) -> str:
    """The text answering ``/name argument`` in ``session``."""
    container = session.runtime.container
    if name == "tools":
        spec = await container.tool_executor().list_tools()
        rows = [f"- `{tool.name}` ({tool.risk.value} risk): {tool.description}" for tool in spec.all()]
        return "\n".join(["Tools the model may call:", *rows]) if rows else "No tools are offered."
    if name == "review":
        from quorum.infrastructure.review.pipeline import describe_pipeline

        lines = [f"Review: {describe_pipeline(session.reviewer())}.", f"Session mode: {session.mode}."]
        lines += [f"- always allow {scope.label}" for scope in session.scopes.allowed]
        lines += [f"- always reject {scope.label}" for scope in session.scopes.rejected]
        return "\n".join(lines)
    if name == "usage":
        runs = session.finished
        tokens = sum(run.usage.total_tokens for run in runs)
        costs = [run.cost for run in runs if run.cost is not None]
        cost = amounts.usd(sum(costs)) if costs else "cost unknown"
        return f"{len(runs)} run(s) · {amounts.tokens(tokens)} · {cost}"
    return _model(session, argument)


IN_THE_EDITOR = ModelNaming(
    name_it=(
        "Name one with the /model command (e.g. /model openai:gpt-4.1-mini), or start the agent with "
        "quorum acp --model provider:model"
    ),
    offline="/model scripted:demo (replays examples/demo.toml, shipped with Quorum) or /model test",
)
"""How a model is named in an editor: ``/model`` in the session, ``quorum acp --model`` for every session."""


def _model(session: CommandSession, wanted: str) -> str:
    from quorum.composition.model_choice import choose_model

    container = session.runtime.container
    gateway = container.gateway()
    if not wanted:
        try:
            current = gateway.resolve(choose_model(session.model or container.settings().model, container.env()))
        except NoModelChosen:
            return f"No model: {advice(IN_THE_EDITOR)}"
        except QuorumError as error:
            return f"No model: {error}"
        return f"Model: {current}"
    try:
        model_id = session.conversation.switch_model(container, wanted)  # a missing key: said now
    except QuorumError as error:
        return f"Model unchanged: {container.redactor().text(str(error))}"
    return f"Model: {model_id}"
