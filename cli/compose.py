"""The composition a command runs on: ``quorum.composition``'s container, wired to the CLI's error reporting."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quorum.composition.container import Container
    from quorum.composition.options import AppOptions


def compose(options: AppOptions, **overrides: Any) -> Container:
    """The container for one command invocation (``overrides`` replace providers by name).

    Once the configuration's secrets are known, the error messages the CLI prints are redacted
    with them too.
    """
    from quorum.cli.errors import redact_errors_with
    from quorum.composition.container import build_container

    return build_container(options, on_secrets=redact_errors_with, **overrides)
