"""``CommandProgress``: which line a running command reports, how it is cleaned, and coalescing."""

from __future__ import annotations

import asyncio

from quorum.domain.secrets import Redactor, Secret
from quorum.infrastructure.tools.shell.progress import LINE_KEEP, CommandProgress

KEY = "sk-live-0123456789abcdef"


def latest(*chunks: bytes, secrets: tuple[Secret, ...] = (), width: int = 120) -> str:
    progress = CommandProgress(lambda _: None, redactor=Redactor(secrets), width=width)
    feed = progress.feeder()
    for chunk in chunks:
        feed(chunk)
    return progress.message()


def test_the_latest_non_empty_line_wins_across_chunks() -> None:
    assert latest(b"") == ""
    assert latest(b"one\ntwo\n\n   \n") == "two"
    assert latest(b"one\ntw", b"o and a half\n") == "two and a half"
    assert latest(b"done\nbuilding the wh") == "building the wh"  # a line still being written counts


def test_a_carriage_return_progress_bar_shows_its_latest_state() -> None:
    assert latest(b"downloading\n", b"\r 10%", b"\r 55%") == "55%"
    assert latest(b"\r 10%\r 20%\r") == "20%"


def test_colours_go_controls_are_escaped_whitespace_folds_and_the_line_is_cut() -> None:
    assert latest(b"\x1b[1;32mok\x1b[0m   passed\x1b[K\n") == "ok passed"
    assert latest(b"\x1b]0;title\x07bell\x07 here\n") == "bell\\x07 here"
    assert latest(b"\xe2\x80\xaeevil\n") == "\\u202eevil"
    assert latest(b"x" * 300 + b"\n", width=20) == "x" * 19 + "…"


def test_utf8_split_between_chunks_is_decoded_whole() -> None:
    euro = "€".encode()
    assert latest(b"price 3" + euro[:1], euro[1:] + b"\n") == "price 3€"


def test_a_secret_is_replaced_before_the_line_is_shortened() -> None:
    secret = Secret("API_KEY", KEY)
    line = b"x" * 100 + b" token=" + KEY.encode() + b" end\n"  # cut unredacted at 130, the key would be split
    shown = latest(line, secrets=(secret,), width=130)
    assert KEY not in shown and KEY[:10] not in shown and "[REDACTED:API_KEY]" in shown
    cut = latest(b"token=" + KEY.encode() + b"\n", secrets=(secret,), width=16)
    assert cut == "token=[REDACTED…" and "sk-" not in cut


def test_an_unfinished_line_holds_back_what_may_be_the_start_of_a_secret() -> None:
    secret = Secret("API_KEY", KEY)
    assert latest(b"token=" + KEY[:12].encode(), secrets=(secret,)) == "token="
    assert latest(b"token=" + KEY[:12].encode(), KEY[12:].encode(), secrets=(secret,)) == "token=[REDACTED:API_KEY]"
    assert latest(b"plain text", secrets=(secret,)) == "plain text"


def test_an_endless_line_is_held_to_a_bounded_size() -> None:
    progress = CommandProgress(lambda _: None)
    feed = progress.feeder()
    for _ in range(100):
        feed(b"y" * 65536)
    assert progress.message() == "y" * 119 + "…"
    assert len(progress._latest[0]) == LINE_KEEP  # type: ignore[index]


async def test_lines_arriving_between_reports_are_coalesced_into_the_latest() -> None:
    reported: list[str] = []
    first = asyncio.Event()

    def report(message: str) -> None:
        reported.append(message)
        first.set()

    progress = CommandProgress(report, interval=3600)  # after the first report, no second within the test
    feed = progress.feeder()
    reporter = asyncio.create_task(progress.run())
    try:
        feed(b"a\nb\n")
        feed(b"c\n")  # all before the reporter runs: one report, the latest line
        await first.wait()
        feed(b"d\n")
        await asyncio.sleep(0)  # give the reporter every chance to (wrongly) report again
        await asyncio.sleep(0)
    finally:
        reporter.cancel()
    assert reported == ["c"]
    assert progress.message() == "d"


async def test_a_failing_report_stops_reporting_without_raising() -> None:
    def report(message: str) -> None:
        raise RuntimeError("observer broke")

    progress = CommandProgress(report, interval=0)
    progress.feeder()(b"line\n")
    await asyncio.wait_for(progress.run(), 10)  # returns instead of raising
