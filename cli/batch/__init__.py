"""``quorum batch``: many tasks from a JSONL file, each its own run, bounded, resumable.

``tasks`` reads the file and runs tasks through an engine with bounded concurrency; ``engines``
holds the local engine (this process) and the Temporal seam; ``progress`` draws what the command
shows. The command itself is ``quorum.cli.commands.batch``.
"""

__all__: list[str] = []
