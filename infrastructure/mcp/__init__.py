"""MCP servers as a tool source (the ``quorum.mcp`` plugin).

- ``source.McpToolSource`` — one ``ToolSource`` over every ``[mcp.servers.NAME]``.
- ``connection.McpServerConnection`` — one server: start deadline, death, one restart, list changes.
- ``naming``, ``results``, ``cache`` — tool names, result conversion, the on-disk tool-list cache.
- ``server_tools``, ``stderr_log`` — tools as a server describes them; a stdio server's stderr.
- ``pins``, ``pin_gate`` — pinned tool definitions (trust on first use); what a changed tool withholds.
- ``tasks`` — task-augmented tool calls (create, follow, result, cancel).
- ``plugin`` — registers the ``mcp`` source factory.

The ``mcp`` SDK is imported only when a server starts; nothing here imports it at module level.
"""
