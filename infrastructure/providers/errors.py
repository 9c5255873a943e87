"""Translation of provider SDK exceptions into ``ProviderError``, at the edge.

The openai and anthropic SDKs share one exception design (``APIStatusError`` with ``status_code``,
``APIConnectionError`` and its subclass ``APITimeoutError``, a base ``APIError``), and both run on
``httpx2``, whose transport errors escape unwrapped while a stream body is being read. One
translator therefore serves both; each session hands it its SDK module.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

from quorum.domain.errors import ContextTooLong, ProviderError, Unavailable
from quorum.infrastructure.providers.retry_after import RETRY_AFTER_LIMIT, retry_after_seconds


@dataclass(frozen=True)
class ErrorTranslator:
    """Knows the facts a message needs: which provider instance, model, endpoint and key variable.

    Attributes:
        provider: the instance name (``[providers.NAME]``).
        model: the model requested.
        base_url: the endpoint the client talks to.
        key_env: the environment variable the key is read from (named in 401/403 messages).
        max_retries: retries the SDK may make; the number actually made is read from the request.
        timeout: the read timeout in seconds (named in timeout messages).
    """

    provider: str
    model: str
    base_url: str
    key_env: str
    max_retries: int
    timeout: float

    def translate(self, error: BaseException, sdk: ModuleType, *, mid_stream: bool = False) -> ProviderError | None:
        """The domain error for ``error`` raised by ``sdk`` or httpx2, or None when it is foreign.

        Args:
            error: the exception caught around an SDK call or a stream read.
            sdk: the ``openai`` or ``anthropic`` module (its exception classes are used).
            mid_stream: the response had started; a transport failure now means a lost connection.
        """
        import httpx2  # already imported by the SDK; only reached on a failure

        if mid_stream and isinstance(error, sdk.APIConnectionError | httpx2.HTTPError):
            cause = error.__cause__ if isinstance(error, sdk.APIConnectionError) and error.__cause__ else error
            if isinstance(cause, httpx2.TimeoutException):
                return self.stalled(f"no data for {self.timeout:g} s")
            return self._error(
                f"the connection to provider {self.provider!r} at {self.base_url} was lost "
                f"mid-response: {_describe(cause)}",
                unavailable="connection",
            )
        if isinstance(error, sdk.APIStatusError) and not (mid_stream and error.status_code < 400):
            said = f"{_server_message(error)} {getattr(error, 'code', None)} {getattr(error, 'body', None)}"
            too_long = error.status_code in (400, 413) and _too_long(said)
            message = _server_message(error) + self._cache_hint(error.status_code, said)
            return self._status(error.status_code, message, error.response, too_long=too_long)
        if isinstance(error, sdk.APITimeoutError):
            return self._error(
                f"the request to provider {self.provider!r} at {self.base_url} timed out after {self.timeout:g} s"
                f"{_retries_note(error.request)}",
                unavailable="timeout",
            )
        if isinstance(error, sdk.APIConnectionError):
            cause = error.__cause__ or error
            return self._error(
                f"cannot connect to provider {self.provider!r} at {self.base_url}: {_describe(cause)}"
                f"{_retries_note(error.request)}",
                unavailable="connection",
            )
        if isinstance(error, sdk.APIError):  # an error event inside a stream, a malformed body
            where = " mid-response" if mid_stream else ""
            return self._error(f"provider {self.provider!r} returned an error{where}: {_server_message(error)}")
        if isinstance(error, httpx2.HTTPError):
            return self._error(
                f"the connection to provider {self.provider!r} at {self.base_url} failed: {_describe(error)}",
                unavailable="connection",
            )
        return None

    def incomplete_stream(self, detail: str) -> ProviderError:
        """The error for a stream that ended before the response was complete."""
        return self._error(f"the response stream of provider {self.provider!r} ended early: {detail}")

    def malformed(self, detail: str, *, mid_stream: bool = False) -> ProviderError:
        """The error for a reply that cannot be understood; ``detail`` says what was wrong."""
        return self._error(f"malformed response from provider {self.provider!r}: {detail}")

    def error_reply(self, message: str, *, mid_stream: bool = False) -> ProviderError:
        """The error for an error object sent instead of a reply (a 200 body, a stream event)."""
        where = " mid-response" if mid_stream else ""
        return self._error(f"provider {self.provider!r} returned an error{where}: {message}")

    def stalled(self, detail: str) -> ProviderError:
        """The error for a response that stopped making progress (``timeout`` between events)."""
        return self._error(
            f"the response of provider {self.provider!r} at {self.base_url} stalled: {detail}", unavailable="timeout"
        )

    def _cache_hint(self, status: int, said: str) -> str:
        """Advice when a server refused the field prompt caching added (a compatible server's 400/422)."""
        refused = next((field for field in CACHE_FIELDS if field in said), None)
        if refused is None or status not in (400, 422):
            return ""
        return (
            f" (this server does not accept {refused}, which prompt caching sends: "
            f'set cache = "off" in [providers.{self.provider}])'
        )

    def _status(self, status: int, message: str, response: Any, *, too_long: bool = False) -> ProviderError:
        name = self.provider
        retried = _retries_made(response.request)
        wait = retry_after_seconds(response.headers)
        if wait is not None and wait > RETRY_AFTER_LIMIT and (status == 429 or status >= 500 or status in (408, 409)):
            # the SDK does not retry past the limit (gateway_base makes sure): say why it stopped
            after = f"after {retried} retries: Retry-After {wait:g} s exceeds the limit of {RETRY_AFTER_LIMIT:g} s"
        else:
            after = f"after {retried} retries"
        if status in (401, 403):
            text = (
                f"invalid or missing API key for provider {name!r} "
                f"(set {self.key_env} or api_key in [providers.{name}]): HTTP {status}: {message}"
            )
        elif status == 404:
            text = f"model {self.model!r} not found at provider {name!r} ({self.base_url}): {message}"
        elif status == 429:
            text = f"provider {name!r} is rate-limiting requests (HTTP 429) {after}: {message}"
        elif status >= 500 or status in (408, 409):
            text = f"provider {name!r} failed with HTTP {status} {after}: {message}"
        else:
            text = f"provider {name!r} rejected the request to model {self.model!r} (HTTP {status}): {message}"
            if too_long:
                return ContextTooLong(
                    text, provider=self.provider, model=self.model, status_code=status, base_url=self.base_url
                )
        return self._error(text, status, unavailable=_unavailable(status))

    def _error(
        self, message: str, status: int | None = None, *, unavailable: Unavailable | None = None
    ) -> ProviderError:
        return ProviderError(
            message,
            provider=self.provider,
            model=self.model,
            status_code=status,
            base_url=self.base_url,
            unavailable=unavailable,
        )


def _unavailable(status: int) -> Unavailable | None:
    """Why the model could not answer, for a status that is not the request's fault (None: it is)."""
    if status == 529:
        return "overloaded"
    if status == 429:
        return "rate_limited"
    if status == 408:
        return "timeout"
    return "server_error" if status >= 500 else None


CACHE_FIELDS = ("prompt_cache_key", "cache_control")
"""The request fields prompt caching adds (``cache = "auto"``): OpenAI's key, Anthropic's breakpoints."""


CONTEXT_TOO_LONG = ("context_length_exceeded", "prompt is too long", "exceeds the available context size")
"""What OpenAI, Anthropic and llama.cpp's server say when a request is longer than the model's window."""


def _too_long(message: str) -> bool:
    lowered = message.lower()
    return any(phrase in lowered for phrase in CONTEXT_TOO_LONG)


def _retries_made(request: Any) -> int:
    """Retries made before ``request``: both SDKs number each attempt in a request header."""
    try:
        return int(request.headers.get("x-stainless-retry-count", "0"))
    except (AttributeError, ValueError):  # a request the SDK did not build
        return 0


def _retries_note(request: Any) -> str:
    retried = _retries_made(request)
    return f" (after {retried} retries)" if retried else ""


def _server_message(error: Any) -> str:
    """The server's own words: ``error.message`` of the JSON body when there is one."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
    return str(getattr(error, "message", None) or error)


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
