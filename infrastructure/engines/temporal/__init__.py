"""The Temporal engine: a run as a workflow, its model requests, tool calls, votes and log writes as activities.

``messages`` (what crosses the workflow boundary) imports no SDK; ``workflow``, ``activities``,
``worker`` and ``client`` import ``temporalio`` and are imported only when the engine is used.
See docs/decisions/110-temporal-engine-ports.md.
"""
