"""The plans the end-to-end tests of plan mode propose: one, and its revision after a rejection."""

PLAN = {
    "summary": "Fix the typo in hello.txt",
    "steps": [
        {"description": "Rewrite hello.txt with the typo fixed", "files": ["hello.txt"]},
        {"description": "Show the result", "commands": ["cat hello.txt"]},
    ],
}
REVISED = {
    "summary": "Fix the typo, keeping a backup",
    "steps": [
        {"description": "Copy hello.txt to hello.bak", "files": ["hello.bak"]},
        {"description": "Rewrite hello.txt with the typo fixed", "files": ["hello.txt"]},
    ],
}
