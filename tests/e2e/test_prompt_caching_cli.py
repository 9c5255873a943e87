"""Prompt caching through ``quorum run`` as a subprocess: one cache key across ``--continue``, the
cache's tokens and cost the same in the run's events, ``quorum logs`` and the human summary."""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import Cli
from tests.support.anthropic_server import anthropic_server
from tests.support.openai_server import openai_server
from tests.support.script import Call, Turn

PRICES = (
    "prices = { input_per_mtok = 3.0, output_per_mtok = 15.0, cache_read_per_mtok = 0.3, cache_write_per_mtok = 3.75 }"
)


def _configure(cli: Cli, kind: str, url: str) -> None:
    cli.write(
        "quorum.toml",
        f'[providers.local]\ntype = "{kind}"\nbase_url = "{url}"\napi_key = "x"\nmax_retries = 0\n{PRICES}\n',
    )


def _cost(usage: dict[str, int]) -> float:
    read, write = usage["cache_read_input_tokens"], usage["cache_write_input_tokens"]
    plain = usage["input_tokens"] - read - write
    return (plain * 3.0 + read * 0.3 + write * 3.75 + usage["output_tokens"] * 15.0) / 1e6


def test_a_continued_openai_run_keeps_the_cache_key_and_prices_cached_tokens(cli: Cli) -> None:
    server = openai_server()
    try:
        _configure(cli, "openai", server.url + "/v1")
        server.enqueue(
            Turn(calls=(Call("c1", "list_dir", {}),), usage=(1500, 10), cache=(0, 0)),
            Turn(text="Two files.", usage=(1600, 5), cache=(1408, 0)),
            Turn(text="Still two.", usage=(1700, 4), cache=(1536, 0)),
        )
        first = cli("run", "--model", "local:gpt-x", "--json", "--workspace", str(cli.workspace), "what is here?")
        second = cli("run", "--continue", "--json", "--workspace", str(cli.workspace), "sure?")
        bodies = server.bodies()
    finally:
        server.stop()

    assert first.code == 0 and second.code == 0, (first.stderr, second.stderr)
    keys = {body.get("prompt_cache_key") for body in bodies}
    assert len(bodies) == 3 and len(keys) == 1 and None not in keys
    usage = first.events()[-1]["usage"]
    assert (usage["input_tokens"], usage["cache_read_input_tokens"], usage["cache_write_input_tokens"]) == (
        3100,
        1408,
        0,
    )
    assert first.events()[-1]["cost"] == pytest.approx(_cost(usage), abs=1e-9)
    assert second.events()[-1]["usage"]["cache_read_input_tokens"] == 1536


def test_anthropic_cache_tokens_are_the_same_in_the_run_the_logs_and_the_summary(cli: Cli) -> None:
    server = anthropic_server()
    try:
        _configure(cli, "anthropic", server.url)
        server.enqueue(
            Turn(calls=(Call("t1", "list_dir", {}),), usage=(30, 10), cache=(0, 2000)),
            Turn(text="Two files.", usage=(12, 5), cache=(2000, 60)),
        )
        run = cli("run", "--model", "local:claude-x", "--json", "--workspace", str(cli.workspace), "what is here?")
        bodies = server.bodies()
    finally:
        server.stop()

    assert run.code == 0, run.stderr
    assert all("cache_control" in json.dumps(body) for body in bodies)
    finished = run.events()[-1]
    assert (finished["usage"]["cache_read_input_tokens"], finished["usage"]["cache_write_input_tokens"]) == (2000, 2060)
    assert finished["usage"]["input_tokens"] == 42 + 2000 + 2060
    assert finished["cost"] == pytest.approx(_cost(finished["usage"]), abs=1e-9)
    listed = [json.loads(line) for line in cli("logs", "list", "--json").stdout.splitlines()]
    assert [r["usage"] for r in listed] == [finished["usage"]] and [r["cost"] for r in listed] == [finished["cost"]]
    human = cli("logs", "show", "last").stdout
    assert "2,000 from cache, 2,060 to cache" in human
