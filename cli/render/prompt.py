"""The review question shares the terminal with the renderer: its status is hidden while a person is asked."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quorum.cli.render.human import HumanRenderer
    from quorum.infrastructure.plugins.contracts import LinePrompt
    from quorum.infrastructure.review.human import HumanAnswer, HumanPrompt, HumanRequest


class RendererPrompt:
    """A ``HumanPrompt`` that asks through ``inner`` with the renderer's live status out of the way.

    The call being reviewed is said first (the renderer may hold it back for a moment), so the
    question always follows the line that names the call.
    """

    def __init__(self, inner: HumanPrompt, renderer: HumanRenderer) -> None:
        self._inner = inner
        self._renderer = renderer

    async def ask(self, request: HumanRequest) -> HumanAnswer:
        self._renderer.flush()
        with self._renderer.suspended():
            return await self._inner.ask(request)


class RendererLinePrompt:
    """A ``LinePrompt`` (an MCP server's question) asked with the renderer's live status out of the way."""

    def __init__(self, inner: LinePrompt, renderer: HumanRenderer) -> None:
        self._inner = inner
        self._renderer = renderer

    async def ask_line(self, shown: str, question: str) -> str | None:
        self._renderer.flush()
        with self._renderer.suspended():
            return await self._inner.ask_line(shown, question)
