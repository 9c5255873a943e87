"""The web page of ``quorum serve`` in real Chromium, against a real server process and a scripted model.

Every wait is Playwright's waiting on a locator (or the stream's messages through the API): no
sleeps, no timing asserts. Hostile content is checked through the DOM: no dialog, no element it
would have added, no script run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import Server
from tests.support.browser import chromium

pytest.importorskip("starlette")

ARTIFACTS = Path(__file__).resolve().parents[2] / ".artifacts"
"""Screenshots the suite keeps (gitignored); the docs' image is refreshed with QUORUM_DOCS_IMAGES=1."""
DOCS_IMAGE = Path(__file__).resolve().parents[2] / "docs" / "images" / "web-ui.png"
WAIT_MS = 60_000
PAYLOADS = (
    "<script>window.pwned = 1</script>",
    "<img src=x onerror=window.pwned=2>",
    '<a href="javascript:window.pwned=3">click</a>',
    "[link](javascript:window.pwned=4)",
)


@dataclass
class Browser:
    """A page on the server, the dialogs it opened and every URL it requested."""

    page: Any
    server: Server
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def open(self) -> None:
        self.page.goto(f"{self.server.base}/#token={self.server.token}")
        self.page.get_by_role("button", name="Send").wait_for()
        assert self.page.get_by_label("Token").is_hidden()  # the token came with the address

    def send(self, text: str) -> None:
        box = self.page.get_by_label("Message")
        box.fill(text)
        box.press("Enter")

    def ends(self, count: int) -> Any:
        """The end lines of finished runs, once there are ``count``."""
        ends = self.page.locator(".end")
        ends.nth(count - 1).wait_for()
        return ends

    def assert_only_the_server_was_asked(self) -> None:
        assert self.requests and all(url.startswith(self.server.base + "/") for url in self.requests), self.requests
        assert self.dialogs == []


Served = tuple[Cli, list[Server]]
Open = Callable[..., Browser]


def script(cli: Cli, turns: list[dict[str, Any]], name: str = "chat.json") -> None:
    cli.write(name, json.dumps({"conversation": "continue", "turns": turns}))


def write_call(path: str, content: str, call_id: str = "w1") -> dict[str, Any]:
    call = {"name": "write_file", "arguments": {"path": path, "content": content}, "id": call_id}
    return {"text": "writing", "tool_calls": [call]}


@pytest.fixture
def served(cli: Cli) -> Iterator[tuple[Cli, list[Server]]]:
    """``cli`` with the scripted model as the server's model (the page sends tasks only); servers started."""
    cli.env["QUORUM_MODEL"] = "scripted:chat.json"
    servers: list[Server] = []
    yield cli, servers
    for server in servers:
        if server.proc.poll() is None:
            server.kill()


@pytest.fixture
def browser(served: tuple[Cli, list[Server]]) -> Iterator[Callable[..., Browser]]:
    """Opens the page of a new server in real Chromium, ``width`` pixels wide."""
    cli, servers = served
    with chromium() as chrome:

        def open_page(width: int = 1100) -> Browser:
            servers.append(Server(cli))
            context = chrome.new_context(viewport={"width": width, "height": 900})
            page = context.new_page()
            page.set_default_timeout(WAIT_MS)
            seen = Browser(page, servers[-1])
            page.on("request", lambda request: seen.requests.append(request.url))
            page.on("dialog", lambda dialog: (seen.dialogs.append(dialog.message), dialog.dismiss()))
            seen.open()
            return seen

        yield open_page


def test_two_messages_continue_one_conversation(served: Served, browser: Open) -> None:
    cli, _ = served
    script(cli, [{"text": "the **first** answer"}, {"text": "the second answer, `in code`"}])
    web = browser()
    assert "token" not in web.page.url  # kept in the tab's session storage, out of the address bar
    web.send("hello")
    web.ends(1)
    web.page.get_by_role("button", name="Send").click()  # an empty box sends nothing
    web.page.get_by_label("Message").fill("and again")
    web.page.get_by_role("button", name="Send").click()
    ends = web.ends(2)
    assert ends.count() == 2 and "end_turn" in ends.nth(1).inner_text()
    assert web.page.locator(".msg.user").all_inner_texts() == ["hello", "and again"]
    answers = web.page.locator(".msg.assistant")
    assert answers.nth(0).locator("strong").inner_text() == "first"
    assert answers.nth(1).locator("code").inner_text() == "in code"
    first, second = web.server.runs()[::-1]
    assert second["parent_run_id"] == first["run_id"]  # the second message continued the first run
    web.page.get_by_role("button", name="Open run: hello (end_turn)").wait_for()
    web.assert_only_the_server_was_asked()


