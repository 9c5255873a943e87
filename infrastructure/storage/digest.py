"""A digest of the effective configuration, recorded with each run instead of the configuration."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel


def config_digest(settings: Any) -> str:
    """``sha256:`` and 16 hex digits over the settings' JSON form; equal settings give equal digests.

    Secrets never enter it in clear: pydantic dumps ``SecretStr`` fields masked, so two configs
    differing only in a key have the same digest, and the digest cannot reveal a key.
    """
    data = settings.model_dump(mode="json") if isinstance(settings, BaseModel) else settings
    text = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]
