"""``quorum serve`` with TLS (``[serve] tls_cert``/``tls_key``); the warning when serving other machines without it.

The certificate is a real one made by ``openssl`` for 127.0.0.1; the client checks it against it,
so a server that did not serve TLS, or served another certificate, fails the test.
"""

from __future__ import annotations

import shutil
import ssl
import subprocess
from pathlib import Path

import httpx2
import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import DEADLINE, Server, finished, write_script

pytest.importorskip("starlette")

WARNING = "WARNING: serving other machines without TLS"


def _certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (its own CA) and its key."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.fail("openssl is needed to make the test certificate (Debian: apt-get install openssl)")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


def _configure(cli: Cli, serve: str) -> None:
    config = cli.workspace / "quorum.toml"
    config.write_text((config.read_text() if config.exists() else "") + f"\n[serve]\n{serve}")


def _with_tls(cli: Cli, cert: Path, key: Path) -> None:
    _configure(cli, f'tls_cert = "{cert}"\ntls_key = "{key}"\n')


def test_a_tls_server_serves_https_only_with_its_certificate(cli: Cli, tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path)
    _with_tls(cli, cert, key)
    server = Server(cli, verify=ssl.create_default_context(cafile=cert))
    try:
        assert server.first_line.startswith(f"quorum serve: https://127.0.0.1:{server.port}/#token=")
        assert server.http.get("/v1/health").json() == {"status": "ok"}
        run_id = server.start("say hello", write_script(cli, [{"text": "hello"}]))
        assert finished(list(server.events(run_id))[-1])
        with pytest.raises(httpx2.HTTPError):  # nothing in clear text on the TLS port
            httpx2.get(f"http://127.0.0.1:{server.port}/v1/health", timeout=DEADLINE)
        with pytest.raises(httpx2.ConnectError) as refused:  # a client that does not trust it cannot talk to it
            httpx2.get(f"{server.base}/v1/health", timeout=DEADLINE, verify=ssl.create_default_context())
        assert "CERTIFICATE_VERIFY_FAILED" in str(refused.value)
    finally:
        assert server.stop() == 0
    assert not any(WARNING in line for line in server.stderr)


def test_a_certificate_without_its_key_is_a_configuration_error(cli: Cli, tmp_path: Path) -> None:
    cert, _ = _certificate(tmp_path)
    _configure(cli, f'tls_cert = "{cert}"\n')
    refused = cli("serve", "--port", "1")
    assert refused.code == 2 and "tls_cert" in refused.stderr and "Traceback" not in refused.stderr


def test_serving_other_machines_without_tls_says_so_loudly(cli: Cli) -> None:
    server = Server(cli, "--host", "0.0.0.0", "--allow-remote")
    try:
        assert server.first_line.startswith("quorum serve: http://0.0.0.0:")
        assert server.http.get("/v1/health").status_code == 200
    finally:
        assert server.stop() == 0
    assert any(WARNING in line for line in server.stderr), server.stderr


def test_serving_other_machines_with_tls_gives_no_warning(cli: Cli, tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path)
    _with_tls(cli, cert, key)
    server = Server(cli, "--host", "0.0.0.0", "--allow-remote", verify=ssl.create_default_context(cafile=cert))
    try:
        assert server.first_line.startswith("quorum serve: https://0.0.0.0:")
        assert server.http.get("/v1/health").status_code == 200
    finally:
        assert server.stop() == 0
    assert not any(WARNING in line for line in server.stderr)
