"""``RedactingObserver``: no run event leaves the loop carrying a known secret value or unwritable text."""

from __future__ import annotations

from quorum.application.ports.observer import RunObserver
from quorum.domain.events import ReasoningEvent, RunEvent, ToolResultEvent
from quorum.domain.secrets import Redactor
from quorum.domain.text import map_strings, valid_unicode


class RedactingObserver:
    """A ``RunObserver`` that replaces secret values in every string of every event, then forwards it.

    Tool outputs are redacted earlier (before the model sees them); this catches what the loop
    does not produce itself: a provider error echoing a key in ``run_finished``'s ``detail``, a
    reviewer's failure in a vote's reason, a key the user pasted into the task, a command's live
    output line in a ``progress`` message. A ``tool_result`` changed here is flagged ``redacted``,
    and so is a ``reasoning`` event (the run log then does not send it back). Lone surrogates (a
    model's JSON may escape one, U+D800), which no UTF-8 sink can write, become U+FFFD first, so
    renderers and the run log never fail on an event.
    """

    def __init__(self, observer: RunObserver, redactor: Redactor) -> None:
        self._observer = observer
        self._redactor = redactor

    def on_event(self, event: RunEvent) -> None:
        writable, rewritten = map_strings(event, valid_unicode)
        clean, redacted = self._redactor.data(writable)
        if redacted and isinstance(clean, ToolResultEvent):
            clean = clean.model_copy(update={"redacted": True})
        if (redacted or rewritten) and isinstance(clean, ReasoningEvent):
            clean = clean.model_copy(update={"redacted": True})  # no longer what the provider signed
        self._observer.on_event(clean)
