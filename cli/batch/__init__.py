"""``quorum batch``: many tasks from a JSONL file, each its own run, bounded, resumable.

``tasks`` reads the file and runs tasks through an engine with bounded concurrency; ``engines``
gives each workspace its composition and the engine it chooses (local or Temporal, the
composition's ``RunEngine``); ``progress`` draws what the command shows. The command itself is
``quorum.cli.commands.batch``.
"""

__all__: list[str] = []
