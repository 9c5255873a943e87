"""``--output-schema FILE``: the JSON Schema file read and checked before anything runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

MAX_SCHEMA_BYTES = 1_000_000
"""A schema file larger than this is refused (it goes to the model with every request)."""


def read_schema(path: Path) -> dict[str, Any]:
    """The JSON Schema in ``path``.

    Raises:
        click.BadParameter: the file cannot be read, is not JSON, or is not a valid JSON Schema
            (a usage error: exit 2, nothing run).
    """
    from quorum.application.output_schema import schema_problem

    def refuse(why: str) -> click.BadParameter:
        return click.BadParameter(f"{path}: {why}", param_hint="--output-schema")

    try:
        with path.open("rb") as file:
            data = file.read(MAX_SCHEMA_BYTES + 1)
    except OSError as error:
        raise refuse(error.strerror or str(error)) from None
    if len(data) > MAX_SCHEMA_BYTES:
        raise refuse(f"larger than {MAX_SCHEMA_BYTES} bytes")
    try:
        schema = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise refuse("not UTF-8 text") from None
    except ValueError as error:
        raise refuse(f"not JSON: {error}") from None
    except RecursionError:
        raise refuse("nested too deeply to read") from None
    problem = schema_problem(schema)
    if problem is not None:
        raise refuse(problem)
    return dict(schema)