def test_a_run_opened_from_the_history_is_replayed_and_continued(served: Served, browser: Open) -> None:
    cli, _ = served
    script(cli, [{"text": "an old answer"}, {"text": "a new answer"}])
    web = browser()
    web.send("old question")
    web.ends(1)
    web.page.get_by_role("button", name="New chat").click()
    assert web.page.locator(".msg").count() == 0
    web.page.get_by_role("button", name="Open run: old question (end_turn)").click()
    web.ends(1)
    assert web.page.locator(".msg").all_inner_texts() == ["old question", "an old answer"]  # replayed once
    web.send("go on")
    web.ends(2)
    assert web.page.locator(".msg.assistant").nth(1).inner_text() == "a new answer"
    old, new = web.server.runs()[::-1]
    assert new["parent_run_id"] == old["run_id"]


def test_a_write_approved_from_its_card_after_its_diff_was_shown(served: Served, browser: Open) -> None:
    cli, _ = served
    cli.write("notes.txt", "keep\nold line\n")
    script(cli, [write_call("notes.txt", "keep\nnew line\n"), {"text": "written"}])
    web = browser(width=375)
    web.send("change the notes")
    card = web.page.locator(".card")
    card.wait_for()
    assert card.evaluate("node => node === document.activeElement")  # focus moved to the card
    diff = card.locator(".diff span").all_inner_texts()
    assert "-old line" in diff and "+new line" in diff and " keep" in diff
    assert card.evaluate("node => node.scrollWidth <= document.documentElement.clientWidth")  # fits 375 px
    assert web.page.evaluate("document.documentElement.scrollWidth") <= 375  # no sideways scrolling
    ARTIFACTS.mkdir(exist_ok=True)
    web.page.screenshot(path=str(ARTIFACTS / "web-ui-375.png"), full_page=True)
    if os.environ.get("QUORUM_DOCS_IMAGES"):  # refresh the docs' image (docs/web-ui.md)
        web.page.screenshot(path=str(DOCS_IMAGE), full_page=True)
    assert (cli.workspace / "notes.txt").read_text() == "keep\nold line\n"
    card.get_by_role("button", name="Approve", exact=True).click()
    web.ends(1)
    assert card.count() == 0
    assert (cli.workspace / "notes.txt").read_text() == "keep\nnew line\n"
    assert "done" in web.page.locator(".tool.ok").inner_text()
    web.assert_only_the_server_was_asked()


def test_a_write_rejected_with_a_reason_the_model_receives(served: Served, browser: Open) -> None:
    cli, _ = served
    script(cli, [write_call("out.txt", "x\n"), {"text": "understood"}])
    web = browser()
    web.send("write out.txt")
    card = web.page.locator(".card")
    assert "new file" in card.locator(".diff").inner_text()
    card.get_by_label("Reason (optional)").fill("not in this folder")
    card.get_by_role("button", name="Reject").click()
    web.ends(1)
    assert not (cli.workspace / "out.txt").exists()
    run_id = web.server.runs()[0]["run_id"]
    results = [m.data for m in web.server.events(run_id) if m.type == "tool_result"]
    assert results[0]["is_rejected"] and "not in this folder" in results[0]["output"]  # what the model read
    assert "not in this folder" in web.page.locator(".tool.rejected").inner_text()


def test_always_then_a_second_matching_call_runs_without_a_card(served: Served, browser: Open) -> None:
    cli, _ = served
    script(cli, [write_call("a.txt", "a\n"), write_call("b.txt", "b\n", "w2"), {"text": "both written"}])
    web = browser()
    web.send("write two files")
    web.page.locator(".card").get_by_role("button", name="Always").click()
    web.ends(1)
    assert (cli.workspace / "a.txt").read_text() == "a\n" and (cli.workspace / "b.txt").read_text() == "b\n"
    run_id = web.server.runs()[0]["run_id"]
    events = list(web.server.events(run_id))
    assert [m.data["call_id"] for m in events if m.type == "approval_requested"] == ["w1"]  # one card only
    review = next(m.data for m in events if m.type == "review" and m.data["call_id"] == "w2")
    assert review["approved"] and "always approve write_file" in review["reason"]
    assert web.page.locator(".tool.ok").count() == 2


