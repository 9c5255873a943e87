"""The Undo button of a finished run on the web page, in real Chromium: the plan first (file names
as text, never markup), a confirmation, then the files restored; a conflict names the files."""

from __future__ import annotations

from tests.e2e.test_web_ui import Open, Served, browser, script, served, write_call  # noqa: F401

HOSTILE = "<img src=x onerror=window.pwned=7>.txt"


def test_undo_shows_a_hostile_file_name_as_text_then_removes_the_file(served: Served, browser: Open) -> None:  # noqa: F811
    cli, _ = served
    script(cli, [write_call(HOSTILE, "x\n"), {"text": "written"}])
    web = browser()
    web.send("write it")
    card = web.page.locator(".card")
    card.wait_for()
    card.get_by_role("button", name="Approve", exact=True).click()
    web.ends(1)
    assert (cli.workspace / HOSTILE).exists()
    web.page.get_by_role("button", name="Undo").click()
    plan = web.page.locator(".undo-plan")
    plan.wait_for()
    assert HOSTILE in plan.inner_text()  # the name, as text
    assert web.page.evaluate("window.pwned") is None
    assert web.page.locator("main img, main script, main [onerror]").count() == 0
    assert (cli.workspace / HOSTILE).exists()  # shown, not applied yet
    web.page.get_by_role("button", name="Apply undo").click()
    web.page.locator(".undone").wait_for()
    assert not (cli.workspace / HOSTILE).exists()
    assert web.page.evaluate("window.pwned") is None
    web.assert_only_the_server_was_asked()


def test_undo_names_a_file_changed_since_the_run_and_changes_nothing(served: Served, browser: Open) -> None:  # noqa: F811
    cli, _ = served
    script(cli, [write_call("<b>n</b>.txt", "x\n"), {"text": "written"}])
    web = browser()
    web.send("write it")
    card = web.page.locator(".card")
    card.wait_for()
    card.get_by_role("button", name="Approve", exact=True).click()
    web.ends(1)
    cli.write("<b>n</b>.txt", "by hand\n")
    web.page.get_by_role("button", name="Undo").click()
    conflicts = web.page.locator(".undo-conflicts")
    conflicts.wait_for()
    assert "<b>n</b>.txt" in conflicts.inner_text()
    assert web.page.locator("main b").count() == 0
    assert (cli.workspace / "<b>n</b>.txt").read_text() == "by hand\n"
