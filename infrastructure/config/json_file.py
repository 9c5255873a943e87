"""Reading a JSON file Quorum keeps for the user (the key index, the trusted workspaces)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from quorum.domain.errors import ConfigurationError


def read_json(path: Path, invalid: str) -> Any:
    """The parsed content of ``path``, or None when there is no such file.

    Raises:
        ConfigurationError: the file cannot be read, or is not JSON (``invalid`` then says what
            to do, after the path).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ConfigurationError(f"cannot read {path}: {error.strerror}") from None
    try:
        return json.loads(text)
    except ValueError:
        raise ConfigurationError(f"{path} is not valid JSON; {invalid}") from None
