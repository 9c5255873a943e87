"""``quorum run --output-schema``: the human output, with stdout holding only the checked JSON document.

The model's text is not the output of such a run: an answer may fail the check and be asked for
again, so nothing it writes reaches stdout as it streams. When the run ends ``end_turn`` its
output, the JSON document that matched the schema, is written to stdout once, on one line; every
other stop leaves stdout empty (the final line on stderr says why, as ever).
"""

from __future__ import annotations

import json

from quorum.cli.render.human import HumanRenderer
from quorum.domain.events import RunFinished, TextDelta
from quorum.infrastructure.terminal_text import printable


def shown_document(document: str) -> str:
    """``document`` as stdout gets it: as is, or re-encoded as ASCII when a terminal would obey some of it.

    Both are the same JSON value: characters a terminal obeys become JSON's ``u`` escapes.
    """
    if printable(document) == document:
        return document
    try:
        return json.dumps(json.loads(document))
    except ValueError:  # not JSON after all (redacted?): escaped, as any other text
        return printable(document)


class DocumentRenderer(HumanRenderer):
    """A ``HumanRenderer`` whose stdout gets the run's checked output only (see the module docstring)."""

    def _on_text_held(self, event: TextDelta) -> None:
        """An answer is not the output until it passed the check: nothing reaches stdout."""

    def _on_document(self, event: RunFinished) -> None:
        HumanRenderer._on_run_finished(self, event.model_copy(update={"output": ""}))
        if event.stop_reason == "end_turn" and event.output:
            self._out.write(shown_document(event.output) + "\n")
            self._out.flush()


DocumentRenderer.HANDLERS = {
    **HumanRenderer.HANDLERS,
    TextDelta: DocumentRenderer._on_text_held,
    RunFinished: DocumentRenderer._on_document,
}
