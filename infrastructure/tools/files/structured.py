"""Whether a structured file (JSON, TOML, YAML) still parses after a write or an edit.

A write that breaks a configuration file succeeds as a write; the model should know at once that
the file no longer parses, in the result of the call that broke it. A file that did not parse
before the change is not warned about (the change did not break it).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import PurePosixPath

FORMATS = {".json": "JSON", ".toml": "TOML", ".yaml": "YAML", ".yml": "YAML"}


def parse_error(name: str, text: str) -> str | None:
    """Why ``text`` does not parse as the format ``name``'s extension says; None if it does or has none."""
    kind = FORMATS.get(PurePosixPath(name).suffix.lower())
    try:
        if kind == "JSON":
            json.loads(text)
        elif kind == "TOML":
            tomllib.loads(text)
        elif kind == "YAML":
            import yaml  # lazily: only when a YAML file is written

            yaml.safe_load(text)
    except RecursionError:
        return "it is nested too deeply to read"
    except Exception as error:  # each parser raises its own error class; any of them means "does not parse"
        return " ".join(str(error).split())[:300]
    return None


def broken_warning(shown: str, before: str | None, after: str) -> str:
    """A warning line when ``after`` does not parse but ``before`` did (or there was no file); else ``""``."""
    error = parse_error(shown, after)
    if error is None or (before is not None and parse_error(shown, before) is not None):
        return ""
    kind = FORMATS[PurePosixPath(shown).suffix.lower()]
    state = "is no longer" if before is not None else "is not"
    return f"\nwarning: {shown} {state} valid {kind}: {error}; fix it with edit_file"
