"""The server's models: the default of its runs, the list a client chooses from, the advice when there is none.

A served run's model is the request's ``model``, else the server's default: ``quorum serve
--model``, else ``model`` of the configuration, else the default of the first provider key found
(``choose_model``, as for ``quorum run``). With none, a start is refused with the advice worded
for the server (``SERVED``): the page's model list, ``quorum serve --model``, ``quorum.toml``.
"""

from __future__ import annotations

from typing import Any

from quorum.composition.listing import model_rows
from quorum.composition.model_choice import ModelNaming, NoModelChosen, advice, default_model
from quorum.domain.errors import UsageError
from quorum.serve.models import ModelListing

SERVED = ModelNaming(
    name_it=(
        'Choose one in the page\'s Model list (an API client sends "model" in POST /v1/runs), or give the '
        "server a default: quorum serve --model provider:model (e.g. quorum serve --model openai:gpt-4.1-mini)"
    ),
    offline=(
        "choose scripted:demo (replays examples/demo.toml, shipped with Quorum) or test in the Model list, "
        "or quorum serve --model scripted:demo"
    ),
)
"""How a model is named through the server: its page's list, the request's ``model``, ``quorum serve --model``."""


def served_default(container: Any, *, strict: bool = True) -> str | None:
    """The ``provider:model`` of a run naming none on ``container`` (the composition's), or None: there is none.

    Raises:
        UsageError: the configured model is a bare name several providers' known models have
            (``strict``; else None).
    """
    try:
        return default_model(container.settings().model, container.env(), container.gateway().resolve)
    except UsageError:
        if strict:
            raise
        return None


def model_listing(container: Any) -> ModelListing:
    """``GET /v1/models``: the models the configuration names, the default, the offline ones, the aliases."""
    default = served_default(container, strict=False)
    return ModelListing(items=model_rows(container.gateway(), default), default=default)


def model_line(default: str | None) -> str:
    """The start line that says which model the runs get."""
    if default is None:
        return "quorum serve: no model configured: choose one in the page's Model list, or restart with --model MODEL"
    return f"quorum serve: model {default} (the runs' default; the page can choose another)"


def refusal(error: UsageError) -> str:
    """What the API answers when a run's start is refused: the no-model advice is the server's."""
    return advice(SERVED) if isinstance(error, NoModelChosen) else str(error)
