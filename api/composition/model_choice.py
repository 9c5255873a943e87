"""Choosing the model when the user did not name one, and the advice when there is none to choose.

The advice depends on the driver the user reached: the command line names a model with
``--model``, a served page with its model list. The composition words it for the command line
(``COMMAND_LINE``); another driver catches ``NoModelChosen`` and words it with its own
``ModelNaming`` (``advice``), so the composition never knows the drivers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from quorum.domain.errors import UsageError

DEFAULT_MODELS: tuple[tuple[str, str], ...] = (
    ("OPENAI_API_KEY", "openai:gpt-4.1-mini"),
    ("ANTHROPIC_API_KEY", "anthropic:claude-sonnet-4-5"),
)


@dataclass(frozen=True)
class ModelNaming:
    """How a user names a model through one driver: the driver's part of the no-model advice.

    Attributes:
        name_it: a sentence saying how to name one there, followed in the advice by
            ``, or set `model = "provider:model"` in quorum.toml …``.
        offline: how to choose the offline models there (``scripted:demo``, ``test``).
    """

    name_it: str
    offline: str


COMMAND_LINE = ModelNaming(
    name_it=(
        "Name one with --model provider:model (e.g. --model openai:gpt-4.1-mini or --model anthropic:claude-sonnet-4-5)"
    ),
    offline="--model scripted:demo (replays examples/demo.toml, shipped with Quorum) or --model test",
)
"""The command line's way (``quorum run``, ``chat``, ``batch``, …): the default wording."""


def advice(naming: ModelNaming) -> str:
    """What to do when no model is configured, worded for the driver ``naming`` describes."""
    return (
        f'no model configured. {naming.name_it}, or set `model = "provider:model"` in quorum.toml or '
        "QUORUM_MODEL, and provide the provider's key (OPENAI_API_KEY, ANTHROPIC_API_KEY, or api_key under "
        "[providers.NAME], or `quorum keys set openai`). To try Quorum offline, with no key: "
        f"{naming.offline}; `quorum init` writes a quorum.toml."
    )


NO_MODEL_HELP = advice(COMMAND_LINE)
"""The command line's advice (the message of ``NoModelChosen``)."""


class NoModelChosen(UsageError):
    """No model was named, none is configured and no provider key was found.

    The message is the command line's advice; a driver that names models another way says its
    own with ``advice(its ModelNaming)``.
    """

    def __init__(self) -> None:
        super().__init__(NO_MODEL_HELP)


def choose_model(configured: str | None, env: Mapping[str, str]) -> str:
    """The configured model, else a default for the first provider key found in ``env``.

    Raises:
        NoModelChosen: nothing configured and no key present (a ``UsageError``; the message says
            how to fix it on the command line).
    """
    if configured:
        return configured
    for variable, model in DEFAULT_MODELS:
        if env.get(variable):
            return model
    raise NoModelChosen


def default_model(configured: str | None, env: Mapping[str, str], resolve: Callable[[str], str]) -> str | None:
    """The ``provider:model`` a run that names no model gets (``resolve``: the gateway's), or None: there is none.

    Raises:
        UsageError: ``configured`` is a bare name several providers' known models have.
    """
    try:
        return resolve(choose_model(configured, env))
    except NoModelChosen:
        return None