def test_a_decision_made_elsewhere_removes_the_card(served: Served, browser: Open) -> None:
    cli, _ = served
    script(cli, [write_call("e.txt", "e\n"), {"text": "decided elsewhere"}])
    web = browser()
    web.send("write e.txt")
    web.page.locator(".card").wait_for()
    run_id = web.server.runs()[0]["run_id"]
    assert web.server.decide(run_id, "w1", approve=True).status_code == 200  # as another tab or a script would
    web.ends(1)
    assert web.page.locator(".card").count() == 0
    assert (cli.workspace / "e.txt").read_text() == "e\n"


def test_a_failed_run_and_a_lost_connection_are_shown(served: Served, browser: Open) -> None:
    cli, servers = served
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "nothing.txt"}, "id": "r1"}]}
    script(cli, [read])  # the script runs out at the second request: the run ends with an error
    web = browser()
    web.send("read it")
    error = web.page.get_by_role("alert")
    error.filter(has_text="The run ended error").wait_for()
    assert "scripted" in error.inner_text()  # the run's detail

    script(cli, [write_call("k.txt", "k\n"), {"text": "after the restart"}])
    web.page.get_by_role("button", name="New chat").click()
    web.send("write k.txt")
    web.page.locator(".card").wait_for()
    web.server.kill()
    error.filter(has_text="Connection lost").wait_for()
    servers.append(Server(cli, port=web.server.port))  # the same address, the same token (data dir)
    web.page.locator("#error[hidden]").wait_for(state="attached")  # reconnected: the message is gone
    web.page.locator(".card").get_by_role("button", name="Approve", exact=True).click()
    web.page.get_by_text("after the restart").wait_for()
    assert (cli.workspace / "k.txt").read_text() == "k\n"
    assert web.page.locator(".tool").count() == 1 and web.page.locator(".msg.user").count() == 1


def test_a_reload_mid_run_picks_the_run_up_without_an_event_twice(served: Served, browser: Open) -> None:
    cli, _ = served
    script(cli, [write_call("a.txt", "a\n"), {"text": "done after reload"}])
    web = browser()
    web.send("write a.txt")
    web.page.locator(".card").wait_for()
    web.page.reload()
    card = web.page.locator(".card")
    card.get_by_role("button", name="Approve", exact=True).click()
    web.ends(1)
    assert web.page.locator(".msg.user").all_inner_texts() == ["write a.txt"]
    assert web.page.locator(".tool").count() == 1
    assert web.page.locator(".msg.assistant").all_inner_texts() == ["writing", "done after reload"]
    assert (cli.workspace / "a.txt").read_text() == "a\n"


def test_hostile_model_output_and_file_contents_are_text(served: Served, browser: Open) -> None:
    cli, _ = served
    hostile = "\n\n".join(PAYLOADS)
    cli.write("evil.html", hostile + "\n")
    script(
        cli,
        [
            {"text": hostile, "tool_calls": [{"name": "read_file", "arguments": {"path": "evil.html"}, "id": "r1"}]},
            write_call("<img src=x onerror=window.pwned=5>.txt", hostile, "w2"),
            {"text": "the end " + hostile},
        ],
    )
    web = browser()
    web.send(hostile)
    card = web.page.locator(".card")
    card.wait_for()
    assert "<script>window.pwned = 1</script>" in card.locator(".diff").inner_text()  # shown, as text
    card.get_by_role("button", name="Reject").click()
    web.ends(1)
    page = web.page
    assert page.evaluate("window.pwned") is None
    assert page.locator("main script, main img, main iframe, main [onerror]").count() == 0
    assert page.locator("a[href^='javascript']").count() == 0
    assert page.locator("#log a").count() == 0  # no link at all: none of the payloads is an http(s) link
    assert "<script>" in page.locator(".tool").first.inner_text()  # the read file's output, as text
    assert "<img src=x" in page.locator(".msg.user").inner_text()
    web.assert_only_the_server_was_asked()


