"""Choosing the model when the user did not name one."""

from __future__ import annotations

from collections.abc import Mapping

from quorum.domain.errors import UsageError

DEFAULT_MODELS: tuple[tuple[str, str], ...] = (
    ("OPENAI_API_KEY", "openai:gpt-4.1-mini"),
    ("ANTHROPIC_API_KEY", "anthropic:claude-sonnet-4-5"),
)

NO_MODEL_HELP = (
    "no model configured. Name one with --model provider:model (e.g. --model openai:gpt-4.1-mini or "
    '--model anthropic:claude-sonnet-4-5), or set `model = "provider:model"` in quorum.toml or '
    "QUORUM_MODEL, and provide the provider's key (OPENAI_API_KEY, ANTHROPIC_API_KEY, or api_key under "
    "[providers.NAME], or `quorum keys set openai`). To try Quorum offline, with no key: "
    "--model scripted:demo (replays examples/demo.toml, shipped with Quorum) or --model test; "
    "`quorum init` writes a quorum.toml."
)


def choose_model(configured: str | None, env: Mapping[str, str]) -> str:
    """The configured model, else a default for the first provider key found in ``env``.

    Raises:
        UsageError: nothing configured and no key present (the message says how to fix it).
    """
    if configured:
        return configured
    for variable, model in DEFAULT_MODELS:
        if env.get(variable):
            return model
    raise UsageError(NO_MODEL_HELP)
