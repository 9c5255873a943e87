"""``[serve]``: where ``quorum serve`` listens, its token, and what it accepts."""

from __future__ import annotations

from pydantic import Field

from quorum.infrastructure.config.sections import Section

DEFAULT_MAX_BODY = 1024 * 1024
DEFAULT_MAX_HEADER_BYTES = 32 * 1024


class ServeSettings(Section):
    """``[serve]`` section.

    Attributes:
        host: the address to bind; a non-loopback one also needs ``--allow-remote``.
        port: the TCP port.
        token: the bearer token clients send (a ``${VAR}`` reference is expanded); empty: one is
            generated at the first start and kept (mode 0600) in the data directory.
        max_body_bytes: larger request bodies are refused with 413 before they are read whole.
        max_header_bytes: the largest request head (request line and headers); a larger one is
            refused with 431 and its connection closed before more of it is read.
        max_headers: requests with more header fields are refused with 431.
        header_timeout: seconds a connection may wait for a request's head to be complete (from
            the connection or from the previous response); then it is closed.
        body_timeout: seconds a request's whole body may take to arrive, counted from its head;
            then 408 and the connection is closed.
        cors_origins: origins (``https://app.example``) whose browser requests are accepted besides
            the server's own; none by default.
        tls_cert: a PEM certificate file; with ``tls_key`` the server speaks HTTPS.
        tls_key: the certificate's PEM private key file.
    """

    host: str = Field("127.0.0.1", min_length=1)
    port: int = Field(8765, ge=0, le=65535)
    token: str = ""
    max_body_bytes: int = Field(DEFAULT_MAX_BODY, ge=1)
    max_header_bytes: int = Field(DEFAULT_MAX_HEADER_BYTES, ge=1024, le=1024 * 1024)
    max_headers: int = Field(100, ge=8, le=10_000)
    header_timeout: float = Field(10.0, gt=0, le=3600)
    body_timeout: float = Field(30.0, gt=0, le=3600)
    cors_origins: list[str] = Field(default_factory=list)
    tls_cert: str | None = None
    tls_key: str | None = None
