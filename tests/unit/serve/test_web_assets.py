"""The web page's files as shipped: nothing that parses HTML, nothing from another origin."""

from __future__ import annotations

import re
from importlib.resources import files

import pytest

pytest.importorskip("starlette")


def _text(name: str) -> str:
    return files("quorum.serve").joinpath("static", name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["app.js", "markdown.js"])
def test_the_scripts_never_parse_html_nor_evaluate_strings(name: str) -> None:
    script = _text(name)
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in script, sink


def test_every_asset_the_page_names_is_its_own_and_served() -> None:
    from quorum.serve.web import ASSETS, PAGE_PATHS

    page = _text("index.html")
    named = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert named and all(url.startswith("/ui/") for url in named), named
    assert set(named) <= PAGE_PATHS
    assert not re.search(r"https?://", page + _text("app.css"))
    assert all(_text(name) for name in ASSETS)
