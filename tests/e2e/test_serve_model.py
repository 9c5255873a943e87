"""``quorum serve -m/--model``: the runs' default model, ``GET /v1/models``, and the advice when there is none.

A real ``quorum serve`` process, the scripted model, no provider key.
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import Server, write_script

pytest.importorskip("starlette")


def _run_model(server: Server, body: dict[str, str]) -> str:
    """The model a run started with ``body`` got, as its ``run_started`` event says."""
    answer = server.http.post("/v1/runs", json=body)
    assert answer.status_code == 201, answer.text
    events = list(server.events(answer.json()["run_id"]))
    assert events[0].type == "run_started" and events[-1].data["stop_reason"] == "end_turn"
    model: str = events[0].data["model"]
    return model


def test_the_model_flag_is_the_default_of_runs_naming_none(cli: Cli) -> None:
    chosen = write_script(cli, [{"text": "from the flag's model"}], "flag.json")
    other = write_script(cli, [{"text": "from the request's model"}], "other.json")
    cli.env["QUORUM_MODEL"] = "scripted:configured.json"  # the flag wins over the configuration, as for run
    server = Server(cli, "-m", chosen)
    try:
        listing = server.http.get("/v1/models").json()
        assert listing["default"] == chosen
        assert {"provider": "scripted", "model": chosen, "source": "configured"} in listing["items"]
        assert {"provider": "test", "model": "test", "source": "offline"} in listing["items"]
        assert {"provider": "scripted", "model": "scripted:demo", "source": "offline"} in listing["items"]
        assert _run_model(server, {"task": "hi"}) == chosen
        assert _run_model(server, {"task": "hi", "model": other}) == other  # a request's model still wins
    finally:
        assert server.stop() == 0
    assert f"quorum serve: model {chosen} (the runs' default; the page can choose another)\n" in server.stderr


def test_with_no_model_a_run_is_refused_with_the_servers_advice(cli: Cli) -> None:
    server = Server(cli)  # no model configured, no provider key
    try:
        listing = server.http.get("/v1/models").json()
        assert listing["default"] is None
        assert [row["model"] for row in listing["items"]] == ["test", "scripted:demo"]  # offline: no key needed
        refused = server.http.post("/v1/runs", json={"task": "hi"})
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_request"
        message = refused.json()["error"]["message"]
        assert message.startswith("no model configured. Choose one in the page's Model list")
        assert (
            "quorum serve --model provider:model" in message
            and 'set `model = "provider:model"` in quorum.toml' in message
        )
        assert "Name one with --model" not in message  # the command line's advice: serve's flag is not run's
        assert server.runs() == []
    finally:
        assert server.stop() == 0
    assert any(line.startswith("quorum serve: no model configured: choose one") for line in server.stderr)


def test_the_cli_passes_the_model_on_and_a_flag_that_does_not_resolve_is_refused(cli: Cli) -> None:
    cli.write("quorum.toml", '[aliases]\nfast = "scripted:a.json"\n')
    server = Server(cli, "--model", "fast")  # an alias: resolved as quorum run resolves it
    try:
        assert server.http.get("/v1/models").json()["default"] == "scripted:a.json"
    finally:
        server.stop()
    cli.write(
        "quorum.toml",
        '[review]\nreviewers = ["openai:same", "anthropic:same"]\n',  # two providers know the bare name "same"
    )
    refused = cli("serve", "--port", "0", "--model", "same")
    assert refused.code == 2 and "ambiguous" in refused.stderr and "Traceback" not in refused.stderr
