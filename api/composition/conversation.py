"""``Conversation``: a chain of recorded runs, each continuing the one before (``quorum chat``, an editor session).

Each message a person sends is one recorded run whose parent is the run before it (as
``--continue`` records it). The conversation is rebuilt from each run's events, so it stays valid
for every provider (a cancelled turn's unanswered calls are answered "cancelled") and can switch
models mid-way: ``switch_model`` checks now that the new model's provider can serve it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from quorum.application.history import join_histories, rebuild_history
from quorum.domain.messages import Message

if TYPE_CHECKING:
    from quorum.composition.container import Container


@dataclass
class Conversation:
    """The messages so far, the runs that produced them (oldest first), and the model going on.

    ``resumed_from`` is the recorded run the conversation continued (``--resume``, ``/resume``,
    ``session/load``); its history is the starting point, and it is the parent of the first run.
    ``model`` is the model the next run uses (None: the configured one).
    """

    history: tuple[Message, ...] = ()
    run_ids: list[str] = field(default_factory=list)
    resumed_from: str | None = None
    model: str | None = None

    @property
    def parent_run_id(self) -> str | None:
        """The run the next message continues (recorded as its parent), if any."""
        return self.run_ids[-1] if self.run_ids else self.resumed_from

    def add_run(self, run_id: str, events: Iterable[object]) -> None:
        """Append what run ``run_id`` said and did (its events, in emission order)."""
        self.history = tuple(join_histories([list(self.history), rebuild_history(events)]))
        self.run_ids.append(run_id)

    @classmethod
    def resumed(cls, run_id: str, history: Iterable[Message], model: str | None = None) -> Conversation:
        """A conversation going on from the recorded run ``run_id``."""
        return cls(history=tuple(history), resumed_from=run_id, model=model)

    def switch_model(self, container: Container | Any, wanted: str) -> str:
        """Go on with ``wanted`` (an alias or ``provider:model``); returns the model id it names.

        Raises:
            UsageError: an unknown or ambiguous name; a provider that cannot serve it (a missing
                key) is said now, not at the next message. The model is unchanged then.
        """
        from quorum.composition.model_choice import choose_model

        gateway = container.gateway()
        model_id: str = gateway.resolve(choose_model(wanted, container.env()))
        gateway.session(model_id, None)
        self.model = model_id
        return model_id
