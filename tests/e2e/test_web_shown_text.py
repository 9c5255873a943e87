"""What the web page shows a person deciding, in real Chromium (issue 32): bidi controls in a call are
made visible as their escape (``\\u202e``) in the card and the log, as on the terminal, and the
"Always" button states its scope in visible text (a tooltip cannot be read on a phone)."""

from __future__ import annotations

from tests.e2e.test_web_ui import Open, Served, browser, script, served, write_call  # noqa: F401

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


def test_bidi_controls_in_a_call_are_shown_escaped_in_its_card(served: Served, browser: Open) -> None:  # noqa: F811
    cli, _ = served
    script(cli, [write_call("invoice\u202etxt.exe", f"run {BIDI}me\n"), {"text": "written"}])
    web = browser(width=375)
    web.send("write the invoice")
    card = web.page.locator(".card")
    card.wait_for()
    card.locator("details").first.evaluate("node => { node.open = true; }")  # the arguments, shown
    shown = card.inner_text() + web.page.locator(".tool").inner_text()
    assert not any(char in shown for char in BIDI), [hex(ord(c)) for c in shown if c in BIDI]
    assert "invoice\\u202etxt.exe" in card.locator(".diff").inner_text()
    assert "invoice\\u202etxt.exe" in card.locator("pre.args").inner_text()
    assert "\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061cme" in shown
    card.get_by_role("button", name="Approve", exact=True).click()
    web.ends(1)
    assert (cli.workspace / "invoice\u202etxt.exe").read_text() == f"run {BIDI}me\n"  # the call itself unchanged


def test_the_always_buttons_scope_is_visible_text(served: Served, browser: Open) -> None:  # noqa: F811
    cli, _ = served
    script(cli, [write_call("d/a.txt", "a\n"), {"text": "written"}])
    web = browser(width=375)
    web.send("write a file")
    card = web.page.locator(".card")
    card.wait_for()
    always = card.get_by_role("button", name="Always")
    text = always.inner_text()
    assert "write_file in " in text and "rest of this run" in text, text
    assert always.evaluate("node => node.scrollWidth <= node.clientWidth + 1")  # wrapped, not cut, at 375 px
    assert web.page.evaluate("document.documentElement.scrollWidth") <= 375
