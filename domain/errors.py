"""The one error tree of Quorum.

Three families are kept apart because callers handle them differently::

    QuorumError
    ├── UsageError                  the user asked for something impossible (exit code 2)
    │   ├── ConfigurationError      quorum.toml / environment / plugin wiring is wrong
    │   └── NothingToUndo           no such run or call with checkpoints to undo
    ├── RunFailure                  the run could not go on (exit code 1)
    │   ├── UndoConflict            files changed since the run's last checkpoint: undo refused
    │   ├── ProviderError           an LLM provider failed after retries (keeps status_code)
    │   │   └── ContextTooLong      the provider refused the request as longer than the model's window
    │   └── ToolSourceError         a tool source (MCP server, plugin) failed as a whole
    └── ToolFeedback                a signal fed back to the model as an error tool result;
        ├── UnknownToolError        the model named a tool that does not exist
        ├── InvalidArgumentsError   arguments were not JSON or broke the tool's schema
        └── ToolRefusedError        a tool declined to act (path escape, bad input, …)

Only the CLI maps these to messages and exit codes; adapters translate foreign exceptions into them.
"""

from __future__ import annotations

from typing import Literal


class QuorumError(Exception):
    """Base of every error Quorum raises on purpose."""


class UsageError(QuorumError):
    """The user asked for something that cannot be done as asked (bad flag, unknown model)."""


class ConfigurationError(UsageError):
    """Configuration is invalid; ``source`` names the file or layer and ``key`` the key path."""

    def __init__(self, message: str, *, source: str | None = None, key: str | None = None) -> None:
        self.source = source
        self.key = key
        prefix = ": ".join(part for part in (source, key) if part)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class RunFailure(QuorumError):
    """The run could not go on through no fault of the model (transport, provider, tool source)."""


class UndoConflict(RunFailure):
    """An undo refused, changing nothing: files changed since the run's last checkpoint.

    A person (or a later run) changed them after the run; restoring would lose that work.
    ``force`` restores them anyway.

    Attributes:
        run_id: the run to undo.
        files: the changed paths, relative to the workspace, sorted.
    """

    def __init__(self, run_id: str, files: tuple[str, ...]) -> None:
        shown = ", ".join(files)
        super().__init__(
            f"undo of run {run_id} refused: changed since the run: {shown} (nothing was changed; "
            "--force restores them anyway)"
        )
        self.run_id = run_id
        self.files = files


class NothingToUndo(UsageError):
    """No run (or no call of it) with checkpoints in this workspace to undo."""


Unavailable = Literal["overloaded", "server_error", "rate_limited", "timeout", "connection"]
"""Why a model could not answer a request that was not at fault: another model may answer it.

``overloaded`` (Anthropic's 529), ``server_error`` (another 5xx), ``rate_limited`` (429),
``timeout`` (no answer in time, HTTP 408 included), ``connection`` (refused, reset, lost).
"""


class ProviderError(RunFailure):
    """An LLM provider failed; the facts (provider, model, HTTP status) are kept for the message.

    ``unavailable`` says why the model could not answer when the request itself was not at
    fault (a fallback model may answer it, ``quorum.application.fallback``); None when the
    request was refused (400, 401, 403, 404, a context overflow) or the failure is not known
    to be the model's.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        model: str | None = None,
        status_code: int | None = None,
        base_url: str | None = None,
        unavailable: Unavailable | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.status_code = status_code
        self.base_url = base_url
        self.unavailable: Unavailable | None = unavailable
        super().__init__(message)


class ContextTooLong(ProviderError):
    """The provider refused the request as longer than the model's context window.

    The loop compacts the history once and retries (``quorum.application.context_fit``).
    """


class ToolSourceError(RunFailure):
    """A whole tool source (an MCP server, a plugin) is unavailable."""

    def __init__(self, message: str, *, source: str) -> None:
        self.source = source
        super().__init__(message)


class RequiredToolSourceError(ToolSourceError):
    """A tool source the run cannot go without (``[mcp.servers.X] required = true``) is unavailable.

    Raised from ``list_tools``; the executor lets it through, so the run ends with an error.
    """


class ToolFeedback(QuorumError):
    """A problem with one tool call that the model should see and can correct."""


class UnknownToolError(ToolFeedback):
    """The model called a tool name that is not available."""


class InvalidArgumentsError(ToolFeedback):
    """The call's arguments were not valid JSON or did not match the tool's schema."""


class ToolRefusedError(ToolFeedback):
    """A tool refused the call (path outside the workspace, ambiguous edit, …)."""
