"""``quorum run`` with ``[agent] fallback_models``, as a subprocess against two scripted wire servers.

The primary (Anthropic answering 529, or an OpenAI-compatible server answering 503, each after the
SDK's one retry) hands the run to the fallback: ``model_fallback`` in ``--json``, a line in the
human output, the run ending ``end_turn`` on the fallback and priced at its own price; a 400 does
not fall back.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Cli
from tests.support.anthropic_server import anthropic_server
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Call, Fail, Turn

SOON = {"retry-after-ms": "1"}


@pytest.fixture
def servers() -> Iterator[dict[str, ScriptedHttpServer]]:
    started = {"anthropic": anthropic_server(), "openai": openai_server()}
    try:
        yield started
    finally:
        for server in started.values():
            server.stop()


def _configure(cli: Cli, servers: dict[str, ScriptedHttpServer], primary: str) -> tuple[str, str]:
    """Two instances, ``main`` of kind ``primary`` and ``spare`` of the other; returns their model ids."""
    spare = "openai" if primary == "anthropic" else "anthropic"

    def instance(name: str, kind: str, prices: tuple[float, float]) -> str:
        url = servers[kind].url + ("/v1" if kind == "openai" else "")
        return (
            f'[providers.{name}]\ntype = "{kind}"\nbase_url = "{url}"\napi_key = "x"\nmax_retries = 1\n'
            f"prices = {{ input_per_mtok = {prices[0]}, output_per_mtok = {prices[1]} }}\n"
        )

    cli.write(
        "quorum.toml",
        '[agent]\nfallback_models = ["spare:small"]\n\n'
        + instance("main", primary, (3.0, 15.0))
        + instance("spare", spare, (1.0, 5.0)),
    )
    return "main:big", "spare:small"


@pytest.mark.parametrize(
    ("primary", "failure", "reason"), [("anthropic", 529, "overloaded"), ("openai", 503, "server_error")]
)
def test_the_run_ends_on_the_fallback_with_a_model_fallback_event(
    cli: Cli, servers: dict[str, ScriptedHttpServer], primary: str, failure: int, reason: str
) -> None:
    main, spare = _configure(cli, servers, primary)
    cli.write("notes.txt", "hello from the notes\n")
    servers[primary].enqueue(Fail(failure, "Overloaded", headers=SOON), Fail(failure, "Overloaded", headers=SOON))
    backup = servers["openai" if primary == "anthropic" else "anthropic"]
    backup.enqueue(
        Turn(calls=(Call("id_1", "read_file", {"path": "notes.txt"}),), usage=(100, 10)),
        Turn(text="The notes say hello.", usage=(200, 20)),
    )

    result = cli("run", "--model", main, "--json", "--workspace", str(cli.workspace), "what do the notes say?")

    assert result.code == 0, result.stderr
    events = result.events()
    [moved] = [e for e in events if e["type"] == "model_fallback"]
    assert (moved["from"], moved["to"], moved["reason"], moved["reviewer"]) == (main, spare, reason, None)
    assert f"HTTP {failure} after 1 retries" in moved["detail"]
    finished = events[-1]
    assert (finished["stop_reason"], finished["output"]) == ("end_turn", "The notes say hello.")
    assert finished["cost"] == pytest.approx((300 * 1.0 + 30 * 5.0) / 1e6)  # the fallback's own price
    assert len(servers[primary].requests) == 2 and [b["model"] for b in backup.bodies()] == ["small", "small"]
    assert backup.remaining == 0


def test_the_human_output_says_which_model_answers(cli: Cli, servers: dict[str, ScriptedHttpServer]) -> None:
    main, spare = _configure(cli, servers, "anthropic")
    servers["anthropic"].enqueue(Fail(529, "Overloaded", headers=SOON), Fail(529, "Overloaded", headers=SOON))
    servers["openai"].enqueue(Turn(text="Hello.", usage=(10, 2)))

    result = cli("run", "--model", main, "--workspace", str(cli.workspace), "say hello")

    assert result.code == 0, result.stderr
    assert f"model {main} is overloaded: answering with {spare} from now on" in result.stderr
    assert result.stdout.strip() == "Hello."


def test_a_400_does_not_fall_back(cli: Cli, servers: dict[str, ScriptedHttpServer]) -> None:
    main, _ = _configure(cli, servers, "anthropic")
    servers["anthropic"].enqueue(Fail(400, "messages: field required"))

    result = cli("run", "--model", main, "--json", "--workspace", str(cli.workspace), "hi")

    assert result.code == 1, result.stderr
    events = result.events()
    assert [e for e in events if e["type"] == "model_fallback"] == []
    assert events[-1]["stop_reason"] == "error" and "messages: field required" in events[-1]["detail"]
    assert servers["openai"].requests == [] and "Traceback" not in result.stderr


def test_a_fallback_that_cannot_be_opened_is_said_before_the_run(cli: Cli) -> None:
    cli.write("quorum.toml", '[agent]\nfallback_models = ["nowhere:model"]\n')

    result = cli("run", "--model", "test", "--workspace", str(cli.workspace), "hi")

    assert result.code == 2, result.stderr
    assert "nowhere" in result.stderr and "Traceback" not in result.stderr


def test_a_reviewer_whose_model_answers_503_votes_through_its_fallback(
    cli: Cli, servers: dict[str, ScriptedHttpServer]
) -> None:
    ant, oai = servers["anthropic"], servers["openai"]
    cli.write(
        "quorum.toml",
        '[review]\nreviewers = [{ model = "main:judge", fallback = "spare:judge" }]\nhil_mode = "auto_reject"\n\n'
        f'[providers.main]\ntype = "openai"\nbase_url = "{oai.url}/v1"\napi_key = "x"\nmax_retries = 1\n\n'
        f'[providers.spare]\ntype = "anthropic"\nbase_url = "{ant.url}"\napi_key = "x"\nmax_retries = 1\n',
    )
    oai.enqueue(Fail(503, "Service Unavailable", headers=SOON), Fail(503, "Service Unavailable", headers=SOON))
    verdict = Call("v1", "submit_verdict", {"verdict": "approve", "reason": "a note in the workspace"})
    ant.enqueue(
        Turn(calls=(Call("w1", "write_file", {"path": "note.txt", "content": "hi\n"}),), usage=(10, 2)),  # the agent
        Turn(calls=(verdict,), usage=(30, 3)),  # the seat's fallback votes
        Turn(text="Written.", usage=(12, 2)),
    )

    result = cli("run", "--model", "spare:agent", "--json", "--workspace", str(cli.workspace), "write a note")

    assert result.code == 0, result.stderr
    events = result.events()
    [moved] = [e for e in events if e["type"] == "model_fallback"]
    assert (moved["from"], moved["to"], moved["reason"], moved["reviewer"]) == (
        "main:judge",
        "spare:judge",
        "server_error",
        "main:judge",
    )
    [review] = [e for e in events if e["type"] == "review"]
    assert review["approved"] and review["decided_by"] == "quorum"
    assert [(v["reviewer"], v["verdict"], v["model"]) for v in review["votes"]] == [
        ("main:judge", "approve", "spare:judge")
    ]
    assert (cli.workspace / "note.txt").read_text() == "hi\n"
    assert events[-1]["stop_reason"] == "end_turn" and events[-1]["usage"]["reviewer_input_tokens"] == 30
