"""Real Chromium for the web page's tests: Debian's ``chromium`` driven by Playwright for Python.

A machine without Playwright or the browser skips those tests with the reason; under CI
(``CI=true``), which installs both (``.ci/run``), they fail instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = ("/usr/bin/chromium", "chromium", "chromium-browser")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(reason + " (CI must install it: see .ci/run)")
    pytest.skip(reason)


def chromium_path() -> str:
    """The browser's executable (skips or fails when there is none)."""
    for name in CHROMIUM:
        found = shutil.which(name)
        if found:
            return found
    _missing("no chromium on this machine")
    raise AssertionError("unreachable")


@contextmanager
def chromium() -> Iterator[Any]:
    """A launched headless Chromium (a Playwright ``Browser``), closed on exit."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright for Python is not installed")
    path = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()
