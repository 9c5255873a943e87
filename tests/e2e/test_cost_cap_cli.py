"""``[agent] max_cost_usd`` from the CLI: an unpriced model is said to be uncapped, a stop exits 3."""

from __future__ import annotations

import json
from types import SimpleNamespace

from quorum.cli.render.words import outcome
from quorum.cli.run_setup import exit_code
from quorum.domain.events import RunFinished
from quorum.domain.responses import RunUsage
from tests.e2e.conftest import Cli
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Turn


def test_a_cap_on_a_model_without_prices_is_said_to_be_unenforceable(cli: Cli) -> None:
    cli.write("quorum.toml", "[agent]\nmax_cost_usd = 0.01\n")
    cli.write("s.json", json.dumps({"turns": [{"text": "hi", "usage": {"input_tokens": 7, "output_tokens": 2}}]}))
    result = cli("run", "--model", "scripted:s.json", "say hi")
    assert result.code == 0, result.stderr
    assert "max_cost_usd cannot be enforced: the prices of scripted:s.json are unknown" in result.stderr


def test_a_max_cost_stop_exits_3_and_is_worded() -> None:
    stopped = SimpleNamespace(stop_reason="max_cost", run_id="r", detail="")
    assert exit_code(stopped, as_json=True) == 3
    event = RunFinished(
        stop_reason="max_cost",
        turns=2,
        output="",
        usage=RunUsage(),
        detail="the cost cap of $0.5 was reached ($0.6000 spent)",
    )
    assert outcome(event) == "stopped: the cost cap of $0.5 was reached ($0.6000 spent)"


def test_chat_max_cost_caps_the_session_and_cost_shows_it(cli: Cli) -> None:
    spent = {"input_tokens": 70, "output_tokens": 2}
    cli.write("s.json", json.dumps({"turns": [{"text": "first answer", "usage": spent}, {"text": "second answer"}]}))
    result = cli("chat", "--model", "scripted:s.json", "--max-cost", "0.5", input="one\n/cost\n")
    assert result.code == 0, result.stderr
    assert "cost: $0.0000 + 1 run(s) of unknown price of the session's cap $0.5" in result.stdout
    assert "max_cost_usd cannot be enforced" in result.stderr
    assert "cost:" in cli("chat", "--model", "scripted:s.json", input="/cost\n").stdout


def test_chat_context_shows_the_tokens_and_compact_summarizes_the_conversation(cli: Cli) -> None:
    # The scripted model answers by the number of user messages it sees: the summary request has one.
    turns = [{"text": "ok"}, {"text": "fine"}, {"text": "after"}]
    cli.write("c.json", json.dumps({"conversation": "continue", "turns": turns}))
    cli.write("quorum.toml", "[agent]\ncontext_window = 50000\n")
    typed = "long " + "y" * 4000 + "\nshort\n/context\n/compact\n/context\ntwo\n"
    result = cli("chat", "--model", "scripted:c.json", input=typed)
    assert result.code == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("context")]
    assert lines[0].startswith("context: ~1,0") and "of 50,000 (2%); compaction auto, at 80%" in lines[0]
    assert lines[1].startswith("context compacted: ~1,0") and "(3 messages; the run log keeps them whole)" in lines[1]
    assert lines[2].startswith("context: ~") and "(0%)" in lines[2]
    assert result.stdout.count("● run") == 0 and result.stderr.count("● run") == 3  # "two" ran after it


def test_chat_usage_counts_the_tokens_of_a_compact_summary(cli: Cli) -> None:
    # The scripted model answers by the number of user messages it sees: the summary request has
    # one, so it is answered (and spends) like the first message.
    turns = [
        {"text": "ok", "usage": {"input_tokens": 100, "output_tokens": 10}},
        {"text": "fine", "usage": {"input_tokens": 20, "output_tokens": 2}},
    ]
    cli.write("c.json", json.dumps({"conversation": "continue", "turns": turns}))
    typed = "long " + "y" * 4000 + "\nshort\n/usage\n/compact\n/usage\n"
    result = cli("chat", "--model", "scripted:c.json", input=typed)
    assert result.code == 0, result.stderr
    before, after = [line for line in result.stdout.splitlines() if line.startswith("this session:")]
    assert "2 runs · agent 132 tokens (120 in, 12 out)" in before
    assert "2 runs · agent 242 tokens (220 in, 22 out)" in after  # the summary's 100 in, 10 out


def test_a_cap_says_which_reviewer_model_has_no_prices(cli: Cli, openai_wire: ScriptedHttpServer) -> None:
    # The agent's model is priced; the reviewer's is not: the cap cannot cover what the panel spends.
    cli.write(
        "quorum.toml",
        '[agent]\nmax_cost_usd = 1.0\n[review]\nreviewers = ["scripted:judge.json"]\n'
        f'[providers.local]\ntype = "openai"\nbase_url = "{openai_wire.url}/v1"\napi_key = "k"\n'
        "prices = { input_per_mtok = 1.0, output_per_mtok = 4.0 }\n",
    )
    cli.write("judge.json", json.dumps({"turns": [{"text": "no calls to judge"}]}))
    openai_wire.enqueue(Turn(text="hi"))
    result = cli("run", "--model", "local:m", "say hi")
    assert result.code == 0, result.stderr
    assert "max_cost_usd cannot be enforced: the prices of scripted:judge.json are unknown" in result.stderr
    assert "the prices of local:m" not in result.stderr
