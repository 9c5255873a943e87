"""``quorum chat``: an interactive session over the same runs as ``quorum run``.

- ``conversation`` — the conversation so far and what this session spent (pure).
- ``slash`` — the slash commands: names, help, parsing, completion candidates (pure).
- ``line_input`` — the prompt_toolkit input line (history file, keys, completion).
- ``session`` — ``ChatSession``: one recorded run per message, Ctrl+C per turn, slash commands.
"""
