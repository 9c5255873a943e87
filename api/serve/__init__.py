"""``quorum.serve``: the HTTP driver (``quorum serve``), beside the CLI and the Python API.

Runs, their event streams and people's approvals over HTTP (decision 130). It sits on
``quorum.composition`` like every driver and imports neither ``quorum.cli`` nor ``quorum.agent``.
Starlette and uvicorn are imported only when the server starts (``python -m quorum.serve``).
"""
