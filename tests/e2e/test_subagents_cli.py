"""Subagents end to end: ``quorum run`` delegating to two subagents over the OpenAI wire (issue 37).

One scripted OpenAI-compatible server answers every model; a request goes to the script of the
model it names (``parent``, ``child-a``, ``child-b``), so the parent and its children can talk to
it at once. Each child's first request waits at a barrier until the other child's has arrived:
both delegations were in flight together, or the barrier breaks and the test fails.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import Cli
from tests.support.http_server import JsonReply, Recorded, Reply, ScriptedHttpServer
from tests.support.openai_server import render
from tests.support.script import Call, Turn

BARRIER_BOUND = 30.0
"""Longest a child waits for the other one at the barrier (a bound, not a synchronisation)."""


class ByModel:
    """A render answering each request from the script of the model it names."""

    def __init__(self, scripts: dict[str, list[Turn]], together: set[str]) -> None:
        self.scripts = {model: deque(turns) for model, turns in scripts.items()}
        self.barrier = threading.Barrier(len(together), timeout=BARRIER_BOUND) if together else None
        self.together = set(together)
        self.met: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, item: Any, request: Recorded) -> Reply:
        model = (request.body or {}).get("model", "")
        with self.lock:
            first = model in self.together
            self.together.discard(model)
            turn = self.scripts[model].popleft() if self.scripts.get(model) else None
        if turn is None:
            return JsonReply(400, {"error": {"message": f"no turn left for {model}", "type": "script"}})
        if first and self.barrier is not None:
            try:
                self.barrier.wait()
            except threading.BrokenBarrierError:
                return JsonReply(400, {"error": {"message": "the children did not run together", "type": "script"}})
            with self.lock:
                self.met.append(model)
        return render(turn, request)


@pytest.fixture
def wire() -> Iterator[list[ScriptedHttpServer]]:
    holder: list[ScriptedHttpServer] = []
    yield holder
    for server in holder:
        server.stop()


def start(wire: list[ScriptedHttpServer], router: ByModel) -> ScriptedHttpServer:
    server = ScriptedHttpServer(router).start()
    server.enqueue(*(["any"] * 50))  # items are ignored: the router picks the turn by model
    wire.append(server)
    return server


def configure(cli: Cli, server: ScriptedHttpServer, extra: str = "") -> None:
    cli.write(
        "quorum.toml",
        f'model = "local:parent"\n\n[providers.local]\ntype = "openai"\nbase_url = "{server.url}/v1"\n'
        'api_key = "k"\nmax_retries = 0\n'
        "prices = { input_per_mtok = 1.0, output_per_mtok = 2.0 }\n\n"
        '[agents.finder]\ndescription = "Finds files by name"\nmodel = "local:child-b"\n'
        'tools = ["*_search"]\nprompt = "You are finder B."\n' + extra,
    )
    cli.write(
        ".quorum/agents/reader.md",
        "---\ndescription: Reads files and reports what they say\nmodel: local:child-a\n"
        "tools: [read_file]\nmax_tool_turns: 3\n---\nYou are reader A.\n",
    )


def tool_names(body: dict[str, Any]) -> list[str]:
    return sorted(tool["function"]["name"] for tool in body.get("tools") or [])


def system_of(body: dict[str, Any]) -> str:
    return str(body["messages"][0]["content"]) if body["messages"][0]["role"] == "system" else ""


def test_two_read_only_delegations_run_together_and_their_answers_are_the_results(cli: Cli, wire: list) -> None:
    cli.write("notes.txt", "hello from the notes\n")
    router = ByModel(
        {
            "parent": [
                Turn(
                    calls=(
                        Call("d1", "delegate", {"agent": "reader", "task": "what do the notes say?"}),
                        Call("d2", "delegate", {"agent": "finder", "task": "find the notes file"}),
                    ),
                    usage=(100, 10),
                ),
                Turn(text="The notes say hello; they are notes.txt.", usage=(200, 20)),
            ],
            "child-a": [
                Turn(calls=(Call("a1", "read_file", {"path": "notes.txt"}),), usage=(30, 3)),
                Turn(text="A: they say hello", usage=(40, 4)),
            ],
            "child-b": [Turn(text="B: notes.txt", usage=(50, 5))],
        },
        together={"child-a", "child-b"},
    )
    server = start(wire, router)
    configure(cli, server)

    result = cli("run", "--json", "--workspace", str(cli.workspace), "summarise the notes")

    assert result.code == 0, result.stderr
    assert sorted(router.met) == ["child-a", "child-b"]  # both first requests were in flight together
    bodies = server.bodies()
    by_model: dict[str, list[dict[str, Any]]] = {}
    for body in bodies:
        by_model.setdefault(body["model"], []).append(body)
    assert [tool_names(b) for b in by_model["child-a"]] == [["read_file"]] * 2
    assert [tool_names(b) for b in by_model["child-b"]] == [["glob_search", "grep_search"]]
    assert {system_of(b) for b in by_model["child-a"]} == {"You are reader A."}
    assert {system_of(b) for b in by_model["child-b"]} == {"You are finder B."}
    assert "delegate" in tool_names(by_model["parent"][0])
    results = {m["tool_call_id"]: m["content"] for m in by_model["parent"][1]["messages"] if m["role"] == "tool"}
    assert results == {"d1": "A: they say hello", "d2": "B: notes.txt"}

    events = result.events()
    parent_id = events[0]["run_id"]
    finished = events[-1]
    assert finished["type"] == "run_finished" and "run_id" not in finished
    assert (finished["usage"]["input_tokens"], finished["usage"]["output_tokens"]) == (420, 42)
    assert finished["cost"] == pytest.approx((420 * 1.0 + 42 * 2.0) / 1e6)
    children = {e["run_id"] for e in events if e["type"] == "run_started" and e["run_id"] != parent_id}
    assert len(children) == 2
    tagged = [e for e in events if e.get("run_id") in children and e["type"] == "tool_call"]
    assert [e["name"] for e in tagged] == ["read_file"]

    listed = [json.loads(line) for line in cli("logs", "list", "--json").stdout.splitlines()]
    assert {run["run_id"] for run in listed if run["parent_run_id"] == parent_id} == children
    assert {run["subagent"] for run in listed if run["run_id"] in children} == {"reader", "finder"}
    shown = cli("logs", "show", parent_id)
    assert shown.code == 0 and "↳ reader" in shown.stdout and "↳ finder" in shown.stdout
    marked = cli("logs", "list").stdout
    assert "↳ reader what do the notes say?" in marked and "↳ finder find the notes file" in marked
    child = cli("logs", "show", sorted(children)[0]).stdout
    assert f"delegated: by {parent_id} to subagent" in child


def test_a_child_is_held_by_the_parents_deny_rule_and_knows_only_its_tools(cli: Cli, wire: list) -> None:
    router = ByModel(
        {
            "parent": [
                Turn(calls=(Call("d1", "delegate", {"agent": "writer", "task": "write secret.txt"}),)),
                Turn(text="done"),
            ],
            "child-w": [
                Turn(calls=(Call("w1", "write_file", {"path": "secret.txt", "content": "x"}),)),
                Turn(calls=(Call("w2", "run_command", {"command": "touch x"}),)),
                Turn(calls=(Call("w3", "delegate", {"agent": "finder", "task": "again"}),)),
                Turn(text="I could not write it"),
            ],
        },
        together=set(),
    )
    server = start(wire, router)
    configure(
        cli,
        server,
        '\n[agents.writer]\ndescription = "Writes files"\nmodel = "local:child-w"\ntools = ["write_file"]\n'
        '\n[[review.rules]]\ndecision = "deny"\ntool = "write_file"\nmatch = { path = "secret.txt" }\n'
        'reason = "secrets stay unwritten"\n'
        '\n[[review.rules]]\ndecision = "allow"\ntool = "delegate"\nreason = "delegations are fine"\n',
    )

    result = cli("run", "--workspace", str(cli.workspace), "write the secret")

    assert result.code == 0, result.stderr
    assert result.stdout.strip() == "done"  # the child's words are its result, not the run's answer
    assert "    ↳ write_file rejected: " in result.stderr and "    ↳ subagent finished: end_turn" in result.stderr
    assert not (cli.workspace / "secret.txt").exists()
    child = [b for b in server.bodies() if b["model"] == "child-w"]
    assert tool_names(child[0]) == ["write_file"]
    answers = [{m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"} for body in child[1:]]
    assert "secrets stay unwritten" in answers[0]["w1"]
    assert "unknown tool" in answers[1]["w2"].lower() and "run_command" in answers[1]["w2"]
    assert "unknown tool" in answers[2]["w3"].lower() and "delegate" in answers[2]["w3"]
    parent = [b for b in server.bodies() if b["model"] == "parent"]
    [delegated] = [m["content"] for m in parent[1]["messages"] if m["role"] == "tool"]
    assert delegated == "I could not write it"


def test_quorum_agents_list_names_each_definition_and_a_bad_one_is_said_clearly(cli: Cli) -> None:
    cli.write(".quorum/agents/reader.md", "---\ndescription: Reads files\ntools: [read_file]\n---\nYou read.\n")
    cli.write("quorum.toml", '[agents.finder]\ndescription = "Finds files"\n')

    listed = cli("agents", "list", "--json")

    assert listed.code == 0, listed.stderr
    agents = {a["name"]: a for a in listed.events()}
    assert agents["reader"]["tools"] == ["read_file"] and agents["reader"]["risk"] == "low"
    assert agents["finder"]["tools"] == ["read_file", "glob_search", "grep_search", "list_dir"]
    human = cli("agents", "list")
    assert "reader" in human.stdout and "Finds files" in human.stdout

    cli.write(".quorum/agents/broken.md", "---\ndescription: [unclosed\n---\nbody\n")
    broken = cli("agents", "list")
    assert broken.code == 2 and "broken.md" in broken.stderr and "YAML" in broken.stderr
    assert "Traceback" not in broken.stderr
    ran = cli("run", "--model", "test", "hi")
    assert ran.code == 2 and "broken.md" in ran.stderr and "Traceback" not in ran.stderr


def test_a_delegation_that_may_write_is_reviewed_first_and_a_rejected_one_never_starts(cli: Cli, wire: list) -> None:
    router = ByModel(
        {
            "parent": [
                Turn(calls=(Call("d1", "delegate", {"agent": "writer", "task": "write out.txt"}),)),
                Turn(text="it was not allowed"),
            ],
            "child-w": [Turn(calls=(Call("w1", "write_file", {"path": "out.txt", "content": "x"}),))],
        },
        together=set(),
    )
    server = start(wire, router)
    configure(
        cli, server, '\n[agents.writer]\ndescription = "Writes"\nmodel = "local:child-w"\ntools = ["write_file"]\n'
    )

    result = cli("run", "--json", "--workspace", str(cli.workspace), "write out.txt")

    assert result.code == 0, result.stderr
    events = result.events()
    [call] = [e for e in events if e["type"] == "tool_call"]
    assert (call["name"], call["risk"]) == ("delegate", "high")
    [review] = [e for e in events if e["type"] == "review"]
    assert review["call_id"] == "d1" and review["approved"] is False
    assert [b["model"] for b in server.bodies()] == ["parent", "parent"]  # the child never started
    assert not (cli.workspace / "out.txt").exists()
    assert [e for e in events if e.get("run_id") not in (None, events[0]["run_id"])] == []
