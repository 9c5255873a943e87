"""Model identifiers of the form ``provider:model``."""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, ConfigDict

from quorum.domain.errors import UsageError


class ModelId(BaseModel):
    """A model named by its provider and the provider's own model name.

    ``test`` (no colon) is accepted for providers that need no model name; ``model`` is then ``""``.
    """

    model_config = ConfigDict(frozen=True)

    provider: str
    model: str = ""

    @classmethod
    def parse(cls, text: str) -> ModelId:
        """Parse ``provider:model``; raises UsageError for an empty provider.

        The same text gives the same (frozen) id: a run parses its model id several times.
        """
        return _parse(cls, text)

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}" if self.model else self.provider


@lru_cache(maxsize=256)
def _parse(cls: type[ModelId], text: str) -> ModelId:
    provider, _, model = text.strip().partition(":")
    if not provider:
        raise UsageError(f"model {text!r}: expected 'provider:model', e.g. 'openai:gpt-4.1-mini'")
    return cls(provider=provider, model=model)
