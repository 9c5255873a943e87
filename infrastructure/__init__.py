"""Quorum's infrastructure: adapters to the outside world, each shipped as a pluggy plugin.

Providers (``providers/``), tools and MCP (``tools/``, ``mcp/``), review (``review/``), run
storage (``storage/``), the plugin system itself (``plugins/``) and configuration (``config/``).
Only ``quorum.composition`` assembles them.
"""