def test_a_plan_is_drawn_as_a_numbered_list_and_approved_from_its_card(served: Served, browser: Open) -> None:
    cli, _ = served
    cli.env["QUORUM_AGENT__PLAN"] = "always"  # [agent] plan = "always": the page's messages plan first
    plan = {
        "summary": "Write the notes",
        "steps": [
            {"description": "Write notes.txt", "files": ["notes.txt"]},
            {"description": "Show <b>them</b>", "commands": ["cat notes.txt"]},
        ],
    }
    proposal = {"text": "my plan", "tool_calls": [{"name": "propose_plan", "arguments": plan, "id": "p1"}]}
    script(cli, [proposal, write_call("notes.txt", "planned\n"), {"text": "written"}])
    web = browser()
    web.send("write the notes")
    card = web.page.locator(".card")
    card.wait_for()
    assert card.locator("h3").inner_text() == "Approve this plan?"
    assert web.page.locator(".msg.plan li").all_inner_texts()[0].startswith("Write notes.txt")
    assert web.page.locator(".msg.plan b").count() == 0  # step text is text, never markup
    assert "proposed plan:" in card.locator(".diff").inner_text()
    card.get_by_role("button", name="Approve", exact=True).click()
    write_card = web.page.locator('.card[data-call-id="w1"]')
    write_card.wait_for()  # approving the plan approved no call: the write has its own card
    assert not (cli.workspace / "notes.txt").exists()
    write_card.get_by_role("button", name="Approve", exact=True).click()
    web.ends(1)
    assert (cli.workspace / "notes.txt").read_text() == "planned\n"
    web.assert_only_the_server_was_asked()


def test_the_model_list_preselects_the_default_and_a_chosen_model_runs(served: Served, browser: Open) -> None:
    cli, _ = served
    cli.write("quorum.toml", '[aliases]\nother = "scripted:other.json"\n')
    script(cli, [{"text": "from the default model"}])
    script(cli, [{"text": "from the chosen model"}], "other.json")
    web = browser()
    select = web.page.get_by_label("Model", exact=True)
    select.locator("option[value='scripted:chat.json']").wait_for(state="attached")
    values = select.locator("option").evaluate_all("options => options.map(o => o.value)")
    assert values == ["scripted:chat.json", "scripted:other.json", "test", "scripted:demo", "other"]
    assert select.input_value() == "scripted:chat.json"  # the server's default (QUORUM_MODEL), preselected
    assert select.locator("option[value='test']").inner_text() == "test (offline)"
    select.select_option("scripted:other.json")
    web.send("which model?")
    web.ends(1)
    assert web.page.locator(".msg.assistant").inner_text() == "from the chosen model"
    run_id = web.server.runs()[0]["run_id"]
    started = next(m.data for m in web.server.events(run_id) if m.type == "run_started")
    assert started["model"] == "scripted:other.json"
    web.page.reload()  # the choice is kept for the tab
    select.locator("option[value='test']").wait_for(state="attached")
    assert select.input_value() == "scripted:other.json"
    web.assert_only_the_server_was_asked()


def test_with_no_model_the_page_says_how_to_set_one_then_runs_the_offline_demo(served: Served, browser: Open) -> None:
    cli, _ = served
    del cli.env["QUORUM_MODEL"]  # a newcomer's server: no model configured, no key
    cli.write("README.md", "# a project\n")
    web = browser()
    select = web.page.get_by_label("Model", exact=True)
    select.locator("option[value='scripted:demo']").wait_for(state="attached")
    assert select.input_value() == "" and select.locator("option").first.inner_text() == "Choose a model"
    web.send("summarise this project")
    error = web.page.get_by_role("alert").filter(has_text="no model configured")
    error.wait_for()
    text = error.inner_text()
    assert "Model list" in text and "quorum serve --model" in text and "Name one with --model" not in text
    assert web.server.runs() == []
    select.select_option("scripted:demo")
    web.page.get_by_role("button", name="Send").click()  # the message is still in the box
    web.page.locator(".card").wait_for()  # the demo's reviewed write
    run = web.server.runs()[0]
    assert run["model"] == "scripted:demo" and run["task"] == "summarise this project"
    started = next(m.data for m in web.server.until_waiting(run["run_id"]) if m.type == "run_started")
    assert started["model"] == "scripted:demo"
    assert web.page.get_by_role("alert").is_hidden()  # the advice went with the next send


def test_reasoning_is_folded_apart_from_the_answer_and_drawn_as_text(served: Served, browser: Open) -> None:
    cli, _ = served
    thought = "Considering <img src=x onerror=window.pwned=6> first.\nThen the answer."
    script(cli, [{"reasoning": thought, "text": "The answer."}])
    web = browser()
    web.send("think")
    web.ends(1)
    page = web.page
    folded = page.locator("details.reasoning")
    assert folded.count() == 1 and folded.get_attribute("open") is None  # folded until opened
    assert page.locator(".msg.assistant").inner_text() == "The answer."  # the reasoning is not the answer
    folded.locator("summary").click()
    assert folded.locator("pre").inner_text() == thought  # as text
    assert page.evaluate("window.pwned") is None and page.locator("main img").count() == 0
    web.assert_only_the_server_was_asked()
