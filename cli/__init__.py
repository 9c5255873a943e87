"""The ``quorum`` command line: its commands, the terminal renderer, the chat and batch runs.

A driver like the others, not the composition: a command that needs the application builds it
through ``quorum.composition`` (``quorum.cli.compose``), the one composition every driver runs on,
and no other driver is imported.
"""
